package main

import (
	"os/exec"
	"syscall"
)

// setParentDeathSignal makes the vendor host exit with this process.
func setParentDeathSignal(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Pdeathsig: syscall.SIGKILL}
}
