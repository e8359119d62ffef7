package controllers

import (
	"context"
	"errors"
	"slices"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fakeplane/fakeplane/registry"
)

var widgetsGVR = schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}

// gcWorld is a registry of Widgets in namespace "ns" and the owner index
// over it, for the garbage collector.
type gcWorld struct {
	objects map[string]*unstructured.Unstructured // by name
	queue   []GCWork
	wake    chan struct{}
	writes  []string
}

var (
	_ registry.Interface = (*gcWorld)(nil)
	_ OwnerIndex         = (*gcWorld)(nil)
)

func (w *gcWorld) Get(_ context.Context, gvr schema.GroupVersionResource, _, name string) (runtime.Object, error) {
	o, ok := w.objects[name]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	return o.DeepCopy(), nil
}

func (w *gcWorld) List(context.Context, schema.GroupVersionResource, string, metav1.ListOptions) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (w *gcWorld) Create(context.Context, schema.GroupVersionResource, runtime.Object) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (w *gcWorld) Update(_ context.Context, gvr schema.GroupVersionResource, _, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	o, ok := w.objects[name]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	obj, err := tryUpdate(o.DeepCopy())
	if err != nil {
		return nil, err
	}
	u := obj.(*unstructured.Unstructured)
	w.writes = append(w.writes, "update "+name)
	if u.GetDeletionTimestamp() != nil && len(u.GetFinalizers()) == 0 {
		delete(w.objects, name)
	} else {
		w.objects[name] = u
	}
	return u, nil
}

func (w *gcWorld) UpdateSubresource(context.Context, schema.GroupVersionResource, string, string, string, registry.UpdateFunc) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (w *gcWorld) Delete(_ context.Context, gvr schema.GroupVersionResource, _, name string, opts metav1.DeleteOptions) (runtime.Object, error) {
	o, ok := w.objects[name]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	if opts.Preconditions == nil || opts.Preconditions.UID == nil || *opts.Preconditions.UID != o.GetUID() {
		return nil, errors.New("no UID precondition")
	}
	w.writes = append(w.writes, "delete "+name+" "+string(*opts.PropagationPolicy))
	delete(w.objects, name)
	return o, nil
}

func (w *gcWorld) Next() (GCWork, bool) {
	if len(w.queue) == 0 {
		return GCWork{}, false
	}
	it := w.queue[0]
	w.queue = w.queue[1:]
	return it, true
}

func (w *gcWorld) Enqueue(work ...GCWork) { w.queue = append(w.queue, work...) }

func (w *gcWorld) Wake() <-chan struct{} { return w.wake }

func (w *gcWorld) DependentsOf(owner types.UID) []ObjectRef {
	var out []ObjectRef
	for name, o := range w.objects {
		for _, r := range o.GetOwnerReferences() {
			if r.UID == owner {
				out = append(out, w.ref(name))
			}
		}
	}
	slices.SortFunc(out, func(a, b ObjectRef) int { return strings.Compare(a.Name, b.Name) })
	return out
}

func (w *gcWorld) OwnerOf(_ string, ref metav1.OwnerReference) (ObjectRef, bool) {
	if ref.Kind != "Widget" {
		return ObjectRef{}, false
	}
	return w.ref(ref.Name), true
}

func (w *gcWorld) NamespacedResourceOf(ref metav1.OwnerReference) (schema.GroupVersionResource, bool) {
	return widgetsGVR, ref.Kind == "Widget"
}

func (w *gcWorld) KindOf(schema.GroupVersionResource) string { return "Widget" }

func (w *gcWorld) ref(name string) ObjectRef {
	return ObjectRef{Resource: widgetsGVR, Namespace: "ns", Name: name}
}

// add stores a Widget owned by owners, with finalizers, marked for
// deletion when deleting.
func (w *gcWorld) add(name string, deleting bool, finalizers []string, owners ...metav1.OwnerReference) {
	o := &unstructured.Unstructured{Object: map[string]any{}}
	o.SetAPIVersion("example.com/v1")
	o.SetKind("Widget")
	o.SetNamespace("ns")
	o.SetName(name)
	o.SetUID(types.UID("uid-" + name))
	o.SetFinalizers(finalizers)
	o.SetOwnerReferences(owners)
	if deleting {
		now := metav1.Now()
		o.SetDeletionTimestamp(&now)
	}
	w.objects[name] = o
}

func ownedBy(name string, block bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: name, UID: types.UID("uid-" + name), BlockOwnerDeletion: &block}
}

func TestGarbageCollector(t *testing.T) {
	ctx := context.Background()
	sync := func(t *testing.T, w *gcWorld, want ...string) {
		t.Helper()
		c := NewGarbageCollector(w, w, nil)
		if err := c.Sync(ctx, nil); err != nil {
			t.Fatal(err)
		}
		if !slices.Equal(w.writes, want) {
			t.Fatalf("writes = %v, want %v", w.writes, want)
		}
		if len(w.queue) != 0 {
			t.Fatalf("work left: %v", w.queue)
		}
		w.writes = nil
	}
	newWorld := func() *gcWorld {
		return &gcWorld{objects: map[string]*unstructured.Unstructured{}, wake: make(chan struct{}, 1)}
	}

	t.Run("orphans go, in the background", func(t *testing.T) {
		w := newWorld()
		w.add("dep", false, nil, ownedBy("gone", false))
		w.add("kept", false, nil, ownedBy("gone", false), ownedBy("owner", false))
		w.add("owner", false, nil)
		w.Enqueue(GCWork{Object: w.ref("dep")}, GCWork{Object: w.ref("kept")}, GCWork{Object: w.ref("owner")})
		sync(t, w, "delete dep Background", "update kept")
		if refs := w.objects["kept"].GetOwnerReferences(); len(refs) != 1 || refs[0].Name != "owner" {
			t.Fatalf("kept's owners: %v", refs)
		}
	})

	t.Run("orphan finalizer", func(t *testing.T) {
		w := newWorld()
		w.add("owner", true, []string{metav1.FinalizerOrphanDependents})
		w.add("dep", false, nil, ownedBy("owner", true))
		w.Enqueue(GCWork{Object: w.ref("owner"), Owner: true})
		sync(t, w, "update dep", "update owner")
		if _, ok := w.objects["owner"]; ok {
			t.Fatal("the owner is still there")
		}
		if refs := w.objects["dep"].GetOwnerReferences(); len(refs) != 0 {
			t.Fatalf("dep's owners: %v", refs)
		}
	})

	t.Run("foreground deletion", func(t *testing.T) {
		w := newWorld()
		w.add("owner", true, []string{metav1.FinalizerDeleteDependents})
		w.add("dep", false, nil, ownedBy("owner", true))
		w.Enqueue(GCWork{Object: w.ref("owner"), Owner: true})
		// The blocking dependent goes first; the owner waits.
		sync(t, w, "delete dep Background")
		if _, ok := w.objects["owner"]; !ok {
			t.Fatal("the owner went before its dependent")
		}
		// The dependent's deletion brings the owner back: it goes.
		w.Enqueue(GCWork{Object: w.ref("owner"), Owner: true})
		sync(t, w, "update owner")
		if _, ok := w.objects["owner"]; ok {
			t.Fatal("the owner is still there")
		}
	})
}
