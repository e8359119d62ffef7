package fakeplane_test

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/etcdtest"
)

// Events expire --event-ttl after their last write that changed them, as
// kube-apiserver's etcd leases expire them: a write starts the TTL again,
// a write that changes nothing does not, events.k8s.io's Events share it,
// and watchers see each one DELETED.
func TestEventsExpireAfterEventTTL(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		backend func(t *testing.T) []fakeplane.Option
	}{
		{name: "bbolt", backend: func(*testing.T) []fakeplane.Option { return nil }},
		{name: "etcd", backend: func(t *testing.T) []fakeplane.Option {
			srv := etcdtest.Start(t)
			return []fakeplane.Option{fakeplane.WithEtcdServers(srv.Endpoints), fakeplane.WithEtcdPrefix(etcdtest.Prefix(t))}
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			testEventsExpire(t, tc.backend(t)...)
		})
	}
}

func testEventsExpire(t *testing.T, backend ...fakeplane.Option) {
	clock := newTestClock()
	cp := fakeplane.Start(t, append(backend, fakeplane.WithClock(clock.Now), fakeplane.WithEventTTL(time.Hour))...)
	client := kubernetesClient(t, cp)
	ctx := ctxT(t)
	ns := "default"
	event := func(name, message string) *corev1.Event {
		return &corev1.Event{
			ObjectMeta:     metav1.ObjectMeta{Name: name},
			InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p"},
			Reason:         "Tested", Message: message, Type: corev1.EventTypeNormal,
		}
	}
	for _, name := range []string{"untouched", "rewritten", "rewritten-unchanged"} {
		if _, err := client.CoreV1().Events(ns).Create(ctx, event(name, "first"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.EventsV1().Events(ns).Create(ctx, &eventsv1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: "events-k8s-io"}, EventTime: metav1.NewMicroTime(clock.Now()),
		Regarding: corev1.ObjectReference{Kind: "Pod", Namespace: ns, Name: "p"},
		Reason:    "Tested", Action: "Testing", Type: corev1.EventTypeNormal,
		ReportingController: "example.com/test", ReportingInstance: "test-1",
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	list, err := client.CoreV1().Events(ns).List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := client.CoreV1().Events(ns).Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	clock.Advance(30 * time.Minute)
	rewrite := func(name, message string) {
		t.Helper()
		e, err := client.CoreV1().Events(ns).Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		e.Message = message
		if _, err := client.CoreV1().Events(ns).Update(ctx, e, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rewrite("rewritten", "second")
	rewrite("rewritten-unchanged", "first") // the same bytes: nothing is written

	// An hour after their creation, the Events written only then go; the
	// one written since stays.
	clock.Advance(31 * time.Minute)
	deleted := map[string]bool{}
	for len(deleted) < 3 {
		ev := nextEvent(t, w)
		if ev.Type != watch.Deleted {
			continue
		}
		e := ev.Object.(*corev1.Event)
		if e.Name == "rewritten" {
			t.Fatalf("the Event written 31 minutes ago expired")
		}
		deleted[e.Name] = true
	}
	for _, name := range []string{"untouched", "rewritten-unchanged", "events-k8s-io"} {
		if !deleted[name] {
			t.Errorf("%s was not deleted: %v", name, deleted)
		}
		if _, err := client.CoreV1().Events(ns).Get(ctx, name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get %s after its expiry: %v, want NotFound", name, err)
		}
	}
	if _, err := client.CoreV1().Events(ns).Get(ctx, "rewritten", metav1.GetOptions{}); err != nil {
		t.Fatalf("the Event written 31 minutes ago: %v", err)
	}

	// An hour after its last write, it goes too.
	clock.Advance(30 * time.Minute)
	for {
		ev := nextEvent(t, w)
		if e, ok := ev.Object.(*corev1.Event); ok && ev.Type == watch.Deleted && e.Name == "rewritten" {
			if e.Message != "second" {
				t.Errorf("the Deleted event carries %q, want the last state", e.Message)
			}
			break
		}
	}
}
