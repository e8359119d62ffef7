package aggregator

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"slices"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
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

func crdEvent(t *testing.T, typ store.EventType, group string, versions map[string]bool) store.Event {
	t.Helper()
	crd := apiextensionsv1.CustomResourceDefinition{ObjectMeta: metav1.ObjectMeta{Name: "things." + group}, Spec: apiextensionsv1.CustomResourceDefinitionSpec{Group: group}}
	for v, served := range versions {
		crd.Spec.Versions = append(crd.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{Name: v, Served: served})
	}
	b, err := json.Marshal(crd)
	if err != nil {
		t.Fatal(err)
	}
	return store.Event{Type: typ, Resource: crdBucket, Key: crd.Name, Value: b}
}

func apiServiceEvent(t *testing.T, reg *fakeRegistry, label, version, group string, groupPriority int32) store.Event {
	t.Helper()
	as := &apiregistrationv1.APIService{
		ObjectMeta: metav1.ObjectMeta{Name: version + "." + group},
		Spec:       apiregistrationv1.APIServiceSpec{Group: group, Version: version, GroupPriorityMinimum: groupPriority, VersionPriority: crdVersionPriority},
	}
	if label != "" {
		as.Labels = map[string]string{automanagedLabel: label}
	}
	b, err := json.Marshal(as)
	if err != nil {
		t.Fatal(err)
	}
	reg.objects[as.Name] = as
	return store.Event{Type: store.Added, Resource: apiServiceBucket, Key: as.Name, Value: b}
}

func TestAPIServiceRegistration(t *testing.T) {
	reg := &fakeRegistry{objects: map[string]runtime.Object{}}
	c := NewCRDAutoRegistration(reg, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	// What a data dir may hold at start.
	initial := []store.Event{
		crdEvent(t, store.Added, "one.example.com", map[string]bool{"v1": true, "v2": false}),
		crdEvent(t, store.Added, "mine.example.com", map[string]bool{"v1": true}),
		crdEvent(t, store.Added, "three.example.com", map[string]bool{"v1": true}),
		apiServiceEvent(t, reg, "true", "v1", "gone.example.com", crdGroupPriority),    // no CRD serves it
		apiServiceEvent(t, reg, "", "v1", "mine.example.com", 5),                       // made by hand
		apiServiceEvent(t, reg, "true", "v1", "three.example.com", 7),                  // changed by hand
		apiServiceEvent(t, reg, "onstart", "v1", "apps", 17800),                        // a built-in's
		apiServiceEvent(t, reg, "true", "v2", "one.example.com", crdGroupPriority),     // no longer served
		apiServiceEvent(t, reg, "onstart", "v9", "four.example.com", crdGroupPriority), // not continuously managed
	}
	if err := c.Sync(ctx, initial); err != nil {
		t.Fatal(err)
	}
	slices.Sort(reg.writes)
	want := []string{"create v1.one.example.com", "delete v1.gone.example.com", "delete v2.one.example.com", "update v1.three.example.com"}
	if !slices.Equal(reg.writes, want) {
		t.Errorf("writes: %q, want %q", reg.writes, want)
	}
	for _, u := range reg.users {
		if u != "system:apiserver/kube-apiserver" {
			t.Errorf("written as user/field manager %q", u)
		}
	}

	// A failed write is retried by the next Sync, with no new events.
	reg.writes, reg.fail = nil, errors.New("boom")
	if err := c.Sync(ctx, []store.Event{crdEvent(t, store.Added, "five.example.com", map[string]bool{"v1": true})}); err == nil {
		t.Error("Sync hid a failed write")
	}
	reg.writes, reg.fail = nil, nil
	if err := c.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reg.writes, []string{"create v1.five.example.com"}) {
		t.Errorf("retry writes: %q", reg.writes)
	}

	// Once its APIService is seen, nothing more is written; once the CRD
	// goes, the APIService goes.
	reg.writes = nil
	if err := c.Sync(ctx, []store.Event{apiServiceEvent(t, reg, "true", "v1", "five.example.com", crdGroupPriority)}); err != nil {
		t.Fatal(err)
	}
	if len(reg.writes) != 0 {
		t.Errorf("writes for a converged group: %q", reg.writes)
	}
	if err := c.Sync(ctx, []store.Event{crdEvent(t, store.Deleted, "five.example.com", map[string]bool{"v1": true})}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reg.writes, []string{"delete v1.five.example.com"}) {
		t.Errorf("writes after the CRD went: %q", reg.writes)
	}
}
