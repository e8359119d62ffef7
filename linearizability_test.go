package fakeplane_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/linearcheck"
)

// linearLong runs TestLinearizableHistoryAndWatches at its long size.
var linearLong = flag.Bool("fakeplane.linear.long", false, "run the linearizability test long (100000 operations by 8 clients on 16 keys; FAKEPLANE_LINEAR_OPS, _CLIENTS and _KEYS override)")

// linearSize is how much TestLinearizableHistoryAndWatches does.
type linearSize struct {
	clients, ops, keys int // ops: in all, shared among the clients
}

// linearSizeOf reads the size from -fakeplane.linear.long and the
// FAKEPLANE_LINEAR_* variables; the default is the short form CI runs.
func linearSizeOf(t *testing.T) linearSize {
	t.Helper()
	size := linearSize{clients: 4, ops: 800, keys: 8}
	if *linearLong {
		size = linearSize{clients: 8, ops: 100000, keys: 16}
	}
	for name, field := range map[string]*int{"FAKEPLANE_LINEAR_OPS": &size.ops, "FAKEPLANE_LINEAR_CLIENTS": &size.clients, "FAKEPLANE_LINEAR_KEYS": &size.keys} {
		if v := os.Getenv(name); v != "" {
			n, err := strconv.Atoi(v)
			if err != nil || n <= 0 {
				t.Fatalf("%s=%q: want a positive number", name, v)
			}
			*field = n
		}
	}
	return size
}

// linearSentinel is the ConfigMap created after the run: a watch that
// delivers it has delivered every write of the run.
const linearSentinel = "sentinel"

// listSnapshot is a list's answer: its revision and the keys' objects.
type listSnapshot struct {
	rv    int64
	items map[string]linearcheck.Item
}

// watchResult is what a watch delivered before the sentinel.
type watchResult struct {
	name string
	from int64 // the revision it was started from (for a watch list, its initial-events-end bookmark)
	// initial holds a watch list's initial events.
	initial map[string]linearcheck.Item
	events  []linearcheck.Event
	links   int // how many times a watch with a timeout was resumed
	err     error
	done    chan struct{}
}

// TestLinearizableHistoryAndWatches drives concurrent clients (create,
// update with and without a resourceVersion precondition, delete with and
// without one, get, list) through client-go over HTTPS against one control
// plane, records the history and checks it with porcupine against a model
// of a revisioned key-value store (internal/linearcheck), then checks the
// watches of the same run for etcd's guarantees: each watch's events are
// strictly ordered by revision, unique, each one write whole (the changes
// of a watch that saw everything are exactly the acknowledged writes),
// bookmarks never go backwards nor ahead of later events, a watch resumed
// from any revision seen earlier delivers exactly what the watch that was
// open throughout delivered after it, and a list followed by a watch from
// its revision (and a watch list's initial events followed by its
// changes) rebuilds the final list.
//
// The short form runs in CI; -fakeplane.linear.long or FAKEPLANE_LINEAR_OPS
// (with _CLIENTS and _KEYS) run a longer one.
func TestLinearizableHistoryAndWatches(t *testing.T) {
	t.Parallel()
	size := linearSizeOf(t)
	seed := uint64(time.Now().UnixNano())
	if v := os.Getenv("FAKEPLANE_LINEAR_SEED"); v != "" {
		seed, _ = strconv.ParseUint(v, 10, 64)
	}
	t.Logf("%d operations by %d clients on %d keys, seed %d (FAKEPLANE_LINEAR_SEED)", size.ops, size.clients, size.keys, seed)

	cp := fakeplane.Start(t)
	cs := fastClient(t, cp)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	const ns = "linear"
	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	keys := make([]string, size.keys)
	isKey := map[string]bool{}
	for i := range keys {
		keys[i] = fmt.Sprintf("k%d", i)
		isKey[keys[i]] = true
	}
	cms := func() typedConfigMaps { return cs.CoreV1().ConfigMaps(ns) }

	// The start: a list, and the watch from its revision that stays open
	// throughout and sees every write.
	start, err := listKeys(ctx, cms(), isKey)
	if err != nil {
		t.Fatal(err)
	}
	var watchesMu sync.Mutex
	var watches []*watchResult
	startWatch := func(name string, opts metav1.ListOptions, from int64) *watchResult {
		w := collectWatch(ctx, cms(), name, opts, from, isKey)
		watchesMu.Lock()
		watches = append(watches, w)
		watchesMu.Unlock()
		return w
	}
	all := startWatch("throughout", metav1.ListOptions{ResourceVersion: strconv.FormatInt(start.rv, 10), AllowWatchBookmarks: true}, start.rv)
	// A watch that ends every 3s (with a bookmark 2s before) and is
	// resumed from the newest revision it told of, as a reflector does.
	chain := startWatch("resumed every 3s", metav1.ListOptions{ResourceVersion: strconv.FormatInt(start.rv, 10), AllowWatchBookmarks: true, TimeoutSeconds: ptr.To[int64](3)}, start.rv)
	lists := []listSnapshot{start}

	// The clients.
	t0 := time.Now()
	now := func() int64 { return int64(time.Since(t0)) }
	var (
		mu      sync.Mutex
		history []porcupine.Operation
		done    atomic.Int64
		wg      sync.WaitGroup
	)
	record := func(ops ...porcupine.Operation) {
		mu.Lock()
		history = append(history, ops...)
		mu.Unlock()
		done.Add(1)
	}
	errs := make(chan error, size.clients+1)
	perClient := (size.ops + size.clients - 1) / size.clients
	for c := range size.clients {
		wg.Add(1)
		go func() {
			defer wg.Done()
			rng := rand.New(rand.NewPCG(seed, uint64(c)))
			client := &linearClient{id: c, cms: cms(), rest: cs.CoreV1().RESTClient(), ns: ns, isKey: isKey, seen: map[string]int64{}, now: now}
			for i := range perClient {
				key := keys[rng.IntN(len(keys))]
				value := fmt.Sprintf("c%d-%d", c, i)
				ops, snap, err := client.do(ctx, rng.IntN(100), key, value, keys)
				if err != nil {
					errs <- fmt.Errorf("client %d, operation %d: %w", c, i, err)
					return
				}
				if snap != nil {
					mu.Lock()
					lists = append(lists, *snap)
					mu.Unlock()
				}
				record(ops...)
			}
		}()
	}

	// An observer starts, at points through the run, a list followed by a
	// watch from its revision, and a watch list with bookmarks.
	observed := make(chan struct{})
	go func() {
		defer close(observed)
		const points = 4
		total := int64(perClient * size.clients)
		for p := int64(1); p <= points; p++ {
			for done.Load() < p*total/(points+1) {
				select {
				case <-ctx.Done():
					return
				case <-time.After(time.Millisecond):
				}
			}
			snap, err := listKeys(ctx, cms(), isKey)
			if err != nil {
				errs <- fmt.Errorf("observer's list: %w", err)
				return
			}
			mu.Lock()
			lists = append(lists, snap)
			mu.Unlock()
			startWatch(fmt.Sprintf("after the list at %d", snap.rv), metav1.ListOptions{ResourceVersion: strconv.FormatInt(snap.rv, 10), AllowWatchBookmarks: true}, snap.rv)
			startWatch(fmt.Sprintf("watch list %d", p), metav1.ListOptions{
				SendInitialEvents: ptr.To(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true,
			}, -1)
		}
	}()
	wg.Wait()
	<-observed
	elapsed := time.Since(t0)
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if t.Failed() {
		t.FailNow()
	}
	t.Logf("%d operations in %v (%.0f/s)", done.Load(), elapsed.Round(time.Millisecond), float64(done.Load())/elapsed.Seconds())

	// The end: a final list, watches resumed from revisions seen during
	// the run, then the sentinel that ends every watch.
	final, err := listKeys(ctx, cms(), isKey)
	if err != nil {
		t.Fatal(err)
	}
	for _, rv := range resumeRevisions(history, lists, 8) {
		startWatch(fmt.Sprintf("resumed from %d", rv), metav1.ListOptions{ResourceVersion: strconv.FormatInt(rv, 10), AllowWatchBookmarks: true}, rv)
	}
	if _, err := cms().Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: linearSentinel}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	watchesMu.Lock()
	defer watchesMu.Unlock()
	for _, w := range watches {
		select {
		case <-w.done:
		case <-time.After(2 * time.Minute): // a hang guard, not a timing
			t.Fatalf("watch %s: the sentinel did not come after 2m", w.name)
		}
		if w.err != nil {
			t.Fatalf("watch %s: %v", w.name, w.err)
		}
	}

	// The history: every acknowledged write is in the watch that saw
	// everything, once and whole, and the history is linearizable.
	if err := linearcheck.ResolveDeletes(history, all.events); err != nil {
		t.Fatalf("deletes: %v", err)
	}
	if err := linearcheck.CheckWrites(history, all.events); err != nil {
		t.Errorf("the watch open throughout against the acknowledged writes:\n%v", err)
	}
	checkStart := time.Now()
	res, info := porcupine.CheckOperationsVerbose(linearcheck.Model(), history, 10*time.Minute)
	t.Logf("porcupine checked %d operations (lists split by key) in %v: %s", len(history), time.Since(checkStart).Round(time.Millisecond), res)
	if res != porcupine.Ok {
		path := filepath.Join(os.TempDir(), fmt.Sprintf("fakeplane-linear-%d.html", seed))
		if err := porcupine.VisualizePath(linearcheck.Model(), info, path); err == nil {
			t.Logf("visualization: %s", path)
		}
		t.Errorf("the history is not linearizable (%s)", res)
	}
	if err := linearcheck.CheckRevisionOrder(history, linearcheck.Versions(all.events)); err != nil {
		t.Errorf("revisions against real time:\n%v", err)
	}

	// Every list is the state the watch's events make at its revision;
	// the final list is the last state.
	lists = append(lists, final)
	sort.Slice(lists, func(i, j int) bool { return lists[i].rv < lists[j].rv })
	state, changes := start.items, linearcheck.Changes(all.events, start.rv)
	for _, l := range lists {
		i := sort.Search(len(changes), func(i int) bool { return changes[i].RV > l.rv })
		if state, err = linearcheck.Fold(state, changes[:i]); err != nil {
			t.Fatalf("the watch open throughout: %v", err)
		}
		changes = changes[i:]
		if err := linearcheck.SameState(l.items, state); err != nil {
			t.Errorf("the list at %d against the watch's events up to it:\n%v", l.rv, err)
		}
	}
	if len(changes) > 0 {
		t.Errorf("the watch open throughout has events after the final list at %d: %v", final.rv, changes)
	}

	// Every watch: ordered, bookmarks in line, the same changes as the
	// watch open throughout after its start, and with its start state the
	// final list.
	bookmarks := 0
	for _, w := range watches {
		if err := linearcheck.CheckStream(w.events); err != nil {
			t.Errorf("watch %s:\n%v", w.name, err)
		}
		for _, e := range w.events {
			if e.Type == linearcheck.Bookmark {
				bookmarks++
			}
		}
		if w == all {
			continue
		}
		if err := linearcheck.SameChanges(w.events, linearcheck.Changes(all.events, w.from)); err != nil {
			t.Errorf("watch %s against the watch open throughout: %v", w.name, err)
		}
		startState := w.initial
		if startState == nil {
			startState = stateAt(t, start, all.events, w.from)
		} else if err := linearcheck.SameState(w.initial, stateAt(t, start, all.events, w.from)); err != nil {
			t.Errorf("watch %s: its initial events against the state at its bookmark %d:\n%v", w.name, w.from, err)
		}
		got, err := linearcheck.Fold(startState, w.events)
		if err != nil {
			t.Errorf("watch %s: %v", w.name, err)
			continue
		}
		if err := linearcheck.SameState(got, final.items); err != nil {
			t.Errorf("watch %s from %d: its start state and events against the final list:\n%v", w.name, w.from, err)
		}
	}
	outcomes := map[string]int{}
	for _, op := range history {
		in, out := op.Input.(linearcheck.Input), op.Output.(linearcheck.Output)
		if in.Kind != linearcheck.ListRead {
			outcomes[in.Kind.String()+" "+out.Code.String()]++
		}
	}
	t.Logf("outcomes: %v", outcomes)
	t.Logf("the watch resumed every 3s was resumed %d times", chain.links)
	t.Logf("%d watches, %d events in the one open throughout, %d bookmarks, %d lists", len(watches), len(linearcheck.Changes(all.events, 0)), bookmarks, len(lists))
}

// stateAt is the state of the keys at revision rv: the start list's with
// the changes of events up to rv.
func stateAt(t *testing.T, start listSnapshot, events []linearcheck.Event, rv int64) map[string]linearcheck.Item {
	t.Helper()
	var upTo []linearcheck.Event
	for _, e := range linearcheck.Changes(events, start.rv) {
		if e.RV <= rv {
			upTo = append(upTo, e)
		}
	}
	st, err := linearcheck.Fold(start.items, upTo)
	if err != nil {
		t.Fatalf("state at %d: %v", rv, err)
	}
	return st
}

// resumeRevisions picks n revisions that clients saw during the run
// (revisions of writes and of lists), spread over the newest 3000 of them
// (the event log holds 10000 events, which other resources share).
func resumeRevisions(history []porcupine.Operation, lists []listSnapshot, n int) []int64 {
	var revs []int64
	for _, op := range history {
		if out := op.Output.(linearcheck.Output); out.Code == linearcheck.OK && out.RV > 0 {
			revs = append(revs, out.RV)
		}
	}
	for _, l := range lists {
		revs = append(revs, l.rv)
	}
	sort.Slice(revs, func(i, j int) bool { return revs[i] < revs[j] })
	revs = revs[max(0, len(revs)-3000):]
	var out []int64
	for i := range n {
		if len(revs) > 0 {
			out = append(out, revs[i*len(revs)/n])
		}
	}
	return out
}

// typedConfigMaps is client-go's typed ConfigMap client.
type typedConfigMaps = interface {
	Create(ctx context.Context, cm *corev1.ConfigMap, opts metav1.CreateOptions) (*corev1.ConfigMap, error)
	Update(ctx context.Context, cm *corev1.ConfigMap, opts metav1.UpdateOptions) (*corev1.ConfigMap, error)
	Get(ctx context.Context, name string, opts metav1.GetOptions) (*corev1.ConfigMap, error)
	List(ctx context.Context, opts metav1.ListOptions) (*corev1.ConfigMapList, error)
	Watch(ctx context.Context, opts metav1.ListOptions) (watch.Interface, error)
}

// listKeys lists the keys' ConfigMaps (a consistent read).
func listKeys(ctx context.Context, cms typedConfigMaps, isKey map[string]bool) (listSnapshot, error) {
	l, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		return listSnapshot{}, err
	}
	rv, err := strconv.ParseInt(l.ResourceVersion, 10, 64)
	if err != nil {
		return listSnapshot{}, fmt.Errorf("list resourceVersion %q: %w", l.ResourceVersion, err)
	}
	snap := listSnapshot{rv: rv, items: map[string]linearcheck.Item{}}
	for i := range l.Items {
		if cm := &l.Items[i]; isKey[cm.Name] {
			it, err := itemOf(cm)
			if err != nil {
				return listSnapshot{}, err
			}
			snap.items[cm.Name] = it
		}
	}
	return snap, nil
}

// itemOf is a ConfigMap's value, resourceVersion and uid.
func itemOf(cm *corev1.ConfigMap) (linearcheck.Item, error) {
	rv, err := strconv.ParseInt(cm.ResourceVersion, 10, 64)
	if err != nil {
		return linearcheck.Item{}, fmt.Errorf("%s: resourceVersion %q: %w", cm.Name, cm.ResourceVersion, err)
	}
	return linearcheck.Item{Value: cm.Data["v"], RV: rv, UID: string(cm.UID)}, nil
}

// collectWatch starts a watch and collects its events in the background
// until the sentinel comes. from is the revision it starts at; -1 for a
// watch list, whose initial-events-end bookmark says it.
func collectWatch(ctx context.Context, cms typedConfigMaps, name string, opts metav1.ListOptions, from int64, isKey map[string]bool) *watchResult {
	w := &watchResult{name: name, from: from, done: make(chan struct{})}
	if from < 0 {
		w.initial = map[string]linearcheck.Item{}
	}
	go func() {
		defer close(w.done)
		inInitial := from < 0
		for {
			ended, err := w.collect(ctx, cms, opts, &inInitial, isKey)
			if err != nil || !ended {
				w.err = err
				return
			}
			if opts.TimeoutSeconds == nil {
				w.err = errors.New("the watch ended before the sentinel")
				return
			}
			// A watch with a timeout is resumed, as a reflector does,
			// from the newest revision it told of.
			w.links++
			last := w.from
			if n := len(w.events); n > 0 {
				last = w.events[n-1].RV
			}
			opts.ResourceVersion = strconv.FormatInt(last, 10)
		}
	}()
	return w
}

// collect runs one watch with opts and adds its events to w until the
// sentinel comes (ended false) or the watch ends (ended true).
func (w *watchResult) collect(ctx context.Context, cms typedConfigMaps, opts metav1.ListOptions, inInitial *bool, isKey map[string]bool) (ended bool, err error) {
	wi, err := cms.Watch(ctx, opts)
	if err != nil {
		return false, err
	}
	defer wi.Stop()
	for ev := range wi.ResultChan() {
		if ev.Type == watch.Error {
			return false, fmt.Errorf("ERROR event: %v", apierrors.FromObject(ev.Object))
		}
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if !ok {
			return false, fmt.Errorf("a %s event with a %T", ev.Type, ev.Object)
		}
		if ev.Type == watch.Bookmark {
			rv, err := strconv.ParseInt(cm.ResourceVersion, 10, 64)
			if err != nil {
				return false, fmt.Errorf("bookmark resourceVersion %q: %w", cm.ResourceVersion, err)
			}
			if *inInitial && cm.Annotations[metav1.InitialEventsAnnotationKey] == "true" {
				*inInitial, w.from = false, rv
			}
			w.events = append(w.events, linearcheck.Event{Type: linearcheck.Bookmark, RV: rv})
			continue
		}
		if cm.Name == linearSentinel && ev.Type == watch.Added {
			return false, nil
		}
		if !isKey[cm.Name] {
			continue
		}
		it, err := itemOf(cm)
		if err != nil {
			return false, err
		}
		if *inInitial {
			if ev.Type != watch.Added {
				return false, fmt.Errorf("a %s event among the initial events", ev.Type)
			}
			w.initial[cm.Name] = it
			continue
		}
		w.events = append(w.events, linearcheck.Event{Type: string(ev.Type), Key: cm.Name, Value: it.Value, RV: it.RV, UID: it.UID})
	}
	return true, nil
}

// linearClient is one client of the run.
type linearClient struct {
	id    int
	cms   typedConfigMaps
	rest  rest.Interface // for deletes
	ns    string
	isKey map[string]bool
	seen  map[string]int64 // the newest resourceVersion it saw of each key, for preconditions
	now   func() int64
}

// op records one operation of c.
func (c *linearClient) op(call int64, in linearcheck.Input, out linearcheck.Output) porcupine.Operation {
	return porcupine.Operation{ClientId: c.id, Call: call, Return: c.now(), Input: in, Output: out}
}

// configMap is the ConfigMap a write sends.
func configMap(key, value string, rv int64) *corev1.ConfigMap {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: key}, Data: map[string]string{"v": value}}
	if rv > 0 {
		cm.ResourceVersion = strconv.FormatInt(rv, 10)
	}
	return cm
}

// do runs one operation chosen by dice (0..99) on key and returns what the
// history records of it (and, for a list, its snapshot).
func (c *linearClient) do(ctx context.Context, dice int, key, value string, keys []string) ([]porcupine.Operation, *listSnapshot, error) {
	// written records a write's answer: the object, or one of the codes
	// the model knows.
	written := func(call int64, in linearcheck.Input, cm *corev1.ConfigMap, err error) ([]porcupine.Operation, *listSnapshot, error) {
		code, err := codeOf(err)
		if err != nil {
			return nil, nil, fmt.Errorf("%s %s: %w", in.Kind, key, err)
		}
		out := linearcheck.Output{Code: code}
		if code == linearcheck.OK {
			it, err := itemOf(cm)
			if err != nil {
				return nil, nil, err
			}
			if it.Value != value {
				return nil, nil, fmt.Errorf("%s %s=%s answered the value %q", in.Kind, key, value, it.Value)
			}
			out.RV, out.UID = it.RV, it.UID
			c.seen[key] = it.RV
		}
		return []porcupine.Operation{c.op(call, in, out)}, nil, nil
	}
	switch call := c.now(); {
	case dice < 20:
		cm, err := c.cms.Create(ctx, configMap(key, value, 0), metav1.CreateOptions{})
		return written(call, linearcheck.Input{Kind: linearcheck.Create, Key: key, Value: value}, cm, err)
	case dice < 40:
		pre := max(c.seen[key], 1)
		cm, err := c.cms.Update(ctx, configMap(key, value, pre), metav1.UpdateOptions{})
		return written(call, linearcheck.Input{Kind: linearcheck.Update, Key: key, Value: value, RV: pre}, cm, err)
	case dice < 50:
		cm, err := c.cms.Update(ctx, configMap(key, value, 0), metav1.UpdateOptions{})
		return written(call, linearcheck.Input{Kind: linearcheck.UpdateAny, Key: key, Value: value}, cm, err)
	case dice < 65:
		in := linearcheck.Input{Kind: linearcheck.Delete, Key: key}
		opts := metav1.DeleteOptions{}
		if dice >= 58 {
			in.RV = max(c.seen[key], 1)
			opts.Preconditions = &metav1.Preconditions{ResourceVersion: ptr.To(strconv.FormatInt(in.RV, 10))}
		}
		uid, err := deleteConfigMap(ctx, c.rest, c.ns, key, opts)
		code, err := codeOf(err)
		if err != nil {
			return nil, nil, fmt.Errorf("delete %s: %w", key, err)
		}
		// The delete's revision comes from the watch (ResolveDeletes).
		return []porcupine.Operation{c.op(call, in, linearcheck.Output{Code: code, UID: uid})}, nil, nil
	case dice < 85:
		cm, err := c.cms.Get(ctx, key, metav1.GetOptions{})
		code, err := codeOf(err)
		if err != nil {
			return nil, nil, fmt.Errorf("get %s: %w", key, err)
		}
		out := linearcheck.Output{Code: code}
		if code == linearcheck.OK {
			it, err := itemOf(cm)
			if err != nil {
				return nil, nil, err
			}
			out.Exists, out.Value, out.RV, out.UID = true, it.Value, it.RV, it.UID
			c.seen[key] = it.RV
		}
		return []porcupine.Operation{c.op(call, linearcheck.Input{Kind: linearcheck.Get, Key: key}, out)}, nil, nil
	default:
		snap, err := listKeys(ctx, c.cms, c.isKey)
		if err != nil {
			return nil, nil, fmt.Errorf("list: %w", err)
		}
		for k, it := range snap.items {
			c.seen[k] = it.RV
		}
		return linearcheck.SplitList(c.id, call, c.now(), keys, snap.rv, snap.items), &snap, nil
	}
}

// codeOf maps a client error to the model's answers; any other error is
// returned.
func codeOf(err error) (linearcheck.Code, error) {
	switch {
	case err == nil:
		return linearcheck.OK, nil
	case apierrors.IsNotFound(err):
		return linearcheck.NotFound, nil
	case apierrors.IsAlreadyExists(err):
		return linearcheck.AlreadyExists, nil
	case apierrors.IsConflict(err):
		return linearcheck.Conflict, nil
	}
	return 0, err
}

// deleteConfigMap deletes through client-go's REST client, which hands
// back the Status kube-apiserver answers, and returns the uid of the
// object deleted that it names.
func deleteConfigMap(ctx context.Context, rc rest.Interface, ns, name string, opts metav1.DeleteOptions) (string, error) {
	body, err := rc.Delete().Namespace(ns).Resource("configmaps").Name(name).Body(&opts).Do(ctx).Raw()
	if err != nil {
		return "", err
	}
	var st metav1.Status
	if err := json.Unmarshal(body, &st); err != nil {
		return "", fmt.Errorf("delete %s answered %q: %w", name, body, err)
	}
	if st.Details == nil || st.Details.UID == "" {
		return "", fmt.Errorf("delete %s answered %s without the uid of the object deleted", name, body)
	}
	return string(st.Details.UID), nil
}
