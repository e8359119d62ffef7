package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

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

func (f *crRegistry) UpdateSubresource(context.Context, schema.GroupVersionResource, string, string, string, registry.UpdateFunc) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *crRegistry) Delete(ctx context.Context, gvr schema.GroupVersionResource, ns, name string, _ metav1.DeleteOptions) (runtime.Object, error) {
	u, _ := apirequest.UserFrom(ctx)
	f.users = append(f.users, u.GetName())
	f.writes = append(f.writes, "delete "+gvr.Resource+" "+ns+"/"+name)
	return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
}

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
		Status: apiextensionsv1.CustomResourceDefinitionStatus{AcceptedNames: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Kind: "CronTab"}},
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

func customResource(ns, name string, deleting bool) *unstructured.Unstructured {
	o := &unstructured.Unstructured{Object: map[string]any{}}
	o.SetNamespace(ns)
	o.SetName(name)
	if deleting {
		now := metav1.Now()
		o.SetDeletionTimestamp(&now)
	}
	return o
}

func TestCRDFinalizerDeletesCustomResourcesThenTheFinalizer(t *testing.T) {
	const cleanup = apiextensionsv1.CustomResourceCleanupFinalizer
	tests := []struct {
		name      string
		crd       *apiextensionsv1.CustomResourceDefinition
		objects   []*unstructured.Unstructured
		listErr   error
		wantLists []string
		want      []string
		wantErr   bool
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
		name:      "objects are deleted at the storage version, those marked already are not, then the finalizer goes",
		crd:       crontabsCRD(true, "example.com/other", cleanup),
		objects:   []*unstructured.Unstructured{customResource("a", "x", false), customResource("b", "y", true), customResource("b", "z", false)},
		wantLists: []string{"stable.example.com/v1, Resource=crontabs in "},
		want: []string{
			"delete crontabs a/x", "delete crontabs b/z",
			"update customresourcedefinitions crontabs.stable.example.com",
		},
		wantFinalizers: []string{"example.com/other"},
	}, {
		name:           "a resource never served has nothing to delete",
		crd:            crontabsCRD(true, cleanup),
		listErr:        apierrors.NewNotFound(schema.GroupResource{Group: "stable.example.com", Resource: "crontabs"}, ""),
		wantLists:      []string{"stable.example.com/v1, Resource=crontabs in "},
		want:           []string{"update customresourcedefinitions crontabs.stable.example.com"},
		wantFinalizers: []string{},
	}, {
		name:           "a failed list keeps the finalizer, for a retry",
		crd:            crontabsCRD(true, cleanup),
		listErr:        apierrors.NewServiceUnavailable("conversion webhook down"),
		wantLists:      []string{"stable.example.com/v1, Resource=crontabs in "},
		wantErr:        true,
		wantFinalizers: []string{cleanup},
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &crRegistry{crd: tt.crd.DeepCopy(), objects: tt.objects, listErr: tt.listErr}
			c := NewCRDFinalizer(reg, nil)
			err := c.Sync(context.Background(), []store.Event{crdStoreEvent(t, store.Added, tt.crd)})
			if (err != nil) != tt.wantErr {
				t.Errorf("Sync: %v, want error %v", err, tt.wantErr)
			}
			if !slices.Equal(reg.lists, tt.wantLists) {
				t.Errorf("lists %q, want %q", reg.lists, tt.wantLists)
			}
			if !slices.Equal(reg.writes, tt.want) {
				t.Errorf("writes %q, want %q", reg.writes, tt.want)
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

// A CRD whose cleanup failed is tried again by the next Sync, and one
// deleted meanwhile is forgotten.
func TestCRDFinalizerRetriesAndForgets(t *testing.T) {
	def := crontabsCRD(true, apiextensionsv1.CustomResourceCleanupFinalizer)
	reg := &crRegistry{crd: def.DeepCopy(), listErr: apierrors.NewServiceUnavailable("down")}
	c := NewCRDFinalizer(reg, nil)
	if err := c.Sync(context.Background(), []store.Event{crdStoreEvent(t, store.Added, def)}); err == nil {
		t.Fatal("first Sync did not fail")
	}
	reg.listErr = nil
	if err := c.Sync(context.Background(), nil); err != nil {
		t.Fatalf("retry: %v", err)
	}
	if len(reg.lists) != 2 || len(reg.crd.Finalizers) != 0 {
		t.Errorf("after the retry: lists %q, finalizers %q", reg.lists, reg.crd.Finalizers)
	}
	reg.lists = nil
	if err := c.Sync(context.Background(), []store.Event{crdStoreEvent(t, store.Deleted, def)}); err != nil || len(reg.lists) != 0 {
		t.Errorf("after its deletion: %v, lists %q", err, reg.lists)
	}
}
