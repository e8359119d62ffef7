//go:build unix

package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// lockKubeconfig takes an exclusive lock on path+".lock" for as long as the
// command runs, so that a second fakeplane told to write the same kubeconfig
// is refused instead of overwriting the first one's. The lock goes with the
// process, so a killed fakeplane leaves nothing to clean up.
func lockKubeconfig(path string) (unlock func(), err error) {
	lockPath := path + ".lock"
	f, err := os.OpenFile(lockPath, os.O_RDWR|os.O_CREATE, 0o600)
	if err != nil {
		return nil, fmt.Errorf("lock %s: %w", lockPath, err)
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid, _ := os.ReadFile(lockPath)
		f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			owner := "another fakeplane"
			if p := strings.TrimSpace(string(pid)); p != "" {
				owner += " (pid " + p + ")"
			}
			return nil, fmt.Errorf("%s is writing %s; stop it, or pass --kubeconfig to write another file", owner, filepath.Base(path))
		}
		return nil, fmt.Errorf("lock %s: %w", lockPath, err)
	}
	_ = f.Truncate(0)
	_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	return func() {
		_ = os.Remove(lockPath)
		f.Close()
	}, nil
}
