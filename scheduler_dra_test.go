package fakeplane_test

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// draSetUp creates what a DRA driver publishes for node-0: a DeviceClass
// gpu.example.com and a ResourceSlice of two GPUs (models a100 and h100).
func draSetUp(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	ctx := ctxT(t)
	class, slice := draObjects()
	if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, class, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ResourceV1().ResourceSlices().Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// draObjects are draSetUp's DeviceClass and ResourceSlice: two devices of
// gpu.example.com on node-0, an a100 and an h100.
func draObjects() (*resourcev1.DeviceClass, *resourcev1.ResourceSlice) {
	model := func(m string) map[resourcev1.QualifiedName]resourcev1.DeviceAttribute {
		return map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"model": {StringValue: &m}}
	}
	node := "node-0"
	return &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu.example.com"},
			Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}}}},
		&resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "node-0-gpu"},
			Spec: resourcev1.ResourceSliceSpec{Driver: "gpu.example.com", NodeName: &node, Pool: resourcev1.ResourcePool{Name: "node-0", Generation: 1, ResourceSliceCount: 1},
				Devices: []resourcev1.Device{{Name: "gpu-0", Attributes: model("a100")}, {Name: "gpu-1", Attributes: model("h100")}}}}
}

// gpuClaim is a claim of one gpu.example.com device, of the model given
// ("": any).
func gpuClaim(name, model string) *resourcev1.ResourceClaim {
	req := &resourcev1.ExactDeviceRequest{DeviceClassName: "gpu.example.com"}
	if model != "" {
		req.Selectors = []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].model == "` + model + `"`}}}
	}
	return &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: req}}}}}
}

// claimPod is a pod using the claim named claim as "gpu".
func claimPod(name, claim string) *corev1.Pod {
	p := pausePod(name, "", "")
	p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: &claim}}
	p.Spec.Containers[0].Resources.Claims = []corev1.ResourceClaim{{Name: "gpu"}}
	return p
}

// TestSchedulerAllocatesResourceClaims: as kube-scheduler's DynamicResources
// plugin (recorded on refplane with kwok's node-0), a pod's claim is
// allocated from the node's ResourceSlices before the pod is bound (the
// delete-protection finalizer, the allocation with its node selector and
// time, the pod in reservedFor); a pod whose claim does not exist waits
// without a word and is scheduled once it is created; a claim of a class
// that does not exist, or of a device that is taken, is reported as
// refplane's kube-scheduler reports it.
func TestSchedulerAllocatesResourceClaims(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx := ctxT(t)
	cs := clientset(t, cp)
	claims := cs.ResourceV1().ResourceClaims("default")
	draSetUp(t, cs)
	bound := func(p *corev1.Pod) bool { return p.Spec.NodeName != "" }

	// A claim of the h100: allocated gpu-1 for the pod.
	if _, err := claims.Create(ctx, gpuClaim("h100", "h100"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, claimPod("uses-h100", "h100"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := waitPod(t, cs, "uses-h100", bound)
	// Nominated to its node before its claims were written (the binding
	// then cleared it), as kube-scheduler's NominatedNodeNameForExpectation.
	nominated := false
	for _, mf := range pod.ManagedFields {
		nominated = nominated || mf.Manager == "kube-scheduler" && mf.Subresource == "status" && strings.Contains(string(mf.FieldsV1.Raw), `"f:nominatedNodeName"`)
	}
	if !nominated || pod.Status.NominatedNodeName != "" {
		t.Errorf("nominatedNodeName %q, kube-scheduler's fields nominate it: %v; want it nominated, then cleared by the binding", pod.Status.NominatedNodeName, nominated)
	}
	claim, err := claims.Get(ctx, "h100", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	a := claim.Status.Allocation
	if a == nil || len(a.Devices.Results) != 1 || !equality.Semantic.DeepEqual(a.Devices.Results[0], resourcev1.DeviceRequestAllocationResult{Request: "gpu", Driver: "gpu.example.com", Pool: "node-0", Device: "gpu-1"}) ||
		a.AllocationTimestamp == nil || a.NodeSelector == nil || len(a.NodeSelector.NodeSelectorTerms) != 1 ||
		a.NodeSelector.NodeSelectorTerms[0].MatchFields[0].Key != "metadata.name" || a.NodeSelector.NodeSelectorTerms[0].MatchFields[0].Values[0] != "node-0" {
		t.Errorf("allocation %+v", a)
	}
	if want := []resourcev1.ResourceClaimConsumerReference{{Resource: "pods", Name: pod.Name, UID: pod.UID}}; !slices.Equal(claim.Status.ReservedFor, want) {
		t.Errorf("reservedFor %+v, want %+v", claim.Status.ReservedFor, want)
	}
	if !slices.Equal(claim.Finalizers, []string{resourcev1.Finalizer}) {
		t.Errorf("finalizers %v", claim.Finalizers)
	}
	var writes []string
	for _, mf := range claim.ManagedFields {
		writes = append(writes, mf.Manager+"/"+string(mf.Operation)+"/"+mf.Subresource)
	}
	if !slices.Contains(writes, "kube-scheduler/Update/") || !slices.Contains(writes, "kube-scheduler/Update/status") {
		t.Errorf("managedFields %v, want the scheduler's finalizer and status updates", writes)
	}

	// A pod whose claim does not exist yet waits: no condition, no event.
	if _, err := cs.CoreV1().Pods("default").Create(ctx, claimPod("waits", "later"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Taken: the h100 is the pod's, so a second claim of it cannot be
	// allocated.
	if _, err := claims.Create(ctx, gpuClaim("h100-again", "h100"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, claimPod("wants-h100", "h100-again"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, cs, "wants-h100", "FailedScheduling")
	if want := "0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."; ev.Note != want {
		t.Errorf("taken device: %q, want %q", ev.Note, want)
	}
	noClass := gpuClaim("no-class", "")
	noClass.Spec.Devices.Requests[0].Exactly.DeviceClassName = "nope.example.com"
	if _, err := claims.Create(ctx, noClass, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, claimPod("no-class", "no-class"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev = waitEvent(t, cs, "no-class", "FailedScheduling")
	if want := "0/1 nodes are available: request gpu: device class nope.example.com does not exist. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."; ev.Note != want {
		t.Errorf("missing class: %q, want %q", ev.Note, want)
	}
	waiting, err := cs.CoreV1().Pods("default").Get(ctx, "waits", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	events, err := cs.EventsV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: "regarding.name=waits"})
	if err != nil {
		t.Fatal(err)
	}
	if waiting.Spec.NodeName != "" || len(waiting.Status.Conditions) != 0 || len(events.Items) != 0 {
		t.Errorf("a pod without its claim: node %q, conditions %+v, %d events; want it held back silently", waiting.Spec.NodeName, waiting.Status.Conditions, len(events.Items))
	}
	// Its claim comes: it is scheduled, with the other GPU.
	if _, err := claims.Create(ctx, gpuClaim("later", ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, cs, "waits", bound)
	later, err := claims.Get(ctx, "later", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a := later.Status.Allocation; a == nil || a.Devices.Results[0].Device != "gpu-0" {
		t.Errorf("the late claim's allocation %+v, want gpu-0", a)
	}
}

// TestSchedulerPrefersAClaimsFirstAvailableDevice: a request with a
// prioritized list gets the first subrequest a device satisfies, and its
// result names the subrequest, as upstream's allocator.
func TestSchedulerPrefersAClaimsFirstAvailableDevice(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx, cancel := context.WithTimeout(ctxT(t), time.Minute)
	defer cancel()
	cs := clientset(t, cp)
	draSetUp(t, cs)
	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "prio", Namespace: "default"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu", FirstAvailable: []resourcev1.DeviceSubRequest{
			{Name: "b200", DeviceClassName: "gpu.example.com", Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].model == "b200"`}}}},
			{Name: "h100", DeviceClassName: "gpu.example.com", Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.attributes["gpu.example.com"].model == "h100"`}}}},
			{Name: "any", DeviceClassName: "gpu.example.com"},
		}}}}}}
	if _, err := cs.ResourceV1().ResourceClaims("default").Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, claimPod("prio", "prio"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, cs, "prio", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	got, err := cs.ResourceV1().ResourceClaims("default").Get(ctx, "prio", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a := got.Status.Allocation; a == nil || len(a.Devices.Results) != 1 || a.Devices.Results[0].Request != "gpu/h100" || a.Devices.Results[0].Device != "gpu-1" {
		t.Errorf("allocation %+v, want gpu/h100 on gpu-1", a)
	}
}

// TestSchedulerHonoursDeviceTaintRules: a DeviceTaintRule's NoSchedule
// taint keeps its devices from claims that do not tolerate it, as
// kube-scheduler's ResourceSlice tracker applies the rules.
//
// The rule is there before the scheduler starts: its ResourceSlice tracker
// takes rules from an informer of its own, so a pod created just after a
// rule could be scheduled before the tracker has it, here as on a cluster.
func TestSchedulerHonoursDeviceTaintRules(t *testing.T) {
	t.Parallel()
	driver := "gpu.example.com"
	rule := &resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: "maintenance"},
		Spec: resourcev1.DeviceTaintRuleSpec{DeviceSelector: &resourcev1.DeviceTaintSelector{Driver: &driver},
			Taint: resourcev1.DeviceTaint{Key: "example.com/maintenance", Effect: resourcev1.DeviceTaintEffectNoSchedule}}}
	class, slice := draObjects()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1), fakeplane.WithObjects(class, slice, rule))
	ctx := ctxT(t)
	cs := clientset(t, cp)
	claims := cs.ResourceV1().ResourceClaims("default")
	if _, err := claims.Create(ctx, gpuClaim("intolerant", ""), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	tolerant := gpuClaim("tolerant", "")
	tolerant.Spec.Devices.Requests[0].Exactly.Tolerations = []resourcev1.DeviceToleration{{Key: "example.com/maintenance", Operator: resourcev1.DeviceTolerationOpExists}}
	if _, err := claims.Create(ctx, tolerant, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"intolerant", "tolerant"} {
		if _, err := cs.CoreV1().Pods("default").Create(ctx, claimPod(name, name), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	waitPod(t, cs, "tolerant", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	ev := waitEvent(t, cs, "intolerant", "FailedScheduling")
	if want := "0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."; ev.Note != want {
		t.Errorf("a tainted device: %q, want %q", ev.Note, want)
	}
}
