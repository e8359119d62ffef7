//go:build linux

package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
	"unsafe"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// setFileSizeLimit sets the soft file size limit (RLIMIT_FSIZE) of process
// pid with prlimit(2), which a process may do to another of its user's.
func setFileSizeLimit(t *testing.T, pid int, soft uint64) {
	t.Helper()
	var old syscall.Rlimit
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_FSIZE, 0, uintptr(unsafe.Pointer(&old)), 0, 0); errno != 0 {
		t.Fatalf("prlimit %d: %v", pid, errno)
	}
	lim := syscall.Rlimit{Cur: min(soft, old.Max), Max: old.Max}
	if _, _, errno := syscall.RawSyscall6(syscall.SYS_PRLIMIT64, uintptr(pid), syscall.RLIMIT_FSIZE, uintptr(unsafe.Pointer(&lim)), 0, 0, 0); errno != 0 {
		t.Fatalf("prlimit %d: %v", pid, errno)
	}
}

// TestFullDiskAnswersAsEtcdOutOfSpace fills the "disk" under a running
// command (its file size limit, set from outside with prlimit: the Go
// runtime ignores SIGXFSZ, so writes get EFBIG) and checks that a write
// that cannot be stored is answered as kube-apiserver answers etcd's
// NOSPACE (500, "etcdserver: mvcc: database space exceeded", no reason)
// and changes nothing, that reads and watches keep working, and that once
// there is room again writes work, at newer resourceVersions, and survive
// a restart.
func TestFullDiskAnswersAsEtcdOutOfSpace(t *testing.T) {
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	kc := filepath.Join(dir, "kc")
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--kubeconfig", kc)
	client := clientFor(t, readFile(t, kc))
	ctx := context.Background()
	cms := client.CoreV1().ConfigMaps("default")
	cm := func(name, v string) *corev1.ConfigMap {
		return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": v, "pad": strings.Repeat("x", 64<<10)}}
	}
	kept, err := cms.Create(ctx, cm("kept", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	doomed, err := cms.Create(ctx, cm("doomed", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	before, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: before.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	// The disk is full: nothing beyond the store's two meta pages (and
	// the start of any other file) can be written.
	setFileSizeLimit(t, p.cmd.Process.Pid, 8192)
	for _, tc := range []struct {
		name  string
		write func() error
	}{
		{"create", func() error { _, err := cms.Create(ctx, cm("new", "1"), metav1.CreateOptions{}); return err }},
		{"update", func() error {
			u := kept.DeepCopy()
			u.Data["v"] = "2"
			_, err := cms.Update(ctx, u, metav1.UpdateOptions{})
			return err
		}},
		{"patch", func() error {
			_, err := cms.Patch(ctx, "kept", "application/merge-patch+json", []byte(`{"data":{"v":"3"}}`), metav1.PatchOptions{})
			return err
		}},
		{"delete", func() error { return cms.Delete(ctx, "doomed", metav1.DeleteOptions{}) }},
	} {
		if err := tc.write(); !isNoSpace(err) {
			t.Errorf("%s on a full disk: %#v, want 500 %q", tc.name, err, "etcdserver: mvcc: database space exceeded")
		}
	}
	// Reads work and nothing changed.
	after, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list on a full disk: %v", err)
	}
	if after.ResourceVersion != before.ResourceVersion || fmt.Sprint(names(after.Items)) != fmt.Sprint(names(before.Items)) {
		t.Errorf("list on a full disk: %v at %s, want %v at %s", names(after.Items), after.ResourceVersion, names(before.Items), before.ResourceVersion)
	}
	for _, want := range []*corev1.ConfigMap{kept, doomed} {
		got, err := cms.Get(ctx, want.Name, metav1.GetOptions{})
		if err != nil || got.ResourceVersion != want.ResourceVersion || got.Data["v"] != want.Data["v"] {
			t.Errorf("get %s on a full disk: %v, want it unchanged at %s", want.Name, err, want.ResourceVersion)
		}
	}
	if _, err := cms.Get(ctx, "new", metav1.GetOptions{}); err == nil {
		t.Errorf("the create refused on a full disk is there")
	}
	w2, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: before.ResourceVersion})
	if err != nil {
		t.Fatalf("watch on a full disk: %v", err)
	}
	defer w2.Stop()

	// Room again.
	setFileSizeLimit(t, p.cmd.Process.Pid, ^uint64(0))
	created, err := cms.Create(ctx, cm("new", "1"), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create once there is room: %v", err)
	}
	if err := cms.Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatalf("delete once there is room: %v", err)
	}
	if parseRV(t, "create", created.ResourceVersion) <= parseRV(t, "list", before.ResourceVersion) {
		t.Errorf("create once there is room at %s, not after %s", created.ResourceVersion, before.ResourceVersion)
	}
	// Both watches (the one open throughout, the one opened on the full
	// disk) see exactly the writes made once there was room.
	for i, wi := range []watch.Interface{w, w2} {
		var got []string
		for len(got) < 2 {
			select {
			case ev, ok := <-wi.ResultChan():
				if !ok {
					t.Fatalf("watch %d ended", i)
				}
				got = append(got, fmt.Sprintf("%s %s", ev.Type, ev.Object.(*corev1.ConfigMap).Name))
			case <-time.After(30 * time.Second): // a hang guard
				t.Fatalf("watch %d: %v, then nothing", i, got)
			}
		}
		if want := "[ADDED new DELETED doomed]"; fmt.Sprint(got) != want {
			t.Errorf("watch %d: %v, want %s", i, got, want)
		}
	}

	if err := p.signal(t, os.Interrupt, 30*time.Second); err != nil {
		t.Fatalf("exit after SIGINT: %v", err)
	}
	p2 := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--kubeconfig", kc)
	client = clientFor(t, readFile(t, kc))
	list, err := client.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(names(list.Items)); got != "[kept kube-root-ca.crt new]" && got != "[kept new]" {
		t.Errorf("after a restart: %s, want kept and new", got)
	}
	if err := p2.signal(t, os.Interrupt, 30*time.Second); err != nil {
		t.Errorf("exit after SIGINT: %v", err)
	}
}

// names lists the objects' names.
func names(items []corev1.ConfigMap) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}
