package fakeplane_test

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

func clientset(t testing.TB, cp *fakeplane.ControlPlane) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// protobufClientset is clientset sending and accepting protobuf only.
func protobufClientset(t testing.TB, cp *fakeplane.ControlPlane) *kubernetes.Clientset {
	t.Helper()
	cfg := cp.RESTConfig()
	cfg.ContentType = "application/vnd.kubernetes.protobuf"
	cfg.AcceptContentTypes = "application/vnd.kubernetes.protobuf"
	cs, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

func ctxT(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// startError returns the error New or Start gives for opts, stopping the
// control plane if it started after all.
func startError(t *testing.T, opts ...fakeplane.Option) error {
	t.Helper()
	cp, err := fakeplane.New(opts...)
	if err != nil {
		return err
	}
	if err := cp.Start(ctxT(t)); err != nil {
		return err
	}
	_ = cp.Stop()
	return nil
}

// startOnDataDir starts a control plane with opts on the data directory
// dir (WithDataDir) and fails t if it does not start; the caller stops it.
func startOnDataDir(ctx context.Context, t *testing.T, dir string, opts ...fakeplane.Option) *fakeplane.ControlPlane {
	t.Helper()
	cp, err := fakeplane.New(append([]fakeplane.Option{fakeplane.WithDataDir(dir)}, opts...)...)
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return cp
}

// ctxDataDir is ctxT for tests of control planes kept in a --data-dir,
// which sync every write to disk: under -race, beside the other parallel
// tests, their start and first writes can take longer than ctxT allows.
// It bounds a test that hangs; it times nothing.
func ctxDataDir(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

func TestTypedClientCRUD(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	cms := cs.CoreV1().ConfigMaps("default")

	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.UID == "" || created.ResourceVersion == "" || created.CreationTimestamp.IsZero() {
		t.Fatalf("server-owned metadata not set: %+v", created.ObjectMeta)
	}
	if created.Generation != 0 {
		t.Errorf("configmaps have no generation upstream; got %d", created.Generation)
	}
	got, err := cms.Get(ctx, "a", metav1.GetOptions{})
	if err != nil || got.Data["k"] != "v" || got.ResourceVersion != created.ResourceVersion {
		t.Fatalf("get: %v %+v", err, got)
	}

	got.Data["k"] = "w"
	updated, err := cms.Update(ctx, got, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if rv(t, updated.ResourceVersion) <= rv(t, created.ResourceVersion) {
		t.Errorf("resourceVersion did not increase: %s -> %s", created.ResourceVersion, updated.ResourceVersion)
	}
	// An update with no change does not consume a resourceVersion.
	same, err := cms.Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil || same.ResourceVersion != updated.ResourceVersion {
		t.Errorf("no-op update changed resourceVersion: %v %s -> %s", err, updated.ResourceVersion, same.ResourceVersion)
	}

	// A stale resourceVersion is a 409 Conflict with upstream's message.
	_, err = cms.Update(ctx, got, metav1.UpdateOptions{})
	if !apierrors.IsConflict(err) {
		t.Fatalf("stale update: want Conflict, got %v", err)
	}
	if want := `Operation cannot be fulfilled on configmaps "a": the object has been modified; please apply your changes to the latest version and try again`; err.Error() != want {
		t.Errorf("conflict message:\n got %q\nwant %q", err.Error(), want)
	}

	// generateName gets a 5-character suffix.
	gen, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: "gen-"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(gen.Name) != len("gen-")+5 {
		t.Errorf("generateName: got %q", gen.Name)
	}

	// Create of an existing name is 409 AlreadyExists.
	_, err = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if !apierrors.IsAlreadyExists(err) || err.Error() != `configmaps "a" already exists` {
		t.Errorf("duplicate create: %v", err)
	}

	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if names := itemNames(list.Items); fmt.Sprint(names) != fmt.Sprintf("[a %s kube-root-ca.crt]", gen.Name) {
		t.Errorf("list names: %v", names)
	}

	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cms.Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) || err.Error() != `configmaps "a" not found` {
		t.Errorf("get after delete: %v", err)
	}
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("second delete: %v", err)
	}
}

func itemNames(items []corev1.ConfigMap) []string {
	var out []string
	for _, it := range items {
		out = append(out, it.Name)
	}
	return out
}

func rv(t testing.TB, s string) int64 {
	t.Helper()
	n, err := strconv.ParseInt(s, 10, 64)
	if err != nil {
		t.Fatalf("resourceVersion %q: %v", s, err)
	}
	return n
}

func TestDeploymentGenerationAndStatusIsolation(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	deps := cs.AppsV1().Deployments("default")
	d := &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To[int32](2),
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "web"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
		Status: appsv1.DeploymentStatus{Replicas: 99},
	}
	d, err := deps.Create(ctx, d, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Generation != 1 || d.Status.Replicas != 0 {
		t.Fatalf("create: generation %d (want 1), status.replicas %d (want 0: status is reset on create)", d.Generation, d.Status.Replicas)
	}
	// The deployment controller writes the status meanwhile, as on a
	// cluster: each write below starts from a fresh read and retries on a
	// Conflict, as a client of a cluster does.
	update := func(what string, change func(*appsv1.Deployment), write func(*appsv1.Deployment) (*appsv1.Deployment, error)) (before, after *appsv1.Deployment) {
		t.Helper()
		err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			cur, err := deps.Get(ctx, "web", metav1.GetOptions{})
			if err != nil {
				return err
			}
			before = cur.DeepCopy()
			change(cur)
			after, err = write(cur)
			return err
		})
		if err != nil {
			t.Fatalf("%s: %v", what, err)
		}
		return before, after
	}
	mainWrite := func(d *appsv1.Deployment) (*appsv1.Deployment, error) {
		return deps.Update(ctx, d, metav1.UpdateOptions{})
	}
	statusWrite := func(d *appsv1.Deployment) (*appsv1.Deployment, error) {
		return deps.UpdateStatus(ctx, d, metav1.UpdateOptions{})
	}
	// Metadata-only change: generation stays.
	if _, d = update("label update", func(d *appsv1.Deployment) { d.Labels = map[string]string{"x": "y"} }, mainWrite); d.Generation != 1 {
		t.Fatalf("label update: generation %d", d.Generation)
	}
	// Spec change: generation bumps; status in a main-resource write is ignored.
	before, d := update("spec update", func(d *appsv1.Deployment) {
		d.Spec.Replicas = ptr.To[int32](3)
		d.Status.Replicas = 7
	}, mainWrite)
	if d.Generation != 2 || d.Status.Replicas != before.Status.Replicas {
		t.Fatalf("spec update: generation %d status.replicas %d (stored %d)", d.Generation, d.Status.Replicas, before.Status.Replicas)
	}
	// /status writes only status and keeps generation.
	if _, d = update("status update", func(d *appsv1.Deployment) {
		d.Status.Replicas = 3
		d.Spec.Replicas = ptr.To[int32](10)
	}, statusWrite); d.Status.Replicas != 3 || *d.Spec.Replicas != 3 || d.Generation != 2 {
		t.Fatalf("status update: status %d spec %d generation %d", d.Status.Replicas, *d.Spec.Replicas, d.Generation)
	}
	// The scale subresource reads and writes spec.replicas.
	sc, err := deps.GetScale(ctx, "web", metav1.GetOptions{})
	if err != nil || sc.Spec.Replicas != 3 || sc.Status.Selector != "app=web" {
		t.Fatalf("get scale: %v %+v", err, sc)
	}
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		sc, err := deps.GetScale(ctx, "web", metav1.GetOptions{})
		if err != nil {
			return err
		}
		sc.Spec.Replicas = 5
		_, err = deps.UpdateScale(ctx, "web", sc, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	d, _ = deps.Get(ctx, "web", metav1.GetOptions{})
	if *d.Spec.Replicas != 5 || d.Generation != 3 {
		t.Errorf("after scale: replicas %d generation %d", *d.Spec.Replicas, d.Generation)
	}
}

func TestFinalizersAndNamespaceLifecycle(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)

	_, err := cs.CoreV1().ConfigMaps("missing").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{})
	if !apierrors.IsNotFound(err) || err.Error() != `namespaces "missing" not found` {
		t.Fatalf("create in missing namespace: %v", err)
	}

	if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, _ := cs.CoreV1().Namespaces().Get(ctx, "team", metav1.GetOptions{})
	if ns.Status.Phase != corev1.NamespaceActive || ns.Labels[corev1.LabelMetadataName] != "team" || len(ns.Spec.Finalizers) != 1 {
		t.Errorf("new namespace: %+v", ns)
	}
	// Their controllers give a new namespace these a moment later.
	waitFor(t, func() bool {
		_, err := cs.CoreV1().ServiceAccounts("team").Get(ctx, "default", metav1.GetOptions{})
		return err == nil
	})
	waitFor(t, func() bool {
		cm, err := cs.CoreV1().ConfigMaps("team").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		return err == nil && cm.Data["ca.crt"] != ""
	})

	held := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "held", Finalizers: []string{"example.com/hold"}}}
	if _, err := cs.CoreV1().ConfigMaps("team").Create(ctx, held, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Deleting an object with a finalizer only marks it.
	if err := cs.CoreV1().ConfigMaps("team").Delete(ctx, "held", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := cs.CoreV1().ConfigMaps("team").Get(ctx, "held", metav1.GetOptions{})
	if err != nil || got.DeletionTimestamp == nil {
		t.Fatalf("marked object: %v %+v", err, got)
	}

	// Deleting the namespace: it turns Terminating and refuses new content.
	if err := cs.CoreV1().Namespaces().Delete(ctx, "team", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ns, _ = cs.CoreV1().Namespaces().Get(ctx, "team", metav1.GetOptions{})
	if ns.Status.Phase != corev1.NamespaceTerminating || ns.DeletionTimestamp == nil {
		t.Errorf("deleted namespace: phase %q", ns.Status.Phase)
	}
	_, err = cs.CoreV1().ConfigMaps("team").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "late"}}, metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || err.Error() != `configmaps "late" is forbidden: unable to create new content in namespace team because it is being terminated` {
		t.Fatalf("create in terminating namespace: %v", err)
	}
	if st, ok := err.(apierrors.APIStatus); !ok || len(st.Status().Details.Causes) == 0 || st.Status().Details.Causes[0].Type != corev1.NamespaceTerminatingCause {
		t.Errorf("terminating cause missing: %#v", err)
	}
	// The namespace waits for the held object; removing its finalizer lets both go.
	waitFor(t, func() bool {
		l, _ := cs.CoreV1().ConfigMaps("team").List(ctx, metav1.ListOptions{})
		return l != nil && len(l.Items) == 1
	})
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "team", metav1.GetOptions{}); err != nil {
		t.Fatalf("namespace went away while an object still had a finalizer: %v", err)
	}
	_, err = cs.CoreV1().ConfigMaps("team").Patch(ctx, "held", types.MergePatchType, []byte(`{"metadata":{"finalizers":null}}`), metav1.PatchOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, err := cs.CoreV1().Namespaces().Get(ctx, "team", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
}

func waitFor(t testing.TB, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatal("condition not met in 10s")
		}
		time.Sleep(10 * time.Millisecond)
	}
}

func TestDynamicClient(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	dyn, err := dynamic.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := ctxT(t)
	gvr := schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}
	for i, tier := range []string{"fe", "fe", "be"} {
		obj := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": fmt.Sprintf("d%d", i), "labels": map[string]any{"tier": tier}},
			"spec": map[string]any{
				"selector": map[string]any{"matchLabels": map[string]any{"app": "x"}},
				"template": map[string]any{
					"metadata": map[string]any{"labels": map[string]any{"app": "x"}},
					"spec":     map[string]any{"containers": []any{map[string]any{"name": "c", "image": "nginx"}}},
				},
			},
			"unknownTopLevel": "dropped",
		}}
		if _, err := dyn.Resource(gvr).Namespace("default").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	l, err := dyn.Resource(gvr).Namespace("default").List(ctx, metav1.ListOptions{LabelSelector: "tier=fe"})
	if err != nil || len(l.Items) != 2 {
		t.Fatalf("label selector list: %v %d", err, len(l.Items))
	}
	if _, found := l.Items[0].Object["unknownTopLevel"]; found {
		t.Error("a built-in type kept an unknown field")
	}
	p, err := dyn.Resource(gvr).Namespace("default").Patch(ctx, "d2", types.MergePatchType, []byte(`{"metadata":{"labels":{"tier":"fe"}}}`), metav1.PatchOptions{})
	if err != nil || p.GetLabels()["tier"] != "fe" {
		t.Fatalf("merge patch: %v", err)
	}
	l, _ = dyn.Resource(gvr).Namespace("").List(ctx, metav1.ListOptions{LabelSelector: "tier in (fe)"})
	if len(l.Items) != 3 {
		t.Errorf("all-namespaces list with set selector: %d", len(l.Items))
	}
}

func TestInformerSyncsAndFollows(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	for i := 0; i < 5; i++ {
		if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("pre%d", i)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	factory := informers.NewSharedInformerFactoryWithOptions(cs, 0, informers.WithNamespace("default"))
	inf := factory.Core().V1().ConfigMaps().Informer()
	var mu sync.Mutex
	seen := map[string]string{}
	_, _ = inf.AddEventHandler(cache.ResourceEventHandlerFuncs{
		AddFunc:    func(obj any) { mu.Lock(); seen[obj.(*corev1.ConfigMap).Name] = "add"; mu.Unlock() },
		UpdateFunc: func(_, obj any) { mu.Lock(); seen[obj.(*corev1.ConfigMap).Name] = "update"; mu.Unlock() },
		DeleteFunc: func(obj any) {
			if d, ok := obj.(cache.DeletedFinalStateUnknown); ok {
				obj = d.Obj
			}
			mu.Lock()
			seen[obj.(*corev1.ConfigMap).Name] = "delete"
			mu.Unlock()
		},
	})
	factory.Start(ctx.Done())
	if !cache.WaitForCacheSync(ctx.Done(), inf.HasSynced) {
		t.Fatal("informer did not sync")
	}
	if n := len(inf.GetStore().List()); n != 6 {
		t.Fatalf("synced store has %d objects, want 6", n)
	}
	_, _ = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "later"}}, metav1.CreateOptions{})
	_, _ = cs.CoreV1().ConfigMaps("default").Patch(ctx, "pre0", types.MergePatchType, []byte(`{"data":{"a":"b"}}`), metav1.PatchOptions{})
	_ = cs.CoreV1().ConfigMaps("default").Delete(ctx, "pre1", metav1.DeleteOptions{})
	waitFor(t, func() bool {
		mu.Lock()
		defer mu.Unlock()
		return seen["later"] == "add" && seen["pre0"] == "update" && seen["pre1"] == "delete"
	})
}

func TestRetryOnConflictLosesNoUpdate(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	cms := cs.CoreV1().ConfigMaps("default")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "counter"}, Data: map[string]string{"n": "0"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 8, 15
	var wg sync.WaitGroup
	var conflicts sync.Map
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				err := retry.RetryOnConflict(wait.Backoff{Steps: 1000, Duration: time.Millisecond, Jitter: 1}, func() error {
					cm, err := cms.Get(ctx, "counter", metav1.GetOptions{})
					if err != nil {
						return err
					}
					n, _ := strconv.Atoi(cm.Data["n"])
					cm.Data["n"] = strconv.Itoa(n + 1)
					_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
					if apierrors.IsConflict(err) {
						conflicts.Store(w, true)
					}
					return err
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait()
	cm, _ := cms.Get(ctx, "counter", metav1.GetOptions{})
	if cm.Data["n"] != strconv.Itoa(writers*each) {
		t.Errorf("counter = %s, want %d: an update was lost", cm.Data["n"], writers*each)
	}
}

func TestWatchSemantics(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithWatchCacheSize(20))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	cms := cs.CoreV1().ConfigMaps("default")
	first, _ := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "w0", Labels: map[string]string{"sel": "yes"}}}, metav1.CreateOptions{})

	// From a resourceVersion: every later change, in order.
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: first.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	_, _ = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "w1"}}, metav1.CreateOptions{})
	_, _ = cms.Patch(ctx, "w1", types.MergePatchType, []byte(`{"data":{"a":"1"}}`), metav1.PatchOptions{})
	_ = cms.Delete(ctx, "w1", metav1.DeleteOptions{})
	var got []string
	for len(got) < 3 {
		select {
		case ev := <-w.ResultChan():
			got = append(got, fmt.Sprintf("%s %s", ev.Type, ev.Object.(*corev1.ConfigMap).Name))
		case <-ctx.Done():
			t.Fatalf("watch events so far: %v", got)
		}
	}
	w.Stop()
	if fmt.Sprint(got) != "[ADDED w1 MODIFIED w1 DELETED w1]" {
		t.Errorf("events: %v", got)
	}

	// A label-selected watch sees an object leave the selection as DELETED.
	w, _ = cms.Watch(ctx, metav1.ListOptions{LabelSelector: "sel=yes", ResourceVersion: first.ResourceVersion})
	_, _ = cms.Patch(ctx, "w0", types.MergePatchType, []byte(`{"metadata":{"labels":{"sel":"no"}}}`), metav1.PatchOptions{})
	select {
	case ev := <-w.ResultChan():
		if ev.Type != watch.Deleted {
			t.Errorf("leaving the selection: got %s", ev.Type)
		}
	case <-ctx.Done():
		t.Fatal("no event")
	}
	w.Stop()

	// sendInitialEvents ends with the initial-events-end bookmark.
	w, err = cms.Watch(ctx, metav1.ListOptions{SendInitialEvents: ptr.To(true), ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	added := 0
	for done := false; !done; {
		select {
		case ev := <-w.ResultChan():
			switch ev.Type {
			case watch.Added:
				added++
			case watch.Bookmark:
				cm := ev.Object.(*corev1.ConfigMap)
				if cm.Annotations[metav1.InitialEventsAnnotationKey] != "true" || cm.ResourceVersion == "" {
					t.Errorf("bookmark: %+v", cm.ObjectMeta)
				}
				done = true
			}
		case <-ctx.Done():
			t.Fatal("no bookmark")
		}
	}
	w.Stop()
	if added != 2 {
		t.Errorf("initial events: %d, want 2 (w0 and kube-root-ca.crt)", added)
	}

	// Push the first resourceVersion out of the 20-event log: 410 Gone.
	for i := 0; i < 25; i++ {
		_, _ = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("fill%d", i)}}, metav1.CreateOptions{})
	}
	w, err = cms.Watch(ctx, metav1.ListOptions{ResourceVersion: first.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	select {
	case ev := <-w.ResultChan():
		st, ok := ev.Object.(*metav1.Status)
		if ev.Type != watch.Error || !ok || st.Code != 410 || st.Reason != metav1.StatusReasonExpired {
			t.Errorf("too old watch: %s %+v", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no error event")
	}
	w.Stop()
}

func TestListPagingAndResourceVersions(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	cms := cs.CoreV1().ConfigMaps("default")
	for i := 0; i < 6; i++ {
		_, _ = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i)}}, metav1.CreateOptions{})
	}
	// 7 objects (with kube-root-ca.crt) in pages of 3.
	page, err := cms.List(ctx, metav1.ListOptions{Limit: 3})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Items) != 3 || page.Continue == "" || page.RemainingItemCount == nil || *page.RemainingItemCount != 4 {
		t.Fatalf("first page: %d items, continue %q, remaining %v", len(page.Items), page.Continue, page.RemainingItemCount)
	}
	listRV := page.ResourceVersion
	// A write between pages does not show up: pages are pinned to the first page's revision.
	_, _ = cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "p9"}}, metav1.CreateOptions{})
	_ = cms.Delete(ctx, "p5", metav1.DeleteOptions{})
	var names []string
	names = append(names, itemNames(page.Items)...)
	for page.Continue != "" {
		page, err = cms.List(ctx, metav1.ListOptions{Limit: 3, Continue: page.Continue})
		if err != nil {
			t.Fatal(err)
		}
		if page.ResourceVersion != listRV {
			t.Errorf("page resourceVersion %s, want %s", page.ResourceVersion, listRV)
		}
		names = append(names, itemNames(page.Items)...)
	}
	if fmt.Sprint(names) != "[kube-root-ca.crt p0 p1 p2 p3 p4 p5]" {
		t.Errorf("paged names: %v", names)
	}

	// resourceVersionMatch=Exact lists the state at that revision.
	old, err := cms.List(ctx, metav1.ListOptions{ResourceVersion: listRV, ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if err != nil || len(old.Items) != 7 {
		t.Fatalf("exact list: %v %d", err, len(old.Items))
	}
	cur, _ := cms.List(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if len(cur.Items) != 7 || fmt.Sprint(itemNames(cur.Items)) == fmt.Sprint(itemNames(old.Items)) {
		t.Errorf("current list: %v", itemNames(cur.Items))
	}
	// resourceVersionMatch without resourceVersion is invalid.
	_, err = cms.List(ctx, metav1.ListOptions{ResourceVersionMatch: metav1.ResourceVersionMatchExact})
	if !apierrors.IsInvalid(err) {
		t.Errorf("resourceVersionMatch alone: %v", err)
	}
}

func TestFieldSelectors(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	pods := cs.CoreV1().Pods("default")
	for _, p := range []struct{ name, node, sched string }{{"a", "n1", ""}, {"b", "n2", "other"}, {"c", "", ""}} {
		pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.name}, Spec: corev1.PodSpec{NodeName: p.node, SchedulerName: p.sched, Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
		if _, err := pods.Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	for _, tc := range []struct{ sel, want string }{
		{"spec.nodeName=n1", "[a]"},
		{"spec.nodeName==n2", "[b]"},
		{"spec.nodeName=", "[c]"},
		{"spec.nodeName!=n1", "[b c]"},
		{"spec.schedulerName=other", "[b]"},
		{"status.phase=Pending", "[a b c]"},
		{"metadata.name=c", "[c]"},
		{"metadata.namespace=default,spec.nodeName=n2", "[b]"},
	} {
		l, err := pods.List(ctx, metav1.ListOptions{FieldSelector: tc.sel})
		if err != nil {
			t.Errorf("%s: %v", tc.sel, err)
			continue
		}
		var names []string
		for _, p := range l.Items {
			names = append(names, p.Name)
		}
		if fmt.Sprint(names) != tc.want {
			t.Errorf("%s: got %v want %s", tc.sel, names, tc.want)
		}
	}
	_, err := pods.List(ctx, metav1.ListOptions{FieldSelector: "spec.bogus=1"})
	if !apierrors.IsBadRequest(err) || err.Error() != "field label not supported: spec.bogus" {
		t.Errorf("unsupported field: %v", err)
	}
	// A resource without a field label conversion of its own refuses with
	// apimachinery's DefaultMetaV1FieldSelectorConversion wording.
	_, err = cs.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{FieldSelector: "data.x=1"})
	if want := `"data.x" is not a known field selector: only "metadata.name", "metadata.namespace"`; !apierrors.IsBadRequest(err) || err.Error() != want {
		t.Errorf("configmaps support only metadata fields: %v, want 400 %s", err, want)
	}
	// ResourceSlice's conversion names its kind (recorded from refplane).
	_, err = cs.ResourceV1().ResourceSlices().List(ctx, metav1.ListOptions{FieldSelector: "spec.allNodes=true"})
	if want := `field label not supported for resource.k8s.io/v1, Kind=ResourceSlice: spec.allNodes`; !apierrors.IsBadRequest(err) || err.Error() != want {
		t.Errorf("resource slices: %v, want 400 %s", err, want)
	}
	// So does Job's, quoting the label (recorded from refplane).
	_, err = cs.BatchV1().Jobs("default").List(ctx, metav1.ListOptions{FieldSelector: "status.phase=Running"})
	if want := `field label "status.phase" not supported for Job`; !apierrors.IsBadRequest(err) || err.Error() != want {
		t.Errorf("jobs: %v, want 400 %s", err, want)
	}
}

func TestManyInstances(t *testing.T) {
	t.Parallel()
	const n = 50
	var wg sync.WaitGroup
	cps := make([]*fakeplane.ControlPlane, n)
	for i := 0; i < n; i++ {
		wg.Add(1)
		go func(i int) {
			defer wg.Done()
			cps[i] = fakeplane.Start(t)
		}(i)
	}
	wg.Wait()
	ctx := ctxT(t)
	seen := map[string]bool{}
	for i, cp := range cps {
		if seen[cp.URL()] {
			t.Fatalf("two instances share %s", cp.URL())
		}
		seen[cp.URL()] = true
		cs := clientset(t, cp)
		name := fmt.Sprintf("only-in-%d", i)
		if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// Each instance sees only its own object.
	for i, cp := range cps {
		l, err := clientset(t, cp).CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
		if err != nil || len(l.Items) != 2 || l.Items[1].Name != fmt.Sprintf("only-in-%d", i) {
			t.Fatalf("instance %d: %v %v", i, err, l)
		}
	}
}

func TestDataDirRestart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	ctx := ctxDataDir(t)
	cp1 := startOnDataDir(ctx, t, dir)
	created, err := clientset(t, cp1).CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := cp1.Stop(); err != nil {
		t.Fatal(err)
	}
	cp2 := startOnDataDir(ctx, t, dir)
	defer cp2.Stop()
	cs := clientset(t, cp2)
	got, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "kept", metav1.GetOptions{})
	if err != nil || got.UID != created.UID || got.ResourceVersion != created.ResourceVersion {
		t.Fatalf("after restart: %v %+v", err, got)
	}
	next, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{})
	if err != nil || rv(t, next.ResourceVersion) <= rv(t, created.ResourceVersion) {
		t.Fatalf("resourceVersion after restart: %v %s <= %s", err, next.ResourceVersion, created.ResourceVersion)
	}
}

func TestEventsShareStorageAcrossGroups(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	now := metav1.NewMicroTime(time.Now().Truncate(time.Microsecond))
	ev := &eventsv1.Event{
		ObjectMeta:          metav1.ObjectMeta{Name: "e1"},
		EventTime:           now,
		ReportingController: "example.com/ctl",
		ReportingInstance:   "ctl-1",
		Action:              "Sync",
		Reason:              "Synced",
		Regarding:           corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p"},
		Note:                "all good",
		Type:                corev1.EventTypeNormal,
	}
	w, err := cs.EventsV1().Events("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := cs.EventsV1().Events("default").Create(ctx, ev, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	core, err := cs.CoreV1().Events("default").Get(ctx, "e1", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("events.k8s.io event not visible as a core event: %v", err)
	}
	if core.Message != "all good" || core.InvolvedObject.Name != "p" || core.ReportingController != "example.com/ctl" || core.Reason != "Synced" {
		t.Errorf("core view: %+v", core)
	}
	// A core event is visible as events.k8s.io, and field selectors use each group's names.
	_, err = cs.CoreV1().Events("default").Create(ctx, &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "e2"}, InvolvedObject: corev1.ObjectReference{Kind: "Node", Name: "n1"},
		Reason: "Old", Message: "from core", Source: corev1.EventSource{Component: "kubelet"}, Type: corev1.EventTypeWarning,
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	l, err := cs.EventsV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "regarding.kind=Node"})
	if err != nil || len(l.Items) != 1 || l.Items[0].Note != "from core" || l.Items[0].DeprecatedSource.Component != "kubelet" {
		t.Fatalf("events.k8s.io list by regarding.kind: %v %+v", err, l)
	}
	cl, err := cs.CoreV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "involvedObject.kind=Pod,source="})
	if err != nil || len(cl.Items) != 1 || cl.Items[0].Name != "e1" {
		t.Fatalf("core list by involvedObject.kind: %v %+v", err, cl)
	}
	var seen []string
	for len(seen) < 2 {
		select {
		case e := <-w.ResultChan():
			if got, ok := e.Object.(*eventsv1.Event); ok {
				seen = append(seen, got.Name+":"+got.Note)
			}
		case <-ctx.Done():
			t.Fatalf("watch saw %v", seen)
		}
	}
	if fmt.Sprint(seen) != "[e1:all good e2:from core]" {
		t.Errorf("events.k8s.io watch: %v", seen)
	}
}
