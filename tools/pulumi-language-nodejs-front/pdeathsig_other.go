//go:build !linux

package main

import "os/exec"

// setParentDeathSignal is a no-op off Linux; the engine stops both processes.
func setParentDeathSignal(*exec.Cmd) {}
