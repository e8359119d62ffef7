package fakeplane_test

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// TestStatusWritesSetMetadataWhereUpstreamDoes: a write to a Deployment's
// /status sets the annotations it carries but not its labels, and a write
// to a Pod's /status keeps its owner references, as upstream's status
// strategies do (controller-runtime's "StatusClient with metadata objects
// should patch status" spec relies on the first).
func TestStatusWritesSetMetadataWhereUpstreamDoes(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cs := clientset(t, cp)
	labels := map[string]string{"app": "web"}
	dep, err := cs.AppsV1().Deployments("default").Create(ctx, &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Labels: labels},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := cs.AppsV1().Deployments("default").Patch(ctx, dep.Name, types.MergePatchType,
		[]byte(`{"metadata":{"annotations":{"note":"x"},"labels":{"app":"other"}},"spec":{"replicas":5},"status":{"observedGeneration":1}}`), metav1.PatchOptions{}, "status")
	if err != nil {
		t.Fatal(err)
	}
	if got.Annotations["note"] != "x" || got.Labels["app"] != "web" || *got.Spec.Replicas != 1 || got.Status.ObservedGeneration != 1 {
		t.Errorf("after a /status patch: annotations %v labels %v replicas %d observedGeneration %d; want note=x, app=web, 1, 1",
			got.Annotations, got.Labels, *got.Spec.Replicas, got.Status.ObservedGeneration)
	}

	pod, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: "owner", UID: "1234"}}
	pod.Annotations = map[string]string{"note": "y"}
	pod.Status.Message = "hello"
	updated, err := cs.CoreV1().Pods("default").UpdateStatus(ctx, pod, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(updated.OwnerReferences) != 0 || updated.Annotations["note"] != "y" || updated.Status.Message != "hello" {
		t.Errorf("after a pod /status update: ownerReferences %v annotations %v message %q", updated.OwnerReferences, updated.Annotations, updated.Status.Message)
	}
}
