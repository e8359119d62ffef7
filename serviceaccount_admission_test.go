package fakeplane_test

import (
	"context"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestServiceAccountAdmissionWaitsForTheDefaultServiceAccount checks what
// upstream's ServiceAccount admission plugin does when a new pod's
// ServiceAccount is "default" and not there yet: it looks again, up to ten
// times 100-200ms apart, so a pod created right after its namespace is
// admitted once the serviceaccount controller made the account; with that
// controller off the pod is refused, with upstream's message, after the
// last look.
func TestServiceAccountAdmissionWaitsForTheDefaultServiceAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("right after the namespace", func(t *testing.T) {
		t.Parallel()
		cs := kubernetesClient(t, fakeplane.Start(t))
		for i := range 5 {
			ns := fmt.Sprintf("fresh-%d", i)
			if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			pod, err := cs.CoreV1().Pods(ns).Create(ctx, testPod("p", nil), metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("pod created right after namespace %s: %v", ns, err)
			}
			if pod.Spec.ServiceAccountName != "default" {
				t.Errorf("serviceAccountName %q, want default", pod.Spec.ServiceAccountName)
			}
		}
	})
	t.Run("never made", func(t *testing.T) {
		t.Parallel()
		cs := kubernetesClient(t, fakeplane.Start(t, fakeplane.WithControllers("*", "-serviceaccount-controller")))
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bare"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err := cs.CoreV1().Pods("bare").Create(ctx, testPod("p", nil), metav1.CreateOptions{})
		want := `pods "p" is forbidden: error looking up service account bare/default: serviceaccount "default" not found`
		if !apierrors.IsForbidden(err) || err.Error() != want {
			t.Errorf("pod without its default ServiceAccount: %v, want 403 %q", err, want)
		}
	})
}
