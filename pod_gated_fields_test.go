package fakeplane_test

import (
	"strings"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// gatedPodSpec is a pod spec with a field of each pod spec feature gate
// that is off by default in kube-apiserver v1.37, indented for a pod.
const gatedPodSpec = `
  restartPolicy: Never
  schedulingGroup: {podGroupName: g}
  evictionResponders: [{name: a.example.com/r}]
  volumes:
  - {name: e, emptyDir: {mode: 0700}}
  - {name: s, secret: {secretName: s, defaultUser: 1000, items: [{key: k, path: p, user: 1000}]}}
  - {name: t, projected: {sources: [{serviceAccountToken: {path: t, user: 1000}}]}}
  containers:
  - name: c
    image: busybox
    lifecycle:
      stopSignal: SIGTERM
      preStop: {httpGet: {port: 80, protocol: H2C}}
    livenessProbe: {grpc: {port: 80, mode: TLS}}
    readinessProbe: {httpGet: {port: 80, protocol: H2C}}
    volumeMounts: [{name: e, mountPath: /e, bindMountOptions: [ro]}]
  os: {name: linux}`

// gatedPodFields are the default-off gates' fields of a pod spec, by gate.
func gatedPodFields(s *corev1.PodSpec) map[string]any {
	c := s.Containers[0]
	f := map[string]any{
		"GenericWorkload":             s.SchedulingGroup,
		"EvictionRequestAPI":          s.EvictionResponders,
		"EmptyDirVolumeMode":          s.Volumes[0].EmptyDir.Mode,
		"AtomicWriteVolumeUserFields": []any{s.Volumes[1].Secret.DefaultUser, s.Volumes[1].Secret.Items[0].User, s.Volumes[2].Projected.Sources[0].ServiceAccountToken.User},
		"ContainerStopSignals":        nil,
		"H2CContainerProbe":           []any{c.ReadinessProbe.HTTPGet.Protocol},
		"GRPCContainerProbeTLS":       c.LivenessProbe.GRPC.Mode,
		"VolumeBindMountOptions":      c.VolumeMounts[0].BindMountOptions,
	}
	if c.Lifecycle != nil {
		f["ContainerStopSignals"] = c.Lifecycle.StopSignal
		f["H2CContainerProbe"] = []any{c.ReadinessProbe.HTTPGet.Protocol, c.Lifecycle.PreStop.HTTPGet.Protocol}
	}
	return f
}

// setGatedPodFields reports which gates' fields of a pod spec are set.
func setGatedPodFields(s *corev1.PodSpec) []string {
	var set []string
	for gate, v := range gatedPodFields(s) {
		if vs, ok := v.([]any); ok {
			for _, v := range vs {
				if !empty(v) {
					set = append(set, gate)
					break
				}
			}
		} else if !empty(v) {
			set = append(set, gate)
		}
	}
	return set
}

// TestPodGatedFieldsDropped creates a pod and the workloads and templates
// holding a pod template, each with a field of every pod spec gate that is
// off by default in v1.37: kube-apiserver drops them all, and drops them
// again from an update that sends them (the pod spec as first sent) to an
// object without them.
func TestPodGatedFieldsDropped(t *testing.T) {
	indent := func(s, by string) string { return strings.ReplaceAll(s, "\n", "\n"+by) }
	template := `
  template:
    metadata: {labels: {app: gated}}
    spec:` + indent(gatedPodSpec, "    ")
	cases := []struct {
		obj  string
		spec func(runtime.Object) *corev1.PodSpec
	}{
		{obj: "apiVersion: v1\nkind: Pod\nmetadata: {name: gated-pod}\nspec:" + gatedPodSpec,
			spec: func(o runtime.Object) *corev1.PodSpec { return &o.(*corev1.Pod).Spec }},
		{obj: "apiVersion: v1\nkind: PodTemplate\nmetadata: {name: gated-podtemplate}" + strings.Replace(template, "\n  ", "\n", -1),
			spec: func(o runtime.Object) *corev1.PodSpec { return &o.(*corev1.PodTemplate).Template.Spec }},
		{obj: "apiVersion: v1\nkind: ReplicationController\nmetadata: {name: gated-rc}\nspec:\n  replicas: 0\n  selector: {app: gated}" + strings.Replace(template, "restartPolicy: Never", "restartPolicy: Always", 1),
			spec: func(o runtime.Object) *corev1.PodSpec { return &o.(*corev1.ReplicationController).Spec.Template.Spec }},
		{obj: "apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: gated-deployment}\nspec:\n  replicas: 0\n  selector: {matchLabels: {app: gated}}" + strings.Replace(template, "restartPolicy: Never", "restartPolicy: Always", 1),
			spec: func(o runtime.Object) *corev1.PodSpec { return &o.(*appsv1.Deployment).Spec.Template.Spec }},
		{obj: "apiVersion: batch/v1\nkind: Job\nmetadata: {name: gated-job}\nspec:\n  suspend: true" + template,
			spec: func(o runtime.Object) *corev1.PodSpec { return &o.(*batchv1.Job).Spec.Template.Spec }},
	}
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	if _, err := cs.CoreV1().Namespaces().Create(ctxT(t), nsObj("val-ref"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	run := func(t *testing.T, where string, cs kubernetes.Interface, ns string) {
		for _, tc := range cases {
			sent := decodeYAML(t, tc.obj)
			name := mustMeta(t, sent).GetName()
			t.Run(where+"/"+name, func(t *testing.T) {
				ctx := ctxT(t)
				if set := setGatedPodFields(tc.spec(sent)); len(set) != len(gatedPodFields(tc.spec(sent))) {
					t.Fatalf("the case sets only %v", set)
				}
				ops := typedOpsFor(t, cs, ns, sent)
				t.Cleanup(func() { cleanup(ops, name) })
				got, err := ops.create(ctx, sent.DeepCopyObject())
				if err != nil {
					t.Fatalf("create: %v", err)
				}
				if set := setGatedPodFields(tc.spec(got)); len(set) > 0 {
					t.Errorf("create kept the fields of %v", set)
				}
				if _, isPod := sent.(*corev1.Pod); isPod {
					return // a pod's spec is immutable but for a few fields
				}
				// The stored object, its pod spec as sent; made again on
				// a Conflict: the workload's controller may write its
				// status meanwhile.
				for range 10 {
					again := got.DeepCopyObject()
					*tc.spec(again) = *tc.spec(sent).DeepCopy()
					var written runtime.Object
					if written, err = ops.update(ctx, again); !apierrors.IsConflict(err) {
						got = written
						break
					}
					if got, err = ops.get(ctx, name); err != nil {
						t.Fatal(err)
					}
				}
				if err != nil {
					t.Fatalf("update: %v", err)
				}
				if set := setGatedPodFields(tc.spec(got)); len(set) > 0 {
					t.Errorf("update kept the fields of %v", set)
				}
			})
		}
	}
	run(t, "fakeplane", cs, "val-ref")
	if ref, ns := refCluster(t); ref != nil {
		run(t, "reference", ref, ns)
	}
}
