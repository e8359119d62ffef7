package fakeplane_test

import (
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fakeplane/fakeplane"
)

// resizePod is a pod with one container of the given requests and limits
// (cpu, memory), bound to node when it is not empty, else left to a
// scheduler that does not run (so that it stays unbound).
func resizePod(name, node string, req, lim [2]string) *corev1.Pod {
	rl := func(v [2]string) corev1.ResourceList {
		return corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(v[0]), corev1.ResourceMemory: resource.MustParse(v[1])}
	}
	scheduler := ""
	if node == "" {
		scheduler = "h5-none"
	}
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{NodeName: node, SchedulerName: scheduler, Containers: []corev1.Container{{
			Name: "c", Image: "nginx",
			Resources: corev1.ResourceRequirements{Requests: rl(req), Limits: rl(lim)},
		}}},
	}
}

// TestPodResize: pods/resize changes a pod's container resources in
// place, and nothing else, as kube-apiserver v1.37 does (codes, messages,
// the resulting pod and its managedFields recorded from refplane).
func TestPodResize(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := clientset(t, cp)
	ctx := ctxT(t)
	ns := "default"
	pods := client.CoreV1().Pods(ns)
	burstable := func(name, node string) *corev1.Pod {
		return resizePod(name, node, [2]string{"100m", "100Mi"}, [2]string{"200m", "200Mi"})
	}
	for _, p := range []*corev1.Pod{
		burstable("bur", ""),
		resizePod("gua", "", [2]string{"200m", "200Mi"}, [2]string{"200m", "200Mi"}),
		burstable("bound", "h5-node"),
		burstable("nonode", "h5-missing"),
	} {
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	win := burstable("win", "")
	win.Spec.OS = &corev1.PodOS{Name: corev1.Windows}
	never := burstable("never", "")
	never.Spec.RestartPolicy = corev1.RestartPolicyNever
	init := burstable("init", "")
	init.Spec.InitContainers = []corev1.Container{{Name: "i", Image: "nginx", Resources: init.Spec.Containers[0].Resources}}
	for _, p := range []*corev1.Pod{win, never, init} {
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "h5-node", Labels: map[string]string{corev1.LabelOSStable: "linux"}}}
	if _, err := client.CoreV1().Nodes().Create(ctx, node, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	node.Status.Allocatable = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4"), corev1.ResourceMemory: resource.MustParse("8Gi"), corev1.ResourcePods: resource.MustParse("110")}
	node.Status.Capacity = node.Status.Allocatable
	if _, err := client.CoreV1().Nodes().UpdateStatus(ctx, node, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// A strategic merge patch that also sets a label and an image: only
	// the resources change, the generation moves, the status does not.
	got, err := pods.Patch(ctx, "bur", types.StrategicMergePatchType,
		[]byte(`{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"busybox","resources":{"requests":{"cpu":"150m"}}}]}}`),
		metav1.PatchOptions{}, "resize")
	if err != nil {
		t.Fatal(err)
	}
	c := got.Spec.Containers[0]
	if c.Image != "nginx" || got.Labels["a"] != "" || c.Resources.Requests.Cpu().String() != "150m" || got.Generation != 2 {
		t.Errorf("after resize: image %s, labels %v, cpu request %s, generation %d", c.Image, got.Labels, c.Resources.Requests.Cpu(), got.Generation)
	}
	if got.Status.QOSClass != corev1.PodQOSBurstable || got.Status.ObservedGeneration != 0 || len(got.Status.Conditions) != 0 {
		t.Errorf("status after resize: %+v", got.Status)
	}
	// refplane records the patch's fields, those the strategy dropped
	// too, under the resize subresource.
	var resizeEntry *metav1.ManagedFieldsEntry
	for i, m := range got.ManagedFields {
		if m.Subresource == "resize" {
			resizeEntry = &got.ManagedFields[i]
		}
	}
	const wantFields = `{"f:metadata":{"f:labels":{".":{},"f:a":{}}},"f:spec":{"f:containers":{"k:{\"name\":\"c\"}":{"f:image":{},"f:resources":{"f:requests":{"f:cpu":{}}}}}}}`
	if resizeEntry == nil || resizeEntry.Operation != metav1.ManagedFieldsOperationUpdate || string(resizeEntry.FieldsV1.Raw) != wantFields {
		t.Errorf("managedFields: %+v", got.ManagedFields)
	}

	// client-go's UpdateResize: a PUT of the whole pod.
	got.Spec.Containers[0].Resources.Limits[corev1.ResourceCPU] = resource.MustParse("300m")
	if got, err = pods.UpdateResize(ctx, "bur", got, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if lim := got.Spec.Containers[0].Resources.Limits.Cpu().String(); lim != "300m" || got.Generation != 3 {
		t.Errorf("after UpdateResize: cpu limit %s, generation %d", lim, got.Generation)
	}

	// refplane's answers to refused resizes.
	for _, tc := range []struct {
		name, pod, patchType, patch string
		code                        int
		want                        string
	}{
		{"ephemeral storage", "bur", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","resources":{"requests":{"ephemeral-storage":"1Gi"}}}]}}`,
			422, `Pod "bur" is invalid: spec: Forbidden: only cpu and memory resources are mutable`},
		{"limits removed", "bur", "application/json-patch+json", `[{"op":"remove","path":"/spec/containers/0/resources/limits"}]`,
			422, `Pod "bur" is invalid: spec.containers[0].resources.limits: Forbidden: resource limits cannot be removed`},
		{"QoS class change", "bur", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"300m","memory":"200Mi"}}}]}}`,
			422, `Pod "bur" is invalid: spec: Invalid value: "Burstable": Pod QOS Class may not change as a result of resizing`},
		{"guaranteed limits alone", "gua", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","resources":{"limits":{"cpu":"300m"}}}]}}`,
			422, `Pod "gua" is invalid: spec: Invalid value: "Guaranteed": Pod QOS Class may not change as a result of resizing`},
		{"resize policy change", "bur", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","resizePolicy":[{"resourceName":"cpu","restartPolicy":"RestartContainer"}]}]}}`,
			422, `Pod "bur" is invalid: spec: Forbidden: only cpu and memory resources are mutable`},
		{"RestartContainer with restartPolicy Never", "never", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","resizePolicy":[{"resourceName":"memory","restartPolicy":"RestartContainer"}]}]}}`,
			422, "Pod \"never\" is invalid: [spec.containers[0].resizePolicy: Invalid value: \"RestartContainer\": must be 'NotRequired' when pod `restartPolicy` is 'Never', spec: Forbidden: only cpu and memory resources are mutable]"},
		{"windows", "win", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"150m"}}}]}}`,
			422, `Pod "win" is invalid: []: Forbidden: windows pods cannot be resized`},
		{"container added", "bur", "application/json-patch+json", `[{"op":"add","path":"/spec/containers/-","value":{"name":"d","image":"nginx"}}]`,
			422, `Pod "bur" is invalid: spec.containers: Forbidden: containers may not be added or removed on resize`},
		{"requests over limits", "bur", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"500m"}}}]}}`,
			422, `Pod "bur" is invalid: spec.containers[0].resources.requests: Invalid value: "500m": must be less than or equal to cpu limit of 300m`},
		{"non-sidecar init container to RestartContainer", "init", "application/strategic-merge-patch+json", `{"spec":{"initContainers":[{"name":"i","resizePolicy":[{"resourceName":"cpu","restartPolicy":"RestartContainer"}],"resources":{"requests":{"cpu":"170m"}}}]}}`,
			422, `Pod "init" is invalid: [spec.initContainers[0].resizePolicy[0].restartPolicy: Invalid value: "RestartContainer": must not be set to 'RestartContainer' for non-sidecar initContainers, spec.initContainers[0]: Forbidden: only cpu and memory resources for init or sidecar containers are mutable, spec.initContainers[0]: Forbidden: non-sidecar init containers with a resize policy of RestartContainer cannot be resized]`},
		{"over the node's allocatable", "bound", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"5","memory":"100Gi"},"limits":{"cpu":"6","memory":"200Gi"}}}]}}`,
			403, `pods "bound" is forbidden: node didn't have enough allocatable resources: cpu, requested: 5000, allocatable: 4000; memory, requested: 107374182400, allocatable: 8589934592`},
		{"node not found", "nonode", "application/strategic-merge-patch+json", `{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"150m"}}}]}}`,
			403, `pods "nonode" is forbidden: node "h5-missing" not found`},
		{"create", "bur", "", "", 405, "the server does not allow this method on the requested resource"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			method := http.MethodPatch
			if tc.patchType == "" {
				method = http.MethodPost
			}
			code, _, body := rawExchange(t, cp, method, "/api/v1/namespaces/"+ns+"/pods/"+tc.pod+"/resize", tc.patchType, []byte(tc.patch), nil)
			var st metav1.Status
			if err := json.Unmarshal(body, &st); err != nil {
				t.Fatalf("%d %s", code, body)
			}
			if code != tc.code || st.Message != tc.want {
				t.Errorf("got %d %q\nwant %d %q", code, st.Message, tc.code, tc.want)
			}
		})
	}

	// A bound pod resized within its node's allocatable; the node
	// plugins' NodeCapacity cause on refusal.
	if _, err := pods.Patch(ctx, "bound", types.StrategicMergePatchType, []byte(`{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"150m"}}}]}}`), metav1.PatchOptions{}, "resize"); err != nil {
		t.Fatal(err)
	}
	_, err = pods.Patch(ctx, "bound", types.StrategicMergePatchType, []byte(`{"spec":{"containers":[{"name":"c","resources":{"requests":{"cpu":"5"},"limits":{"cpu":"6"}}}]}}`), metav1.PatchOptions{}, "resize")
	se, ok := err.(*apierrors.StatusError)
	if !apierrors.IsForbidden(err) || !ok || len(se.ErrStatus.Details.Causes) != 1 || se.ErrStatus.Details.Causes[0].Type != "NodeCapacity" {
		t.Errorf("resize over allocatable: %v", err)
	}

	// A GET of the subresource answers the pod.
	code, _, body := rawExchange(t, cp, http.MethodGet, "/api/v1/namespaces/"+ns+"/pods/bur/resize", "", nil, nil)
	if code != http.StatusOK || !strings.Contains(string(body), `"kind":"Pod"`) {
		t.Errorf("GET resize: %d %s", code, body)
	}
}

// TestPodStatusNominatedNodeNameOnBoundPod: a write to /status may not
// nominate a node for a pod already bound to one (refplane's answer).
func TestPodStatusNominatedNodeNameOnBoundPod(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := clientset(t, cp)
	ctx := ctxT(t)
	pods := client.CoreV1().Pods("default")
	for _, p := range []*corev1.Pod{
		resizePod("bound", "h5-node", [2]string{"100m", "100Mi"}, [2]string{"200m", "200Mi"}),
		resizePod("free", "", [2]string{"100m", "100Mi"}, [2]string{"200m", "200Mi"}),
	} {
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	patch := []byte(`{"status":{"nominatedNodeName":"h5-node"}}`)
	_, err := pods.Patch(ctx, "bound", types.MergePatchType, patch, metav1.PatchOptions{}, "status")
	const want = `Pod "bound" is invalid: status.nominatedNodeName: Forbidden: may not be set on pods that are already bound to a node`
	if !apierrors.IsInvalid(err) || err.Error() != want {
		t.Errorf("bound pod: %v\nwant %s", err, want)
	}
	if _, err := pods.Patch(ctx, "free", types.MergePatchType, patch, metav1.PatchOptions{}, "status"); err != nil {
		t.Errorf("unbound pod: %v", err)
	}
}
