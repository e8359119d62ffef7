package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// replicaRegistry is a registry for the replicaset controller's writes: it
// keeps the ReplicaSets it is given, names created pods, records pod
// deletes and events, and refuses pod creates with createErr (counting
// them in refused).
type replicaRegistry struct {
	mu        sync.Mutex
	sets      map[string]*appsv1.ReplicaSet
	created   []*corev1.Pod
	deleted   []string
	events    []string
	createErr error
	refused   int
}

var _ registry.Interface = (*replicaRegistry)(nil)

func (f *replicaRegistry) Get(_ context.Context, _ schema.GroupVersionResource, ns, name string) (runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if rs, ok := f.sets[ns+"/"+name]; ok {
		return rs.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "replicasets"}, name)
}

func (f *replicaRegistry) List(context.Context, schema.GroupVersionResource, string, metav1.ListOptions) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *replicaRegistry) Create(_ context.Context, gvr schema.GroupVersionResource, obj runtime.Object) (runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	switch o := obj.(type) {
	case *corev1.Event:
		f.events = append(f.events, o.Type+" "+o.Reason+" "+o.Message)
		return o, nil
	case *corev1.Pod:
		if f.createErr != nil {
			f.refused++
			return nil, f.createErr
		}
		o.Name = fmt.Sprintf("%s%05d", o.GenerateName, len(f.created))
		f.created = append(f.created, o)
		return o, nil
	}
	return nil, fmt.Errorf("unexpected create of %s", gvr)
}

func (f *replicaRegistry) Update(context.Context, schema.GroupVersionResource, string, string, registry.UpdateFunc) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (f *replicaRegistry) UpdateSubresource(_ context.Context, _ schema.GroupVersionResource, sub, ns, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	rs, ok := f.sets[ns+"/"+name]
	if !ok || sub != "status" {
		return nil, fmt.Errorf("unexpected write to %s %s/%s", sub, ns, name)
	}
	out, err := tryUpdate(rs.DeepCopy())
	if err != nil {
		return nil, err
	}
	f.sets[ns+"/"+name] = out.(*appsv1.ReplicaSet)
	return out, nil
}

func (f *replicaRegistry) Delete(_ context.Context, _ schema.GroupVersionResource, ns, name string, _ metav1.DeleteOptions) (runtime.Object, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.deleted = append(f.deleted, ns+"/"+name)
	return &corev1.Pod{}, nil
}

// addedEvent is the store event of obj's creation in resource.
func addedEvent(t *testing.T, resource, key string, obj any) store.Event {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return store.Event{Type: store.Added, Resource: resource, Key: key, Value: b, Revision: 1}
}

func testReplicaSet(replicas int32) *appsv1.ReplicaSet {
	ls := map[string]string{"app": "web"}
	return &appsv1.ReplicaSet{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns", UID: "rs-uid", Generation: 1},
		Spec: appsv1.ReplicaSetSpec{
			Replicas: ptr.To(replicas),
			Selector: &metav1.LabelSelector{MatchLabels: ls},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: ls, Annotations: map[string]string{"a": "b"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
			},
		},
	}
}

func TestReplicaSetCreatesMissingPodsFromItsTemplate(t *testing.T) {
	rs := testReplicaSet(3)
	reg := &replicaRegistry{sets: map[string]*appsv1.ReplicaSet{"ns/web": rs.DeepCopy()}}
	c := NewReplicaSet(reg, nil, nil)
	if err := c.Sync(context.Background(), []store.Event{addedEvent(t, replicaSetsBucket, "ns/web", rs)}); err != nil {
		t.Fatal(err)
	}
	if len(reg.created) != 3 {
		t.Fatalf("%d pods created, want 3", len(reg.created))
	}
	for _, p := range reg.created {
		ref := metav1.GetControllerOf(p)
		if p.GenerateName != "web-" || p.Namespace != "ns" || p.Labels["app"] != "web" || p.Annotations["a"] != "b" ||
			ref == nil || ref.Kind != "ReplicaSet" || ref.APIVersion != "apps/v1" || ref.UID != "rs-uid" || !ptr.Deref(ref.BlockOwnerDeletion, false) {
			t.Errorf("pod %+v", p.ObjectMeta)
		}
	}
	if st := reg.sets["ns/web"].Status; st.ObservedGeneration != 1 || st.Replicas != 0 || ptr.Deref(st.TerminatingReplicas, -1) != 0 {
		t.Errorf("status %+v: the pods are not observed yet", st)
	}
	if n := len(reg.events); n != 3 || !strings.HasPrefix(reg.events[0], "Normal SuccessfulCreate Created pod: web-") {
		t.Errorf("events %v", reg.events)
	}
}

func TestReplicaSetReportsAFailedCreate(t *testing.T) {
	rs := testReplicaSet(3)
	quota := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "web-abcde", errors.New("exceeded quota: compute"))
	reg := &replicaRegistry{sets: map[string]*appsv1.ReplicaSet{"ns/web": rs.DeepCopy()}, createErr: quota}
	c := NewReplicaSet(reg, nil, nil)
	err := c.Sync(context.Background(), []store.Event{addedEvent(t, replicaSetsBucket, "ns/web", rs)})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("Sync: %v, want the create's Forbidden", err)
	}
	cond := replicaSetCondition(reg.sets["ns/web"].Status, appsv1.ReplicaSetReplicaFailure)
	if cond == nil || cond.Status != corev1.ConditionTrue || cond.Reason != "FailedCreate" || cond.Message != quota.Error() {
		t.Errorf("ReplicaFailure condition %+v", cond)
	}
	// Slow start: the first batch of one failed, nothing more was tried.
	if len(reg.events) != 1 || reg.events[0] != "Warning FailedCreate Error creating: "+quota.Error() {
		t.Errorf("events %v", reg.events)
	}
}

func TestReplicaSetDeletesTheLeastUsefulPodsFirst(t *testing.T) {
	rs := testReplicaSet(1)
	reg := &replicaRegistry{sets: map[string]*appsv1.ReplicaSet{"ns/web": rs.DeepCopy()}}
	c := NewReplicaSet(reg, nil, nil)
	now := metav1.NewTime(time.Now().Add(-time.Hour))
	pod := func(name string, ready bool) *corev1.Pod {
		p := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name), Labels: map[string]string{"app": "web"},
				OwnerReferences: []metav1.OwnerReference{*metav1.NewControllerRef(rs, replicaSetKind)}, CreationTimestamp: now},
			Spec:   corev1.PodSpec{NodeName: "n"},
			Status: corev1.PodStatus{Phase: corev1.PodRunning},
		}
		if ready {
			p.Status.Conditions = []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: now}}
		}
		return p
	}
	events := []store.Event{
		addedEvent(t, replicaSetsBucket, "ns/web", rs),
		addedEvent(t, podsBucket, "ns/ready", pod("ready", true)),
		addedEvent(t, podsBucket, "ns/starting", pod("starting", false)),
	}
	if err := c.Sync(context.Background(), events); err != nil {
		t.Fatal(err)
	}
	if len(reg.deleted) != 1 || reg.deleted[0] != "ns/starting" {
		t.Errorf("deleted %v, want the pod not ready", reg.deleted)
	}
	if st := reg.sets["ns/web"].Status; st.Replicas != 2 || st.ReadyReplicas != 1 || st.AvailableReplicas != 1 || st.FullyLabeledReplicas != 2 {
		t.Errorf("status %+v", st)
	}
}

// TestReplicaSetRetriesAFailedCreateOnItsOwnSchedule checks that a
// ReplicaSet whose pod create fails is retried as kube-controller-manager's
// rate-limited queue retries it: at 5 ms, then at twice the delay after
// each failure in a row, and at once on a change of its own objects, but
// not on other objects' changes; a success forgets its failures.
func TestReplicaSetRetriesAFailedCreateOnItsOwnSchedule(t *testing.T) {
	rs := testReplicaSet(1)
	quota := apierrors.NewForbidden(schema.GroupResource{Resource: "pods"}, "web-abcde", errors.New("exceeded quota: compute"))
	reg := &replicaRegistry{sets: map[string]*appsv1.ReplicaSet{"ns/web": rs.DeepCopy()}, createErr: quota}
	c := NewReplicaSet(reg, nil, nil)
	clock := time.Now()
	c.retries.now = func() time.Time { return clock }
	other := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "elsewhere"}}
	sync := func(events ...store.Event) (attempts int, retryIn time.Duration) {
		t.Helper()
		before := reg.refused + len(reg.created)
		err := c.Sync(context.Background(), events)
		var rq *Requeue
		switch {
		case err == nil:
		case errors.As(err, &rq) && (rq.Failed == nil || apierrors.IsForbidden(err)):
			retryIn = rq.After
		default:
			t.Fatalf("Sync: %v, want nil or a Requeue (with the create's Forbidden if it failed)", err)
		}
		return reg.refused + len(reg.created) - before, retryIn
	}
	steps := []struct {
		name         string
		advance      time.Duration
		events       []store.Event
		fix          bool
		wantAttempts int
		wantRetryIn  time.Duration
	}{
		{name: "the first sync fails", events: []store.Event{addedEvent(t, replicaSetsBucket, "ns/web", rs)}, wantAttempts: 1, wantRetryIn: 5 * time.Millisecond},
		{name: "another pod's change does not retry it", advance: 4 * time.Millisecond, events: []store.Event{addedEvent(t, podsBucket, "elsewhere/p", other)}, wantRetryIn: time.Millisecond},
		{name: "its retry time retries it", advance: time.Millisecond, wantAttempts: 1, wantRetryIn: 10 * time.Millisecond},
		{name: "its own change retries it at once, keeping the earlier retry time", advance: 2 * time.Millisecond, events: []store.Event{addedEvent(t, replicaSetsBucket, "ns/web", rs)}, wantAttempts: 1, wantRetryIn: 8 * time.Millisecond},
		{name: "the next retry waits four times the first", advance: 8 * time.Millisecond, wantAttempts: 1, wantRetryIn: 40 * time.Millisecond},
		{name: "nothing is retried before its time", advance: 39 * time.Millisecond, wantRetryIn: time.Millisecond},
		{name: "a success forgets the failures", advance: time.Millisecond, fix: true, wantAttempts: 1},
	}
	for _, s := range steps {
		clock = clock.Add(s.advance)
		if s.fix {
			reg.createErr = nil
		}
		attempts, retryIn := sync(s.events...)
		if attempts != s.wantAttempts || retryIn != s.wantRetryIn {
			t.Errorf("%s: %d create attempts, retry in %v; want %d, %v", s.name, attempts, retryIn, s.wantAttempts, s.wantRetryIn)
		}
	}
	if len(c.retries.failures) != 0 || len(c.retries.at) != 0 {
		t.Errorf("after the success, retries kept %v %v", c.retries.failures, c.retries.at)
	}
}
