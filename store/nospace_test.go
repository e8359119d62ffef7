//go:build linux

package store

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// noSpaceChildEnv makes the test binary run noSpaceChild (on the store file
// it names) instead of the tests: it lowers its own file size limit, which
// must not touch the test process.
const noSpaceChildEnv = "FAKEPLANE_STORE_NOSPACE_CHILD"

func TestMain(m *testing.M) {
	if path := os.Getenv(noSpaceChildEnv); path != "" {
		child := func(path string) error { return noSpaceChild(path, os.Getenv("FAKEPLANE_STORE_NOSYNC") == "true") }
		if os.Getenv("FAKEPLANE_STORE_DEFERRED") == "true" {
			child = noSpaceDeferredChild
		}
		if err := child(path); err != nil {
			fmt.Fprintln(os.Stderr, err)
			os.Exit(1)
		}
		fmt.Println("child: ok")
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// TestFailedCommitChangesNothing fills the "disk" (the process's file size
// limit, RLIMIT_FSIZE, with SIGXFSZ ignored so that writes fail with EFBIG
// instead of killing the process) under a store and checks that a write
// that cannot be stored fails with ErrNoSpace and changes nothing: no
// revision is consumed, no event is published, reads and lists keep
// working; and that once there is room again writes work, at the next
// revision, and survive a reopen. It runs in a child process.
func TestFailedCommitChangesNothing(t *testing.T) {
	for _, noSync := range []bool{false, true} {
		t.Run(fmt.Sprintf("NoSync=%v", noSync), func(t *testing.T) {
			runNoSpaceChild(t, fmt.Sprintf("FAKEPLANE_STORE_NOSYNC=%v", noSync))
		})
	}
}

// runNoSpaceChild runs this test binary as a child that fills its "disk"
// under a store in a new directory (see TestMain), with env added to its
// environment, and fails t unless the child reports no problem.
func runNoSpaceChild(t *testing.T, env ...string) {
	t.Helper()
	cmd := exec.Command(os.Args[0])
	cmd.Env = append(append(os.Environ(), noSpaceChildEnv+"="+filepath.Join(t.TempDir(), "db")), env...)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.HasSuffix(out, []byte("child: ok\n")) {
		t.Fatalf("child: %v\n%s", err, out)
	}
	t.Logf("%s", out)
}

// TestFailedDeferredCommitClosesTheStore fills the "disk" under a store
// with deferred commits (as TestFailedCommitChangesNothing does) and checks
// what a write that cannot be stored does there: it is published, and the
// commit that fails, the next read's, closes the store, with ErrNoSpace for
// that read and for the watches, and ErrClosed after. The file keeps what
// was committed before. It runs in a child process.
func TestFailedDeferredCommitClosesTheStore(t *testing.T) {
	runNoSpaceChild(t, "FAKEPLANE_STORE_DEFERRED=true")
}

// noSpaceDeferredChild is TestFailedDeferredCommitClosesTheStore's child
// process: it returns the problems it found, joined.
func noSpaceDeferredChild(path string) (err error) {
	var errs []error
	defer func() { err = errors.Join(append(errs, err)...) }()
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	signal.Ignore(syscall.SIGXFSZ)
	s, err := Open(path, Options{NoSync: true, DeferCommits: true, CompactionInterval: -1, deferDelay: time.Hour})
	if err != nil {
		return err
	}
	const res = "core/configmaps"
	put := func(key string, value []byte) error {
		_, _, err := s.Update(res, key, func(*Object) (Write, error) { return Write{Value: value}, nil })
		return err
	}
	for i := range 5 {
		if err := put(fmt.Sprintf("ns/k%d", i), []byte("v")); err != nil {
			return err
		}
	}
	if _, err := s.List(res, ListOptions{}); err != nil { // commits the five
		return err
	}
	w, err := s.Watch(context.Background(), res, WatchOptions{})
	if err != nil {
		return err
	}
	roomAgain, err := fillDisk()
	if err != nil {
		return err
	}
	if err := put("ns/new", bytes.Repeat([]byte("x"), 256<<10)); err != nil {
		fail("deferred create on a full disk: %v, want it published", err)
	}
	if _, err := s.List(res, ListOptions{}); !errors.Is(err, ErrNoSpace) {
		fail("list that commits on a full disk: %v, want ErrNoSpace", err)
	}
	if _, err := s.Get(res, "ns/k1"); !errors.Is(err, ErrClosed) {
		fail("get after the failed commit: %v, want ErrClosed", err)
	}
	if err := put("ns/other", []byte("v")); !errors.Is(err, ErrClosed) {
		fail("write after the failed commit: %v, want ErrClosed", err)
	}
	<-w.Events() // the create's event, published before its commit
	select {
	case ev, ok := <-w.Events():
		if ok {
			fail("an event after the failed commit: %+v", ev)
		}
	case <-time.After(10 * time.Second): // a hang guard
		return errors.New("the watch did not end")
	}
	if err := w.Err(); !errors.Is(err, ErrNoSpace) {
		fail("the watch ended with %v, want ErrNoSpace", err)
	}
	if err := s.Close(); err != nil {
		fail("close after the failed commit: %v", err)
	}
	if err := roomAgain(); err != nil {
		return err
	}
	s2, err := Open(path, Options{NoSync: true, CompactionInterval: -1})
	if err != nil {
		return fmt.Errorf("reopen: %v", err)
	}
	defer s2.Close()
	if l, err := s2.List(res, ListOptions{}); err != nil || len(l.Items) != 5 || l.Revision != 5 {
		fail("reopened: %v, %v; want the 5 committed at revision 5", l, err)
	}
	return nil
}

// fillDisk makes the "disk" full for the process: no page of a store
// beyond the two meta pages can be written (RLIMIT_FSIZE). roomAgain
// restores the limit.
func fillDisk() (roomAgain func() error, err error) {
	var limit syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_FSIZE, &limit); err != nil {
		return nil, err
	}
	full := limit
	full.Cur = 2 * uint64(os.Getpagesize())
	if err := syscall.Setrlimit(syscall.RLIMIT_FSIZE, &full); err != nil {
		return nil, err
	}
	return func() error { return syscall.Setrlimit(syscall.RLIMIT_FSIZE, &limit) }, nil
}

// noSpaceChild is TestFailedCommitChangesNothing's child process: it
// returns the problems it found, joined.
func noSpaceChild(path string, noSync bool) (err error) {
	var errs []error
	defer func() { err = errors.Join(append(errs, err)...) }()
	fail := func(format string, args ...any) { errs = append(errs, fmt.Errorf(format, args...)) }
	signal.Ignore(syscall.SIGXFSZ)
	s, err := Open(path, Options{NoSync: noSync, CompactionInterval: -1})
	if err != nil {
		return err
	}
	defer s.Close()
	const res = "core/configmaps"
	put := func(key string, value []byte) error {
		_, _, err := s.Update(res, key, func(*Object) (Write, error) { return Write{Value: value}, nil })
		return err
	}
	del := func(key string) error {
		_, _, err := s.Update(res, key, func(cur *Object) (Write, error) { return Write{Value: cur.Value, Delete: true}, nil })
		return err
	}
	// Enough history that a history batch is pending too.
	for i := range 50 {
		if err := put(fmt.Sprintf("ns/k%d", i%5), []byte(fmt.Sprintf("v%d", i))); err != nil {
			return err
		}
	}
	before, err := s.List(res, ListOptions{})
	if err != nil {
		return err
	}
	rev := s.CurrentRevision()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	w, err := s.Watch(ctx, res, WatchOptions{})
	if err != nil {
		return err
	}

	// The disk is full: no page beyond the two meta pages can be written.
	roomAgain, err := fillDisk()
	if err != nil {
		return err
	}
	big := bytes.Repeat([]byte("x"), 256<<10)
	for _, tc := range []struct {
		name  string
		write func() error
	}{
		{"create", func() error { return put("ns/new", big) }},
		{"update", func() error { return put("ns/k1", big) }},
		{"small update", func() error { return put("ns/k2", []byte("small")) }},
		{"delete", func() error { return del("ns/k3") }},
	} {
		err := tc.write()
		fmt.Printf("%s on a full disk: %v\n", tc.name, err)
		if !errors.Is(err, ErrNoSpace) {
			fail("%s on a full disk: %v, want ErrNoSpace", tc.name, err)
		}
		if got := s.CurrentRevision(); got != rev {
			fail("%s on a full disk: revision %d, want %d", tc.name, got, rev)
		}
	}
	select {
	case ev := <-w.Events():
		fail("a failed write was published: %s %s at %d", ev.Type, ev.Key, ev.Revision)
	default:
	}
	after, err := s.List(res, ListOptions{})
	if err != nil {
		return fmt.Errorf("list on a full disk: %v", err)
	}
	if fmt.Sprint(after) != fmt.Sprint(before) {
		fail("the state changed on a full disk:\n%v\nwant\n%v", after, before)
	}
	if _, err := s.Get(res, "ns/new"); !errors.Is(err, ErrNotFound) {
		fail("get of the failed create: %v, want ErrNotFound", err)
	}

	// Room again: writes work, at the next revisions, and are published.
	if err := roomAgain(); err != nil {
		return err
	}
	if err := put("ns/new", big); err != nil {
		return fmt.Errorf("create once there is room: %v", err)
	}
	if err := del("ns/k3"); err != nil {
		return fmt.Errorf("delete once there is room: %v", err)
	}
	for i, want := range []struct {
		typ EventType
		key string
	}{{Added, "ns/new"}, {Deleted, "ns/k3"}} {
		select {
		case ev := <-w.Events():
			if ev.Type != want.typ || ev.Key != want.key || ev.Revision != rev+int64(i)+1 {
				fail("event %d: %s %s at %d, want %s %s at %d", i, ev.Type, ev.Key, ev.Revision, want.typ, want.key, rev+int64(i)+1)
			}
		case <-time.After(10 * time.Second): // a hang guard
			return fmt.Errorf("event %d did not come", i)
		}
	}
	if err := s.Close(); err != nil {
		return err
	}
	s2, err := Open(path, Options{CompactionInterval: -1})
	if err != nil {
		return fmt.Errorf("reopen: %v", err)
	}
	defer s2.Close()
	if got := s2.CurrentRevision(); got != rev+2 {
		fail("revision after reopen %d, want %d", got, rev+2)
	}
	if o, err := s2.Get(res, "ns/new"); err != nil || !bytes.Equal(o.Value, big) {
		fail("ns/new after reopen: %v", err)
	}
	if o, err := s2.Get(res, "ns/k1"); err != nil || string(o.Value) != "v46" {
		fail("ns/k1 after reopen: %v %v, want v46", o, err)
	}
	// A list at a past revision reads the history written since.
	if l, err := s2.List(res, ListOptions{Revision: rev}); err != nil || fmt.Sprint(l.Items) != fmt.Sprint(before.Items) {
		fail("list at %d after reopen: %v %v, want %v", rev, l, err, before.Items)
	}
	return nil
}

// TestNoSpaceErrors checks which commit errors count as a full disk: the
// errnos of a write without room, wrapped (bbolt's page writes) or as text
// only (bbolt's "file resize error" when it grows the file).
func TestNoSpaceErrors(t *testing.T) {
	for _, tc := range []struct {
		err  error
		want bool
	}{
		{&os.PathError{Op: "write", Path: "db", Err: syscall.ENOSPC}, true},
		{&os.PathError{Op: "write", Path: "db", Err: syscall.EFBIG}, true},
		{&os.PathError{Op: "write", Path: "db", Err: syscall.EDQUOT}, true},
		{fmt.Errorf("file resize error: %s", syscall.ENOSPC), true},
		{fmt.Errorf("file resize error: %s", syscall.EFBIG), true},
		{&os.PathError{Op: "write", Path: "db", Err: syscall.EIO}, false},
		{errors.New("tx closed"), false},
	} {
		if got := errors.Is(noSpace(tc.err), ErrNoSpace); got != tc.want {
			t.Errorf("noSpace(%v) is ErrNoSpace: %v, want %v", tc.err, got, tc.want)
		}
	}
}
