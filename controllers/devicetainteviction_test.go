package controllers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// dteRegistry answers the controller's reads of pods and records its
// writes, in order: "event ns/name Reason: message", "status ns/name",
// "delete ns/name", "apply name" (the applied object in applied); users
// has the user and field manager of each.
type dteRegistry struct {
	mu      sync.Mutex
	pods    map[string]*corev1.Pod
	events  map[string]*corev1.Event
	applied map[string]*unstructured.Unstructured
	writes  []string
	users   []string
	// failStatus fails the pods' status writes.
	failStatus error
}

var _ registry.Applier = (*dteRegistry)(nil)

func newDTERegistry(pods ...*corev1.Pod) *dteRegistry {
	r := &dteRegistry{pods: map[string]*corev1.Pod{}, events: map[string]*corev1.Event{}, applied: map[string]*unstructured.Unstructured{}}
	for _, p := range pods {
		r.pods[p.Namespace+"/"+p.Name] = p.DeepCopy()
	}
	return r
}

func (r *dteRegistry) record(ctx context.Context, w string) {
	u, _ := apirequest.UserFrom(ctx)
	r.users = append(r.users, u.GetName()+"/"+registry.FieldManagerFrom(ctx))
	r.writes = append(r.writes, w)
}

func (r *dteRegistry) Get(_ context.Context, gvr schema.GroupVersionResource, ns, name string) (runtime.Object, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if p, ok := r.pods[ns+"/"+name]; ok && gvr == podsGVR {
		return p.DeepCopy(), nil
	}
	return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
}

func (r *dteRegistry) List(context.Context, schema.GroupVersionResource, string, metav1.ListOptions) (runtime.Object, error) {
	return nil, errors.New("not used")
}

func (r *dteRegistry) Create(ctx context.Context, _ schema.GroupVersionResource, obj runtime.Object) (runtime.Object, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev, ok := obj.(*corev1.Event)
	if !ok {
		return nil, fmt.Errorf("unexpected create of %T", obj)
	}
	r.record(ctx, fmt.Sprintf("event %s/%s %s: %s", ev.InvolvedObject.Namespace, ev.InvolvedObject.Name, ev.Reason, ev.Message))
	r.events[ev.Name] = ev.DeepCopy()
	return ev, nil
}

func (r *dteRegistry) Update(ctx context.Context, _ schema.GroupVersionResource, _, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	ev, ok := r.events[name]
	if !ok {
		return nil, apierrors.NewNotFound(eventsGVR.GroupResource(), name)
	}
	obj, err := tryUpdate(ev.DeepCopy())
	if err != nil {
		return nil, err
	}
	ev = obj.(*corev1.Event)
	r.record(ctx, fmt.Sprintf("event %s/%s %s: %s (%d)", ev.InvolvedObject.Namespace, ev.InvolvedObject.Name, ev.Reason, ev.Message, ev.Count))
	r.events[name] = ev
	return ev, nil
}

func (r *dteRegistry) UpdateSubresource(ctx context.Context, gvr schema.GroupVersionResource, sub, ns, name string, tryUpdate registry.UpdateFunc) (runtime.Object, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.pods[ns+"/"+name]
	if gvr != podsGVR || sub != "status" || !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	if r.failStatus != nil {
		return nil, r.failStatus
	}
	obj, err := tryUpdate(p.DeepCopy())
	if err != nil {
		return nil, err
	}
	r.record(ctx, "status "+ns+"/"+name)
	r.pods[ns+"/"+name] = obj.(*corev1.Pod)
	return obj, nil
}

func (r *dteRegistry) Delete(ctx context.Context, gvr schema.GroupVersionResource, ns, name string, opts metav1.DeleteOptions) (runtime.Object, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	p, ok := r.pods[ns+"/"+name]
	if !ok {
		return nil, apierrors.NewNotFound(gvr.GroupResource(), name)
	}
	if opts.Preconditions == nil || opts.Preconditions.UID == nil || *opts.Preconditions.UID != p.UID {
		return nil, apierrors.NewConflict(gvr.GroupResource(), name, errors.New("no or another UID in the precondition"))
	}
	r.record(ctx, "delete "+ns+"/"+name)
	p = p.DeepCopy()
	p.DeletionTimestamp = &metav1.Time{Time: time.Now()}
	r.pods[ns+"/"+name] = p
	return p, nil
}

func (r *dteRegistry) ApplySubresource(ctx context.Context, gvr schema.GroupVersionResource, sub, _, name string, applied *unstructured.Unstructured, force bool) (runtime.Object, error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if gvr != deviceTaintRulesGVR || sub != "status" || !force {
		return nil, fmt.Errorf("unexpected apply of %s/%s %s (force %v)", gvr.Resource, sub, name, force)
	}
	r.record(ctx, "apply "+name)
	r.applied[name] = applied.DeepCopy()
	return applied, nil
}

func (r *dteRegistry) takeWrites() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	w := r.writes
	r.writes, r.users = nil, nil
	return w
}

// appliedCondition is the one condition the last apply to rule wrote.
func (r *dteRegistry) appliedCondition(t *testing.T, rule string) map[string]any {
	t.Helper()
	r.mu.Lock()
	defer r.mu.Unlock()
	u, ok := r.applied[rule]
	if !ok {
		t.Fatalf("no apply to %s", rule)
	}
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	if len(conds) != 1 {
		t.Fatalf("applied %v", u.Object)
	}
	return conds[0].(map[string]any)
}

// dteClock is a clock that moves when told.
type dteClock struct{ now time.Time }

func (c *dteClock) Now() time.Time { return c.now }

func dteEvent(t *testing.T, typ store.EventType, resource, key string, obj any) store.Event {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return store.Event{Type: typ, Resource: resource, Key: key, Value: b}
}

func dtePodEvent(t *testing.T, typ store.EventType, p *corev1.Pod) store.Event {
	return dteEvent(t, typ, podsBucket, p.Namespace+"/"+p.Name, p)
}

func dteClaimEvent(t *testing.T, typ store.EventType, c *resourcev1.ResourceClaim) store.Event {
	return dteEvent(t, typ, resourceClaimsBucket, c.Namespace+"/"+c.Name, c)
}

func dteSliceEvent(t *testing.T, typ store.EventType, s *resourcev1.ResourceSlice) store.Event {
	return dteEvent(t, typ, resourceSlicesBucket, s.Name, s)
}

func dteRuleEvent(t *testing.T, typ store.EventType, r *resourcev1.DeviceTaintRule) store.Event {
	return dteEvent(t, typ, deviceTaintRulesBucket, r.Name, r)
}

// dtePod is a pod bound to node-0 using claim as "gpu".
func dtePod(name, claim string) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-" + name)},
		Spec: corev1.PodSpec{NodeName: "node-0", Containers: []corev1.Container{{Name: "c", Image: "busybox"}},
			ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To(claim)}}},
		Status: corev1.PodStatus{Phase: corev1.PodRunning, Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}},
	}
}

// dteClaim is a claim allocated device of driver dte.example.com's pool
// node-0, with tolerations, reserved for pod.
func dteClaim(name, device string, pod *corev1.Pod, tolerations ...resourcev1.DeviceToleration) *resourcev1.ResourceClaim {
	c := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "ns", UID: types.UID("uid-claim-" + name)}}
	c.Status.Allocation = &resourcev1.AllocationResult{Devices: resourcev1.DeviceAllocationResult{Results: []resourcev1.DeviceRequestAllocationResult{{
		Request: "gpu", Driver: "dte.example.com", Pool: "node-0", Device: device, Tolerations: tolerations}}}}
	if pod != nil {
		c.Status.ReservedFor = []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: pod.Name, UID: pod.UID}}
	}
	return c
}

// dteSlice is pool node-0's slice of generation gen with devices gpu-0 to
// gpu-3, taints giving some their taints.
func dteSlice(name string, gen int64, taints map[string][]resourcev1.DeviceTaint) *resourcev1.ResourceSlice {
	s := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name)},
		Spec: resourcev1.ResourceSliceSpec{Driver: "dte.example.com", NodeName: ptr.To("node-0"), Pool: resourcev1.ResourcePool{Name: "node-0", Generation: gen, ResourceSliceCount: 1}}}
	for i := range 4 {
		d := fmt.Sprintf("gpu-%d", i)
		s.Spec.Devices = append(s.Spec.Devices, resourcev1.Device{Name: d, Taints: taints[d]})
	}
	return s
}

func dteTaint(effect resourcev1.DeviceTaintEffect, value string, added time.Time) resourcev1.DeviceTaint {
	return resourcev1.DeviceTaint{Key: "dte.example.com/unhealthy", Value: value, Effect: effect, TimeAdded: &metav1.Time{Time: added}}
}

func dteToleration(op resourcev1.DeviceTolerationOperator, value string, seconds *int64) resourcev1.DeviceToleration {
	return resourcev1.DeviceToleration{Key: "dte.example.com/unhealthy", Operator: op, Value: value, Effect: resourcev1.DeviceTaintEffectNoExecute, TolerationSeconds: seconds}
}

func dteRule(name string, effect resourcev1.DeviceTaintEffect, device string, added time.Time) *resourcev1.DeviceTaintRule {
	r := &resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID("uid-" + name), Generation: 1},
		Spec: resourcev1.DeviceTaintRuleSpec{DeviceSelector: &resourcev1.DeviceTaintSelector{Driver: ptr.To("dte.example.com")},
			Taint: resourcev1.DeviceTaint{Key: "dte.example.com/maintenance", Effect: effect, TimeAdded: &metav1.Time{Time: added}}}}
	if device != "" {
		r.Spec.DeviceSelector.Device = ptr.To(device)
	}
	return r
}

// newTestDTE returns the controller on reg with its clocks on clock.
func newTestDTE(reg registry.Interface, clock *dteClock) *DeviceTaintEviction {
	c := NewDeviceTaintEviction(reg, clock.Now, nil)
	c.clock = clock.Now
	return c
}

func requeueAfter(err error) time.Duration {
	var rq *Requeue
	if errors.As(err, &rq) {
		return rq.After
	}
	return -1
}

// TestDeviceTaintEvictionEvictsPodsOfTaintedDevices: as refplane's
// kube-controller-manager, a pod whose allocated claim's device has a
// NoExecute taint (in its slice or from a DeviceTaintRule) that the
// claim's request does not tolerate, or tolerates for tolerationSeconds
// that have passed since the taint's timeAdded, gets the event "Marking
// for deletion", the DisruptionTarget condition and a delete with its UID
// as precondition; a taint tolerated forever, or for longer, other
// effects, an unbound pod, a claim reserved for another pod and a device
// of an older pool generation evict nothing.
func TestDeviceTaintEvictionEvictsPodsOfTaintedDevices(t *testing.T) {
	clock := &dteClock{now: time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)}
	now, hourAgo := clock.now, clock.now.Add(-time.Hour)
	evicts := []string{"event ns/p DeviceTaintManagerEviction: Marking for deletion", "status ns/p", "delete ns/p"}
	noExecute := func(value string, added time.Time) map[string][]resourcev1.DeviceTaint {
		return map[string][]resourcev1.DeviceTaint{"gpu-0": {dteTaint(resourcev1.DeviceTaintEffectNoExecute, value, added)}}
	}
	for _, tc := range []struct {
		name        string
		pod         func(*corev1.Pod)
		tolerations []resourcev1.DeviceToleration
		reservedFor string
		slices      []*resourcev1.ResourceSlice
		rule        *resourcev1.DeviceTaintRule
		want        []string
		// wait is the Requeue of a pending eviction.
		wait time.Duration
	}{
		{name: "untolerated slice taint", slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, noExecute("", now))}, want: evicts},
		{name: "tolerated forever", tolerations: []resourcev1.DeviceToleration{dteToleration(resourcev1.DeviceTolerationOpExists, "", nil)},
			slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, noExecute("", now))}},
		{name: "toleration over", tolerations: []resourcev1.DeviceToleration{dteToleration(resourcev1.DeviceTolerationOpEqual, "bad", ptr.To[int64](60))},
			slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, noExecute("bad", hourAgo))}, want: evicts},
		{name: "toleration running", tolerations: []resourcev1.DeviceToleration{dteToleration(resourcev1.DeviceTolerationOpExists, "", ptr.To[int64](3600))},
			slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, noExecute("", now))}, wait: time.Hour},
		{name: "least tolerationSeconds of the matching tolerations", tolerations: []resourcev1.DeviceToleration{
			dteToleration(resourcev1.DeviceTolerationOpExists, "", ptr.To[int64](3600)), dteToleration(resourcev1.DeviceTolerationOpEqual, "bad", ptr.To[int64](60)),
			dteToleration(resourcev1.DeviceTolerationOpEqual, "other", ptr.To[int64](1))},
			slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, noExecute("bad", now))}, wait: time.Minute},
		{name: "negative tolerationSeconds", tolerations: []resourcev1.DeviceToleration{dteToleration(resourcev1.DeviceTolerationOpExists, "", ptr.To[int64](-5))},
			slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, noExecute("", now))}, want: evicts},
		{name: "toleration of another value", tolerations: []resourcev1.DeviceToleration{dteToleration(resourcev1.DeviceTolerationOpEqual, "other", nil)},
			slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, noExecute("bad", now))}, want: evicts},
		{name: "NoSchedule", slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, map[string][]resourcev1.DeviceTaint{"gpu-0": {dteTaint(resourcev1.DeviceTaintEffectNoSchedule, "", now)}})}},
		{name: "another device", slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, map[string][]resourcev1.DeviceTaint{"gpu-1": {dteTaint(resourcev1.DeviceTaintEffectNoExecute, "", now)}})}},
		{name: "older pool generation", slices: []*resourcev1.ResourceSlice{dteSlice("new", 2, nil), dteSlice("old", 1, noExecute("", now))}},
		// Only tolerations of effect NoExecute count (refplane evicted
		// such a pod at once).
		{name: "toleration without effect", tolerations: []resourcev1.DeviceToleration{{Operator: resourcev1.DeviceTolerationOpExists}},
			slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, noExecute("", now))}, want: evicts},
		{name: "unbound pod", pod: func(p *corev1.Pod) { p.Spec.NodeName = "" }, slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, noExecute("", now))}},
		{name: "claim reserved for another pod", reservedFor: "other", slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, noExecute("", now))}},
		{name: "rule", slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, nil)}, rule: dteRule("r", resourcev1.DeviceTaintEffectNoExecute, "gpu-0", now),
			want: append([]string{"apply r"}, evicts...)},
		{name: "rule of another device", slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, nil)}, rule: dteRule("r", resourcev1.DeviceTaintEffectNoExecute, "gpu-1", now),
			want: []string{"apply r"}},
		{name: "rule of effect None", slices: []*resourcev1.ResourceSlice{dteSlice("s", 1, nil)}, rule: dteRule("r", resourcev1.DeviceTaintEffectNone, "gpu-0", now),
			want: []string{"apply r"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := dtePod("p", "c")
			if tc.pod != nil {
				tc.pod(pod)
			}
			reserved := pod
			if tc.reservedFor != "" {
				reserved = dtePod(tc.reservedFor, "c")
			}
			reg := newDTERegistry(pod)
			c := newTestDTE(reg, clock)
			events := []store.Event{dtePodEvent(t, store.Added, pod), dteClaimEvent(t, store.Added, dteClaim("c", "gpu-0", reserved, tc.tolerations...))}
			for _, s := range tc.slices {
				events = append(events, dteSliceEvent(t, store.Added, s))
			}
			if tc.rule != nil {
				events = append(events, dteRuleEvent(t, store.Added, tc.rule))
			}
			err := c.Sync(context.Background(), events)
			if got := reg.takeWrites(); !slices.Equal(got, tc.want) {
				t.Errorf("writes %q, want %q", got, tc.want)
			}
			switch {
			case tc.wait > 0:
				if got := requeueAfter(err); got != tc.wait {
					t.Errorf("Sync: %v, want a requeue after %v", err, tc.wait)
				}
			case tc.rule != nil && tc.rule.Spec.Taint.Effect == resourcev1.DeviceTaintEffectNoExecute && len(tc.want) > 1:
				// The rule's status is looked at again ten seconds after
				// the eviction.
				if got := requeueAfter(err); got != ruleStatusPeriod {
					t.Errorf("Sync: %v, want a requeue after %v", err, ruleStatusPeriod)
				}
			case err != nil:
				t.Errorf("Sync: %v", err)
			}
		})
	}
}

// TestDeviceTaintEvictionWritesAsKubeControllerManager: the condition,
// event and delete of an eviction are those refplane's
// kube-controller-manager wrote: DisruptionTarget True
// DeletionByDeviceTaintManager "Device Taint manager: deleting due to
// NoExecute taint" without observedGeneration, an event of source
// device-taint-eviction-controller about the pod (with its UID, without
// resourceVersion), written as kube-system/device-taint-eviction-controller
// under field manager kube-controller-manager.
func TestDeviceTaintEvictionWritesAsKubeControllerManager(t *testing.T) {
	clock := &dteClock{now: time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)}
	pod := dtePod("p", "c")
	pod.Generation = 3
	reg := newDTERegistry(pod)
	c := newTestDTE(reg, clock)
	slice := dteSlice("s", 1, map[string][]resourcev1.DeviceTaint{"gpu-0": {dteTaint(resourcev1.DeviceTaintEffectNoExecute, "", clock.now)}})
	if err := c.Sync(context.Background(), []store.Event{dtePodEvent(t, store.Added, pod), dteClaimEvent(t, store.Added, dteClaim("c", "gpu-0", pod)), dteSliceEvent(t, store.Added, slice)}); err != nil {
		t.Fatal(err)
	}
	const who = "system:serviceaccount:kube-system:device-taint-eviction-controller/kube-controller-manager"
	if !slices.Equal(reg.users, []string{who, who, who}) {
		t.Errorf("users %q", reg.users)
	}
	got := reg.pods["ns/p"].Status.Conditions
	want := []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue},
		{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(clock.now),
			Reason: "DeletionByDeviceTaintManager", Message: "Device Taint manager: deleting due to NoExecute taint"}}
	if !slices.EqualFunc(got, want, func(a, b corev1.PodCondition) bool {
		return a.Type == b.Type && a.Status == b.Status && a.Reason == b.Reason && a.Message == b.Message && a.ObservedGeneration == b.ObservedGeneration && a.LastTransitionTime.Equal(&b.LastTransitionTime)
	}) {
		t.Errorf("conditions %+v", got)
	}
	if len(reg.events) != 1 {
		t.Fatalf("events %v", reg.events)
	}
	for _, ev := range reg.events {
		wantRef := corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: "ns", Name: "p", UID: pod.UID}
		if ev.InvolvedObject != wantRef || ev.Source.Component != "device-taint-eviction-controller" || ev.ReportingController != "device-taint-eviction-controller" ||
			ev.Type != corev1.EventTypeNormal || ev.Reason != "DeviceTaintManagerEviction" || ev.Message != "Marking for deletion" || ev.Namespace != "ns" || !strings.HasPrefix(ev.Name, "p.") {
			t.Errorf("event %+v", ev)
		}
	}
}

// TestDeviceTaintEvictionCancelsWhenTheTaintGoes: a pending eviction is
// called off with the event "Cancelling deletion" when the slice's taint
// is removed, and nothing else is written; the pod stays.
func TestDeviceTaintEvictionCancelsWhenTheTaintGoes(t *testing.T) {
	clock := &dteClock{now: time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)}
	pod := dtePod("p", "c")
	reg := newDTERegistry(pod)
	c := newTestDTE(reg, clock)
	tainted := dteSlice("s", 1, map[string][]resourcev1.DeviceTaint{"gpu-0": {dteTaint(resourcev1.DeviceTaintEffectNoExecute, "", clock.now)}})
	claim := dteClaim("c", "gpu-0", pod, dteToleration(resourcev1.DeviceTolerationOpExists, "", ptr.To[int64](3600)))
	err := c.Sync(context.Background(), []store.Event{dtePodEvent(t, store.Added, pod), dteClaimEvent(t, store.Added, claim), dteSliceEvent(t, store.Added, tainted)})
	if requeueAfter(err) != time.Hour {
		t.Fatalf("Sync: %v", err)
	}
	// A pod update that does not touch its node or claims changes nothing.
	ready := pod.DeepCopy()
	ready.Status.Phase = corev1.PodSucceeded
	clock.now = clock.now.Add(time.Minute)
	if err := c.Sync(context.Background(), []store.Event{dtePodEvent(t, store.Modified, ready)}); requeueAfter(err) != 59*time.Minute {
		t.Fatalf("Sync: %v", err)
	}
	if err := c.Sync(context.Background(), []store.Event{dteSliceEvent(t, store.Modified, dteSlice("s", 1, nil))}); err != nil {
		t.Fatal(err)
	}
	if got, want := reg.takeWrites(), []string{"event ns/p DeviceTaintManagerEviction: Cancelling deletion"}; !slices.Equal(got, want) {
		t.Errorf("writes %q, want %q", got, want)
	}
	// Time passes: nothing is left to do.
	clock.now = clock.now.Add(2 * time.Hour)
	if err := c.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := reg.takeWrites(); len(got) != 0 {
		t.Errorf("writes %q", got)
	}
}

// TestDeviceTaintEvictionEvictsWhenTheTolerationRunsOut: a pending
// eviction happens once tolerationSeconds have passed since the taint's
// timeAdded, once.
func TestDeviceTaintEvictionEvictsWhenTheTolerationRunsOut(t *testing.T) {
	clock := &dteClock{now: time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)}
	pod := dtePod("p", "c")
	reg := newDTERegistry(pod)
	c := newTestDTE(reg, clock)
	tainted := dteSlice("s", 1, map[string][]resourcev1.DeviceTaint{"gpu-0": {dteTaint(resourcev1.DeviceTaintEffectNoExecute, "", clock.now)}})
	claim := dteClaim("c", "gpu-0", pod, dteToleration(resourcev1.DeviceTolerationOpExists, "", ptr.To[int64](30)))
	if err := c.Sync(context.Background(), []store.Event{dtePodEvent(t, store.Added, pod), dteClaimEvent(t, store.Added, claim), dteSliceEvent(t, store.Added, tainted)}); requeueAfter(err) != 30*time.Second {
		t.Fatalf("Sync: %v", err)
	}
	clock.now = clock.now.Add(30 * time.Second)
	if err := c.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got, want := reg.takeWrites(), []string{"event ns/p DeviceTaintManagerEviction: Marking for deletion", "status ns/p", "delete ns/p"}; !slices.Equal(got, want) {
		t.Errorf("writes %q, want %q", got, want)
	}
	// The delete's update, then the pod's removal: no second eviction,
	// no cancellation.
	deleting := pod.DeepCopy()
	deleting.DeletionTimestamp = &metav1.Time{Time: clock.now}
	if err := c.Sync(context.Background(), []store.Event{dtePodEvent(t, store.Modified, deleting), dtePodEvent(t, store.Deleted, deleting)}); err != nil {
		t.Fatal(err)
	}
	if got := reg.takeWrites(); len(got) != 0 {
		t.Errorf("writes %q", got)
	}
}

// TestDeviceTaintEvictionLeavesPodsGoneOrGoing: a pod already being
// deleted gets no event, condition or delete; one replaced by another of
// its name (another UID) neither; a failed status write is retried.
func TestDeviceTaintEvictionLeavesPodsGoneOrGoing(t *testing.T) {
	clock := &dteClock{now: time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)}
	tainted := dteSlice("s", 1, map[string][]resourcev1.DeviceTaint{"gpu-0": {dteTaint(resourcev1.DeviceTaintEffectNoExecute, "", clock.now)}})
	for _, tc := range []struct {
		name   string
		stored func(*corev1.Pod)
	}{
		{name: "being deleted", stored: func(p *corev1.Pod) { p.DeletionTimestamp = &metav1.Time{Time: clock.now} }},
		{name: "replaced", stored: func(p *corev1.Pod) { p.UID = "another" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pod := dtePod("p", "c")
			stored := pod.DeepCopy()
			tc.stored(stored)
			reg := newDTERegistry(stored)
			c := newTestDTE(reg, clock)
			if err := c.Sync(context.Background(), []store.Event{dtePodEvent(t, store.Added, pod), dteClaimEvent(t, store.Added, dteClaim("c", "gpu-0", pod)), dteSliceEvent(t, store.Added, tainted)}); err != nil {
				t.Fatal(err)
			}
			if got := reg.takeWrites(); len(got) != 0 {
				t.Errorf("writes %q", got)
			}
		})
	}
	t.Run("status write fails", func(t *testing.T) {
		pod := dtePod("p", "c")
		reg := newDTERegistry(pod)
		reg.failStatus = apierrors.NewServiceUnavailable("down")
		c := newTestDTE(reg, clock)
		if err := c.Sync(context.Background(), []store.Event{dtePodEvent(t, store.Added, pod), dteClaimEvent(t, store.Added, dteClaim("c", "gpu-0", pod)), dteSliceEvent(t, store.Added, tainted)}); err == nil || !apierrors.IsServiceUnavailable(err) {
			t.Fatalf("Sync: %v", err)
		}
		reg.failStatus = nil
		if err := c.Sync(context.Background(), nil); err != nil {
			t.Fatal(err)
		}
		// The event counts its repetition, as client-go's recorder does.
		want := []string{"event ns/p DeviceTaintManagerEviction: Marking for deletion", "event ns/p DeviceTaintManagerEviction: Marking for deletion (2)", "status ns/p", "delete ns/p"}
		if got := reg.takeWrites(); !slices.Equal(got, want) {
			t.Errorf("writes %q, want %q", got, want)
		}
	})
}

// TestDeviceTaintEvictionRuleStatus: each DeviceTaintRule gets refplane's
// EvictionInProgress condition, applied with force by field manager
// device-taint-eviction-controller with the rule's UID: NotStarted while
// it evicts nothing, PodsPendingEviction with the count of pods still to
// evict, Completed ten seconds after the last eviction (with the count of
// pods evicted), NoEffect with what effect NoExecute would do, OtherEffect
// for NoSchedule.
func TestDeviceTaintEvictionRuleStatus(t *testing.T) {
	start := time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)
	stamp := start.Format(time.RFC3339)
	later := dtePod("later", "later")
	now := dtePod("now", "now")
	forever := dtePod("forever", "forever")
	setUp := []store.Event{}
	for _, p := range []*corev1.Pod{later, now, forever} {
		setUp = append(setUp, dtePodEvent(t, store.Added, p))
	}
	// later tolerates the rules for an hour, forever for ever; all four
	// devices are published, three allocated.
	setUp = append(setUp,
		dteClaimEvent(t, store.Added, dteClaim("later", "gpu-1", later, resourcev1.DeviceToleration{Operator: resourcev1.DeviceTolerationOpExists, Effect: resourcev1.DeviceTaintEffectNoExecute, TolerationSeconds: ptr.To[int64](3600)})),
		dteClaimEvent(t, store.Added, dteClaim("now", "gpu-0", now)),
		dteClaimEvent(t, store.Added, dteClaim("forever", "gpu-2", forever, resourcev1.DeviceToleration{Operator: resourcev1.DeviceTolerationOpExists, Effect: resourcev1.DeviceTaintEffectNoExecute})),
		dteSliceEvent(t, store.Added, dteSlice("s", 1, nil)))
	cond := func(status, reason, message string) map[string]any {
		return map[string]any{"type": "EvictionInProgress", "status": status, "reason": reason, "message": message, "observedGeneration": int64(1), "lastTransitionTime": stamp}
	}
	for _, tc := range []struct {
		name string
		rule *resourcev1.DeviceTaintRule
		want map[string]any
	}{
		{name: "nothing to evict", rule: dteRule("r", resourcev1.DeviceTaintEffectNoExecute, "gpu-3", start), want: cond("False", "NotStarted", "")},
		{name: "pending", rule: dteRule("r", resourcev1.DeviceTaintEffectNoExecute, "gpu-1", start), want: cond("True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace.")},
		{name: "all pending", rule: dteRule("r", resourcev1.DeviceTaintEffectNoExecute, "", start), want: cond("True", "PodsPendingEviction", "2 pods need to be evicted in 1 namespace.")},
		{name: "None", rule: dteRule("r", resourcev1.DeviceTaintEffectNone, "gpu-3", start),
			want: cond("False", "NoEffect", "1 published device selected. 0 allocated devices selected. 0 pods would be evicted in 0 different namespaces if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update.")},
		{name: "None of all", rule: dteRule("r", resourcev1.DeviceTaintEffectNone, "", start),
			want: cond("False", "NoEffect", "4 published devices selected. 3 allocated devices selected. 2 pods would be evicted in 1 namespace if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update.")},
		{name: "NoSchedule", rule: dteRule("r", resourcev1.DeviceTaintEffectNoSchedule, "", start), want: cond("False", "OtherEffect", "Eviction only happens for the NoExecute effect.")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			clock := &dteClock{now: start}
			reg := newDTERegistry(later, now, forever)
			c := newTestDTE(reg, clock)
			if err := c.Sync(context.Background(), setUp); err != nil {
				t.Fatal(err)
			}
			// A None rule's status is written before it evicts anything:
			// the pods are not evicted here.
			_ = c.Sync(context.Background(), []store.Event{dteRuleEvent(t, store.Added, tc.rule)})
			got := reg.appliedCondition(t, "r")
			if fmt.Sprint(got) != fmt.Sprint(tc.want) {
				t.Errorf("condition\n%v, want\n%v", got, tc.want)
			}
			meta, _, _ := unstructured.NestedStringMap(reg.applied["r"].Object, "metadata")
			if meta["name"] != "r" || meta["uid"] != "uid-r" || reg.applied["r"].GetKind() != "DeviceTaintRule" || reg.applied["r"].GetAPIVersion() != "resource.k8s.io/v1" {
				t.Errorf("applied %v", reg.applied["r"].Object)
			}
			if i := slices.Index(reg.writes, "apply r"); i < 0 || reg.users[i] != "system:serviceaccount:kube-system:device-taint-eviction-controller/device-taint-eviction-controller" {
				t.Errorf("writes %q by %q", reg.writes, reg.users)
			}
		})
	}
}

// TestDeviceTaintEvictionRuleStatusAfterEvictions: a new rule that evicts
// a pod at once is PodsPendingEviction first (written before the
// eviction), Completed "1 pod evicted since starting the controller." ten
// seconds later, and not written again while nothing changes; a change of
// its spec (effect None) is written at once.
func TestDeviceTaintEvictionRuleStatusAfterEvictions(t *testing.T) {
	clock := &dteClock{now: time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)}
	pod := dtePod("p", "c")
	reg := newDTERegistry(pod)
	c := newTestDTE(reg, clock)
	rule := dteRule("r", resourcev1.DeviceTaintEffectNoExecute, "gpu-0", clock.now)
	err := c.Sync(context.Background(), []store.Event{dtePodEvent(t, store.Added, pod), dteClaimEvent(t, store.Added, dteClaim("c", "gpu-0", pod)),
		dteSliceEvent(t, store.Added, dteSlice("s", 1, nil)), dteRuleEvent(t, store.Added, rule)})
	if requeueAfter(err) != ruleStatusPeriod {
		t.Fatalf("Sync: %v", err)
	}
	if got, want := reg.takeWrites(), []string{"apply r", "event ns/p DeviceTaintManagerEviction: Marking for deletion", "status ns/p", "delete ns/p"}; !slices.Equal(got, want) {
		t.Errorf("writes %q, want %q", got, want)
	}
	if got := reg.appliedCondition(t, "r"); got["reason"] != "PodsPendingEviction" || got["message"] != "1 pod needs to be evicted in 1 namespace." {
		t.Errorf("condition %v", got)
	}
	// The rule's status as written, the pod's delete and removal.
	written := rule.DeepCopy()
	written.Status.Conditions = []metav1.Condition{{Type: "EvictionInProgress", Status: metav1.ConditionTrue, Reason: "PodsPendingEviction",
		Message: "1 pod needs to be evicted in 1 namespace.", ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(clock.now)}}
	deleting := reg.pods["ns/p"]
	clock.now = clock.now.Add(time.Second)
	if err := c.Sync(context.Background(), []store.Event{dteRuleEvent(t, store.Modified, written), dtePodEvent(t, store.Modified, deleting), dtePodEvent(t, store.Deleted, deleting)}); requeueAfter(err) != ruleStatusPeriod-time.Second {
		t.Fatalf("Sync: %v", err)
	}
	clock.now = clock.now.Add(ruleStatusPeriod - time.Second)
	if err := c.Sync(context.Background(), nil); err != nil {
		t.Fatal(err)
	}
	if got := reg.appliedCondition(t, "r"); got["status"] != "False" || got["reason"] != "Completed" || got["message"] != "1 pod evicted since starting the controller." ||
		got["lastTransitionTime"] != clock.now.Format(time.RFC3339) {
		t.Errorf("condition %v", got)
	}
	completed := written.DeepCopy()
	completed.Status.Conditions[0] = metav1.Condition{Type: "EvictionInProgress", Status: metav1.ConditionFalse, Reason: "Completed",
		Message: "1 pod evicted since starting the controller.", ObservedGeneration: 1, LastTransitionTime: metav1.NewTime(clock.now)}
	reg.takeWrites()
	clock.now = clock.now.Add(time.Minute)
	if err := c.Sync(context.Background(), []store.Event{dteRuleEvent(t, store.Modified, completed)}); err != nil {
		t.Fatal(err)
	}
	if got := reg.takeWrites(); len(got) != 0 {
		t.Errorf("writes %q", got)
	}
	none := completed.DeepCopy()
	none.Generation = 2
	none.Spec.Taint.Effect = resourcev1.DeviceTaintEffectNone
	if err := c.Sync(context.Background(), []store.Event{dteRuleEvent(t, store.Modified, none)}); err != nil {
		t.Fatal(err)
	}
	if got := reg.appliedCondition(t, "r"); got["reason"] != "NoEffect" || got["observedGeneration"] != int64(2) ||
		got["message"] != "1 published device selected. 1 allocated device selected. 0 pods would be evicted in 0 different namespaces if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update. 1 pod evicted since starting the controller." {
		t.Errorf("condition %v", got)
	}
}

// TestDeviceTaintEvictionRuleChangesReschedule: a pending eviction a rule
// causes is due tolerationSeconds after the rule's timeAdded, and the
// rule's removal calls it off (with the event).
func TestDeviceTaintEvictionRuleChangesReschedule(t *testing.T) {
	clock := &dteClock{now: time.Date(2026, 11, 28, 7, 0, 0, 0, time.UTC)}
	pod := dtePod("p", "c")
	reg := newDTERegistry(pod)
	c := newTestDTE(reg, clock)
	rule := dteRule("r", resourcev1.DeviceTaintEffectNoExecute, "gpu-0", clock.now)
	claim := dteClaim("c", "gpu-0", pod, resourcev1.DeviceToleration{Operator: resourcev1.DeviceTolerationOpExists, Effect: resourcev1.DeviceTaintEffectNoExecute, TolerationSeconds: ptr.To[int64](600)})
	if err := c.Sync(context.Background(), []store.Event{dtePodEvent(t, store.Added, pod), dteClaimEvent(t, store.Added, claim),
		dteSliceEvent(t, store.Added, dteSlice("s", 1, nil)), dteRuleEvent(t, store.Added, rule)}); requeueAfter(err) != ruleStatusPeriod {
		t.Fatalf("Sync: %v", err)
	}
	if e, ok := c.deletePodAt[podRefOf(pod)]; !ok || !e.when.Equal(clock.now.Add(10*time.Minute)) || len(e.reasons) != 1 || e.reasons[0].rule == nil {
		t.Fatalf("scheduled %+v", c.deletePodAt)
	}
	reg.takeWrites()
	if err := c.Sync(context.Background(), []store.Event{dteRuleEvent(t, store.Deleted, rule)}); err != nil && requeueAfter(err) < 0 {
		t.Fatal(err)
	}
	if got, want := reg.takeWrites(), []string{"event ns/p DeviceTaintManagerEviction: Cancelling deletion"}; !slices.Equal(got, want) {
		t.Errorf("writes %q, want %q", got, want)
	}
	if len(c.deletePodAt) != 0 {
		t.Errorf("scheduled %+v", c.deletePodAt)
	}
}
