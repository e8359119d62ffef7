package controllers

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// ownersWorld is a registry over a fresh store whose commits an Owners
// observes, as the control plane wires them.
type ownersWorld struct {
	st     store.Interface
	reg    *registry.Registry
	owners *Owners
	api    registry.Interface
	ctx    context.Context
}

func newRegistry(t *testing.T, st store.Interface) *registry.Registry {
	t.Helper()
	reg, err := registry.New(registry.Config{Store: st})
	if err != nil {
		t.Fatal(err)
	}
	return reg
}

func newOwnersWorld(t *testing.T) *ownersWorld {
	t.Helper()
	st := openStore(t)
	reg := newRegistry(t, st)
	w := &ownersWorld{
		st: st, reg: reg, owners: NewOwners(reg), api: reg.API(),
		ctx: apirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "admin", Groups: []string{user.SystemPrivilegedGroup}}),
	}
	if err := w.owners.Load(); err != nil {
		t.Fatal(err)
	}
	reg.SetHooks(registry.Hooks{CommitObserver: w.owners.Observe})
	w.create(t, namespacesGVR, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "ns"}})
	w.drain()
	return w
}

func (w *ownersWorld) create(t *testing.T, gvr schema.GroupVersionResource, obj runtime.Object) runtime.Object {
	t.Helper()
	out, err := w.api.Create(w.ctx, gvr, obj)
	if err != nil {
		t.Fatal(err)
	}
	return out
}

// configMap creates ConfigMap ns/name with owners and returns it.
func (w *ownersWorld) configMap(t *testing.T, name string, finalizers []string, owners ...metav1.OwnerReference) *corev1.ConfigMap {
	t.Helper()
	return w.create(t, configMapsGVR, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, Finalizers: finalizers, OwnerReferences: owners}}).(*corev1.ConfigMap)
}

// drain takes all the queued work.
func (w *ownersWorld) drain() []GCWork {
	var out []GCWork
	for {
		it, ok := w.owners.Next()
		if !ok {
			return out
		}
		out = append(out, it)
	}
}

func cmRef(name string) ObjectRef {
	return ObjectRef{Resource: configMapsGVR, Namespace: "ns", Name: name}
}

func ownerRefTo(cm *corev1.ConfigMap) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: cm.Name, UID: cm.UID}
}

func TestOwnersIndexDependentsAndQueueThemAsTheyCommit(t *testing.T) {
	w := newOwnersWorld(t)
	owner := w.configMap(t, "owner", nil)
	if work := w.drain(); len(work) != 0 {
		t.Fatalf("an object without owners queued %v", work)
	}
	select {
	case <-w.owners.Wake():
	default:
	}
	w.configMap(t, "child", nil, ownerRefTo(owner))
	select {
	case <-w.owners.Wake():
	default:
		t.Fatal("queued work did not wake the collector")
	}
	if got := w.owners.DependentsOf(owner.UID); !slices.Equal(got, []ObjectRef{cmRef("child")}) {
		t.Fatalf("DependentsOf(owner) = %v", got)
	}
	if work := w.drain(); !slices.Equal(work, []GCWork{{Object: cmRef("child"), OwnersChanged: true}}) {
		t.Fatalf("work = %v, want the new dependent checked", work)
	}

	// An update that leaves the owners as they were queues nothing.
	if _, err := w.api.Update(w.ctx, configMapsGVR, "ns", "child", func(cur runtime.Object) (runtime.Object, error) {
		cur.(*corev1.ConfigMap).Data = map[string]string{"k": "v"}
		return cur, nil
	}); err != nil {
		t.Fatal(err)
	}
	if work := w.drain(); len(work) != 0 {
		t.Fatalf("an update keeping the owners queued %v", work)
	}

	// Dropping the owner reference drops the dependent from the index.
	if _, err := w.api.Update(w.ctx, configMapsGVR, "ns", "child", func(cur runtime.Object) (runtime.Object, error) {
		cur.(*corev1.ConfigMap).OwnerReferences = nil
		return cur, nil
	}); err != nil {
		t.Fatal(err)
	}
	if got := w.owners.DependentsOf(owner.UID); len(got) != 0 {
		t.Fatalf("DependentsOf(owner) after the reference went = %v", got)
	}
}

func TestOwnersQueueDependentsAndOwnersOfADeletedObject(t *testing.T) {
	w := newOwnersWorld(t)
	grandparent := w.configMap(t, "grandparent", nil)
	parent := w.configMap(t, "parent", nil, ownerRefTo(grandparent))
	w.configMap(t, "child", nil, ownerRefTo(parent))
	w.drain()
	if _, err := w.api.Delete(w.ctx, configMapsGVR, "ns", "parent", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want := []GCWork{{Object: cmRef("child")}, {Object: cmRef("grandparent"), Owner: true}}
	if work := w.drain(); !slices.Equal(work, want) {
		t.Fatalf("work = %v, want %v", work, want)
	}
	if got := w.owners.DependentsOf(grandparent.UID); len(got) != 0 {
		t.Fatalf("the deleted parent is still a dependent: %v", got)
	}
}

func TestOwnersQueueAnOwnerDeletedWithADeletionFinalizer(t *testing.T) {
	for _, policy := range []metav1.DeletionPropagation{metav1.DeletePropagationForeground, metav1.DeletePropagationOrphan} {
		t.Run(string(policy), func(t *testing.T) {
			w := newOwnersWorld(t)
			owner := w.configMap(t, "owner", nil)
			w.configMap(t, "child", nil, ownerRefTo(owner))
			w.drain()
			if _, err := w.api.Delete(w.ctx, configMapsGVR, "ns", "owner", metav1.DeleteOptions{PropagationPolicy: &policy}); err != nil {
				t.Fatal(err)
			}
			if work := w.drain(); !slices.Equal(work, []GCWork{{Object: cmRef("owner"), Owner: true}}) {
				t.Fatalf("work = %v, want the owner's finalizer handled", work)
			}
		})
	}
}

func TestOwnersLoadIndexesAStoreFromAnEarlierRun(t *testing.T) {
	w := newOwnersWorld(t)
	owner := w.configMap(t, "owner", nil)
	w.configMap(t, "child", nil, ownerRefTo(owner))
	w.configMap(t, "plain", nil)
	deleting := w.configMap(t, "deleting", []string{metav1.FinalizerDeleteDependents})
	if _, err := w.api.Delete(w.ctx, configMapsGVR, "ns", deleting.Name, metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// A new index over a new registry of the same store, as at a restart.
	reg := newRegistry(t, w.st)
	owners := NewOwners(reg)
	if err := owners.Load(); err != nil {
		t.Fatal(err)
	}
	if got := owners.DependentsOf(owner.UID); !slices.Equal(got, []ObjectRef{cmRef("child")}) {
		t.Fatalf("DependentsOf(owner) after Load = %v", got)
	}
	var work []GCWork
	for it, ok := owners.Next(); ok; it, ok = owners.Next() {
		work = append(work, it)
	}
	want := []GCWork{{Object: cmRef("child"), OwnersChanged: true}, {Object: cmRef("deleting"), Owner: true}}
	if !slices.Equal(work, want) {
		t.Fatalf("work after Load = %v, want %v", work, want)
	}
}

func TestOwnersLoadOfAnEmptyStoreIndexesNothing(t *testing.T) {
	owners := NewOwners(newRegistry(t, openStore(t)))
	if err := owners.Load(); err != nil {
		t.Fatal(err)
	}
	if it, ok := owners.Next(); ok {
		t.Fatalf("work from an empty store: %v", it)
	}
}

func TestOwnersOwnerOfLocatesOwnersByKindAndScope(t *testing.T) {
	w := newOwnersWorld(t)
	for _, tc := range []struct {
		name string
		ns   string
		ref  metav1.OwnerReference
		want ObjectRef
		ok   bool
	}{
		{"namespaced owner", "ns", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "o"}, cmRef("o"), true},
		{"cluster-scoped owner", "ns", metav1.OwnerReference{APIVersion: "v1", Kind: "Namespace", Name: "o"}, ObjectRef{Resource: namespacesGVR, Name: "o"}, true},
		{"owner in another served version", "ns", metav1.OwnerReference{APIVersion: "apps/v1", Kind: "Deployment", Name: "d"},
			ObjectRef{Resource: schema.GroupVersionResource{Group: "apps", Version: "v1", Resource: "deployments"}, Namespace: "ns", Name: "d"}, true},
		{"namespaced owner of a cluster-scoped object", "", metav1.OwnerReference{APIVersion: "v1", Kind: "ConfigMap", Name: "o"}, ObjectRef{}, false},
		{"kind not served", "ns", metav1.OwnerReference{APIVersion: "example.com/v1", Kind: "Widget", Name: "o"}, ObjectRef{}, false},
		{"bad apiVersion", "ns", metav1.OwnerReference{APIVersion: "a/b/c", Kind: "ConfigMap", Name: "o"}, ObjectRef{}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := w.owners.OwnerOf(tc.ns, tc.ref)
			if got != tc.want || ok != tc.ok {
				t.Fatalf("OwnerOf(%q, %v) = %v, %v; want %v, %v", tc.ns, tc.ref, got, ok, tc.want, tc.ok)
			}
		})
	}
}

func TestOwnersEnqueueKeepsOneOfEachWorkAndDropsUnservedResources(t *testing.T) {
	w := newOwnersWorld(t)
	w.owners.Enqueue(
		GCWork{Object: cmRef("a")},
		GCWork{Object: cmRef("a")},
		GCWork{Object: cmRef("a"), Owner: true},
		GCWork{Object: ObjectRef{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, Namespace: "ns", Name: "w"}},
	)
	w.owners.Enqueue(GCWork{Object: cmRef("a")})
	want := []GCWork{{Object: cmRef("a")}, {Object: cmRef("a"), Owner: true}}
	if work := w.drain(); !slices.Equal(work, want) {
		t.Fatalf("work = %v, want %v", work, want)
	}
}

// TestOwnersFeedTheGarbageCollector runs the collector over a registry
// whose commits the index observes: a dependent goes once its owner does.
func TestOwnersFeedTheGarbageCollector(t *testing.T) {
	w := newOwnersWorld(t)
	owner := w.configMap(t, "owner", nil)
	w.configMap(t, "child", nil, ownerRefTo(owner))
	gc := NewGarbageCollector(w.api, w.owners, nil)
	if err := gc.Sync(w.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.api.Get(w.ctx, configMapsGVR, "ns", "child"); err != nil {
		t.Fatalf("the child of a present owner: %v", err)
	}
	if _, err := w.api.Delete(w.ctx, configMapsGVR, "ns", "owner", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := gc.Sync(w.ctx, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := w.api.Get(w.ctx, configMapsGVR, "ns", "child"); !apierrors.IsNotFound(err) {
		t.Fatalf("the child of a deleted owner: %v, want NotFound", err)
	}
	if got := w.owners.DependentsOf(owner.UID); len(got) != 0 {
		t.Fatalf("DependentsOf(owner) after collection = %v", got)
	}
}
