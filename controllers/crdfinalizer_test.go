package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	"k8s.io/apiextensions-apiserver/pkg/apihelpers"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// crRegistry serves one CRD and its custom resources, recording writes.
type crRegistry struct {
	crd     *apiextensionsv1.CustomResourceDefinition
	objects []*unstructured.Unstructured
	// listErr fails the lists.
	listErr error
	lists   []string
	writes  []string
	users   []string
}

var _ registry.Interface = (*crRegistry)(nil)

func (f *crRegistry) Get(context.Context, schema.GroupVersionResource, string, string) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *crRegistry) List(ctx context.Context, gvr schema.GroupVersionResource, ns string, _ metav1.ListOptions) (runtime.Object, error) {
	f.lists = append(f.lists, gvr.String()+" in "+ns)
	if f.listErr != nil {
		return nil, f.listErr
	}
	lst := &unstructured.UnstructuredList{Object: map[string]any{}}
	for _, o := range f.objects {
		lst.Items = append(lst.Items, *o.DeepCopy())
	}
	return lst, nil
}

func (f *crRegistry) Create(context.Context, schema.GroupVersionResource, runtime.Object) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *crRegistry) Update(ctx context.Context, gvr schema.GroupVersionResource, _, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	u, _ := apirequest.UserFrom(ctx)
	f.users = append(f.users, u.GetName())
	f.writes = append(f.writes, "update "+gvr.Resource+" "+name)
	obj, err := tryUpdate(f.crd.DeepCopy())
	if err != nil {
		return nil, err
	}
	f.crd = obj.(*apiextensionsv1.CustomResourceDefinition)
	return obj, nil
}

func (f *crRegistry) UpdateSubresource(ctx context.Context, gvr schema.GroupVersionResource, sub, _, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	u, _ := apirequest.UserFrom(ctx)
	f.users = append(f.users, u.GetName())
	obj, err := tryUpdate(f.crd.DeepCopy())
	if err != nil {
		return nil, err
	}
	def := obj.(*apiextensionsv1.CustomResourceDefinition)
	cond := apihelpers.FindCRDCondition(def, apiextensionsv1.Terminating)
	f.writes = append(f.writes, "update "+gvr.Resource+"/"+sub+" "+name+": Terminating="+string(cond.Status)+" "+cond.Reason+" "+cond.Message)
	f.crd.Status = def.Status
	return f.crd.DeepCopy(), nil
}

func (f *crRegistry) Delete(ctx context.Context, gvr schema.GroupVersionResource, ns, name string, _ metav1.DeleteOptions) (runtime.Object, error) {
	u, _ := apirequest.UserFrom(ctx)
	f.users = append(f.users, u.GetName())
	f.writes = append(f.writes, "delete "+gvr.Resource+" "+ns+"/"+name)
	for i, o := range f.objects {
		if o.GetNamespace() != ns || o.GetName() != name {
			continue
		}
		if len(o.GetFinalizers()) == 0 {
			f.objects = slices.Delete(f.objects, i, i+1)
			return o, nil
		}
		now := metav1.Now()
		o.SetDeletionTimestamp(&now)
		return o, nil
	}
	return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
}

// crontabsCRD is an established CRD, being deleted when terminating.
func crontabsCRD(terminating bool, finalizers ...string) *apiextensionsv1.CustomResourceDefinition {
	def := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com", Finalizers: finalizers},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Kind: "CronTab"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1beta1", Served: true},
				{Name: "v1", Served: true, Storage: true},
				{Name: "v2", Served: false},
			},
		},
		Status: apiextensionsv1.CustomResourceDefinitionStatus{
			AcceptedNames: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Kind: "CronTab"},
			Conditions:    []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}},
		},
	}
	if terminating {
		now := metav1.Now()
		def.DeletionTimestamp = &now
	}
	return def
}

func crdStoreEvent(t *testing.T, typ store.EventType, def *apiextensionsv1.CustomResourceDefinition) store.Event {
	t.Helper()
	b, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	return store.Event{Type: typ, Resource: crdsBucket, Key: def.Name, Value: b}
}

// customResource is a custom object, marked for deletion when deleting,
// held by finalizers.
func customResource(ns, name string, deleting bool, finalizers ...string) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{}}
	o.SetNamespace(ns)
	o.SetName(name)
	o.SetFinalizers(finalizers)
	if deleting {
		now := metav1.Now()
		o.SetDeletionTimestamp(&now)
	}
	return o
}

// Status writes the finalizer makes, as the fake registry records them.
const (
	inProgress = "update customresourcedefinitions/status crontabs.stable.example.com: Terminating=True InstanceDeletionInProgress CustomResource deletion is in progress"
	completed  = "update customresourcedefinitions/status crontabs.stable.example.com: Terminating=False InstanceDeletionCompleted removed all instances"
	finalized  = "update customresourcedefinitions crontabs.stable.example.com"
)

func TestCRDFinalizerDeletesCustomResourcesThenTheFinalizer(t *testing.T) {
	const cleanup = apiextensionsv1.CustomResourceCleanupFinalizer
	const list = "stable.example.com/v1, Resource=crontabs in "
	neverEstablished := crontabsCRD(true, cleanup)
	neverEstablished.Status.Conditions = nil
	tests := []struct {
		name      string
		crd       *apiextensionsv1.CustomResourceDefinition
		objects   []*unstructured.Unstructured
		listErr   error
		wantLists []string
		want      []string
		wantErr   string
		// wantFinalizers are the CRD's finalizers at the end.
		wantFinalizers []string
	}{{
		name:           "a CRD not being deleted is left alone",
		crd:            crontabsCRD(false, cleanup),
		wantFinalizers: []string{cleanup},
	}, {
		name:           "a terminating CRD without the cleanup finalizer is left alone",
		crd:            crontabsCRD(true, "example.com/other"),
		wantFinalizers: []string{"example.com/other"},
	}, {
		name:           "objects are deleted at the storage version, then the finalizer goes",
		crd:            crontabsCRD(true, "example.com/other", cleanup),
		objects:        []*unstructured.Unstructured{customResource("a", "x", false), customResource("b", "z", false)},
		wantLists:      []string{list, list},
		want:           []string{inProgress, "delete crontabs a/x", "delete crontabs b/z", completed, finalized},
		wantFinalizers: []string{"example.com/other"},
	}, {
		name:           "objects marked for deletion already are not deleted again, and are waited for",
		crd:            crontabsCRD(true, cleanup),
		objects:        []*unstructured.Unstructured{customResource("a", "x", false), customResource("b", "y", true, "example.com/hold")},
		wantLists:      []string{list, list},
		want:           []string{inProgress, "delete crontabs a/x"},
		wantErr:        "work left: sync again in 200ms",
		wantFinalizers: []string{cleanup},
	}, {
		name: "a CRD never established has nothing to delete",
		crd:  neverEstablished,
		want: []string{
			inProgress,
			"update customresourcedefinitions/status crontabs.stable.example.com: Terminating=False NeverEstablished resource was never established",
			finalized,
		},
		wantFinalizers: []string{},
	}, {
		name:           "a resource no longer served has nothing to delete",
		crd:            crontabsCRD(true, cleanup),
		listErr:        apierrors.NewNotFound(schema.GroupResource{Group: "stable.example.com", Resource: "crontabs"}, ""),
		wantLists:      []string{list, list},
		want:           []string{inProgress, completed, finalized},
		wantFinalizers: []string{},
	}, {
		name:      "a failed list is reported in the condition and keeps the finalizer, for a retry",
		crd:       crontabsCRD(true, cleanup),
		listErr:   apierrors.NewServiceUnavailable("conversion webhook down"),
		wantLists: []string{list},
		want: []string{
			inProgress,
			"update customresourcedefinitions/status crontabs.stable.example.com: Terminating=True InstanceDeletionFailed could not list instances: conversion webhook down",
		},
		wantErr:        "crd crontabs.stable.example.com: could not list instances: conversion webhook down",
		wantFinalizers: []string{cleanup},
	}, {
		name:           "an object held by its finalizers is waited for",
		crd:            crontabsCRD(true, cleanup),
		objects:        []*unstructured.Unstructured{customResource("a", "held", false, "example.com/hold")},
		wantLists:      []string{list, list},
		want:           []string{inProgress, "delete crontabs a/held"},
		wantErr:        "work left: sync again in 200ms",
		wantFinalizers: []string{cleanup},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &crRegistry{crd: tt.crd.DeepCopy(), objects: tt.objects, listErr: tt.listErr}
			c := NewCRDFinalizer(reg, nil)
			c.StartDelay = 0 // deletes at once (see TestCRDFinalizerWaitsStartDelay)
			err := c.Sync(context.Background(), []store.Event{crdStoreEvent(t, store.Added, tt.crd)})
			if got := fmt.Sprint(err); (err != nil || tt.wantErr != "") && got != tt.wantErr {
				t.Errorf("Sync: %v, want %q", err, tt.wantErr)
			}
			if !slices.Equal(reg.lists, tt.wantLists) {
				t.Errorf("lists %q, want %q", reg.lists, tt.wantLists)
			}
			if !slices.Equal(reg.writes, tt.want) {
				t.Errorf("writes:\n%s\nwant:\n%s", strings.Join(reg.writes, "\n"), strings.Join(tt.want, "\n"))
			}
			if got := reg.crd.Finalizers; len(got) != len(tt.wantFinalizers) || (len(got) > 0 && !slices.Equal(got, tt.wantFinalizers)) {
				t.Errorf("finalizers %q, want %q", got, tt.wantFinalizers)
			}
			for _, u := range reg.users {
				if u != "system:apiserver" {
					t.Errorf("wrote as %q", u)
				}
			}
		})
	}
}

// Once the objects held by finalizers go, the next Sync lets the CRD go; a
// wait longer than upstream's minute is reported as InstanceDeletionCheck
// and starts over.
func TestCRDFinalizerWaitsForHeldObjects(t *testing.T) {
	def := crontabsCRD(true, apiextensionsv1.CustomResourceCleanupFinalizer)
	reg := &crRegistry{crd: def.DeepCopy(), objects: []*unstructured.Unstructured{customResource("a", "held", false, "example.com/hold")}}
	c := NewCRDFinalizer(reg, nil)
	c.StartDelay = 0 // deletes at once (see TestCRDFinalizerWaitsStartDelay)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	var rq *Requeue
	if err := c.Sync(context.Background(), []store.Event{crdStoreEvent(t, store.Added, def)}); !errors.As(err, &rq) {
		t.Fatalf("first Sync: %v, want a Requeue", err)
	}
	now = now.Add(30 * time.Second)
	if err := c.Sync(context.Background(), nil); !errors.As(err, &rq) {
		t.Fatalf("Sync within the minute: %v, want a Requeue", err)
	}
	now = now.Add(30 * time.Second)
	err := c.Sync(context.Background(), nil)
	if want := "crd crontabs.stable.example.com: could not confirm zero CustomResources remaining: context deadline exceeded"; fmt.Sprint(err) != want {
		t.Fatalf("Sync after a minute: %v, want %s", err, want)
	}
	if cond := apihelpers.FindCRDCondition(reg.crd, apiextensionsv1.Terminating); cond.Reason != "InstanceDeletionCheck" {
		t.Errorf("condition after a minute: %+v", cond)
	}
	// The object goes; the next Sync starts a round and finds none.
	reg.objects = nil
	reg.writes = nil
	if err := c.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if want := []string{inProgress, completed, finalized}; !slices.Equal(reg.writes, want) {
		t.Errorf("writes %q, want %q", reg.writes, want)
	}
	if len(reg.crd.Finalizers) != 0 {
		t.Errorf("finalizers %q", reg.crd.Finalizers)
	}
}

// A CRD whose cleanup failed is tried again by the next Sync, and one
// deleted meanwhile is forgotten.
func TestCRDFinalizerRetriesAndForgets(t *testing.T) {
	def := crontabsCRD(true, apiextensionsv1.CustomResourceCleanupFinalizer)
	reg := &crRegistry{crd: def.DeepCopy(), listErr: apierrors.NewServiceUnavailable("down")}
	c := NewCRDFinalizer(reg, nil)
	c.StartDelay = 0 // deletes at once (see TestCRDFinalizerWaitsStartDelay)
	if err := c.Sync(context.Background(), []store.Event{crdStoreEvent(t, store.Added, def)}); err == nil {
		t.Fatal("first Sync did not fail")
	}
	reg.listErr = nil
	if err := c.Sync(context.Background(), nil); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if len(reg.lists) != 3 || len(reg.crd.Finalizers) != 0 {
		t.Errorf("after the retry: lists %q, finalizers %q", reg.lists, reg.crd.Finalizers)
	}
	reg.lists = nil
	if err := c.Sync(context.Background(), []store.Event{crdStoreEvent(t, store.Deleted, def)}); err != nil || len(reg.lists) != 0 {
		t.Errorf("after its deletion: %v, lists %q", err, reg.lists)
	}
}

// The deletes start StartDelay after InstanceDeletionInProgress is
// reported, as kube-apiserver's start once the custom resources' storage
// is ready, so that clients see Terminating True meanwhile.
func TestCRDFinalizerWaitsStartDelay(t *testing.T) {
	def := crontabsCRD(true, apiextensionsv1.CustomResourceCleanupFinalizer)
	reg := &crRegistry{crd: def.DeepCopy(), objects: []*unstructured.Unstructured{customResource("a", "x", false)}}
	c := NewCRDFinalizer(reg, nil)
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c.now = func() time.Time { return now }
	err := c.Sync(context.Background(), []store.Event{crdStoreEvent(t, store.Added, def)})
	if want := "work left: sync again in 20ms"; fmt.Sprint(err) != want {
		t.Fatalf("first Sync: %v, want %s", err, want)
	}
	if want := []string{inProgress}; !slices.Equal(reg.writes, want) || len(reg.lists) != 0 {
		t.Fatalf("before the delay: writes %q, lists %q; want writes %q and no list", reg.writes, reg.lists, want)
	}
	now = now.Add(19 * time.Millisecond)
	if err := c.Sync(context.Background(), nil); fmt.Sprint(err) != "work left: sync again in 1ms" || len(reg.writes) != 1 {
		t.Fatalf("1 ms before the delay ends: %v, writes %q", err, reg.writes)
	}
	now = now.Add(time.Millisecond)
	if err := c.Sync(context.Background(), nil); err != nil {
		t.Fatalf("after the delay: %v", err)
	}
	if want := []string{inProgress, "delete crontabs a/x", completed, finalized}; !slices.Equal(reg.writes, want) {
		t.Errorf("after the delay: writes %q, want %q", reg.writes, want)
	}
}
