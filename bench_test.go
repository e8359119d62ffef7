package fakeplane_test

// Benchmarks through client-go over HTTPS, as a test would use fakeplane.
//
//	go test -run x -bench . -benchtime 1x ./                                  # smoke run
//	go test -run x -bench 'StartToFirst|Create|Get|Update|Delete|List$|WatchEvent|PatchMerge|PatchApply' -count 5 ./
//	go test -run x -bench '10k' ./                                            # list/encode ratio, memory

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"sigs.k8s.io/yaml"

	"github.com/fakeplane/fakeplane"
)

const (
	benchBigCount   = 10000 // objects in the 10k benchmarks
	benchWorkers    = 16    // concurrent creators when filling a control plane
	benchListCount  = 100   // objects in BenchmarkList
	benchInstances  = 50    // control planes in BenchmarkParallelInstances
	benchObjectSize = 300   // approximate JSON size of a benchmark ConfigMap
)

// benchSetup starts a control plane for the benchmark and returns a client
// (RESTConfig has QPS -1: no client-side throttling) and a fresh namespace.
func benchSetup(b *testing.B) (*fakeplane.ControlPlane, kubernetes.Interface, string) {
	b.Helper()
	cp := fakeplane.Start(b)
	client := benchClient(b, cp)
	return cp, client, benchNamespace(b, client)
}

func benchClient(b testing.TB, cp *fakeplane.ControlPlane) *kubernetes.Clientset {
	b.Helper()
	c, err := kubernetes.NewForConfig(cp.RESTConfig())
	if err != nil {
		b.Fatal(err)
	}
	return c
}

func benchNamespace(b testing.TB, client kubernetes.Interface) string {
	b.Helper()
	ns, err := client.CoreV1().Namespaces().Create(context.Background(),
		&corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "bench-"}}, metav1.CreateOptions{})
	if err != nil {
		b.Fatalf("create namespace: %v", err)
	}
	return ns.Name
}

// benchConfigMap is a ConfigMap whose JSON is about benchObjectSize bytes.
func benchConfigMap(name string) *corev1.ConfigMap {
	return &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": "bench"}},
		Data:       map[string]string{"payload": strings.Repeat("x", benchObjectSize-140)},
	}
}

// benchFill creates n ConfigMaps named cm-00000... in ns with concurrent
// workers.
func benchFill(b testing.TB, client kubernetes.Interface, ns string, n int) {
	b.Helper()
	var (
		next     atomic.Int64
		wg       sync.WaitGroup
		firstErr error
		once     sync.Once
	)
	for range min(benchWorkers, n) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for {
				i := int(next.Add(1)) - 1
				if i >= n {
					return
				}
				_, err := client.CoreV1().ConfigMaps(ns).Create(context.Background(), benchConfigMap(fmt.Sprintf("cm-%05d", i)), metav1.CreateOptions{})
				if err != nil {
					once.Do(func() { firstErr = err })
					next.Store(int64(n)) // stop the others
					return
				}
			}
		}()
	}
	wg.Wait()
	if firstErr != nil {
		b.Fatalf("create ConfigMaps: %v", firstErr)
	}
}

// benchList lists the benchmark's ConfigMaps in ns (not the namespace's
// kube-root-ca.crt) and checks the count.
func benchList(b testing.TB, client kubernetes.Interface, ns string, want int) *corev1.ConfigMapList {
	l, err := client.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "app=bench"})
	if err != nil {
		b.Fatal(err)
	}
	if len(l.Items) != want {
		b.Fatalf("listed %d ConfigMaps, want %d", len(l.Items), want)
	}
	return l
}

// BenchmarkStartToFirstRequest measures New + Start until the first GET
// /version through client-go answers (a new client: TLS handshake
// included); Stop is not timed.
func BenchmarkStartToFirstRequest(b *testing.B) {
	for b.Loop() {
		cp, err := fakeplane.New()
		if err != nil {
			b.Fatal(err)
		}
		if err := cp.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		if _, err := benchClient(b, cp).Discovery().ServerVersion(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		if err := cp.Stop(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
	}
}

func BenchmarkCreate(b *testing.B) {
	_, client, ns := benchSetup(b)
	ctx := context.Background()
	for i := 0; b.Loop(); i++ {
		if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, benchConfigMap("cm-"+strconv.Itoa(i)), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkGet(b *testing.B) {
	_, client, ns := benchSetup(b)
	benchFill(b, client, ns, 1)
	ctx := context.Background()
	for b.Loop() {
		if _, err := client.CoreV1().ConfigMaps(ns).Get(ctx, "cm-00000", metav1.GetOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkUpdate updates one ConfigMap again and again, each time with the
// object the previous update returned (so with its resourceVersion).
func BenchmarkUpdate(b *testing.B) {
	_, client, ns := benchSetup(b)
	ctx := context.Background()
	cm, err := client.CoreV1().ConfigMaps(ns).Create(ctx, benchConfigMap("cm"), metav1.CreateOptions{})
	if err != nil {
		b.Fatal(err)
	}
	for i := 0; b.Loop(); i++ {
		cm.Data["i"] = strconv.Itoa(i)
		if cm, err = client.CoreV1().ConfigMaps(ns).Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkDelete deletes ConfigMaps created beforehand (not timed), one
// delete per op.
func BenchmarkDelete(b *testing.B) {
	_, client, ns := benchSetup(b)
	benchFill(b, client, ns, b.N)
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		if err := client.CoreV1().ConfigMaps(ns).Delete(ctx, fmt.Sprintf("cm-%05d", i), metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList lists a namespace of 100 ConfigMaps.
func BenchmarkList(b *testing.B) {
	_, client, ns := benchSetup(b)
	benchFill(b, client, ns, benchListCount)
	for b.Loop() {
		benchList(b, client, ns, benchListCount)
	}
}

// BenchmarkWatchEvent measures the time from the start of a create to its
// ADDED event arriving on an open watch; one event per op.
func BenchmarkWatchEvent(b *testing.B) {
	_, client, ns := benchSetup(b)
	ctx := context.Background()
	list, err := client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		b.Fatal(err)
	}
	w, err := client.CoreV1().ConfigMaps(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		b.Fatal(err)
	}
	defer w.Stop()
	// Objects that exist already (e.g. a published kube-root-ca.crt) may
	// show up first; they are skipped by name below.
	for i := 0; b.Loop(); i++ {
		name := "cm-" + strconv.Itoa(i)
		if _, err := client.CoreV1().ConfigMaps(ns).Create(ctx, benchConfigMap(name), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		benchWaitEvent(b, w, name)
	}
}

// benchWaitEvent waits for the ADDED event of name.
func benchWaitEvent(b testing.TB, w watch.Interface, name string) {
	timeout := time.After(30 * time.Second)
	for {
		select {
		case ev, ok := <-w.ResultChan():
			if !ok {
				b.Fatalf("watch closed while waiting for %s", name)
			}
			if ev.Type == watch.Error {
				b.Fatalf("watch error: %v", ev.Object)
			}
			if cm, ok := ev.Object.(*corev1.ConfigMap); ok && ev.Type == watch.Added && cm.Name == name {
				return
			}
		case <-timeout:
			b.Fatalf("no ADDED event for %s within 30s", name)
		}
	}
}

// BenchmarkList10kConfigMaps lists 10,000 ConfigMaps through client-go's
// typed client. Compare with BenchmarkEncodeJSON10kConfigMaps, which only
// encodes the same list.
func BenchmarkList10kConfigMaps(b *testing.B) {
	_, client, ns := benchSetup(b)
	benchFill(b, client, ns, benchBigCount)
	b.ReportAllocs()
	for b.Loop() {
		benchList(b, client, ns, benchBigCount)
	}
}

// BenchmarkEncodeJSON10kConfigMaps is the floor for BenchmarkList10kConfigMaps:
// encoding/json Marshal of the same typed ConfigMapList, as fakeplane
// returned it, with no server or client work around it.
func BenchmarkEncodeJSON10kConfigMaps(b *testing.B) {
	_, client, ns := benchSetup(b)
	benchFill(b, client, ns, benchBigCount)
	list := benchList(b, client, ns, benchBigCount)
	list.Kind, list.APIVersion = "ConfigMapList", "v1"
	b.ReportAllocs()
	var size int
	for b.Loop() {
		out, err := json.Marshal(list)
		if err != nil {
			b.Fatal(err)
		}
		size = len(out)
	}
	b.ReportMetric(float64(size)/1e6, "MB-json")
}

// BenchmarkMemory10kConfigMaps creates 10,000 ConfigMaps of ~300 bytes in a
// fresh control plane and reports how much the process's heap in use and
// resident set grew (after a GC), averaged over the iterations.
func BenchmarkMemory10kConfigMaps(b *testing.B) {
	var heap, rss float64
	n := 0
	for b.Loop() {
		cp, err := fakeplane.New()
		if err != nil {
			b.Fatal(err)
		}
		if err := cp.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		client := benchClient(b, cp)
		ns := benchNamespace(b, client)
		heap0, rss0 := benchMemory(b)
		benchFill(b, client, ns, benchBigCount)
		heap1, rss1 := benchMemory(b)
		heap += float64(heap1) - float64(heap0)
		rss += float64(rss1) - float64(rss0)
		n++
		if err := cp.Stop(); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(heap/float64(n)/(1<<20), "MB-heap/10k")
	b.ReportMetric(rss/float64(n)/(1<<20), "MB-rss/10k")
}

// benchMemory runs the GC, returns freed memory to the OS, and returns the
// heap in use and the resident set size, in bytes.
func benchMemory(b testing.TB) (heapInuse, rss uint64) {
	runtime.GC()
	debug.FreeOSMemory()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	statm, err := os.ReadFile("/proc/self/statm")
	if err != nil {
		b.Skipf("no /proc/self/statm: %v", err)
	}
	fields := strings.Fields(string(statm))
	if len(fields) < 2 {
		b.Fatalf("/proc/self/statm: %q", statm)
	}
	pages, err := strconv.ParseUint(fields[1], 10, 64)
	if err != nil {
		b.Fatalf("/proc/self/statm: %v", err)
	}
	return ms.HeapInuse, pages * uint64(os.Getpagesize())
}

// BenchmarkParallelInstances starts 50 control planes at once and waits
// until each answers GET /version; one op is all 50. Stopping them is not
// timed. It reports the heap in use per idle control plane (after a GC,
// with all 50 running), as heap-KB/instance.
func BenchmarkParallelInstances(b *testing.B) {
	runtime.GC()
	var before runtime.MemStats
	runtime.ReadMemStats(&before)
	var perInstance float64
	for b.Loop() {
		cps := make([]*fakeplane.ControlPlane, benchInstances)
		errs := make([]error, benchInstances)
		var wg sync.WaitGroup
		for i := range cps {
			wg.Add(1)
			go func() {
				defer wg.Done()
				cp, err := fakeplane.New()
				if err == nil {
					err = cp.Start(context.Background())
				}
				if err == nil {
					cps[i] = cp
					var c *kubernetes.Clientset
					if c, err = kubernetes.NewForConfig(cp.RESTConfig()); err == nil {
						_, err = c.Discovery().ServerVersion()
					}
				}
				errs[i] = err
			}()
		}
		wg.Wait()
		b.StopTimer()
		runtime.GC()
		var after runtime.MemStats
		runtime.ReadMemStats(&after)
		perInstance = (float64(after.HeapInuse) - float64(before.HeapInuse)) / benchInstances / 1024
		for i, cp := range cps {
			if cp != nil {
				if err := cp.Stop(); err != nil {
					b.Errorf("stop %d: %v", i, err)
				}
			}
			if errs[i] != nil {
				b.Fatalf("instance %d: %v", i, errs[i])
			}
		}
		b.StartTimer()
	}
	b.ReportMetric(perInstance, "heap-KB/instance")
}

// BenchmarkAuthorization compares a GET by a non-admin user under RBAC with
// 1,000 bindings (the user's own binding last) against AlwaysAllow.
func BenchmarkAuthorization(b *testing.B) {
	for _, tc := range []struct {
		name     string
		mode     string
		bindings int
	}{
		{"AlwaysAllow", fakeplane.AuthorizationAlwaysAllow, 0},
		{"RBAC-1000-bindings", fakeplane.AuthorizationRBAC, 1000},
	} {
		b.Run(tc.name, func(b *testing.B) {
			cp := fakeplane.Start(b, fakeplane.WithAuthorizationMode(tc.mode))
			admin := benchClient(b, cp)
			ctx := context.Background()
			for i := 0; i < tc.bindings; i++ {
				subject := []rbacv1.Subject{{Kind: "User", APIGroup: "rbac.authorization.k8s.io", Name: fmt.Sprintf("user-%d", i)}}
				if i == tc.bindings-1 {
					subject[0].Name = "bench-user"
				}
				ref := rbacv1.RoleRef{APIGroup: "rbac.authorization.k8s.io", Kind: "ClusterRole", Name: "view"}
				var err error
				if i%2 == 0 {
					_, err = admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("b-%04d", i)}, RoleRef: ref, Subjects: subject}, metav1.CreateOptions{})
				} else {
					_, err = admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("b-%04d", i)}, RoleRef: ref, Subjects: subject}, metav1.CreateOptions{})
				}
				if err != nil {
					b.Fatal(err)
				}
			}
			cfg, err := cp.AddUser("bench-user")
			if err != nil {
				b.Fatal(err)
			}
			user := kubernetes.NewForConfigOrDie(cfg)
			if _, err := user.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{}); err != nil {
				b.Fatal(err)
			}
			b.ResetTimer()
			for i := 0; i < b.N; i++ {
				if _, err := user.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkStartWith50CRDs is BenchmarkStartToFirstRequest with a folder of
// 50 CRDs installed before Start returns (WithCRDs).
func BenchmarkStartWith50CRDs(b *testing.B) {
	dir := b.TempDir()
	for i := 0; i < 50; i++ {
		if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("crd%02d.yaml", i)), []byte(widgetCRD(i)), 0o600); err != nil {
			b.Fatal(err)
		}
	}
	for i := 0; i < b.N; i++ {
		cp, err := fakeplane.New(fakeplane.WithCRDs(dir))
		if err != nil {
			b.Fatal(err)
		}
		if err := cp.Start(context.Background()); err != nil {
			b.Fatal(err)
		}
		if _, err := benchClient(b, cp).Discovery().ServerVersion(); err != nil {
			b.Fatal(err)
		}
		b.StopTimer()
		_ = cp.Stop()
		b.StartTimer()
	}
}

// BenchmarkCRDEstablished measures creating a CRD through client-go until
// its first custom resource is created.
func BenchmarkCRDEstablished(b *testing.B) {
	cp := fakeplane.Start(b)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		u := &unstructured.Unstructured{}
		if err := yaml.Unmarshal([]byte(widgetCRD(i)), &u.Object); err != nil {
			b.Fatal(err)
		}
		if _, err := crds.Create(ctx, u, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		cr := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": fmt.Sprintf("Widget%d", i), "metadata": map[string]any{"name": "w"}}}
		if _, err := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: fmt.Sprintf("widgets%d", i)}).Namespace("default").Create(ctx, cr, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// celCRD is a CRD whose spec carries 10 CEL rules.
func celCRD() string {
	var rules []string
	for i := 0; i < 10; i++ {
		rules = append(rules, fmt.Sprintf("self.replicas >= %d || self.name.startsWith('x')", -i))
	}
	return celCRDYAML("rules", "              replicas: {type: integer}\n              name: {type: string, maxLength: 64}\n", rules...)
}

// BenchmarkCreateCustomResourceWith10CELRules creates custom objects whose
// schema has 10 CEL rules.
func BenchmarkCreateCustomResourceWith10CELRules(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(celCRD()), 0o600); err != nil {
		b.Fatal(err)
	}
	cp := fakeplane.Start(b, fakeplane.WithCRDs(dir))
	rules := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(schema.GroupVersionResource{Group: "cel.example.com", Version: "v1", Resource: "rules"}).Namespace("default")
	ctx := context.Background()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cel.example.com/v1", "kind": "Krules",
			"metadata": map[string]any{"name": fmt.Sprintf("r%d", i)}, "spec": map[string]any{"replicas": int64(3), "name": "abc"}}}
		if _, err := rules.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkList10kCustomResources lists 10,000 custom objects through the
// dynamic client.
func BenchmarkList10kCustomResources(b *testing.B) {
	dir := b.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "crd.yaml"), []byte(widgetCRD(0)), 0o600); err != nil {
		b.Fatal(err)
	}
	cp := fakeplane.Start(b, fakeplane.WithCRDs(dir))
	widgets := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets0"}).Namespace("default")
	ctx := context.Background()
	const n, workers = 10000, 8
	var wg sync.WaitGroup
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := w; i < n; i += workers {
				obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget0",
					"metadata": map[string]any{"name": fmt.Sprintf("w%05d", i)}, "spec": map[string]any{"size": int64(i % 7)}}}
				if _, err := widgets.Create(ctx, obj, metav1.CreateOptions{}); err != nil {
					b.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		l, err := widgets.List(ctx, metav1.ListOptions{})
		if err != nil || len(l.Items) != n {
			b.Fatalf("list: %v %d", err, len(l.Items))
		}
	}
}

// BenchmarkListSelected100Of10k lists the 100 ConfigMaps a label selects in
// a namespace of 10,000: with an index the cost follows the 100, not the
// 10,000 (compare BenchmarkList, 100 of 100).
func BenchmarkListSelected100Of10k(b *testing.B) {
	_, client, ns := benchSetup(b)
	benchFill(b, client, ns, benchBigCount)
	for i := range benchListCount {
		cm, err := client.CoreV1().ConfigMaps(ns).Get(context.Background(), fmt.Sprintf("cm-%05d", i*(benchBigCount/benchListCount)), metav1.GetOptions{})
		if err != nil {
			b.Fatal(err)
		}
		cm.Labels["selected"] = "yes"
		if _, err := client.CoreV1().ConfigMaps(ns).Update(context.Background(), cm, metav1.UpdateOptions{}); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportAllocs()
	for b.Loop() {
		l, err := client.CoreV1().ConfigMaps(ns).List(context.Background(), metav1.ListOptions{LabelSelector: "selected=yes"})
		if err != nil {
			b.Fatal(err)
		}
		if len(l.Items) != benchListCount {
			b.Fatalf("listed %d ConfigMaps, want %d", len(l.Items), benchListCount)
		}
	}
}
