package controllers

import (
	"context"
	"encoding/json"
	"log/slog"
	"slices"
	"testing"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/registry/registrytest"
	"github.com/fakeplane/fakeplane/store"
)

func clusterRoleEvent(t *testing.T, reg *registrytest.Recorder, typ store.EventType, cr *rbacv1.ClusterRole) store.Event {
	t.Helper()
	b, err := json.Marshal(cr)
	if err != nil {
		t.Fatal(err)
	}
	if typ == store.Deleted {
		delete(reg.Objects, cr.Name)
	} else {
		reg.Objects[cr.Name] = cr.DeepCopy()
	}
	return store.Event{Type: typ, Resource: clusterRolesBucket, Key: cr.Name, Value: b}
}

func aggregating(name string, labels map[string]string, selector string) *rbacv1.ClusterRole {
	return &rbacv1.ClusterRole{
		ObjectMeta:      metav1.ObjectMeta{Name: name, Labels: labels},
		AggregationRule: &rbacv1.AggregationRule{ClusterRoleSelectors: []metav1.LabelSelector{{MatchLabels: map[string]string{selector: "true"}}}},
		Rules:           []rbacv1.PolicyRule{},
	}
}

func rulesOf(reg *registrytest.Recorder, name string) []string {
	var out []string
	for _, r := range reg.Objects[name].(*rbacv1.ClusterRole).Rules {
		out = append(out, r.Resources...)
	}
	return out
}

// TestClusterRoleAggregation checks that aggregated ClusterRoles follow the
// roles their selectors match, through chains of aggregation, in one sync.
func TestClusterRoleAggregation(t *testing.T) {
	reg := registrytest.NewRecorder()
	c := NewClusterRoleAggregation(reg, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	initial := []store.Event{
		clusterRoleEvent(t, reg, store.Added, aggregating("admin", nil, "to-admin")),
		clusterRoleEvent(t, reg, store.Added, aggregating("edit", map[string]string{"to-admin": "true"}, "to-edit")),
		clusterRoleEvent(t, reg, store.Added, &rbacv1.ClusterRole{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets", Labels: map[string]string{"to-edit": "true"}},
			Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"get"}}},
		}),
	}
	if err := c.Sync(ctx, initial); err != nil {
		t.Fatal(err)
	}
	if got := rulesOf(reg, "edit"); !slices.Equal(got, []string{"widgets"}) {
		t.Errorf("edit: %v", got)
	}
	if got := rulesOf(reg, "admin"); !slices.Equal(got, []string{"widgets"}) {
		t.Errorf("admin (through edit): %v", got)
	}
	if !slices.Equal(reg.Writes, []string{"update edit", "update admin"}) {
		t.Errorf("writes: %q", reg.Writes)
	}
	for _, u := range reg.Users {
		if u != "system:serviceaccount:kube-system:clusterrole-aggregation-controller/clusterrole-aggregation-controller" {
			t.Errorf("written as user/field manager %q", u)
		}
	}

	// Its own writes come back as events: nothing more to do.
	reg.Writes = nil
	edit, admin := reg.Objects["edit"].(*rbacv1.ClusterRole), reg.Objects["admin"].(*rbacv1.ClusterRole)
	if err := c.Sync(ctx, []store.Event{clusterRoleEvent(t, reg, store.Modified, edit), clusterRoleEvent(t, reg, store.Modified, admin)}); err != nil {
		t.Fatal(err)
	}
	if len(reg.Writes) != 0 {
		t.Errorf("writes for converged roles: %q", reg.Writes)
	}

	// The matched role goes: its rules go from edit and admin.
	if err := c.Sync(ctx, []store.Event{clusterRoleEvent(t, reg, store.Deleted, &rbacv1.ClusterRole{ObjectMeta: metav1.ObjectMeta{Name: "widgets"}})}); err != nil {
		t.Fatal(err)
	}
	if got, got2 := rulesOf(reg, "edit"), rulesOf(reg, "admin"); len(got) != 0 || len(got2) != 0 {
		t.Errorf("after the matched role went: edit %v, admin %v", got, got2)
	}
}

// TestClusterRoleAggregationLaterSelector checks that a role no selector
// matched when it came (so whose rules were not decoded then) is aggregated
// once a new aggregationRule selects it, and that a role whose labels
// change to match one is too.
func TestClusterRoleAggregationLaterSelector(t *testing.T) {
	reg := registrytest.NewRecorder()
	c := NewClusterRoleAggregation(reg, slog.New(slog.DiscardHandler))
	ctx := context.Background()
	gadgets := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets", Labels: map[string]string{"to-view": "true"}},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"example.com"}, Resources: []string{"gadgets"}, Verbs: []string{"get"}}},
	}
	widgets := &rbacv1.ClusterRole{
		ObjectMeta: metav1.ObjectMeta{Name: "widgets"},
		Rules:      []rbacv1.PolicyRule{{APIGroups: []string{"example.com"}, Resources: []string{"widgets"}, Verbs: []string{"get"}}},
	}
	if err := c.Sync(ctx, []store.Event{clusterRoleEvent(t, reg, store.Added, gadgets), clusterRoleEvent(t, reg, store.Added, widgets)}); err != nil {
		t.Fatal(err)
	}
	if len(reg.Writes) != 0 {
		t.Fatalf("writes without an aggregated role: %q", reg.Writes)
	}
	if err := c.Sync(ctx, []store.Event{clusterRoleEvent(t, reg, store.Added, aggregating("view", nil, "to-view"))}); err != nil {
		t.Fatal(err)
	}
	if got := rulesOf(reg, "view"); !slices.Equal(got, []string{"gadgets"}) {
		t.Errorf("view after it came: %v", got)
	}
	widgets = widgets.DeepCopy()
	widgets.Labels = map[string]string{"to-view": "true"}
	if err := c.Sync(ctx, []store.Event{clusterRoleEvent(t, reg, store.Modified, widgets)}); err != nil {
		t.Fatal(err)
	}
	if got := rulesOf(reg, "view"); !slices.Equal(got, []string{"gadgets", "widgets"}) {
		t.Errorf("view after widgets' labels changed: %v", got)
	}
}
