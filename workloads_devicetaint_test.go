package fakeplane_test

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// dteSetUp creates what the refplane recording had: DeviceClass dte-gpu
// of driver dte.example.com and node-0's ResourceSlice dte-node-0 of six
// devices, gpu-0 to gpu-5, each with its name as attribute dev.
func dteSetUp(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	ctx := ctxT(t)
	if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "dte-gpu"},
		Spec: resourcev1.DeviceClassSpec{Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "dte.example.com"`}}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	slice := &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "dte-node-0"},
		Spec: resourcev1.ResourceSliceSpec{Driver: "dte.example.com", NodeName: ptr.To("node-0"), Pool: resourcev1.ResourcePool{Name: "node-0", Generation: 1, ResourceSliceCount: 1}}}
	for i := range 6 {
		name := fmt.Sprintf("gpu-%d", i)
		slice.Spec.Devices = append(slice.Spec.Devices, resourcev1.Device{Name: name, Attributes: map[resourcev1.QualifiedName]resourcev1.DeviceAttribute{"dev": {StringValue: ptr.To(name)}}})
	}
	if _, err := cs.ResourceV1().ResourceSlices().Create(ctx, slice, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// dteClaimPod creates in default a claim name of device with
// tolerations and a pod name using it, and waits until the pod runs; it
// returns the pod's UID.
func dteClaimPod(t *testing.T, cs kubernetes.Interface, name, device string, tolerations ...resourcev1.DeviceToleration) types.UID {
	t.Helper()
	ctx := ctxT(t)
	claim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{
			DeviceClassName: "dte-gpu", Tolerations: tolerations,
			Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.attributes["dte.example.com"].dev == "` + device + `"`}}},
		}}}}}}
	if _, err := cs.ResourceV1().ResourceClaims("default").Create(ctx, claim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"}, Spec: corev1.PodSpec{
		ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To(name)}},
		Containers:     []corev1.Container{{Name: "c", Image: "busybox", Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}},
	}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var uid types.UID
	eventuallyT(t, "pod "+name+" running", func(ctx context.Context) (bool, error) {
		p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			return false, err
		}
		uid = p.UID
		return p.Status.Phase == corev1.PodRunning, nil
	})
	return uid
}

// dteTaintDevices sets the NoExecute taints of the slice's devices (nil:
// none).
func dteTaintDevices(t *testing.T, cs kubernetes.Interface, taints map[string][]resourcev1.DeviceTaint) {
	t.Helper()
	ctx := ctxT(t)
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		s, err := cs.ResourceV1().ResourceSlices().Get(ctx, "dte-node-0", metav1.GetOptions{})
		if err != nil {
			return err
		}
		for i := range s.Spec.Devices {
			s.Spec.Devices[i].Taints = taints[s.Spec.Devices[i].Name]
		}
		_, err = cs.ResourceV1().ResourceSlices().Update(ctx, s, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
}

// dteEvents are the device-taint-eviction-controller's events about pod
// name: "reason: message".
func dteEvents(t *testing.T, cs kubernetes.Interface, name string, uid types.UID) []string {
	t.Helper()
	var out []string
	for _, e := range eventsFor(t, cs, "default", "Pod", name) {
		if e.Source.Component != "device-taint-eviction-controller" {
			continue
		}
		want := corev1.ObjectReference{APIVersion: "v1", Kind: "Pod", Namespace: "default", Name: name, UID: uid}
		if e.InvolvedObject != want || e.ReportingController != "device-taint-eviction-controller" || e.Type != corev1.EventTypeNormal || e.Count != 1 {
			t.Errorf("event %+v", e)
		}
		out = append(out, e.Reason+": "+e.Message)
	}
	return out
}

// TestDeviceTaintEvictionAsKubeControllerManager: as refplane's
// kube-controller-manager, once a ResourceSlice's devices get NoExecute
// taints, the running pods whose claims do not tolerate them (or tolerate
// them for tolerationSeconds that have run out since the taint's
// timeAdded, or only with a toleration of no effect) get the event
// DeviceTaintManagerEviction "Marking for deletion", the DisruptionTarget
// condition (a status update of field manager kube-controller-manager)
// and are deleted; those that tolerate them forever or for an hour run on,
// and the pending eviction of the latter is called off with "Cancelling
// deletion" when its device's taint goes.
func TestDeviceTaintEvictionAsKubeControllerManager(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	dteSetUp(t, cs)
	tolerate := func(op resourcev1.DeviceTolerationOperator, value string, seconds *int64) resourcev1.DeviceToleration {
		return resourcev1.DeviceToleration{Key: "dte.example.com/unhealthy", Operator: op, Value: value, Effect: resourcev1.DeviceTaintEffectNoExecute, TolerationSeconds: seconds}
	}
	uids := map[string]types.UID{
		"now":        dteClaimPod(t, cs, "now", "gpu-0"),
		"later":      dteClaimPod(t, cs, "later", "gpu-1", tolerate(resourcev1.DeviceTolerationOpExists, "", ptr.To[int64](3600))),
		"forever":    dteClaimPod(t, cs, "forever", "gpu-2", tolerate(resourcev1.DeviceTolerationOpExists, "", nil)),
		"any-effect": dteClaimPod(t, cs, "any-effect", "gpu-3", resourcev1.DeviceToleration{Operator: resourcev1.DeviceTolerationOpExists}),
		"past":       dteClaimPod(t, cs, "past", "gpu-4", tolerate(resourcev1.DeviceTolerationOpEqual, "bad", ptr.To[int64](60))),
	}
	w, err := cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=now"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	unhealthy := []resourcev1.DeviceTaint{{Key: "dte.example.com/unhealthy", Effect: resourcev1.DeviceTaintEffectNoExecute}}
	taints := map[string][]resourcev1.DeviceTaint{"gpu-0": unhealthy, "gpu-1": unhealthy, "gpu-2": unhealthy, "gpu-3": unhealthy,
		"gpu-4": {{Key: "dte.example.com/unhealthy", Value: "bad", Effect: resourcev1.DeviceTaintEffectNoExecute, TimeAdded: &metav1.Time{Time: time.Now().Add(-2 * time.Hour)}}}}
	dteTaintDevices(t, cs, taints)

	// The condition comes in a status write before the delete.
	var marked *corev1.Pod
	for ev := range w.ResultChan() {
		p, ok := ev.Object.(*corev1.Pod)
		if !ok || ev.Type != watch.Modified {
			continue
		}
		if marked == nil && slices.ContainsFunc(p.Status.Conditions, func(c corev1.PodCondition) bool { return c.Type == corev1.DisruptionTarget }) {
			if p.DeletionTimestamp != nil {
				t.Errorf("the condition came with the delete")
			}
			marked = p.DeepCopy()
		}
		if p.DeletionTimestamp != nil {
			break
		}
	}
	if marked == nil {
		t.Fatal("no DisruptionTarget condition before the delete")
	}
	for _, c := range marked.Status.Conditions {
		if c.Type == corev1.DisruptionTarget && (c.Status != corev1.ConditionTrue || c.Reason != "DeletionByDeviceTaintManager" ||
			c.Message != "Device Taint manager: deleting due to NoExecute taint" || c.ObservedGeneration != 0 || c.LastTransitionTime.IsZero() || !c.LastProbeTime.IsZero()) {
			t.Errorf("condition %+v", c)
		}
	}
	const statusFields = `{"f:status":{"f:conditions":{"k:{\"type\":\"DisruptionTarget\"}":{".":{},"f:lastProbeTime":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`
	if !slices.ContainsFunc(marked.ManagedFields, func(f metav1.ManagedFieldsEntry) bool {
		return f.Manager == "kube-controller-manager" && f.Operation == metav1.ManagedFieldsOperationUpdate && f.Subresource == "status" && string(f.FieldsV1.Raw) == statusFields
	}) {
		t.Errorf("managedFields %+v", marked.ManagedFields)
	}

	for _, name := range []string{"now", "any-effect", "past"} {
		eventuallyT(t, name+" deleted", func(ctx context.Context) (bool, error) {
			_, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
			return apierrors.IsNotFound(err), nil
		})
		if got, want := dteEvents(t, cs, name, uids[name]), []string{"DeviceTaintManagerEviction: Marking for deletion"}; !slices.Equal(got, want) {
			t.Errorf("%s: events %q, want %q", name, got, want)
		}
	}
	for _, name := range []string{"later", "forever"} {
		p, err := cs.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil || p.DeletionTimestamp != nil || p.Status.Phase != corev1.PodRunning {
			t.Errorf("%s: %v %+v", name, err, p.ObjectMeta)
		}
		if got := dteEvents(t, cs, name, uids[name]); len(got) != 0 {
			t.Errorf("%s: events %q", name, got)
		}
	}

	delete(taints, "gpu-1")
	dteTaintDevices(t, cs, taints)
	eventuallyT(t, "the called-off eviction's event", func(context.Context) (bool, error) {
		return slices.Equal(dteEvents(t, cs, "later", uids["later"]), []string{"DeviceTaintManagerEviction: Cancelling deletion"}), nil
	})
	if p, err := cs.CoreV1().Pods("default").Get(ctx, "later", metav1.GetOptions{}); err != nil || p.DeletionTimestamp != nil {
		t.Errorf("later: %v", err)
	}
}

// TestDeviceTaintRulesEvictAndReportStatus: a DeviceTaintRule of effect
// NoExecute evicts the pods of the devices it selects, as a slice's taint
// does, and every rule gets refplane's EvictionInProgress condition, a
// server-side apply of field manager device-taint-eviction-controller:
// PodsPendingEviction while pods are to be evicted, Completed with the
// count of pods evicted ten seconds after its eviction, NotStarted when
// it selects no pod, NoEffect with what it would do for effect None,
// OtherEffect for NoSchedule; a spec change is reported at once.
func TestDeviceTaintRulesEvictAndReportStatus(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	dteSetUp(t, cs)
	dteClaimPod(t, cs, "later", "gpu-1", resourcev1.DeviceToleration{Key: "dte.example.com/unhealthy", Operator: resourcev1.DeviceTolerationOpExists,
		Effect: resourcev1.DeviceTaintEffectNoExecute, TolerationSeconds: ptr.To[int64](3600)})
	ruleUID := dteClaimPod(t, cs, "rule", "gpu-3")
	rules := cs.ResourceV1().DeviceTaintRules()
	w, err := rules.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=dte-rule"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	rule := func(name string, effect resourcev1.DeviceTaintEffect, key, device string) {
		t.Helper()
		r := &resourcev1.DeviceTaintRule{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: resourcev1.DeviceTaintRuleSpec{
			DeviceSelector: &resourcev1.DeviceTaintSelector{Driver: ptr.To("dte.example.com"), Device: ptr.To(device)},
			Taint:          resourcev1.DeviceTaint{Key: key, Effect: effect}}}
		if _, err := rules.Create(ctx, r, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	rule("dte-rule", resourcev1.DeviceTaintEffectNoExecute, "dte.example.com/maintenance", "gpu-3")
	rule("dte-none", resourcev1.DeviceTaintEffectNone, "dte.example.com/maintenance", "gpu-5")
	rule("dte-nosched", resourcev1.DeviceTaintEffectNoSchedule, "dte.example.com/nosched", "gpu-5")
	rule("dte-later", resourcev1.DeviceTaintEffectNoExecute, "dte.example.com/unhealthy", "gpu-1")
	rule("dte-empty", resourcev1.DeviceTaintEffectNoExecute, "dte.example.com/x", "gpu-5")

	// dte-rule's conditions as they come: pending, then (ten seconds
	// after the eviction) completed.
	type cond struct{ status, reason, message string }
	var seen []cond
	for ev := range w.ResultChan() {
		r, ok := ev.Object.(*resourcev1.DeviceTaintRule)
		if !ok {
			continue
		}
		for _, c := range r.Status.Conditions {
			if c.Type == "EvictionInProgress" && c.ObservedGeneration == 1 && !c.LastTransitionTime.IsZero() {
				seen = append(seen, cond{string(c.Status), c.Reason, c.Message})
			}
		}
		if len(seen) > 0 && seen[len(seen)-1].reason == "Completed" {
			break
		}
	}
	if want := []cond{{"True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace."}, {"False", "Completed", "1 pod evicted since starting the controller."}}; !slices.Equal(seen, want) {
		t.Errorf("dte-rule conditions %v, want %v", seen, want)
	}
	if got, want := dteEvents(t, cs, "rule", ruleUID), []string{"DeviceTaintManagerEviction: Marking for deletion"}; !slices.Equal(got, want) {
		t.Errorf("rule: events %q, want %q", got, want)
	}

	const applied = `{"f:status":{"f:conditions":{"k:{\"type\":\"EvictionInProgress\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:observedGeneration":{},"f:reason":{},"f:status":{},"f:type":{}}}}}`
	check := func(name string, generation int64, want cond) {
		t.Helper()
		var r *resourcev1.DeviceTaintRule
		eventuallyT(t, name+"'s condition", func(ctx context.Context) (bool, error) {
			var err error
			r, err = rules.Get(ctx, name, metav1.GetOptions{})
			return err == nil && len(r.Status.Conditions) == 1 && r.Status.Conditions[0].ObservedGeneration == generation, err
		})
		c := r.Status.Conditions[0]
		if got := (cond{string(c.Status), c.Reason, c.Message}); c.Type != "EvictionInProgress" || got != want {
			t.Errorf("%s: condition %+v, want %+v", name, c, want)
		}
		if !slices.ContainsFunc(r.ManagedFields, func(f metav1.ManagedFieldsEntry) bool {
			return f.Manager == "device-taint-eviction-controller" && f.Operation == metav1.ManagedFieldsOperationApply && f.Subresource == "status" && string(f.FieldsV1.Raw) == applied
		}) {
			t.Errorf("%s: managedFields %+v", name, r.ManagedFields)
		}
	}
	for _, tc := range []struct {
		rule string
		want cond
	}{
		{"dte-none", cond{"False", "NoEffect", "1 published device selected. 0 allocated devices selected. 0 pods would be evicted in 0 different namespaces if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update."}},
		{"dte-nosched", cond{"False", "OtherEffect", "Eviction only happens for the NoExecute effect."}},
		{"dte-later", cond{"True", "PodsPendingEviction", "1 pod needs to be evicted in 1 namespace."}},
		{"dte-empty", cond{"False", "NotStarted", ""}},
		{"dte-rule", cond{"False", "Completed", "1 pod evicted since starting the controller."}},
	} {
		check(tc.rule, 1, tc.want)
	}

	// dte-later's effect turns None: reported at once, with what NoExecute
	// would do.
	if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
		r, err := rules.Get(ctx, "dte-later", metav1.GetOptions{})
		if err != nil {
			return err
		}
		r.Spec.Taint.Effect = resourcev1.DeviceTaintEffectNone
		_, err = rules.Update(ctx, r, metav1.UpdateOptions{})
		return err
	}); err != nil {
		t.Fatal(err)
	}
	check("dte-later", 2, cond{"False", "NoEffect", "1 published device selected. 1 allocated device selected. 1 pod would be evicted in 1 namespace if the effect was NoExecute. This information will not be updated again. Recreate the DeviceTaintRule to trigger an update."})
	if p, err := cs.CoreV1().Pods("default").Get(ctx, "later", metav1.GetOptions{}); err != nil || p.DeletionTimestamp != nil {
		t.Errorf("later: %v", err)
	}
}
