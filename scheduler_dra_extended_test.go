package fakeplane_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// The DRA driver of these tests, as recorded on refplane (kube-scheduler
// v1.37.2 with kwok's node-0): DeviceClass drx-gpu backs the extended
// resource drx.example.com/gpu with the devices of driver drx.example.com,
// of which node-0 has two.
const (
	drxResource = "drx.example.com/gpu"
	drxClass    = "drx-gpu"
)

// drxSetUp creates the DeviceClass drx-gpu and node-0's ResourceSlice of
// two devices, gpu-0 and gpu-1.
func drxSetUp(t *testing.T, cs kubernetes.Interface) {
	t.Helper()
	ctx := ctxT(t)
	if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: drxClass},
		Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: ptr.To(drxResource),
			Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "drx.example.com"`}}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := cs.ResourceV1().ResourceSlices().Create(ctx, &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "drx-node-0"},
		Spec: resourcev1.ResourceSliceSpec{Driver: "drx.example.com", NodeName: ptr.To("node-0"), Pool: resourcev1.ResourcePool{Name: "node-0", Generation: 1, ResourceSliceCount: 1},
			Devices: []resourcev1.Device{{Name: "gpu-0"}, {Name: "gpu-1"}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// gpuContainer is a container asking for n of the resource.
func gpuContainer(name string, res corev1.ResourceName, n string) corev1.Container {
	q := corev1.ResourceList{res: resource.MustParse(n)}
	return corev1.Container{Name: name, Image: "pause", Resources: corev1.ResourceRequirements{Requests: q, Limits: q}}
}

// gpuPod is a pod of one container "c" asking for n drx.example.com/gpu.
func gpuPod(name, n string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{gpuContainer("c", drxResource, n)}}}
}

// maskedJSON is obj's JSON as a generic value, with the strings that vary
// between runs (UIDs, names with random suffixes, given in repl) replaced
// and the server's times and versions masked.
func maskedJSON(t *testing.T, obj any, repl ...string) any {
	t.Helper()
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	s := strings.NewReplacer(repl...).Replace(string(b))
	var v map[string]any
	if err := json.Unmarshal([]byte(s), &v); err != nil {
		t.Fatal(err)
	}
	meta := v["metadata"].(map[string]any)
	for _, k := range []string{"uid", "resourceVersion", "creationTimestamp"} {
		if _, ok := meta[k]; ok {
			meta[k] = "X"
		}
	}
	if mfs, ok := meta["managedFields"].([]any); ok {
		for _, mf := range mfs {
			mf.(map[string]any)["time"] = "X"
		}
	}
	if st, ok := v["status"].(map[string]any); ok {
		if a, ok := st["allocation"].(map[string]any); ok {
			a["allocationTimestamp"] = "X"
		}
	}
	return v
}

// refplaneExtendedClaim is the claim refplane's kube-scheduler made for
// pod p1 (one container "c" asking for one drx.example.com/gpu), masked.
const refplaneExtendedClaim = `{
  "metadata": {
    "annotations": {"resource.kubernetes.io/extended-resource-claim": "true"},
    "creationTimestamp": "X",
    "finalizers": ["resource.kubernetes.io/delete-protection"],
    "generateName": "p1-extended-resources-",
    "managedFields": [
      {"apiVersion": "resource.k8s.io/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:metadata": {
          "f:annotations": {".": {}, "f:resource.kubernetes.io/extended-resource-claim": {}},
          "f:finalizers": {".": {}, "v:\"resource.kubernetes.io/delete-protection\"": {}},
          "f:generateName": {},
          "f:ownerReferences": {".": {}, "k:{\"uid\":\"POD_UID\"}": {}}},
        "f:spec": {"f:devices": {"f:requests": {}}}},
       "manager": "kube-scheduler", "operation": "Update", "time": "X"},
      {"apiVersion": "resource.k8s.io/v1", "fieldsType": "FieldsV1", "fieldsV1": {"f:status": {
          "f:allocation": {".": {}, "f:allocationTimestamp": {}, "f:devices": {".": {}, "f:results": {}}, "f:nodeSelector": {}},
          "f:reservedFor": {".": {}, "k:{\"uid\":\"POD_UID\"}": {".": {}, "f:name": {}, "f:resource": {}, "f:uid": {}}}}},
       "manager": "kube-scheduler", "operation": "Update", "subresource": "status", "time": "X"}
    ],
    "name": "CLAIM",
    "namespace": "default",
    "ownerReferences": [{"apiVersion": "v1", "controller": true, "kind": "Pod", "name": "p1", "uid": "POD_UID"}],
    "resourceVersion": "X",
    "uid": "X"
  },
  "spec": {"devices": {"requests": [
    {"exactly": {"allocationMode": "ExactCount", "count": 1, "deviceClassName": "drx-gpu"}, "name": "container-0-request-0"}]}},
  "status": {
    "allocation": {
      "allocationTimestamp": "X",
      "devices": {"results": [{"device": "gpu-0", "driver": "drx.example.com", "pool": "node-0", "request": "container-0-request-0"}]},
      "nodeSelector": {"nodeSelectorTerms": [{"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-0"]}]}]}
    },
    "reservedFor": [{"name": "p1", "resource": "pods", "uid": "POD_UID"}]
  }
}`

// TestSchedulerBacksExtendedResourcesWithDRA: as refplane's kube-scheduler
// (DRAExtendedResource), a pod asking for an extended resource no node
// advertises but a DeviceClass backs gets a ResourceClaim made for it
// (<pod>-extended-resources-xxxxx, annotated, controlled by the pod, one
// request per container), allocated from the node's devices and reserved
// for it, which its status.extendedResourceClaimStatus names; the writes
// come in refplane's order (nomination, claim, finalizer, allocation, pod
// status, binding). Too many devices is "cannot allocate all claims" and
// makes no claim; a deleted pod's claim goes; init containers reuse the
// requests of the containers after them.
func TestSchedulerBacksExtendedResourcesWithDRA(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx := ctxT(t)
	cs := clientset(t, cp)
	drxSetUp(t, cs)
	claims := cs.ResourceV1().ResourceClaims("default")
	bound := func(p *corev1.Pod) bool { return p.Spec.NodeName != "" }

	podWatch, err := cs.CoreV1().Pods("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=p1"})
	if err != nil {
		t.Fatal(err)
	}
	defer podWatch.Stop()
	claimWatch, err := claims.Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer claimWatch.Stop()
	if _, err := cs.CoreV1().Pods("default").Create(ctx, gpuPod("p1", "1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := waitPod(t, cs, "p1", bound)
	ercs := pod.Status.ExtendedResourceClaimStatus
	if ercs == nil || !strings.HasPrefix(ercs.ResourceClaimName, "p1-extended-resources-") || len(ercs.ResourceClaimName) != len("p1-extended-resources-")+5 {
		t.Fatalf("extendedResourceClaimStatus %+v, want p1-extended-resources-xxxxx", ercs)
	}
	if want := []corev1.ContainerExtendedResourceRequest{{ContainerName: "c", ResourceName: drxResource, RequestName: "container-0-request-0"}}; !equality.Semantic.DeepEqual(ercs.RequestMappings, want) {
		t.Errorf("requestMappings %+v, want %+v", ercs.RequestMappings, want)
	}
	claim, err := claims.Get(ctx, ercs.ResourceClaimName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	claim.APIVersion, claim.Kind = "", ""
	got := maskedJSON(t, claim, string(pod.UID), "POD_UID", claim.Name, "CLAIM")
	var want any
	if err := json.Unmarshal([]byte(refplaneExtendedClaim), &want); err != nil {
		t.Fatal(err)
	}
	if !equality.Semantic.DeepEqual(got, want) {
		g, _ := json.MarshalIndent(got, "", "  ")
		t.Errorf("claim (masked):\n%s\nwant refplane's:\n%s", g, refplaneExtendedClaim)
	}
	// The pod's status: the scheduler's nomination and the claim, in one
	// entry of its managed fields, as refplane's.
	var schedFields string
	for _, mf := range pod.ManagedFields {
		if mf.Manager == "kube-scheduler" && mf.Subresource == "status" {
			schedFields = string(mf.FieldsV1.Raw)
		}
	}
	if want := `{"f:status":{"f:extendedResourceClaimStatus":{".":{},"f:requestMappings":{},"f:resourceClaimName":{}},"f:nominatedNodeName":{}}}`; schedFields != want {
		t.Errorf("kube-scheduler's status fields %s, want %s", schedFields, want)
	}

	// Its event: refplane's Scheduled (its only one there; here too, but
	// for an attempt made before the scheduler has seen the DeviceClass).
	if ev := waitEvent(t, cs, "p1", "Scheduled"); ev.Note != "Successfully assigned default/p1 to node-0" {
		t.Errorf("p1's Scheduled event %q", ev.Note)
	}

	// The order of the writes: refplane's watch of the pod saw the
	// nomination, the claim status, then the binding; that of the claim
	// its creation (no finalizer), the finalizer, then the allocation.
	var podSteps []string
	for len(podSteps) < 3 {
		ev := <-podWatch.ResultChan()
		p, ok := ev.Object.(*corev1.Pod)
		if !ok || ev.Type == watch.Added {
			continue
		}
		switch {
		case p.Spec.NodeName != "":
			podSteps = append(podSteps, "bound")
		case p.Status.ExtendedResourceClaimStatus != nil:
			podSteps = append(podSteps, "claim status")
		case p.Status.NominatedNodeName != "":
			podSteps = append(podSteps, "nominated")
		}
	}
	if want := "nominated,claim status,bound"; strings.Join(podSteps, ",") != want {
		t.Errorf("pod writes %v, want %s", podSteps, want)
	}
	var claimSteps []string
	for len(claimSteps) < 3 {
		ev := <-claimWatch.ResultChan()
		c, ok := ev.Object.(*resourcev1.ResourceClaim)
		if !ok {
			continue
		}
		claimSteps = append(claimSteps, string(ev.Type)+" finalizers="+strings.Join(c.Finalizers, ",")+" allocated="+boolWord(c.Status.Allocation != nil)+" reserved="+boolWord(len(c.Status.ReservedFor) > 0))
	}
	if want := []string{
		"ADDED finalizers= allocated=no reserved=no",
		"MODIFIED finalizers=resource.kubernetes.io/delete-protection allocated=no reserved=no",
		"MODIFIED finalizers=resource.kubernetes.io/delete-protection allocated=yes reserved=yes",
	}; strings.Join(claimSteps, "\n") != strings.Join(want, "\n") {
		t.Errorf("claim writes:\n%s\nwant:\n%s", strings.Join(claimSteps, "\n"), strings.Join(want, "\n"))
	}

	// Three devices when one is left: refplane's message, and no claim.
	if _, err := cs.CoreV1().Pods("default").Create(ctx, gpuPod("toomany", "3"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, cs, "toomany", "FailedScheduling")
	if want := "0/1 nodes are available: 1 cannot allocate all claims. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."; ev.Note != want {
		t.Errorf("too many devices: %q, want %q", ev.Note, want)
	}
	list, err := claims.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 {
		t.Errorf("%d claims, want p1's only", len(list.Items))
	}
	if err := cs.CoreV1().Pods("default").Delete(ctx, "toomany", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}

	// p1 goes: so does its claim (released, then deleted).
	if err := cs.CoreV1().Pods("default").Delete(ctx, "p1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "p1's claim deleted", func(ctx context.Context) (bool, error) {
		_, err := claims.Get(ctx, claim.Name, metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})

	// An init container asking for one, two containers for one each:
	// refplane's requests and mappings (the init container's share is
	// container a's request).
	multi := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "multi", Namespace: "default"}, Spec: corev1.PodSpec{
		InitContainers: []corev1.Container{gpuContainer("init", drxResource, "1")},
		Containers:     []corev1.Container{gpuContainer("a", drxResource, "1"), gpuContainer("b", drxResource, "1")},
	}}
	multi.Spec.InitContainers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("10m")
	if _, err := cs.CoreV1().Pods("default").Create(ctx, multi, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod = waitPod(t, cs, "multi", bound)
	if want := []corev1.ContainerExtendedResourceRequest{
		{ContainerName: "a", ResourceName: drxResource, RequestName: "container-1-request-0"},
		{ContainerName: "b", ResourceName: drxResource, RequestName: "container-2-request-0"},
		{ContainerName: "init", ResourceName: drxResource, RequestName: "container-1-request-0"},
	}; pod.Status.ExtendedResourceClaimStatus == nil || !equality.Semantic.DeepEqual(pod.Status.ExtendedResourceClaimStatus.RequestMappings, want) {
		t.Errorf("multi's extendedResourceClaimStatus %+v, want mappings %+v", pod.Status.ExtendedResourceClaimStatus, want)
	}
	claim, err = claims.Get(ctx, pod.Status.ExtendedResourceClaimStatus.ResourceClaimName, metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exact := func(n string) resourcev1.DeviceRequest {
		return resourcev1.DeviceRequest{Name: n, Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: drxClass, AllocationMode: resourcev1.DeviceAllocationModeExactCount, Count: 1}}
	}
	if want := []resourcev1.DeviceRequest{exact("container-1-request-0"), exact("container-2-request-0")}; !equality.Semantic.DeepEqual(claim.Spec.Devices.Requests, want) {
		t.Errorf("multi's requests %+v, want %+v", claim.Spec.Devices.Requests, want)
	}
	if a := claim.Status.Allocation; a == nil || len(a.Devices.Results) != 2 || a.Devices.Results[0].Device != "gpu-0" || a.Devices.Results[1].Device != "gpu-1" {
		t.Errorf("multi's allocation %+v, want gpu-0 and gpu-1", a)
	}
}

// boolWord is "yes" or "no".
func boolWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

// TestExtendedResourceClaimDeletedWhenPodSucceeds: as refplane's
// kube-controller-manager, the claim of a Job pod's extended resource
// (here the implicit deviceclass.resource.kubernetes.io/drx-gpu) loses its
// reservation and allocation, then its finalizer, and is deleted once the
// pod has succeeded.
func TestExtendedResourceClaimDeletedWhenPodSucceeds(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx := ctxT(t)
	cs := clientset(t, cp)
	drxSetUp(t, cs)
	w, err := cs.ResourceV1().ResourceClaims("default").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	job := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"}, Spec: batchv1.JobSpec{Template: corev1.PodTemplateSpec{Spec: corev1.PodSpec{
		RestartPolicy: corev1.RestartPolicyNever,
		Containers:    []corev1.Container{gpuContainer("c", corev1.ResourceName(resourcev1.ResourceDeviceClassPrefix+drxClass), "1")},
	}}}}
	if _, err := cs.BatchV1().Jobs("default").Create(ctx, job, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var steps []string
	var name string
	for len(steps) == 0 || !strings.HasPrefix(steps[len(steps)-1], "DELETED") {
		ev := <-w.ResultChan()
		c, ok := ev.Object.(*resourcev1.ResourceClaim)
		if !ok {
			t.Fatalf("watch: %+v", ev)
		}
		name = c.Name
		steps = append(steps, string(ev.Type)+" finalizers="+strings.Join(c.Finalizers, ",")+" allocated="+boolWord(c.Status.Allocation != nil)+" reserved="+boolWord(len(c.Status.ReservedFor) > 0))
	}
	// refplane's sequence: the scheduler's three writes, then the
	// controller's release, finalizer removal and deletion.
	want := []string{
		"ADDED finalizers= allocated=no reserved=no",
		"MODIFIED finalizers=resource.kubernetes.io/delete-protection allocated=no reserved=no",
		"MODIFIED finalizers=resource.kubernetes.io/delete-protection allocated=yes reserved=yes",
		"MODIFIED finalizers=resource.kubernetes.io/delete-protection allocated=no reserved=no",
		"MODIFIED finalizers= allocated=no reserved=no",
		"DELETED finalizers= allocated=no reserved=no",
	}
	if strings.Join(steps, "\n") != strings.Join(want, "\n") {
		t.Errorf("claim %s:\n%s\nwant:\n%s", name, strings.Join(steps, "\n"), strings.Join(want, "\n"))
	}
	pods, err := cs.CoreV1().Pods("default").List(ctx, metav1.ListOptions{LabelSelector: "batch.kubernetes.io/job-name=j"})
	if err != nil {
		t.Fatal(err)
	}
	if len(pods.Items) != 1 {
		t.Fatalf("%d pods of the Job", len(pods.Items))
	}
	p := pods.Items[0]
	if p.Status.Phase != corev1.PodSucceeded || p.Status.ExtendedResourceClaimStatus == nil || p.Status.ExtendedResourceClaimStatus.ResourceClaimName != name ||
		p.Status.ExtendedResourceClaimStatus.RequestMappings[0].ResourceName != "deviceclass.resource.kubernetes.io/drx-gpu" {
		t.Errorf("pod phase %s, extendedResourceClaimStatus %+v; want Succeeded naming %s", p.Status.Phase, p.Status.ExtendedResourceClaimStatus, name)
	}
}

// TestSchedulerDeletesStaleExtendedResourceClaim: a claim for the pod's
// extended resources that exists before the pod is scheduled (left by an
// earlier cycle) fails it, and PostFilter deletes it, as refplane's
// kube-scheduler reports.
func TestSchedulerDeletesStaleExtendedResourceClaim(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx := ctxT(t)
	cs := clientset(t, cp)
	drxSetUp(t, cs)
	p := gpuPod("stale", "1")
	p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "drx.example.com/hold"}}
	p, err := cs.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// A pod whose claim comes after the stale one: once it is bound, the
	// scheduler has seen the stale claim too.
	barrier := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "barrier", Namespace: "default"}, Spec: corev1.PodSpec{
		Containers:     []corev1.Container{{Name: "c", Image: "pause", Resources: corev1.ResourceRequirements{Claims: []corev1.ResourceClaim{{Name: "gpu"}}}}},
		ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("barrier")}},
	}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, barrier, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	stale := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "stale-extended-resources-old",
		Annotations:     map[string]string{resourcev1.ExtendedResourceClaimAnnotation: "true"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: p.Name, UID: p.UID, Controller: ptr.To(true)}}},
		Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{Requests: []resourcev1.DeviceRequest{{Name: "container-0-request-0",
			Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: drxClass}}}}}}
	if _, err := cs.ResourceV1().ResourceClaims("default").Create(ctx, stale, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	barrierClaim := &resourcev1.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: "barrier"}, Spec: resourcev1.ResourceClaimSpec{Devices: resourcev1.DeviceClaim{
		Requests: []resourcev1.DeviceRequest{{Name: "gpu", Exactly: &resourcev1.ExactDeviceRequest{DeviceClassName: drxClass}}}}}}
	if _, err := cs.ResourceV1().ResourceClaims("default").Create(ctx, barrierClaim, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitPod(t, cs, "barrier", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if _, err := cs.CoreV1().Pods("default").Patch(ctx, p.Name, types.JSONPatchType, []byte(`[{"op":"remove","path":"/spec/schedulingGates"}]`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, cs, "stale", "FailedScheduling")
	if want := "0/1 nodes are available: 1 cannot schedule extended resource claim. deletion of ResourceClaim completed, preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."; ev.Note != want {
		t.Errorf("stale claim: %q, want %q", ev.Note, want)
	}
	if _, err := cs.ResourceV1().ResourceClaims("default").Get(ctx, stale.Name, metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("the stale claim after PostFilter: %v, want NotFound", err)
	}
}

// TestSchedulerRetriesExtendedResourceWhenDeviceClassComes: a pod asking
// for an extended resource nothing provides is NodeResourcesFit's
// "Insufficient" (refplane's message); a DeviceClass that comes to back it
// makes the scheduler try again, and the pod gets its devices.
func TestSchedulerRetriesExtendedResourceWhenDeviceClassComes(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx := ctxT(t)
	cs := clientset(t, cp)
	drxSetUp(t, cs)
	tpu := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "tpu", Namespace: "default"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{gpuContainer("c", "drx.example.com/tpu", "1")}}}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, tpu, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, cs, "tpu", "FailedScheduling")
	if want := "0/1 nodes are available: 1 Insufficient drx.example.com/tpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."; ev.Note != want {
		t.Errorf("no class: %q, want %q", ev.Note, want)
	}
	if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "drx-tpu"},
		Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: ptr.To("drx.example.com/tpu"),
			Selectors: []resourcev1.DeviceSelector{{CEL: &resourcev1.CELDeviceSelector{Expression: `device.driver == "drx.example.com"`}}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := waitPod(t, cs, "tpu", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if st := pod.Status.ExtendedResourceClaimStatus; st == nil || !strings.HasPrefix(st.ResourceClaimName, "tpu-extended-resources-") {
		t.Errorf("extendedResourceClaimStatus %+v", st)
	}
}

// TestSchedulerLeavesAdvertisedExtendedResourcesToTheNode: on a node that
// advertises the extended resource in status.allocatable (a device
// plugin's), the pod gets no claim and NodeResourcesFit counts the
// resource as without DRA, as upstream's fit plugin and DynamicResources
// decide. (No ResourceSlice here: DRA could not serve the pods.)
func TestSchedulerLeavesAdvertisedExtendedResourcesToTheNode(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithNodes(1))
	ctx := ctxT(t)
	cs := clientset(t, cp)
	if _, err := cs.ResourceV1().DeviceClasses().Create(ctx, &resourcev1.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: drxClass},
		Spec: resourcev1.DeviceClassSpec{ExtendedResourceName: ptr.To(drxResource)}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	patch := `{"status":{"capacity":{"drx.example.com/gpu":"1"},"allocatable":{"drx.example.com/gpu":"1"}}}`
	if _, err := cs.CoreV1().Nodes().Patch(ctx, "node-0", types.StrategicMergePatchType, []byte(patch), metav1.PatchOptions{}, "status"); err != nil {
		t.Fatal(err)
	}
	// Scheduled once the scheduler has the node's new allocatable (before,
	// DRA has no device for it; the node's update tries it again).
	if _, err := cs.CoreV1().Pods("default").Create(ctx, gpuPod("one", "1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	pod := waitPod(t, cs, "one", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	list, err := cs.ResourceV1().ResourceClaims("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Status.ExtendedResourceClaimStatus != nil || len(list.Items) != 0 {
		t.Errorf("extendedResourceClaimStatus %+v, %d claims; want the device plugin's, no claim", pod.Status.ExtendedResourceClaimStatus, len(list.Items))
	}
	if _, err := cs.CoreV1().Pods("default").Create(ctx, gpuPod("two", "2"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := waitEvent(t, cs, "two", "FailedScheduling")
	if want := "0/1 nodes are available: 1 Insufficient drx.example.com/gpu. preemption: 0/1 nodes are available: 1 Preemption is not helpful for scheduling."; ev.Note != want {
		t.Errorf("two on a node advertising one: %q, want %q", ev.Note, want)
	}
}
