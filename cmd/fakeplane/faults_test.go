package main

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
)

// killCycles is how many kill/restart cycles
// TestRepeatedSIGKILLLosesNoAcknowledgedWrite runs: 3, or
// FAKEPLANE_PERSIST_CYCLES.
func killCycles(t *testing.T) int {
	t.Helper()
	v := os.Getenv("FAKEPLANE_PERSIST_CYCLES")
	if v == "" {
		return 3
	}
	n, err := strconv.Atoi(v)
	if err != nil || n <= 0 {
		t.Fatalf("FAKEPLANE_PERSIST_CYCLES=%q: want a positive number", v)
	}
	return n
}

// ackedObject is what a client was last told of one ConfigMap.
type ackedObject struct {
	value   string // data["v"]
	rv      uint64
	deleted bool
	unborn  bool // its create was never answered
	// pending is the write sent and not answered when the process was
	// killed: it may or may not have been committed.
	pending *pendingWrite
}

// pendingWrite is a write without an answer.
type pendingWrite struct {
	value  string // for a create or an update
	delete bool
}

// TestRepeatedSIGKILLLosesNoAcknowledgedWrite kills the command with
// SIGKILL several times while clients create, update (with resourceVersion
// preconditions) and delete ConfigMaps, restarting it on the same data
// directory each time, and checks after every restart that each
// acknowledged write is there: acknowledged objects are present at the
// resourceVersion and value last answered (or at the write that was in
// flight at the kill, which may or may not have committed), acknowledged
// deletes are gone, nothing else appeared, and resourceVersions never go
// backwards across restarts.
func TestRepeatedSIGKILLLosesNoAcknowledgedWrite(t *testing.T) {
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	ctx := context.Background()
	objects := map[string]*ackedObject{} // name -> what was acknowledged
	var maxRV uint64                     // the newest resourceVersion any answer carried
	var totalAcked, totalLost int
	for cycle := range killCycles(t) {
		kc := filepath.Join(dir, fmt.Sprintf("kc-%d", cycle))
		p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--kubeconfig", kc)
		client := clientFor(t, readFile(t, kc))

		// What survived the last kill.
		if cycle > 0 {
			totalLost += checkSurvivors(t, ctx, client, cycle, objects, maxRV)
		}

		acked, inFlight := runWritersUntilKilled(t, ctx, client, p, cycle, objects)
		totalAcked += acked
		for _, o := range objects {
			maxRV = max(maxRV, o.rv)
		}
		t.Logf("cycle %d: %d writes acknowledged, %d in flight at SIGKILL", cycle, acked, inFlight)
	}
	// The last kill's survivors.
	kc := filepath.Join(dir, "kc-last")
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--kubeconfig", kc)
	totalLost += checkSurvivors(t, ctx, clientFor(t, readFile(t, kc)), killCycles(t), objects, maxRV)
	t.Logf("%d kills, %d acknowledged writes, %d lost", killCycles(t), totalAcked, totalLost)
	if err := p.signal(t, os.Interrupt, 30*time.Second); err != nil {
		t.Errorf("exit after SIGINT: %v", err)
	}
}

// checkSurvivors compares the ConfigMaps after a restart with what was
// acknowledged before the kill, settles the writes that were in flight by
// what it finds, and returns how many acknowledged writes were lost.
func checkSurvivors(t *testing.T, ctx context.Context, client *kubernetes.Clientset, cycle int, objects map[string]*ackedObject, maxRV uint64) int {
	t.Helper()
	list, err := client.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{LabelSelector: persistLabel})
	if err != nil {
		t.Fatalf("restart %d: list: %v", cycle, err)
	}
	if rv := parseRV(t, "list", list.ResourceVersion); rv < maxRV {
		t.Errorf("restart %d: list resourceVersion %d, older than %d answered before the kill", cycle, rv, maxRV)
	}
	found := map[string]*corev1.ConfigMap{}
	for i := range list.Items {
		found[list.Items[i].Name] = &list.Items[i]
	}
	lost := 0
	for name, o := range objects {
		cm, ok := found[name]
		delete(found, name)
		var got string
		var rv uint64
		if ok {
			got, rv = cm.Data["v"], parseRV(t, name, cm.ResourceVersion)
		}
		switch {
		case o.unborn && !ok:
			delete(objects, name) // the create in flight did not commit
			continue
		case o.unborn && got == o.pending.value:
			o.unborn, o.value, o.rv = false, got, rv // it did
		case o.unborn:
			t.Errorf("restart %d: %s is %s at %d, its create in flight sent %s", cycle, name, got, rv, o.pending.value)
		case o.deleted && !ok:
		case o.deleted:
			lost++
			t.Errorf("restart %d: %s was deleted (acknowledged) and is back at %d", cycle, name, rv)
		case ok && got == o.value && rv == o.rv:
		case o.pending != nil && o.pending.delete && !ok:
			o.deleted = true // the delete in flight committed
		case o.pending != nil && !o.pending.delete && ok && got == o.pending.value && rv > o.rv:
			o.value, o.rv = got, rv // the update in flight committed
		case !ok:
			lost++
			t.Errorf("restart %d: %s (acknowledged at %d with %s) is gone", cycle, name, o.rv, o.value)
		default:
			lost++
			t.Errorf("restart %d: %s is %s at %d, acknowledged %s at %d (in flight: %+v)", cycle, name, got, rv, o.value, o.rv, o.pending)
		}
		o.pending = nil
	}
	for name := range found {
		t.Errorf("restart %d: %s appeared, no client wrote it", cycle, name)
	}
	return lost
}

// runWritersUntilKilled runs writers that create, update and delete until
// about 150 writes are acknowledged, kills the process with SIGKILL while
// they keep writing, and records every answer in objects. It returns how
// many writes were acknowledged and how many were in flight at the kill.
func runWritersUntilKilled(t *testing.T, ctx context.Context, client *kubernetes.Clientset, p *proc, cycle int, objects map[string]*ackedObject) (int, int64) {
	t.Helper()
	const workers, goal = 6, 150
	var (
		mu       sync.Mutex
		acked    atomic.Int64
		inFlight atomic.Int64
		killed   atomic.Bool
		reached  = make(chan struct{})
		once     sync.Once
		wg       sync.WaitGroup
		errs     []error
	)
	// Each worker owns the objects it creates; the ones from earlier
	// cycles are dealt out by name.
	owned := make([][]string, workers)
	i := 0
	for name, o := range objects {
		if !o.deleted {
			owned[i%workers] = append(owned[i%workers], name)
			i++
		}
	}
	cms := client.CoreV1().ConfigMaps("default")
	for w := range workers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(uint64(cycle), uint64(w)))
			mine := owned[w]
			for n := 0; ; n++ {
				value := fmt.Sprintf("c%d-w%d-%d", cycle, w, n)
				dice := rng.IntN(100)
				var err error
				inFlight.Add(1)
				switch {
				case len(mine) > 0 && dice < 35: // update with a precondition
					name := mine[rng.IntN(len(mine))]
					mu.Lock()
					o := objects[name]
					o.pending = &pendingWrite{value: value}
					rv := o.rv
					mu.Unlock()
					var cm *corev1.ConfigMap
					cm, err = cms.Update(ctx, &corev1.ConfigMap{
						ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: strconv.FormatUint(rv, 10), Labels: map[string]string{persistLabel: "1"}},
						Data:       map[string]string{"v": value, "pad": strings.Repeat("x", 200)},
					}, metav1.UpdateOptions{})
					if err == nil {
						mu.Lock()
						o.value, o.rv, o.pending = value, parseRV(t, name, cm.ResourceVersion), nil
						mu.Unlock()
					}
				case len(mine) > 0 && dice < 55: // delete with a precondition
					k := rng.IntN(len(mine))
					name := mine[k]
					mu.Lock()
					o := objects[name]
					o.pending = &pendingWrite{delete: true}
					rv := o.rv
					mu.Unlock()
					err = cms.Delete(ctx, name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{ResourceVersion: ptr.To(strconv.FormatUint(rv, 10))}})
					if err == nil {
						mu.Lock()
						o.deleted, o.pending = true, nil
						mu.Unlock()
						mine = append(mine[:k], mine[k+1:]...)
					}
				default: // create
					name := fmt.Sprintf("cm-c%d-w%d-%d", cycle, w, n)
					o := &ackedObject{unborn: true, pending: &pendingWrite{value: value}}
					mu.Lock()
					objects[name] = o
					mu.Unlock()
					var cm *corev1.ConfigMap
					cm, err = cms.Create(ctx, &corev1.ConfigMap{
						ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{persistLabel: "1"}},
						Data:       map[string]string{"v": value, "pad": strings.Repeat("x", 200)},
					}, metav1.CreateOptions{})
					if err == nil {
						mu.Lock()
						o.unborn, o.pending, o.value, o.rv = false, nil, value, parseRV(t, name, cm.ResourceVersion)
						mu.Unlock()
						mine = append(mine, name)
					}
				}
				inFlight.Add(-1)
				if err != nil {
					if !killed.Load() {
						mu.Lock()
						errs = append(errs, fmt.Errorf("worker %d before the kill: %w", w, err))
						mu.Unlock()
					}
					return
				}
				if acked.Add(1) >= goal {
					once.Do(func() { close(reached) })
				}
			}
		}()
	}
	select {
	case <-reached:
	case <-time.After(2 * time.Minute): // a hang guard
		t.Fatalf("cycle %d: only %d writes acknowledged after 2m: %v", cycle, acked.Load(), errs)
	}
	killed.Store(true)
	if err := p.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatalf("SIGKILL: %v", err)
	}
	n := inFlight.Load()
	<-p.done
	wg.Wait()
	if len(errs) > 0 {
		t.Fatalf("cycle %d: %v", cycle, errors.Join(errs...))
	}
	return int(acked.Load()), n
}

// TestSecondInstanceOnOneDataDirIsRefused checks that a second fakeplane
// started on the data directory of a running one (with its own kubeconfig)
// is refused with one line naming the store file and exit code 1, and that
// the first one keeps serving with its state and files untouched.
func TestSecondInstanceOnOneDataDirIsRefused(t *testing.T) {
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	kc := filepath.Join(dir, "kc")
	startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--kubeconfig", kc)
	client := clientFor(t, readFile(t, kc))
	ctx := context.Background()
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "first"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	before := dirFiles(t, dataDir)

	code, _, stderr := runCommand(t, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--kubeconfig", filepath.Join(dir, "kc2"))
	db := filepath.Join(dataDir, "fakeplane.db")
	line := strings.TrimSuffix(stderr, "\n")
	if code != 1 || strings.Contains(line, "\n") || !strings.HasPrefix(line, "fakeplane: ") ||
		!strings.Contains(line, db) || !strings.Contains(line, "locked by another process") {
		t.Errorf("second instance: exit %d, stderr %q; want 1 and one line saying %s is locked by another process", code, stderr, db)
	}
	if _, err := os.Stat(filepath.Join(dir, "kc2")); err == nil {
		t.Errorf("the refused instance wrote its kubeconfig")
	}
	after := dirFiles(t, dataDir)
	for name, b := range before {
		if name != "fakeplane.db" && !bytes.Equal(after[name], b) {
			t.Errorf("the refused instance changed %s in the data directory", name)
		}
	}
	if _, err := client.CoreV1().ConfigMaps("default").Get(ctx, "first", metav1.GetOptions{}); err != nil {
		t.Errorf("the first instance after the refusal: %v", err)
	}
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "second"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("a write to the first instance after the refusal: %v", err)
	}
}

// dirFiles reads every regular file under dir, by relative path.
func dirFiles(t *testing.T, dir string) map[string][]byte {
	t.Helper()
	out := map[string][]byte{}
	err := filepath.WalkDir(dir, func(path string, d os.DirEntry, err error) error {
		if err != nil || !d.Type().IsRegular() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		out[rel], err = os.ReadFile(path)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// TestDamagedDatabaseAtStartIsOneLine checks that a store file that was
// cut short, emptied or overwritten stops the command at start with exit
// code 1 and one line on stderr that names the file.
func TestDamagedDatabaseAtStartIsOneLine(t *testing.T) {
	// A data directory with a store worth damaging.
	dir := t.TempDir()
	dataDir := filepath.Join(dir, "data")
	kc := filepath.Join(dir, "kc")
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--data-dir", dataDir, "--kubeconfig", kc)
	client := clientFor(t, readFile(t, kc))
	for i := range 50 {
		if _, err := client.CoreV1().ConfigMaps("default").Create(context.Background(), &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}, Data: map[string]string{"pad": strings.Repeat("x", 2000)},
		}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := p.signal(t, os.Interrupt, 30*time.Second); err != nil {
		t.Fatalf("exit after SIGINT: %v", err)
	}
	good := readFile(t, filepath.Join(dataDir, "fakeplane.db"))

	for _, tc := range []struct {
		name   string
		damage func([]byte) []byte
		want   string // a substring of the line, besides the file's name
	}{
		{"emptied", func([]byte) []byte { return nil }, "is empty"},
		{"cut after its meta pages", func(b []byte) []byte { return b[:3*4096] }, "is truncated"},
		{"cut to one page", func(b []byte) []byte { return b[:4096] }, "is truncated"},
		{"overwritten with text", func(b []byte) []byte { return bytes.Repeat([]byte("not a database\n"), len(b)/15) }, ""},
		{"meta pages zeroed", func(b []byte) []byte {
			out := bytes.Clone(b)
			clear(out[:2*4096])
			return out
		}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d := filepath.Join(t.TempDir(), "data")
			if err := os.CopyFS(d, os.DirFS(dataDir)); err != nil {
				t.Fatal(err)
			}
			if err := os.Chmod(d, 0o700); err != nil {
				t.Fatal(err)
			}
			db := filepath.Join(d, "fakeplane.db")
			if err := os.WriteFile(db, tc.damage(good), 0o600); err != nil {
				t.Fatal(err)
			}
			code, stderr := runToExit(t, "--listen", "127.0.0.1:0", "--data-dir", d, "--kubeconfig", filepath.Join(t.TempDir(), "kc"))
			line := strings.TrimSuffix(stderr, "\n")
			t.Logf("exit %d: %s", code, line)
			if code != 1 || strings.Contains(line, "\n") || !strings.HasPrefix(line, "fakeplane: ") || !strings.Contains(line, db) || !strings.Contains(line, tc.want) {
				t.Errorf("exit %d, stderr %q; want 1 and one line naming %s (%q)", code, stderr, db, tc.want)
			}
		})
	}
}

// runToExit runs the command, which is expected to stop at start, and
// returns its exit code and stderr; if it serves instead, it is stopped
// and the test fails.
func runToExit(t *testing.T, args ...string) (int, string) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute) // a hang guard
	defer cancel()
	cmd := exec.CommandContext(ctx, os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("%v did not stop (stdout %q)", args, stdout.String())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("run %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), stderr.String()
}

// isNoSpace reports whether err is what kube-apiserver answers a write
// etcd refuses for want of room (etcd's NOSPACE alarm).
func isNoSpace(err error) bool {
	var se apierrors.APIStatus
	if !errors.As(err, &se) {
		return false
	}
	st := se.Status()
	return st.Code == 500 && st.Reason == "" && st.Status == metav1.StatusFailure && st.Message == "etcdserver: mvcc: database space exceeded"
}
