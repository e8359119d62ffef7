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
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/fakeplane/fakeplane/registry/registrytest"
	"github.com/fakeplane/fakeplane/store"
)

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

func apiServiceEvent(t *testing.T, reg *registrytest.Recorder, label, version, group string, groupPriority int32) store.Event {
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
	reg.Objects[as.Name] = as
	return store.Event{Type: store.Added, Resource: apiServiceBucket, Key: as.Name, Value: b}
}

func TestAPIServiceRegistration(t *testing.T) {
	reg := registrytest.NewRecorder()
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
		apiServiceEvent(t, reg, "true", "v2", "batch", crdGroupPriority),               // a built-in group's, labelled as a CRD's
		apiServiceEvent(t, reg, "onstart", "v1", "", 18000),                            // the core group's
		apiServiceEvent(t, reg, "true", "v2", "one.example.com", crdGroupPriority),     // no longer served
		apiServiceEvent(t, reg, "onstart", "v9", "four.example.com", crdGroupPriority), // not continuously managed
	}
	if err := c.Sync(ctx, initial); err != nil {
		t.Fatal(err)
	}
	slices.Sort(reg.Writes)
	want := []string{"create v1.one.example.com", "delete v1.gone.example.com", "delete v2.one.example.com", "update v1.three.example.com"}
	if !slices.Equal(reg.Writes, want) {
		t.Errorf("writes: %q, want %q", reg.Writes, want)
	}
	// Built-in groups are not the controller's: it does not keep their
	// APIServices.
	for _, name := range []string{"v1.apps", "v2.batch", "v1."} {
		if _, kept := c.services[name]; kept {
			t.Errorf("the built-in APIService %s is kept", name)
		}
	}
	for _, u := range reg.Users {
		if u != "system:apiserver/kube-apiserver" {
			t.Errorf("written as user/field manager %q", u)
		}
	}

	// A failed write is retried by the next Sync, with no new events.
	reg.Writes, reg.Fail = nil, errors.New("boom")
	if err := c.Sync(ctx, []store.Event{crdEvent(t, store.Added, "five.example.com", map[string]bool{"v1": true})}); err == nil {
		t.Error("Sync hid a failed write")
	}
	reg.Writes, reg.Fail = nil, nil
	if err := c.Sync(ctx, nil); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reg.Writes, []string{"create v1.five.example.com"}) {
		t.Errorf("retry writes: %q", reg.Writes)
	}

	// Once its APIService is seen, nothing more is written; once the CRD
	// goes, the APIService goes.
	reg.Writes = nil
	if err := c.Sync(ctx, []store.Event{apiServiceEvent(t, reg, "true", "v1", "five.example.com", crdGroupPriority)}); err != nil {
		t.Fatal(err)
	}
	if len(reg.Writes) != 0 {
		t.Errorf("writes for a converged group: %q", reg.Writes)
	}
	if err := c.Sync(ctx, []store.Event{crdEvent(t, store.Deleted, "five.example.com", map[string]bool{"v1": true})}); err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(reg.Writes, []string{"delete v1.five.example.com"}) {
		t.Errorf("writes after the CRD went: %q", reg.Writes)
	}
}
