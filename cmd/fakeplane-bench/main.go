// Command fakeplane-bench measures fakeplane as a client sees it, through
// client-go over HTTPS, and prints a report table. Given the kubeconfig of
// another cluster (for example the reference kube-apiserver that
// ../shared/tools/refplane/start.sh runs) it measures the same operations
// there and adds the ratio fakeplane/reference.
//
//	go run ./cmd/fakeplane-bench
//	go run ./cmd/fakeplane-bench -kubeconfig ~/.cache/refplane/kubeconfig
//
// Flags:
//
//	-kubeconfig PATH  also measure the cluster this kubeconfig points at (its
//	                  current context); default: fakeplane only
//	-n N              operations per measurement (default 200)
//	-c C              concurrent clients for the throughput figures (default 8)
//	-starts N         start-to-first-request runs, in-process fakeplane only
//	                  (default 20)
//	-big N            ConfigMaps in the large-list and memory figures
//	                  (default 10000; 0 skips them)
//	-json             ask every cluster for JSON; by default client-go's typed
//	                  clients send and accept protobuf, which both answer in
//	-watchers N       open watches in the fan-out figure (default 100; 0
//	                  skips it)
//	-cli BINARY       also time this fakeplane binary from launch to its
//	                  first /readyz 200 (-starts runs, fresh state each)
//	-reference-measure SCRIPT
//	                  refplane's measure.sh: run last for 5 cold starts of
//	                  the reference (it leaves refplane stopped)
//	-reference-pids FILES
//	                  comma-separated pid files of the reference's processes
//	                  (refplane's run/etcd.pid,run/kube-apiserver.pid): their
//	                  RSS growth for -big ConfigMaps is reported beside
//	                  fakeplane's
//	-floor            also measure every operation but the large list against
//	                  a null server (internal/nullserver) that answers with
//	                  what fakeplane answered and does nothing else: the
//	                  floor that client-go, HTTP/2 and TLS set on this
//	                  machine, and with -kubeconfig the lowest ratio to the
//	                  reference any server could reach here
//	-scale N          run the scale figures alone: N ConfigMaps in one
//	                  namespace, then -scale-watchers watches (default 1000)
//	                  open while create, get, list of 100 by label and watch
//	                  delivery are measured (p50, p99), and the memory growth
//	                  (fakeplane: the -cli binary's RSS when given, else the
//	                  in-process heap; the reference: -reference-pids)
//
// What is measured, for each cluster:
//
//   - start to first request: fakeplane.New and Start, then a new client's
//     GET /version (TLS handshake included). Stop is not timed.
//   - create, get, update (with the object the previous update returned),
//     patch (a JSON merge patch of one key), server-side apply (forced, one
//     manager), delete (of objects created beforehand), list (100
//     ConfigMaps of ~300 bytes, selected by label from the run's
//     namespace), watch event (from the start of a create until its ADDED
//     event arrives on an open watch).
//   - watch fan-out: -watchers watches on one selection; for each of -n
//     creates, the time until each watcher has its event (percentiles over
//     all deliveries).
//   - list of -big ConfigMaps through client-go, and encoding/json Marshal of
//     the same typed ConfigMapList, the floor for serving such a list.
//   - heap in use and resident set growth of this process after creating
//     -big ConfigMaps in an in-process fakeplane (after a GC), or with -cli
//     the resident set growth of that binary's process.
//
// p50 and p90 are latencies of N operations run one after the other by one
// client; ops/s is the throughput of N operations spread over C concurrent
// clients (for the watch, N creates by C clients until all N events arrived).
// The ratio columns are fakeplane p50 / reference p50 and reference ops/s /
// fakeplane ops/s: below 1 fakeplane is faster.
//
// Everything runs in a namespace created for the run (generateName
// fakeplane-bench-), which is deleted at the end, also after Ctrl-C: its
// ConfigMaps are deleted first, and if no namespace controller finishes the
// deletion (a bare kube-apiserver has none) the namespace is finalized
// through its finalize subresource. The in-process fakeplane keeps its state
// in a temporary directory removed when it stops.
package main

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"math"
	"os"
	"os/signal"
	"runtime"
	"runtime/debug"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"text/tabwriter"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"

	"github.com/fakeplane/fakeplane"
)

const (
	setLabel   = "fakeplane-bench/set" // which measurement an object belongs to
	listCount  = 100                   // objects in the "list" measurement
	objectSize = 300                   // approximate JSON size of a ConfigMap
	fillers    = 16                    // concurrent creators when filling
	bigRuns    = 11                    // runs of the large list (after the first) and of its encoding
)

type config struct {
	kubeconfig string
	n, c       int
	starts     int
	big        int
	json       bool
	watchers   int
	cli        string // a fakeplane binary to time from launch to /readyz
	refMeasure string // refplane's measure.sh, to time the reference's start
	refPIDs    string // pid files of the reference's processes, for its memory
	floor      bool   // also measure the operations against a null server
	scale      int    // objects in the scale run (0: no scale run)
	// scaleWatchers is how many watches are open in the scale run.
	scaleWatchers int
}

func main() {
	var cfg config
	flag.StringVar(&cfg.kubeconfig, "kubeconfig", "", "also measure the cluster this kubeconfig points at (e.g. ~/.cache/refplane/kubeconfig)")
	flag.IntVar(&cfg.n, "n", 200, "operations per measurement")
	flag.IntVar(&cfg.c, "c", 8, "concurrent clients for the throughput figures")
	flag.IntVar(&cfg.starts, "starts", 20, "start-to-first-request runs (in-process fakeplane)")
	flag.IntVar(&cfg.big, "big", 10000, "ConfigMaps in the large-list and memory figures (0 skips them)")
	flag.BoolVar(&cfg.json, "json", false, "ask every cluster for JSON instead of client-go's default (protobuf preferred)")
	flag.IntVar(&cfg.watchers, "watchers", 100, "open watches in the fan-out figure (0 skips it)")
	flag.StringVar(&cfg.cli, "cli", "", "also time this fakeplane binary from launch to its first /readyz 200, -starts times")
	flag.StringVar(&cfg.refMeasure, "reference-measure", "", "refplane's measure.sh: run it (5 cold starts) after the other figures for the reference's launch to /readyz; it leaves refplane stopped")
	flag.StringVar(&cfg.refPIDs, "reference-pids", "", "comma-separated pid files of the reference's processes (e.g. refplane's run/etcd.pid,run/kube-apiserver.pid): their RSS growth for -big ConfigMaps is reported")
	flag.BoolVar(&cfg.floor, "floor", false, "also measure the operations against a null server answering with fakeplane's answers: the floor of client-go, HTTP/2 and TLS")
	flag.IntVar(&cfg.scale, "scale", 0, "run the scale figures alone instead: this many ConfigMaps, then -scale-watchers watches open while create, get, list and watch latencies are measured (e.g. 100000)")
	flag.IntVar(&cfg.scaleWatchers, "scale-watchers", 1000, "watches open in the scale run")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: fakeplane-bench [-kubeconfig PATH] [-n N] [-c C] [-starts N] [-big N] [-json] [-watchers N] [-cli BINARY] [-reference-measure SCRIPT] [-reference-pids FILES] [-floor] [-scale N [-scale-watchers W]]\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if flag.NArg() > 0 || cfg.n < 1 || cfg.c < 1 || cfg.starts < 1 || cfg.big < 0 || cfg.watchers < 0 || cfg.scale < 0 || cfg.scaleWatchers < 1 || (cfg.floor && cfg.json) {
		flag.Usage()
		os.Exit(2)
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, cfg); err != nil {
		fmt.Fprintln(os.Stderr, "fakeplane-bench:", err)
		stop()
		os.Exit(1)
	}
}

// result is one row's figures for one cluster.
type result struct {
	p50, p90, p99 time.Duration
	opsPerS       float64
}

// row names a measurement.
type row struct{ key, label string }

var rows = []row{
	{"cli", "command: launch to /readyz 200"},
	{"start", "start to first request"},
	{"create", "create"},
	{"get", "get"},
	{"update", "update"},
	{"patch", "patch (merge)"},
	{"apply", "server-side apply"},
	{"delete", "delete"},
	{"list", fmt.Sprintf("list (%d ConfigMaps)", listCount)},
	{"watch", "watch event (create -> ADDED)"},
	{"watchers", "watch event, %w watchers"},
	{"biglistfirst", "list %d ConfigMaps, first after the creates"},
	{"biglist", "list %d ConfigMaps"},
	{"bigjson", "encoding/json of that list"},
}

// report collects the figures of one cluster.
type report struct {
	name, version string
	results       map[string]result
	heapMB, rssMB float64 // memory for -big ConfigMaps (heap: fakeplane only; RSS: the reference's with -reference-pids)
	processRSS    bool    // fakeplane's rssMB is its own process's (-cli), heapMB meaningless
	jsonMB        float64 // size of the large list as JSON
}

func run(ctx context.Context, cfg config) error {
	wire := "client-go default: protobuf preferred, JSON accepted"
	if cfg.json {
		wire = "JSON only (-json)"
	}
	fmt.Printf("fakeplane-bench: %s, GOMAXPROCS %d, %d CPUs; -n %d -c %d -big %d; wire format: %s\n",
		runtime.Version(), runtime.GOMAXPROCS(0), runtime.NumCPU(), cfg.n, cfg.c, cfg.big, wire)

	if cfg.scale > 0 {
		return benchScale(ctx, cfg)
	}
	fp := &report{name: "fakeplane", results: map[string]result{}}
	fmt.Fprintf(os.Stderr, "fakeplane: start to first request x%d\n", cfg.starts)
	r, err := measureStart(ctx, cfg, cfg.starts)
	if err != nil {
		return fmt.Errorf("start: %w", err)
	}
	fp.results["start"] = r
	if cfg.cli != "" {
		fmt.Fprintf(os.Stderr, "fakeplane: command launch to /readyz x%d\n", cfg.starts)
		if fp.results["cli"], err = measureCommandStart(ctx, cfg.cli, cfg.starts); err != nil {
			return fmt.Errorf("command start: %w", err)
		}
	}

	var floor *report
	if cfg.floor {
		floor = &report{name: "floor", results: map[string]result{}}
	}
	if err := benchInProcess(ctx, cfg, fp, floor); err != nil {
		return fmt.Errorf("fakeplane: %w", err)
	}

	var ref *report
	if cfg.kubeconfig != "" {
		ref = &report{name: "reference", results: map[string]result{}}
		if err := benchReference(ctx, cfg, ref); err != nil {
			return fmt.Errorf("reference (%s): %w", cfg.kubeconfig, err)
		}
		if cfg.refMeasure != "" {
			fmt.Fprintf(os.Stderr, "reference: %s %d\n", cfg.refMeasure, referenceStarts)
			if ref.results["cli"], err = measureReferenceStart(ctx, cfg.refMeasure, referenceStarts); err != nil {
				return fmt.Errorf("reference start: %w", err)
			}
		}
	}
	printReport(cfg, fp, floor, ref)
	return nil
}

// measureStart times New + Start + the first GET /version, runs times.
func measureStart(ctx context.Context, cfg config, runs int) (result, error) {
	var lat []time.Duration
	for range runs {
		if err := ctx.Err(); err != nil {
			return result{}, err
		}
		t0 := time.Now()
		cp, err := fakeplane.New()
		if err != nil {
			return result{}, err
		}
		if err := cp.Start(ctx); err != nil {
			return result{}, err
		}
		c, err := newClient(cfg, cp.RESTConfig())
		if err == nil {
			_, err = c.Discovery().ServerVersion()
		}
		lat = append(lat, time.Since(t0))
		if stopErr := cp.Stop(); err == nil {
			err = stopErr
		}
		if err != nil {
			return result{}, err
		}
	}
	var total time.Duration
	for _, d := range lat {
		total += d
	}
	return summarize(lat, float64(runs)/total.Seconds()), nil
}

// benchInProcess measures an in-process fakeplane: the operations, then (with
// floor) the same against a null server answering with its answers, then the
// memory and large list in a fresh one.
func benchInProcess(ctx context.Context, cfg config, rep, floor *report) error {
	cp, err := fakeplane.New()
	if err != nil {
		return err
	}
	if err := cp.Start(ctx); err != nil {
		return err
	}
	defer cp.Stop()
	c, err := newClient(cfg, cp.RESTConfig())
	if err != nil {
		return err
	}
	t, err := newTarget(ctx, c, "fakeplane")
	if err != nil {
		return err
	}
	rep.version = t.version
	if err := t.benchOps(ctx, cfg, rep); err != nil {
		return err
	}
	if floor != nil {
		if err := t.benchFloor(ctx, cfg, floor); err != nil {
			return fmt.Errorf("floor: %w", err)
		}
	}
	if err := cp.Stop(); err != nil {
		return err
	}
	if cfg.big == 0 {
		return nil
	}

	// A fresh control plane for memory, so that only the big set is in it:
	// the -cli binary in a process of its own (its RSS), else in-process
	// (the heap and RSS of this process, clients included).
	rc, rss, stop, err := fakeplaneUnderTest(ctx, cfg)
	if err != nil {
		return err
	}
	defer stop()
	rep.processRSS = rss != nil
	c2, err := newClient(cfg, rc)
	if err != nil {
		return err
	}
	t2, err := newTarget(ctx, c2, "fakeplane")
	if err != nil {
		return err
	}
	heap0, rss0, err := memory()
	if err != nil {
		return err
	}
	if rss != nil {
		if rss0, err = rss(); err != nil {
			return err
		}
	}
	fmt.Fprintf(os.Stderr, "fakeplane: creating %d ConfigMaps\n", cfg.big)
	if err := t2.fill(ctx, "big", "big", cfg.big); err != nil {
		return err
	}
	heap1, rss1, err := memory()
	if err != nil {
		return err
	}
	if rss != nil {
		if rss1, err = rss(); err != nil {
			return err
		}
	}
	rep.heapMB = (float64(heap1) - float64(heap0)) / (1 << 20)
	rep.rssMB = (float64(rss1) - float64(rss0)) / (1 << 20)
	return t2.benchBigList(ctx, cfg, rep)
}

// benchReference measures the cluster of cfg.kubeconfig in a namespace of
// its own, removed at the end.
func benchReference(ctx context.Context, cfg config, rep *report) (err error) {
	rc, err := clientcmd.BuildConfigFromFlags("", cfg.kubeconfig)
	if err != nil {
		return err
	}
	c, err := newClient(cfg, rc)
	if err != nil {
		return err
	}
	t, err := newTarget(ctx, c, "reference")
	if err != nil {
		return err
	}
	defer func() {
		if cerr := t.cleanup(); cerr != nil {
			err = errors.Join(err, fmt.Errorf("cleanup of namespace %s: %w", t.ns, cerr))
		}
	}()
	rep.version = t.version
	if err := t.benchOps(ctx, cfg, rep); err != nil {
		return err
	}
	if cfg.big == 0 {
		return nil
	}
	rss0, err := processRSS(cfg.refPIDs)
	if err != nil {
		return err
	}
	fmt.Fprintf(os.Stderr, "reference: creating %d ConfigMaps\n", cfg.big)
	if err := t.fill(ctx, "big", "big", cfg.big); err != nil {
		return err
	}
	if cfg.refPIDs != "" {
		// Let the watch cache and etcd settle as they would between tests.
		time.Sleep(2 * time.Second)
		rss1, err := processRSS(cfg.refPIDs)
		if err != nil {
			return err
		}
		rep.rssMB = (float64(rss1) - float64(rss0)) / (1 << 20)
	}
	return t.benchBigList(ctx, cfg, rep)
}

func newClient(cfg config, rc *rest.Config) (*kubernetes.Clientset, error) {
	rc = rest.CopyConfig(rc)
	if cfg.json {
		// A non-empty Accept keeps typed clients from switching to protobuf.
		rc.AcceptContentTypes = "application/json"
		rc.ContentType = "application/json"
	}
	rc.QPS = -1 // no client-side throttling
	rc.Burst = 0
	rc.Timeout = 2 * time.Minute
	return kubernetes.NewForConfig(rc)
}

// target is one cluster with the namespace of this run.
type target struct {
	name    string
	c       kubernetes.Interface
	ns      string
	version string
}

func newTarget(ctx context.Context, c kubernetes.Interface, name string) (*target, error) {
	v, err := c.Discovery().ServerVersion()
	if err != nil {
		return nil, err
	}
	ns, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{
		GenerateName: "fakeplane-bench-",
		Labels:       map[string]string{"fakeplane-bench": "1"},
	}}, metav1.CreateOptions{})
	if err != nil {
		return nil, fmt.Errorf("create namespace: %w", err)
	}
	return &target{name: name, c: c, ns: ns.Name, version: v.GitVersion}, nil
}

// cleanup deletes the run's namespace and what is in it. Without a namespace
// controller (a bare kube-apiserver) it empties and finalizes the namespace
// itself.
func (t *target) cleanup() error {
	// Deleting 100,000 objects takes a real cluster minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Minute)
	defer cancel()
	cms := t.c.CoreV1().ConfigMaps(t.ns)
	nss := t.c.CoreV1().Namespaces()
	if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	if err := nss.Delete(ctx, t.ns, metav1.DeleteOptions{}); err != nil {
		if apierrors.IsNotFound(err) {
			return nil
		}
		return err
	}
	gone := func(d time.Duration) (bool, error) {
		for end := time.Now().Add(d); ; {
			_, err := nss.Get(ctx, t.ns, metav1.GetOptions{})
			if apierrors.IsNotFound(err) {
				return true, nil
			}
			if err != nil {
				return false, err
			}
			if time.Now().After(end) {
				return false, nil
			}
			time.Sleep(100 * time.Millisecond)
		}
	}
	if ok, err := gone(3 * time.Second); ok || err != nil {
		return err
	}
	// No namespace controller: do its job for what this run created.
	if err := cms.DeleteCollection(ctx, metav1.DeleteOptions{}, metav1.ListOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	ns, err := nss.Get(ctx, t.ns, metav1.GetOptions{})
	if apierrors.IsNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	ns.Spec.Finalizers = nil
	if _, err := nss.Finalize(ctx, ns, metav1.UpdateOptions{}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("finalize: %w", err)
	}
	if ok, err := gone(30 * time.Second); err != nil || !ok {
		return errors.Join(err, errors.New("namespace still present after finalize"))
	}
	return nil
}

// configMap is a ConfigMap of about objectSize bytes of JSON.
func configMap(name, set string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{setLabel: set}},
		Data:       map[string]string{"payload": strings.Repeat("x", objectSize-150)},
	}
}

func (t *target) create(ctx context.Context, name, set string) (*corev1.ConfigMap, error) {
	return t.c.CoreV1().ConfigMaps(t.ns).Create(ctx, configMap(name, set), metav1.CreateOptions{})
}

// fill creates n ConfigMaps prefix-0..n-1 of a set with concurrent clients.
func (t *target) fill(ctx context.Context, prefix, set string, n int) error {
	_, err := parallel(ctx, n, fillers, func(_, i int) error {
		_, err := t.create(ctx, fmt.Sprintf("%s-%05d", prefix, i), set)
		return err
	})
	return err
}

func (t *target) list(ctx context.Context, set string, want int) (*corev1.ConfigMapList, error) {
	l, err := t.c.CoreV1().ConfigMaps(t.ns).List(ctx, metav1.ListOptions{LabelSelector: setLabel + "=" + set})
	if err != nil {
		return nil, err
	}
	if len(l.Items) != want {
		return nil, fmt.Errorf("listed %d ConfigMaps of set %s, want %d", len(l.Items), set, want)
	}
	return l, nil
}

// benchOps measures create, get, update, list and watch event.
func (t *target) benchOps(ctx context.Context, cfg config, rep *report) error {
	n, c := cfg.n, cfg.c
	warm := min(n, 20)
	var measure measureFunc = func(key string, seq func(i int) error, par func(w, i int) error) error {
		fmt.Fprintf(os.Stderr, "%s: %s\n", t.name, key)
		if _, err := sequential(ctx, warm, func(i int) error { return seq(-1 - i) }); err != nil {
			return fmt.Errorf("%s (warm-up): %w", key, err)
		}
		lat, err := sequential(ctx, n, seq)
		if err != nil {
			return fmt.Errorf("%s: %w", key, err)
		}
		elapsed, err := parallel(ctx, n, c, par)
		if err != nil {
			return fmt.Errorf("%s (%d clients): %w", key, c, err)
		}
		rep.results[key] = summarize(lat, float64(n)/elapsed.Seconds())
		return nil
	}
	name := func(prefix string, i int) string {
		if i < 0 {
			return fmt.Sprintf("%s-warm-%d", prefix, -i)
		}
		return fmt.Sprintf("%s-%d", prefix, i)
	}

	// create
	err := measure("create",
		func(i int) error { _, err := t.create(ctx, name("create", i), "create"); return err },
		func(_, i int) error { _, err := t.create(ctx, name("create-par", i), "create"); return err })
	if err != nil {
		return err
	}

	// get
	if _, err := t.create(ctx, "get", "get"); err != nil {
		return err
	}
	get := func(int) error {
		_, err := t.c.CoreV1().ConfigMaps(t.ns).Get(ctx, "get", metav1.GetOptions{})
		return err
	}
	if err := measure("get", get, func(_, i int) error { return get(i) }); err != nil {
		return err
	}

	// update: each client updates its own object with what its previous
	// update returned.
	objs := make([]*corev1.ConfigMap, c+1)
	for w := range objs {
		if objs[w], err = t.create(ctx, fmt.Sprintf("update-%d", w), "update"); err != nil {
			return err
		}
	}
	update := func(w, i int) error {
		o := objs[w]
		o.Data["i"] = strconv.Itoa(i)
		o, err := t.c.CoreV1().ConfigMaps(t.ns).Update(ctx, o, metav1.UpdateOptions{})
		if err != nil {
			return err
		}
		objs[w] = o
		return nil
	}
	if err := measure("update", func(i int) error { return update(c, i) }, update); err != nil {
		return err
	}
	if err := t.benchWrites(ctx, cfg, measure); err != nil {
		return err
	}

	// list
	if err := t.fill(ctx, "list", "list", listCount); err != nil {
		return err
	}
	list := func(int) error { _, err := t.list(ctx, "list", listCount); return err }
	if err := measure("list", list, func(_, i int) error { return list(i) }); err != nil {
		return err
	}

	// watch event
	if err := t.benchWatch(ctx, cfg, rep); err != nil {
		return err
	}
	return t.benchWatchers(ctx, cfg, rep)
}

// benchWatch measures the time from the start of a create to its ADDED event
// on an open watch, and the event throughput with concurrent creators.
func (t *target) benchWatch(ctx context.Context, cfg config, rep *report) error {
	fmt.Fprintf(os.Stderr, "%s: watch\n", t.name)
	l, err := t.list(ctx, "watch", 0)
	if err != nil {
		return err
	}
	w, err := t.c.CoreV1().ConfigMaps(t.ns).Watch(ctx, metav1.ListOptions{
		LabelSelector:   setLabel + "=watch",
		ResourceVersion: l.ResourceVersion,
	})
	if err != nil {
		return err
	}
	defer w.Stop()
	// await waits for ADDED events until done(name) says to stop.
	await := func(done func(name string) bool) error {
		timeout := time.NewTimer(time.Minute)
		defer timeout.Stop()
		for {
			select {
			case ev, ok := <-w.ResultChan():
				if !ok {
					return errors.New("watch closed")
				}
				if ev.Type == watch.Error {
					return fmt.Errorf("watch error: %v", apierrors.FromObject(ev.Object))
				}
				if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Added && done(cm.Name) {
					return nil
				}
			case <-timeout.C:
				return errors.New("no event within a minute")
			case <-ctx.Done():
				return ctx.Err()
			}
		}
	}
	one := func(name string) error {
		if _, err := t.create(ctx, name, "watch"); err != nil {
			return err
		}
		return await(func(got string) bool { return got == name })
	}
	for i := range min(cfg.n, 20) {
		if err := one(fmt.Sprintf("watch-warm-%d", i)); err != nil {
			return fmt.Errorf("watch (warm-up): %w", err)
		}
	}
	lat, err := sequential(ctx, cfg.n, func(i int) error { return one(fmt.Sprintf("watch-%d", i)) })
	if err != nil {
		return fmt.Errorf("watch: %w", err)
	}

	// Throughput: creators in the background, events counted here.
	start := time.Now()
	errc := make(chan error, 1)
	go func() {
		_, err := parallel(ctx, cfg.n, cfg.c, func(_, i int) error {
			_, err := t.create(ctx, fmt.Sprintf("watch-par-%d", i), "watch")
			return err
		})
		errc <- err
	}()
	seen := 0
	err = await(func(name string) bool {
		if strings.HasPrefix(name, "watch-par-") {
			seen++
		}
		return seen == cfg.n
	})
	elapsed := time.Since(start)
	if cerr := <-errc; cerr != nil {
		return fmt.Errorf("watch (%d creators): %w", cfg.c, cerr)
	}
	if err != nil {
		return fmt.Errorf("watch (%d creators): %d of %d events: %w", cfg.c, seen, cfg.n, err)
	}
	rep.results["watch"] = summarize(lat, float64(cfg.n)/elapsed.Seconds())
	return nil
}

// benchBigList times listing the big set through client-go and encoding the
// same typed list with encoding/json. The first list after the creates is
// reported apart: a server may fill caches then (fakeplane encodes each
// object's protobuf message once, kube-apiserver's watch cache is filled as
// the objects are written), which the lists after it read.
func (t *target) benchBigList(ctx context.Context, cfg config, rep *report) error {
	fmt.Fprintf(os.Stderr, "%s: list of %d\n", t.name, cfg.big)
	var l *corev1.ConfigMapList
	lat, err := sequential(ctx, 1+bigRuns, func(int) error {
		var err error
		l, err = t.list(ctx, "big", cfg.big)
		return err
	})
	if err != nil {
		return fmt.Errorf("list of %d: %w", cfg.big, err)
	}
	rep.results["biglistfirst"] = summarize(lat[:1], float64(cfg.big)/lat[0].Seconds())
	lat = lat[1:]
	rep.results["biglist"] = summarize(lat, float64(cfg.big)/median(lat).Seconds())

	l.Kind, l.APIVersion = "ConfigMapList", "v1"
	var size int
	lat, err = sequential(ctx, bigRuns, func(int) error {
		b, err := json.Marshal(l)
		size = len(b)
		return err
	})
	if err != nil {
		return err
	}
	rep.results["bigjson"] = summarize(lat, float64(cfg.big)/median(lat).Seconds())
	rep.jsonMB = float64(size) / 1e6
	return nil
}

// sequential runs op(0..n-1) one after the other and returns each latency.
func sequential(ctx context.Context, n int, op func(i int) error) ([]time.Duration, error) {
	lat := make([]time.Duration, 0, n)
	for i := range n {
		if err := ctx.Err(); err != nil {
			return nil, err
		}
		t0 := time.Now()
		if err := op(i); err != nil {
			return nil, err
		}
		lat = append(lat, time.Since(t0))
	}
	return lat, nil
}

// parallel runs op(w, i) for i in 0..n-1 on c workers (w is the worker's
// number) and returns the wall time.
func parallel(ctx context.Context, n, c int, op func(w, i int) error) (time.Duration, error) {
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		once     sync.Once
		firstErr error
	)
	start := time.Now()
	for w := range min(c, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				err := ctx.Err()
				if err == nil {
					err = op(w, i)
				}
				if err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(n))
					return
				}
			}
		}()
	}
	wg.Wait()
	return time.Since(start), firstErr
}

func summarize(lat []time.Duration, opsPerS float64) result {
	s := slices.Clone(lat)
	slices.Sort(s)
	return result{p50: percentile(s, 50), p90: percentile(s, 90), p99: percentile(s, 99), opsPerS: opsPerS}
}

// percentile is the nearest-rank percentile of sorted durations.
func percentile(sorted []time.Duration, p float64) time.Duration {
	if len(sorted) == 0 {
		return 0
	}
	i := int(math.Ceil(p/100*float64(len(sorted)))) - 1
	return sorted[max(0, min(i, len(sorted)-1))]
}

func median(lat []time.Duration) time.Duration {
	s := slices.Clone(lat)
	slices.Sort(s)
	return percentile(s, 50)
}

// memory runs the GC, returns freed memory to the OS, and reads the heap in
// use and the resident set size, in bytes.
func memory() (heapInuse, rss uint64, err error) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		return 0, 0, err
	}
	fields := strings.Fields(string(statm))
	if len(fields) < 2 {
		return 0, 0, fmt.Errorf("/proc/self/statm: %q", statm)
	}
	pages, err := strconv.ParseUint(fields[1], 10, 64)
	if err != nil {
		return 0, 0, fmt.Errorf("/proc/self/statm: %w", err)
	}
	return ms.HeapInuse, pages * uint64(os.Getpagesize()), nil
}

func printReport(cfg config, fp, floor, ref *report) {
	fmt.Println()
	fmt.Printf("fakeplane %s (in-process)", fp.version)
	if ref != nil {
		fmt.Printf("; reference %s (%s)", ref.version, cfg.kubeconfig)
	}
	fmt.Println()
	fmt.Printf("p50/p90: latency of %d sequential ops (start: %d runs; large list: %d runs after the first, which is timed alone); ops/s: %d ops by %d clients\n",
		cfg.n, cfg.starts, bigRuns, cfg.n, cfg.c)
	fmt.Println()

	tw := tabwriter.NewWriter(os.Stdout, 0, 0, 2, ' ', tabwriter.AlignRight)
	header := "operation\tfakeplane p50\tp90\tp99\tops/s\t"
	if floor != nil {
		header += "floor p50\tp99\tops/s\t"
	}
	if ref != nil {
		header += "reference p50\tp90\tp99\tops/s\tfakeplane/reference p50\tops/s\t"
		if floor != nil {
			header += "floor/reference p50\tops/s\t"
		}
	}
	fmt.Fprintln(tw, header)
	for _, r := range rows {
		f, ok := fp.results[r.key]
		if !ok {
			continue
		}
		label := r.label
		if strings.Contains(label, "%d") {
			label = fmt.Sprintf(label, cfg.big)
		}
		label = strings.ReplaceAll(label, "%w", strconv.Itoa(cfg.watchers))
		line := fmt.Sprintf("%s\t%s\t%s\t%s\t%s\t", label, dur(f.p50), dur(f.p90), dur(f.p99), rate(f.opsPerS, r.key))
		var fl result
		hasFloor := false
		if floor != nil {
			if fl, hasFloor = floor.results[r.key]; hasFloor {
				line += fmt.Sprintf("%s\t%s\t%s\t", dur(fl.p50), dur(fl.p99), rate(fl.opsPerS, r.key))
			} else {
				line += "-\t-\t-\t"
			}
		}
		if ref != nil {
			if x, ok := ref.results[r.key]; ok {
				line += fmt.Sprintf("%s\t%s\t%s\t%s\t%.2f\t%s\t", dur(x.p50), dur(x.p90), dur(x.p99), rate(x.opsPerS, r.key), float64(f.p50)/float64(x.p50), throughputRatio(x, f))
				if floor != nil {
					if hasFloor {
						line += fmt.Sprintf("%.2f\t%s\t", float64(fl.p50)/float64(x.p50), throughputRatio(x, fl))
					} else {
						line += "-\t-\t"
					}
				}
			} else {
				line += "-\t-\t-\t-\t-\t-\t"
				if floor != nil {
					line += "-\t-\t"
				}
			}
		}
		fmt.Fprintln(tw, line)
	}
	tw.Flush()

	if cfg.big > 0 {
		fmt.Println()
		ratio := func(rep *report) string {
			l, j := rep.results["biglist"], rep.results["bigjson"]
			if j.p50 == 0 {
				return "-"
			}
			return fmt.Sprintf("%.1fx", float64(l.p50)/float64(j.p50))
		}
		fmt.Printf("list of %d ConfigMaps / encoding/json Marshal of the same list: fakeplane %s (%.1f MB of JSON)", cfg.big, ratio(fp), fp.jsonMB)
		if ref != nil {
			fmt.Printf(", reference %s (%.1f MB of JSON)", ratio(ref), ref.jsonMB)
		}
		fmt.Println()
		if fp.processRSS {
			fmt.Printf("memory for %d ConfigMaps of ~%d bytes: the fakeplane process (%s) RSS %+.1f MB\n", cfg.big, objectSize, cfg.cli, fp.rssMB)
		} else {
			fmt.Printf("memory for %d ConfigMaps of ~%d bytes in an in-process fakeplane: heap in use %+.1f MB, RSS %+.1f MB\n",
				cfg.big, objectSize, fp.heapMB, fp.rssMB)
		}
		if ref != nil && cfg.refPIDs != "" {
			fmt.Printf("the reference's processes (%s): RSS %+.1f MB; fakeplane/reference RSS %.2f\n", cfg.refPIDs, ref.rssMB, fp.rssMB/ref.rssMB)
		}
	}
	if floor != nil {
		fmt.Println("floor: the same operations against a null server that answers with fakeplane's answers and does nothing else (client-go, HTTP/2 and TLS alone)")
	}
	if ref != nil {
		fmt.Println("ops/s column after the ratio: reference ops/s / fakeplane ops/s (below 1: fakeplane serves more); after the floor's ratio: reference ops/s / floor ops/s")
		if cfg.refMeasure == "" {
			fmt.Println("(the start of the reference is not measured without -reference-measure; ../shared/tools/refplane/start.sh prints it)")
		}
	}
}

// throughputRatio formats reference ops/s over x's ops/s.
func throughputRatio(ref, x result) string {
	if ref.opsPerS <= 0 || x.opsPerS <= 0 {
		return "-"
	}
	return fmt.Sprintf("%.2f", ref.opsPerS/x.opsPerS)
}

// dur formats a latency in milliseconds with 3 significant digits.
func dur(d time.Duration) string {
	ms := float64(d) / float64(time.Millisecond)
	switch {
	case ms < 1:
		return fmt.Sprintf("%.3fms", ms)
	case ms < 10:
		return fmt.Sprintf("%.2fms", ms)
	case ms < 100:
		return fmt.Sprintf("%.1fms", ms)
	default:
		return fmt.Sprintf("%.0fms", ms)
	}
}

// rate formats a throughput; the large list's is in objects/s.
func rate(v float64, key string) string {
	s := strconv.FormatFloat(v, 'f', 0, 64)
	if v < 10 {
		s = strconv.FormatFloat(v, 'f', 1, 64)
	}
	if strings.HasPrefix(key, "big") {
		s += " obj/s"
	}
	return s
}
