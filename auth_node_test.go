package fakeplane_test

import (
	"context"
	"testing"

	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// TestNodeAuthorizerAsKubeAPIServer runs --authorization-mode=Node,RBAC
// and checks what a kubelet (system:node:n1 in system:nodes) may read, with
// the answers kube-apiserver v1.37 gave on refplane to the same requests:
// the secret of a pod bound to its node but not another, once the pod is
// bound and no longer once it is gone; its own Node only; its pods by
// spec.nodeName; and a SelfSubjectAccessReview's reason.
func TestNodeAuthorizerAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithAuthorizationMode("Node,RBAC"))
	admin := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	nodeCfg, err := cp.AddUser("system:node:n1", "system:nodes")
	if err != nil {
		t.Fatal(err)
	}
	node := kubernetes.NewForConfigOrDie(nodeCfg)
	ctx := context.Background()
	for _, name := range []string{"s1", "s2"} {
		if _, err := admin.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	forbidden := func(err error, want string) {
		t.Helper()
		if !apierrors.IsForbidden(err) || err.Error() != want {
			t.Errorf("%v, want the Forbidden %q", err, want)
		}
	}
	const s1Forbidden = `secrets "s1" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": node: no relationship found between node 'n1' and this object`
	_, err = node.CoreV1().Secrets("default").Get(ctx, "s1", metav1.GetOptions{})
	forbidden(err, s1Forbidden)

	// Bound to n1 (a kubelet reads it at once, as from kube-apiserver's
	// graph, which follows the write).
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p1"}, Spec: corev1.PodSpec{NodeName: "n1",
		Containers: []corev1.Container{{Name: "c", Image: "nginx"}},
		Volumes:    []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s1"}}}}}}
	if _, err := admin.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := node.CoreV1().Secrets("default").Get(ctx, "s1", metav1.GetOptions{}); err != nil {
		t.Errorf("its pod's secret: %v", err)
	}
	// As a kubelet's secret manager reads it: a watch of it alone.
	if w, err := node.CoreV1().Secrets("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=s1"}); err != nil {
		t.Errorf("a watch of its pod's secret: %v", err)
	} else {
		w.Stop()
	}
	_, err = node.CoreV1().Secrets("default").Get(ctx, "s2", metav1.GetOptions{})
	forbidden(err, `secrets "s2" is forbidden: User "system:node:n1" cannot get resource "secrets" in API group "" in the namespace "default": node: no relationship found between node 'n1' and this object`)
	_, err = node.CoreV1().Secrets("default").List(ctx, metav1.ListOptions{})
	forbidden(err, `secrets is forbidden: User "system:node:n1" cannot list resource "secrets" in API group "" in the namespace "default": node: No Object name found`)
	_, err = node.CoreV1().Nodes().Get(ctx, "n2", metav1.GetOptions{})
	forbidden(err, `nodes "n2" is forbidden: User "system:node:n1" cannot get resource "nodes" in API group "" at the cluster scope: node: node 'n1' cannot read 'n2', only its own Node object`)
	if _, err := node.CoreV1().Nodes().Get(ctx, "n1", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("its own Node: %v, want NotFound (allowed, not there)", err)
	}
	if pods, err := node.CoreV1().Pods("").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=n1"}); err != nil || len(pods.Items) != 1 {
		t.Errorf("its pods: %v, %v", pods, err)
	}
	_, err = node.CoreV1().Pods("").List(ctx, metav1.ListOptions{})
	forbidden(err, `pods is forbidden: User "system:node:n1" cannot list resource "pods" in API group "" at the cluster scope: node: can only list/watch pods with spec.nodeName field selector`)
	_, err = node.AppsV1().Deployments("default").List(ctx, metav1.ListOptions{})
	forbidden(err, `deployments.apps is forbidden: User "system:node:n1" cannot list resource "deployments" in API group "apps" in the namespace "default"`)
	if _, err := node.CoreV1().Services("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("services, which the system:node rules grant: %v", err)
	}
	review, err := node.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "get", Resource: "secrets", Name: "s2"}}}, metav1.CreateOptions{})
	if err != nil || review.Status.Allowed || review.Status.Reason != "node: no relationship found between node 'n1' and this object" {
		t.Errorf("SelfSubjectAccessReview: %+v, %v", review, err)
	}

	grace := int64(0)
	if err := admin.CoreV1().Pods("default").Delete(ctx, "p1", metav1.DeleteOptions{GracePeriodSeconds: &grace}); err != nil {
		t.Fatal(err)
	}
	_, err = node.CoreV1().Secrets("default").Get(ctx, "s1", metav1.GetOptions{})
	forbidden(err, s1Forbidden)
}
