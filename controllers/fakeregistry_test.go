package controllers

import (
	"context"
	"errors"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
)

// fakeRegistry records the writes made through it, keeping objects of one
// cluster-scoped resource by name.
type fakeRegistry struct {
	objects map[string]runtime.Object
	writes  []string
	fail    error
	users   []string
}

var _ registry.Interface = (*fakeRegistry)(nil)

func (f *fakeRegistry) record(ctx context.Context, w string) error {
	u, _ := apirequest.UserFrom(ctx)
	f.users = append(f.users, u.GetName()+"/"+registry.FieldManagerFrom(ctx))
	f.writes = append(f.writes, w)
	return f.fail
}

func (f *fakeRegistry) Get(context.Context, schema.GroupVersionResource, string, string) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *fakeRegistry) List(context.Context, schema.GroupVersionResource, string, metav1.ListOptions) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *fakeRegistry) Create(ctx context.Context, _ schema.GroupVersionResource, obj runtime.Object) (runtime.Object, error) {
	name := obj.(metav1.Object).GetName()
	if err := f.record(ctx, "create "+name); err != nil {
		return nil, err
	}
	f.objects[name] = obj
	return obj, nil
}

func (f *fakeRegistry) Update(ctx context.Context, _ schema.GroupVersionResource, _, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	if err := f.record(ctx, "update "+name); err != nil {
		return nil, err
	}
	obj, err := tryUpdate(f.objects[name].DeepCopyObject())
	if err != nil {
		return nil, err
	}
	f.objects[name] = obj
	return obj, nil
}

func (f *fakeRegistry) UpdateSubresource(ctx context.Context, gvr schema.GroupVersionResource, _, ns, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	return f.Update(ctx, gvr, ns, name, tryUpdate)
}

func (f *fakeRegistry) Delete(ctx context.Context, _ schema.GroupVersionResource, _, name string, _ metav1.DeleteOptions) (runtime.Object, error) {
	return nil, f.record(ctx, "delete "+name)
}
