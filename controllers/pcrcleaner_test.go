package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fakeplane/fakeplane/registry/registrytest"
	"github.com/fakeplane/fakeplane/store"
)

// TestPCRCleanerDeletesRequestsOlderThanFifteenMinutes: at its first look
// and then every interval, the cleaner deletes the PodCertificateRequests
// created fifteen minutes ago or more, as kube-controller-manager's.
func TestPCRCleanerDeletesRequestsOlderThanFifteenMinutes(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	reg := registrytest.NewRecorder()
	clock := now
	c := NewPCRCleaner(reg, func() time.Time { return clock }, nil)
	var events []store.Event
	for name, age := range map[string]time.Duration{"old": 20 * time.Minute, "just": 15 * time.Minute, "young": 14 * time.Minute} {
		pcr := &certificatesv1.PodCertificateRequest{ObjectMeta: metav1.ObjectMeta{Namespace: "ns", Name: name, UID: types.UID("uid-" + name),
			CreationTimestamp: metav1.NewTime(now.Add(-age))}}
		data, err := json.Marshal(pcr)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, store.Event{Type: store.Added, Key: "ns/" + name, Value: data})
	}
	var requeue *Requeue
	if err := c.Sync(context.Background(), events); !errors.As(err, &requeue) || requeue.After != PCRCleanerInterval {
		t.Fatalf("first look: %v, want a requeue after the interval", err)
	}
	if want := []string{"delete just", "delete old"}; !slices.Equal(reg.Writes, want) {
		t.Errorf("deleted %q, want %q", reg.Writes, want)
	}
	// The young one goes at the next look, five minutes on.
	_ = c.Sync(context.Background(), []store.Event{{Type: store.Deleted, Key: "ns/old"}, {Type: store.Deleted, Key: "ns/just"}})
	clock = now.Add(PCRCleanerInterval)
	if err := c.Sync(context.Background(), nil); !errors.As(err, &requeue) || !slices.Equal(reg.Writes, []string{"delete just", "delete old", "delete young"}) {
		t.Errorf("next look: %v, writes %q", err, reg.Writes)
	}
}
