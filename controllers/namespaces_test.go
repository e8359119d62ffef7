package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// nsRegistry is a registry of namespaced objects (by resource, then
// namespace/name) and Namespaces, for the namespace controller.
type nsRegistry struct {
	objects    map[string]map[string]*unstructured.Unstructured
	namespaces map[string]*corev1.Namespace
	writes     []string
	users      []string
}

var _ registry.Interface = (*nsRegistry)(nil)

func (f *nsRegistry) Get(context.Context, schema.GroupVersionResource, string, string) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *nsRegistry) List(ctx context.Context, gvr schema.GroupVersionResource, ns string, _ metav1.ListOptions) (runtime.Object, error) {
	objs, ok := f.objects[gvr.Resource]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), "")
	}
	lst := &unstructured.UnstructuredList{Object: map[string]any{}}
	keys := make([]string, 0, len(objs))
	for k := range objs {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if o := objs[k]; o.GetNamespace() == ns {
			lst.Items = append(lst.Items, *o.DeepCopy())
		}
	}
	return lst, nil
}

func (f *nsRegistry) Create(context.Context, schema.GroupVersionResource, runtime.Object) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *nsRegistry) Update(context.Context, schema.GroupVersionResource, string, string, registry.UpdateFunc) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *nsRegistry) UpdateSubresource(ctx context.Context, gvr schema.GroupVersionResource, sub, _, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	u, _ := apirequest.UserFrom(ctx)
	f.users = append(f.users, u.GetName())
	f.writes = append(f.writes, gvr.Resource+"/"+sub+" "+name)
	cur, ok := f.namespaces[name]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	obj, err := tryUpdate(cur.DeepCopy())
	if err != nil {
		return nil, err
	}
	f.namespaces[name] = obj.(*corev1.Namespace)
	return obj, nil
}

func (f *nsRegistry) Delete(ctx context.Context, gvr schema.GroupVersionResource, ns, name string, opts metav1.DeleteOptions) (runtime.Object, error) {
	u, _ := apirequest.UserFrom(ctx)
	f.users = append(f.users, u.GetName())
	f.writes = append(f.writes, "delete "+gvr.Resource+" "+ns+"/"+name)
	if opts.PropagationPolicy == nil || *opts.PropagationPolicy != metav1.DeletePropagationBackground {
		return nil, errors.New("not a background deletion")
	}
	o, ok := f.objects[gvr.Resource][ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	if len(o.GetFinalizers()) > 0 {
		now := metav1.Now()
		o.SetDeletionTimestamp(&now)
		return o, nil
	}
	delete(f.objects[gvr.Resource], ns+"/"+name)
	return o, nil
}

func (f *nsRegistry) add(resource, ns, name string, finalizers ...string) {
	o := &unstructured.Unstructured{Object: map[string]any{}}
	o.SetNamespace(ns)
	o.SetName(name)
	o.SetFinalizers(finalizers)
	f.objects[resource][ns+"/"+name] = o
}

func namespaceEvent(t *testing.T, typ store.EventType, ns *corev1.Namespace) store.Event {
	t.Helper()
	b, err := json.Marshal(ns)
	if err != nil {
		t.Fatal(err)
	}
	return store.Event{Type: typ, Resource: namespacesBucket, Key: ns.Name, Value: b}
}

func terminatingNamespace(name string, finalizers ...corev1.FinalizerName) *corev1.Namespace {
	now := metav1.Now()
	return &corev1.Namespace{
		ObjectMeta: metav1.ObjectMeta{Name: name, DeletionTimestamp: &now},
		Spec:       corev1.NamespaceSpec{Finalizers: finalizers},
		Status:     corev1.NamespaceStatus{Phase: corev1.NamespaceTerminating},
	}
}

func TestNamespaceLifecycle(t *testing.T) {
	ctx := context.Background()
	reg := &nsRegistry{
		objects:    map[string]map[string]*unstructured.Unstructured{"configmaps": {}, "widgets": {}},
		namespaces: map[string]*corev1.Namespace{},
	}
	resources := []schema.GroupVersionResource{
		{Version: "v1", Resource: "configmaps"},
		{Group: "example.com", Version: "v1", Resource: "widgets"},
		{Group: "example.com", Version: "v1", Resource: "gone"}, // a CRD deleted meanwhile
	}
	c := NewNamespaceLifecycle(reg, func() []schema.GroupVersionResource { return resources }, nil)
	reg.add("configmaps", "doomed", "a")
	reg.add("configmaps", "kept", "b")
	reg.add("widgets", "doomed", "w", "example.com/hold")

	// A namespace that is not terminating is left alone.
	live := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "kept"}, Spec: corev1.NamespaceSpec{Finalizers: []corev1.FinalizerName{corev1.FinalizerKubernetes}}}
	if err := c.Sync(ctx, []store.Event{namespaceEvent(t, store.Added, live)}); err != nil {
		t.Fatal(err)
	}
	if len(reg.writes) != 0 {
		t.Fatalf("writes for a live namespace: %v", reg.writes)
	}

	// A terminating one has its content deleted; an object held by a
	// finalizer makes the controller come back.
	doomed := terminatingNamespace("doomed", corev1.FinalizerKubernetes, "example.com/other")
	reg.namespaces["doomed"] = doomed.DeepCopy()
	err := c.Sync(ctx, []store.Event{namespaceEvent(t, store.Modified, doomed)})
	var rq *Requeue
	if !errors.As(err, &rq) || rq.After != namespaceRecheck {
		t.Fatalf("Sync = %v, want a Requeue after %v", err, namespaceRecheck)
	}
	want := []string{"delete configmaps doomed/a", "delete widgets doomed/w", "namespaces/status doomed"}
	if !slices.Equal(reg.writes, want) {
		t.Fatalf("writes = %v, want %v", reg.writes, want)
	}
	// The conditions say what is left and what holds it, as
	// kube-controller-manager's do.
	wantConditions := []string{
		"NamespaceDeletionDiscoveryFailure False ResourcesDiscovered: All resources successfully discovered",
		"NamespaceDeletionGroupVersionParsingFailure False ParsedGroupVersions: All legacy kube types successfully parsed",
		"NamespaceDeletionContentFailure False ContentDeleted: All content successfully deleted, may be waiting on finalization",
		"NamespaceContentRemaining True SomeResourcesRemain: Some resources are remaining: widgets.example.com has 1 resource instances",
		"NamespaceFinalizersRemaining True SomeFinalizersRemain: Some content in the namespace has finalizers remaining: example.com/hold in 1 resource instances",
	}
	if got := conditionLines(reg.namespaces["doomed"]); !slices.Equal(got, wantConditions) {
		t.Fatalf("conditions =\n%v\nwant\n%v", got, wantConditions)
	}
	if _, ok := reg.objects["configmaps"]["kept/b"]; !ok {
		t.Fatal("an object of another namespace was deleted")
	}
	for _, u := range reg.users {
		if u != "system:serviceaccount:kube-system:namespace-controller" {
			t.Fatalf("written as %q", u)
		}
	}

	// One object left, as after the first pass: nothing changes, so each
	// look comes later than the one before. No object marked for deletion
	// is deleted again, and the unchanged conditions are not written again.
	reg.writes = nil
	for _, after := range []time.Duration{2 * namespaceRecheck, 4 * namespaceRecheck, 8 * namespaceRecheck} {
		if err := c.Sync(ctx, nil); !errors.As(err, &rq) || rq.After != after {
			t.Fatalf("Sync = %v, want a Requeue after %v", err, after)
		}
	}
	if len(reg.writes) != 0 {
		t.Fatalf("writes = %v", reg.writes)
	}

	// Once the content is gone, the conditions say so and the kubernetes
	// finalizer goes, through namespaces/finalize; the other finalizer
	// stays.
	delete(reg.objects["widgets"], "doomed/w")
	if err := c.Sync(ctx, nil); err != nil {
		t.Fatalf("Sync = %v", err)
	}
	if want := []string{"namespaces/status doomed", "namespaces/finalize doomed"}; !slices.Equal(reg.writes, want) {
		t.Fatalf("writes = %v, want %v", reg.writes, want)
	}
	wantConditions[3] = "NamespaceContentRemaining False ContentRemoved: All content successfully removed"
	wantConditions[4] = "NamespaceFinalizersRemaining False ContentHasNoFinalizers: All content-preserving finalizers finished"
	if got := conditionLines(reg.namespaces["doomed"]); !slices.Equal(got, wantConditions) {
		t.Fatalf("conditions =\n%v\nwant\n%v", got, wantConditions)
	}
	if got := reg.namespaces["doomed"].Spec.Finalizers; !slices.Equal(got, []corev1.FinalizerName{"example.com/other"}) {
		t.Fatalf("finalizers = %v", got)
	}

	// Deleted: forgotten.
	reg.writes = nil
	if err := c.Sync(ctx, []store.Event{namespaceEvent(t, store.Deleted, doomed)}); err != nil {
		t.Fatal(err)
	}
	if len(reg.writes) != 0 || len(c.terminating) != 0 {
		t.Fatalf("writes = %v, terminating = %v", reg.writes, c.terminating)
	}
}

// conditionLines are a namespace's conditions, one "type status reason:
// message" line each.
func conditionLines(ns *corev1.Namespace) []string {
	var out []string
	for _, c := range ns.Status.Conditions {
		out = append(out, fmt.Sprintf("%s %s %s: %s", c.Type, c.Status, c.Reason, c.Message))
	}
	return out
}

func TestNamespaceLifecycleDeletesPodsFirst(t *testing.T) {
	ctx := context.Background()
	reg := &nsRegistry{
		objects:    map[string]map[string]*unstructured.Unstructured{"pods": {}, "configmaps": {}},
		namespaces: map[string]*corev1.Namespace{},
	}
	resources := []schema.GroupVersionResource{{Version: "v1", Resource: "configmaps"}, {Version: "v1", Resource: "pods"}}
	c := NewNamespaceLifecycle(reg, func() []schema.GroupVersionResource { return resources }, nil)
	reg.add("pods", "doomed", "p", "example.com/hold")
	reg.add("configmaps", "doomed", "cm")
	doomed := terminatingNamespace("doomed", corev1.FinalizerKubernetes)
	reg.namespaces["doomed"] = doomed.DeepCopy()

	// While a pod remains, nothing else is deleted, and the conditions do
	// not count what remains (upstream's deleter leaves them out then).
	var rq *Requeue
	if err := c.Sync(ctx, []store.Event{namespaceEvent(t, store.Modified, doomed)}); !errors.As(err, &rq) {
		t.Fatalf("Sync = %v, want a Requeue", err)
	}
	if want := []string{"delete pods doomed/p", "namespaces/status doomed"}; !slices.Equal(reg.writes, want) {
		t.Fatalf("writes = %v, want %v", reg.writes, want)
	}
	for _, c := range reg.namespaces["doomed"].Status.Conditions {
		if c.Status != corev1.ConditionFalse {
			t.Fatalf("condition %s is %s while pods remain: %s", c.Type, c.Status, c.Message)
		}
	}

	// The pod gone, the rest goes and the namespace is finalized.
	delete(reg.objects["pods"], "doomed/p")
	reg.writes = nil
	if err := c.Sync(ctx, nil); err != nil {
		t.Fatalf("Sync = %v", err)
	}
	if want := []string{"delete configmaps doomed/cm", "namespaces/finalize doomed"}; !slices.Equal(reg.writes, want) {
		t.Fatalf("writes = %v, want %v", reg.writes, want)
	}
}

func TestNamespaceConditionsKeepTransitionTimes(t *testing.T) {
	t0 := metav1.NewTime(time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC))
	t1 := metav1.NewTime(t0.Add(time.Minute))
	held := (&namespacePass{byResource: map[schema.GroupVersionResource]int{{Version: "v1", Resource: "configmaps"}: 2}, byFinalizer: map[string]int{"a/b": 2}}).conditions()
	var st corev1.NamespaceStatus
	st.Conditions = append(st.Conditions, corev1.NamespaceCondition{Type: "Other", Status: corev1.ConditionTrue})
	mergeNamespaceConditions(&st, held, t0)
	if len(st.Conditions) != 6 || st.Conditions[0].Type != "Other" {
		t.Fatalf("conditions = %+v", st.Conditions)
	}
	if got := st.Conditions[4].Message; got != "Some resources are remaining: configmaps. has 2 resource instances" {
		t.Fatalf("ContentRemaining message = %q", got)
	}
	// A message change without a status change keeps the time; a status
	// change moves it.
	fewer := (&namespacePass{byResource: map[schema.GroupVersionResource]int{{Version: "v1", Resource: "configmaps"}: 1}, byFinalizer: map[string]int{"a/b": 1}}).conditions()
	mergeNamespaceConditions(&st, fewer, t1)
	if c := st.Conditions[4]; !c.LastTransitionTime.Equal(&t0) || !strings.Contains(c.Message, "has 1 resource") {
		t.Fatalf("after a message change: %+v", c)
	}
	mergeNamespaceConditions(&st, (&namespacePass{}).conditions(), t1)
	if c := st.Conditions[4]; !c.LastTransitionTime.Equal(&t1) || c.Status != corev1.ConditionFalse {
		t.Fatalf("after a status change: %+v", c)
	}
	if c := st.Conditions[1]; !c.LastTransitionTime.Equal(&t0) {
		t.Fatalf("an unchanged condition's time moved: %+v", c)
	}
}

// TestNamespaceLifecycleLeavesFinalizedNamespaces: a terminating namespace
// without the kubernetes finalizer is not the controller's any more, as
// upstream's deleter skips it: nothing of it is deleted, no condition is
// written and it is not finalized (it stays until deleted again).
func TestNamespaceLifecycleLeavesFinalizedNamespaces(t *testing.T) {
	reg := &nsRegistry{
		objects:    map[string]map[string]*unstructured.Unstructured{"configmaps": {}},
		namespaces: map[string]*corev1.Namespace{},
	}
	c := NewNamespaceLifecycle(reg, func() []schema.GroupVersionResource {
		return []schema.GroupVersionResource{{Version: "v1", Resource: "configmaps"}}
	}, nil)
	reg.add("configmaps", "done", "cm")
	for _, ns := range []*corev1.Namespace{terminatingNamespace("done"), terminatingNamespace("other", "example.com/x")} {
		reg.namespaces[ns.Name] = ns.DeepCopy()
		if err := c.Sync(context.Background(), []store.Event{namespaceEvent(t, store.Modified, ns)}); err != nil {
			t.Fatal(err)
		}
	}
	if len(reg.writes) != 0 {
		t.Fatalf("writes = %v", reg.writes)
	}
}
