package fakeplane_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// withClaim mounts a PersistentVolumeClaim in a pod.
func withClaim(p *corev1.Pod, claim string) *corev1.Pod {
	p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim}}})
	return p
}

func claim(name, volume string) *corev1.PersistentVolumeClaim {
	c := &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes: []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:   corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}},
			VolumeName:  volume,
		},
	}
	if volume != "" {
		c.Annotations = map[string]string{"pv.kubernetes.io/bind-completed": "yes"}
	}
	return c
}

// TestPodsWaitForTheirClaims covers VolumeBinding's PreFilter and Filter
// (messages from upstream source, v1.37.2): a missing claim, an unbound
// one, and a bound one whose volume only one node can reach.
func TestPodsWaitForTheirClaims(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithNodes(2))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()
	if _, err := client.CoreV1().Pods("default").Create(ctx, withClaim(pausePod("db", "", ""), "data"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitMessage := func(want string) {
		t.Helper()
		waitPod(t, client, "db", func(p *corev1.Pod) bool { c := scheduledCondition(p); return c != nil && c.Message == want })
	}
	// VolumeBinding rejects in PreFilter, so kube-scheduler's
	// DynamicResources PostFilter fails with "not found" before preemption
	// is tried, as refplane's kube-scheduler v1.37.2 reports it.
	waitMessage(`0/2 nodes are available: persistentvolumeclaim "data" not found. not found`)
	// The claim appears, unbound, with no class: it binds immediately, so
	// the pod waits for it to be bound.
	// A class nobody provisions: the claim stays unbound (the default class,
	// standard, would wait for the pod and be provisioned).
	unprovisioned := claim("data", "")
	unprovisioned.Spec.StorageClassName = ptr.To("unprovisioned")
	if _, err := client.CoreV1().PersistentVolumeClaims("default").Create(ctx, unprovisioned, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitMessage("0/2 nodes are available: pod has unbound immediate PersistentVolumeClaims. not found")

	// A claim bound to a volume that only node-1 reaches.
	pv := &corev1.PersistentVolume{
		ObjectMeta: metav1.ObjectMeta{Name: "local-1"},
		Spec: corev1.PersistentVolumeSpec{
			Capacity:               corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
			AccessModes:            []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			PersistentVolumeSource: corev1.PersistentVolumeSource{Local: &corev1.LocalVolumeSource{Path: "/mnt/disk"}},
			NodeAffinity: &corev1.VolumeNodeAffinity{Required: &corev1.NodeSelector{NodeSelectorTerms: []corev1.NodeSelectorTerm{{
				MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelHostname, Operator: corev1.NodeSelectorOpIn, Values: []string{"node-1"}}},
			}}}},
		},
	}
	if _, err := client.CoreV1().PersistentVolumes().Create(ctx, pv, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().PersistentVolumeClaims("default").Create(ctx, claim("local", "local-1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 3; i++ {
		name := "local-user-" + string(rune('a'+i))
		if _, err := client.CoreV1().Pods("default").Create(ctx, withClaim(pausePod(name, "", ""), "local"), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if p := waitPod(t, client, name, func(p *corev1.Pod) bool { return p.Spec.NodeName != "" }); p.Spec.NodeName != "node-1" {
			t.Errorf("%s bound to %s, want node-1, the volume's node", name, p.Spec.NodeName)
		}
	}
}
