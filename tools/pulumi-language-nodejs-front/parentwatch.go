package main

import (
	"os"
	"sync"
	"time"
)

// parentPollInterval is how often the front checks that the engine that started it is still its parent.
var parentPollInterval = 500 * time.Millisecond

// getppid is os.Getppid, replaceable in tests.
var getppid = os.Getppid

// children are the processes this front started that must not outlive it: the vendor host and any policy
// pack started through RunPlugin.
var children = struct {
	sync.Mutex
	procs map[*os.Process]struct{}
}{procs: map[*os.Process]struct{}{}}

// adopt records a started process so that exitWithParent kills it; the returned func forgets it again.
func adopt(p *os.Process) (forget func()) {
	children.Lock()
	children.procs[p] = struct{}{}
	children.Unlock()
	return func() {
		children.Lock()
		delete(children.procs, p)
		children.Unlock()
	}
}

// watchParent exits the process (after killing its children) once its parent is gone, which shows as a
// change of os.Getppid(): the orphan is re-parented to init or a subreaper. The engine that starts a language
// host never exits before stopping it, except when it is killed (SIGKILL included), which is what this is
// for. The parent's pid is a process (thread group) id, so a Go engine's threads coming and going never
// change it; Linux's PR_SET_PDEATHSIG, by contrast, fires when the parent *thread* that forked us exits,
// which in a Go parent may happen while the engine lives, so it is not used for the front itself.
// initial is the parent pid read at startup; nothing is watched when it is 1 (started by init: no engine to
// lose).
func watchParent(initial int, exit func()) {
	if initial <= 1 {
		return
	}
	for range time.Tick(parentPollInterval) {
		if getppid() != initial {
			exit()
			return
		}
	}
}

// exitWithParent kills the processes this front started and exits; the engine that would read any answer
// is gone, so nothing is flushed.
func exitWithParent() {
	children.Lock()
	for p := range children.procs {
		_ = p.Kill()
	}
	children.Unlock()
	os.Exit(1)
}
