package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// writeRegistry records the creates and updates made through it, with
// their user, and answers them with the error set for their namespace.
type writeRegistry struct {
	// objects are the current objects of Update, by namespace/name.
	objects map[string]runtime.Object
	// fail is the error of a write to a namespace.
	fail   map[string]error
	writes []string
	users  []string
}

var _ registry.Interface = (*writeRegistry)(nil)

func (f *writeRegistry) record(ctx context.Context, verb, ns string, obj runtime.Object) error {
	u, _ := apirequest.UserFrom(ctx)
	f.users = append(f.users, u.GetName())
	m, _ := obj.(metav1.Object)
	f.writes = append(f.writes, verb+" "+ns+"/"+m.GetName())
	return f.fail[ns]
}

func (f *writeRegistry) Get(context.Context, schema.GroupVersionResource, string, string) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *writeRegistry) List(context.Context, schema.GroupVersionResource, string, metav1.ListOptions) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *writeRegistry) Create(ctx context.Context, _ schema.GroupVersionResource, obj runtime.Object) (runtime.Object, error) {
	m := obj.(metav1.Object)
	if err := f.record(ctx, "create", m.GetNamespace(), obj); err != nil {
		return nil, err
	}
	return obj, nil
}

func (f *writeRegistry) Update(ctx context.Context, gvr schema.GroupVersionResource, ns, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	cur, ok := f.objects[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	obj, err := tryUpdate(cur.DeepCopyObject())
	if err != nil {
		return nil, err
	}
	if err := f.record(ctx, "update", ns, obj); err != nil {
		return nil, err
	}
	f.objects[ns+"/"+name] = obj
	return obj, nil
}

func (f *writeRegistry) UpdateSubresource(context.Context, schema.GroupVersionResource, string, string, string, registry.UpdateFunc) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *writeRegistry) Delete(context.Context, schema.GroupVersionResource, string, string, metav1.DeleteOptions) (runtime.Object, error) {
	return nil, errors.New("not used")
}

// objectEvent is a store event of a namespaced object.
func objectEvent(t *testing.T, typ store.EventType, bucket string, obj metav1.Object) store.Event {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return store.Event{Type: typ, Resource: bucket, Key: obj.GetNamespace() + "/" + obj.GetName(), Value: b}
}

func activeNamespace(name string) *corev1.Namespace {
	return &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}
}

func serviceAccount(ns, name string) *corev1.ServiceAccount {
	return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
}

func TestServiceAccountCreatesDefaultInActiveNamespaces(t *testing.T) {
	tests := []struct {
		name    string
		fail    map[string]error
		batches func(t *testing.T) [][]store.Event
		want    []string
		wantErr bool
	}{{
		name: "a namespace without one gets it",
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{{namespaceEvent(t, store.Added, activeNamespace("a"))}}
		},
		want: []string{"create a/default"},
	}, {
		name: "a namespace that has one is left alone",
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{{
				namespaceEvent(t, store.Added, activeNamespace("a")),
				objectEvent(t, store.Added, serviceAccountsBucket, serviceAccount("a", "default")),
			}}
		},
	}, {
		name: "a terminating namespace gets none",
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{{namespaceEvent(t, store.Added, terminatingNamespace("a"))}}
		},
	}, {
		name: "a deleted default is created again",
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{
				{namespaceEvent(t, store.Added, activeNamespace("a")), objectEvent(t, store.Added, serviceAccountsBucket, serviceAccount("a", "default"))},
				{objectEvent(t, store.Deleted, serviceAccountsBucket, serviceAccount("a", "default"))},
			}
		},
		want: []string{"create a/default"},
	}, {
		name: "other service accounts do not count",
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{
				{namespaceEvent(t, store.Added, activeNamespace("a")), objectEvent(t, store.Added, serviceAccountsBucket, serviceAccount("a", "robot"))},
				{objectEvent(t, store.Deleted, serviceAccountsBucket, serviceAccount("a", "robot"))},
			}
		},
		want: []string{"create a/default"},
	}, {
		name: "AlreadyExists and Forbidden are not failures",
		fail: map[string]error{
			"a": apierrors.NewAlreadyExists(serviceAccountsGVR.GroupResource(), "default"),
			"b": apierrors.NewForbidden(serviceAccountsGVR.GroupResource(), "default", errors.New("namespace b is being terminated")),
		},
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{{namespaceEvent(t, store.Added, activeNamespace("a")), namespaceEvent(t, store.Added, activeNamespace("b"))}, nil}
		},
		want: []string{"create a/default", "create b/default"},
	}, {
		name: "a failed create is retried with the next sync",
		fail: map[string]error{"a": apierrors.NewServiceUnavailable("down")},
		batches: func(t *testing.T) [][]store.Event {
			return [][]store.Event{{namespaceEvent(t, store.Added, activeNamespace("a"))}, nil}
		},
		want:    []string{"create a/default", "create a/default"},
		wantErr: true,
	}}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			reg := &writeRegistry{fail: tt.fail}
			c := NewServiceAccount(reg, nil)
			var err error
			for _, b := range tt.batches(t) {
				err = c.Sync(context.Background(), b)
			}
			if (err != nil) != tt.wantErr {
				t.Errorf("last Sync: %v, want error %v", err, tt.wantErr)
			}
			if !slices.Equal(reg.writes, tt.want) {
				t.Errorf("writes %q, want %q", reg.writes, tt.want)
			}
			for _, u := range reg.users {
				if u != "system:serviceaccount:kube-system:service-account-controller" {
					t.Errorf("wrote as %q", u)
				}
			}
		})
	}
}
