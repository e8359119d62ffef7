package controllers

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/registry/registrytest"
	"github.com/fakeplane/fakeplane/store"
)

// TestTTLFollowsClusterSize: the TTL is kube-controller-manager's step for
// the number of nodes, moving up past a step's maximum and down below its
// minimum only (90 nodes keep 15 s once 101 reached it); a node already
// annotated with the TTL is not written again.
func TestTTLFollowsClusterSize(t *testing.T) {
	reg := registrytest.NewRecorder()
	c := NewTTL(reg, nil)
	nodeEvent := func(typ store.EventType, name, ttl string) store.Event {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name}}
		if ttl != "" {
			n.Annotations = map[string]string{corev1.ObjectTTLAnnotationKey: ttl}
		}
		if _, ok := reg.Objects[name]; !ok || typ == store.Added {
			reg.Objects[name] = n.DeepCopy()
		}
		data, _ := json.Marshal(n)
		return store.Event{Type: typ, Key: name, Value: data}
	}
	ttlOf := func(name string) string {
		return reg.Objects[name].(*corev1.Node).Annotations[corev1.ObjectTTLAnnotationKey]
	}
	var events []store.Event
	for i := range 100 {
		events = append(events, nodeEvent(store.Added, fmt.Sprintf("n%d", i), ""))
	}
	if err := c.Sync(context.Background(), events); err != nil {
		t.Fatal(err)
	}
	if got := ttlOf("n0"); got != "0" || len(reg.Writes) != 100 {
		t.Fatalf("100 nodes: ttl %q after %d writes, want 0 after 100", got, len(reg.Writes))
	}
	if err := c.Sync(context.Background(), []store.Event{nodeEvent(store.Added, "n100", "")}); err != nil {
		t.Fatal(err)
	}
	if got := ttlOf("n0"); got != "15" || ttlOf("n100") != "15" {
		t.Errorf("101 nodes: ttl %q, want 15", got)
	}
	var deleted []store.Event
	for i := 90; i <= 100; i++ {
		deleted = append(deleted, store.Event{Type: store.Deleted, Key: fmt.Sprintf("n%d", i)})
	}
	writes := len(reg.Writes)
	if err := c.Sync(context.Background(), deleted); err != nil {
		t.Fatal(err)
	}
	if got := ttlOf("n0"); got != "15" || len(reg.Writes) != writes {
		t.Errorf("down to 90 nodes: ttl %q and %d writes, want 15 kept and none", got, len(reg.Writes)-writes)
	}
	if err := c.Sync(context.Background(), []store.Event{{Type: store.Deleted, Key: "n89"}}); err != nil {
		t.Fatal(err)
	}
	if got := ttlOf("n0"); got != "0" {
		t.Errorf("89 nodes: ttl %q, want 0", got)
	}
}
