package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"sort"
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
	want := []string{"delete configmaps doomed/a", "delete widgets doomed/w"}
	if !slices.Equal(reg.writes, want) {
		t.Fatalf("writes = %v, want %v", reg.writes, want)
	}
	if _, ok := reg.objects["configmaps"]["kept/b"]; !ok {
		t.Fatal("an object of another namespace was deleted")
	}
	for _, u := range reg.users {
		if u != "system:serviceaccount:kube-system:namespace-controller" {
			t.Fatalf("written as %q", u)
		}
	}

	// One object left (fewer than before): soon again. Then nothing
	// changes: the next look comes later. No object marked for deletion is
	// deleted again.
	reg.writes = nil
	for _, after := range []time.Duration{namespaceRecheck, 2 * namespaceRecheck, 4 * namespaceRecheck} {
		if err := c.Sync(ctx, nil); !errors.As(err, &rq) || rq.After != after {
			t.Fatalf("Sync = %v, want a Requeue after %v", err, after)
		}
	}
	if len(reg.writes) != 0 {
		t.Fatalf("writes = %v", reg.writes)
	}

	// Once the content is gone, the kubernetes finalizer goes, through
	// namespaces/finalize; the other finalizer stays.
	delete(reg.objects["widgets"], "doomed/w")
	if err := c.Sync(ctx, nil); err != nil {
		t.Fatalf("Sync = %v", err)
	}
	if want := []string{"namespaces/finalize doomed"}; !slices.Equal(reg.writes, want) {
		t.Fatalf("writes = %v, want %v", reg.writes, want)
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
