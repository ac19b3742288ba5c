package main

import (
	"sync/atomic"
	"testing"
	"time"
)

func TestWatchParentExitsOnlyWhenReparented(t *testing.T) {
	parentPollInterval = time.Millisecond
	var ppid atomic.Int64
	ppid.Store(4242)
	getppid = func() int { return int(ppid.Load()) }
	exited := make(chan struct{})
	go watchParent(4242, func() { close(exited) })
	select {
	case <-exited:
		t.Fatal("exited while the parent lives")
	case <-time.After(50 * time.Millisecond):
	}
	ppid.Store(1)
	select {
	case <-exited:
	case <-time.After(time.Second):
		t.Fatal("did not exit after being re-parented")
	}
}

func TestWatchParentIgnoresInit(t *testing.T) {
	done := make(chan struct{})
	go func() { watchParent(1, func() { t.Error("exit called for a process started by init") }); close(done) }()
	select {
	case <-done:
	case <-time.After(time.Second):
		t.Fatal("watchParent(1) should return at once")
	}
}
