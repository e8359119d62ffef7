package fakeplane_test

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	imagepolicyv1alpha1 "k8s.io/api/imagepolicy/v1alpha1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestAdmissionOwnerReferencesPermissionEnforcement: changing an
// object's ownerReferences needs delete permission on it (not on create),
// and blocking the owner's deletion needs update permission on its
// finalizers (messages recorded from kube-apiserver v1.37.2).
func TestAdmissionOwnerReferencesPermissionEnforcement(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape(), fakeplane.WithEnableAdmissionPlugins("OwnerReferencesPermissionEnforcement"))
	admin := kubernetesClient(t, cp)
	ctx := ctxT(t)
	owner, err := admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "owner"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for user, verbs := range map[string][]string{"writer": {"create", "get", "update"}, "deleter": {"create", "get", "update", "delete"}} {
		if _, err := admin.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: user},
			Rules: []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"configmaps"}, Verbs: verbs}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.RbacV1().RoleBindings("default").Create(ctx, &rbacv1.RoleBinding{ObjectMeta: metav1.ObjectMeta{Name: user},
			RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "Role", Name: user},
			Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "User", Name: user}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	ref := func(block bool) []metav1.OwnerReference {
		return []metav1.OwnerReference{{APIVersion: "v1", Kind: "ConfigMap", Name: owner.Name, UID: owner.UID, BlockOwnerDeletion: &block}}
	}
	for _, tc := range []struct {
		name, user, object string
		update             bool
		refs               []metav1.OwnerReference
		want               string
	}{
		{"create with an ownerReference", "writer", "created", false, ref(false), ""},
		{"update adding an ownerReference without delete permission", "writer", "updated", true, ref(false),
			`configmaps "updated" is forbidden: cannot set an ownerRef on a resource you can't delete: , <nil>`},
		{"update adding an ownerReference with delete permission", "deleter", "updated", true, ref(false), ""},
		{"blockOwnerDeletion without permission on the owner's finalizers", "deleter", "blocking", false, ref(true),
			`configmaps "blocking" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: , <nil>`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cms := userClient(t, cp, tc.user).CoreV1().ConfigMaps("default")
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: tc.object, OwnerReferences: tc.refs}}
			if tc.update {
				cur, err := admin.CoreV1().ConfigMaps("default").Get(ctx, tc.object, metav1.GetOptions{})
				if apierrors.IsNotFound(err) {
					cur, err = admin.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: tc.object}}, metav1.CreateOptions{})
				}
				if err != nil {
					t.Fatal(err)
				}
				cm = cur.DeepCopy()
				cm.OwnerReferences = tc.refs
				_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
				wantAdmission(t, "update", err, tc.want)
				return
			}
			_, err := cms.Create(ctx, cm, metav1.CreateOptions{})
			wantAdmission(t, "create", err, tc.want)
		})
	}
}

// TestAdmissionEventRateLimit: EventRateLimit answers 429 once a
// namespace's bucket is empty.
func TestAdmissionEventRateLimit(t *testing.T) {
	t.Parallel()
	config := writeTestFile(t, "admission.yaml", `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: EventRateLimit
  configuration:
    apiVersion: eventratelimit.admission.k8s.io/v1alpha1
    kind: Configuration
    limits:
    - type: Namespace
      qps: 1
      burst: 2
`)
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape(), fakeplane.WithEnableAdmissionPlugins("EventRateLimit"), fakeplane.WithAdmissionControlConfigFile(config))
	client := kubernetesClient(t, cp)
	ctx := ctxT(t)
	event := func(i int) *corev1.Event {
		return &corev1.Event{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("e%d", i)}, InvolvedObject: corev1.ObjectReference{Kind: "Pod", Namespace: "default", Name: "p"}, Reason: "Test", Message: "m"}
	}
	var limited error
	for i := range 10 {
		if _, err := client.CoreV1().Events("default").Create(ctx, event(i), metav1.CreateOptions{}); err != nil {
			limited = err
			break
		}
	}
	var status apierrors.APIStatus
	if !errors.As(limited, &status) || status.Status().Code != http.StatusTooManyRequests || status.Status().Message != "Too many requests: limit reached on type Namespace for key default" {
		t.Fatalf("events past the burst: %v, want 429 Too many requests: limit reached on type Namespace for key default", limited)
	}
	// Another namespace has its own bucket.
	other := event(99)
	other.Namespace, other.InvolvedObject.Namespace = "kube-system", "kube-system"
	if _, err := client.CoreV1().Events("kube-system").Create(ctx, other, metav1.CreateOptions{}); err != nil {
		t.Errorf("event in another namespace: %v", err)
	}
}

// TestAdmissionEventRateLimitNeedsAConfiguration: without one the start
// fails, as kube-apiserver's.
func TestAdmissionEventRateLimitNeedsAConfiguration(t *testing.T) {
	t.Parallel()
	cp, err := fakeplane.New(fakeplane.WithEnableAdmissionPlugins("EventRateLimit"))
	if err == nil {
		err = cp.Start(ctxT(t))
		_ = cp.Stop()
	}
	if err == nil || !strings.Contains(err.Error(), `couldn't init admission plugin "EventRateLimit"`) {
		t.Fatalf("start: %v, want the plugin's init error", err)
	}
}

// TestAdmissionImagePolicyWebhook: ImagePolicyWebhook asks its backend
// about a new pod's images and refuses what it denies.
func TestAdmissionImagePolicyWebhook(t *testing.T) {
	t.Parallel()
	var reviews atomic.Int32
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		reviews.Add(1)
		var review imagepolicyv1alpha1.ImageReview
		if err := json.NewDecoder(r.Body).Decode(&review); err != nil {
			http.Error(w, err.Error(), http.StatusBadRequest)
			return
		}
		review.Status.Allowed = true
		for _, c := range review.Spec.Containers {
			if strings.HasPrefix(c.Image, "evil/") {
				review.Status.Allowed, review.Status.Reason = false, c.Image+" is not allowed"
			}
		}
		_ = json.NewEncoder(w).Encode(review)
	}))
	t.Cleanup(srv.Close)
	kubeconfig := webhookKubeconfig(t, srv, "{}")
	config := writeTestFile(t, "admission.yaml", fmt.Sprintf(`apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: ImagePolicyWebhook
  configuration:
    imagePolicy:
      kubeConfigFile: %s
      allowTTL: 50
      denyTTL: 50
      retryBackoff: 500
      defaultAllow: false
`, kubeconfig))
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape(), fakeplane.WithEnableAdmissionPlugins("ImagePolicyWebhook"), fakeplane.WithAdmissionControlConfigFile(config))
	client := kubernetesClient(t, cp)
	ctx := ctxT(t)
	if _, err := client.CoreV1().Pods("default").Create(ctx, selectionPod("default", "good"), metav1.CreateOptions{}); err != nil {
		t.Errorf("allowed image: %v", err)
	}
	bad := selectionPod("default", "bad")
	bad.Spec.Containers[0].Image = "evil/miner"
	_, err := client.CoreV1().Pods("default").Create(ctx, bad, metav1.CreateOptions{})
	wantAdmission(t, "denied image", err, `pods "bad" is forbidden: image policy webhook backend denied one or more images: evil/miner is not allowed`)
	if n := reviews.Load(); n != 2 {
		t.Errorf("%d reviews, want 2", n)
	}
}

// TestAdmissionNodeRestriction: a node (system:node:<name> in
// system:nodes) may create only mirror pods, write only its own Node and
// not set node-restriction labels; other users are left alone (answers
// recorded from kube-apiserver v1.37.2, the node given cluster-admin so
// that only admission refuses).
func TestAdmissionNodeRestriction(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape(), fakeplane.WithEnableAdmissionPlugins("NodeRestriction"))
	admin := kubernetesClient(t, cp)
	ctx := ctxT(t)
	if _, err := admin.RbacV1().ClusterRoleBindings().Create(ctx, &rbacv1.ClusterRoleBinding{ObjectMeta: metav1.ObjectMeta{Name: "nodes-admin"},
		RoleRef:  rbacv1.RoleRef{APIGroup: rbacv1.GroupName, Kind: "ClusterRole", Name: "cluster-admin"},
		Subjects: []rbacv1.Subject{{APIGroup: rbacv1.GroupName, Kind: "Group", Name: "system:nodes"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := admin.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n2"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	n1 := userClient(t, cp, "system:node:n1", "system:nodes")
	_, err := n1.CoreV1().Pods("default").Create(ctx, selectionPod("default", "p6"), metav1.CreateOptions{})
	wantAdmission(t, "a pod that is not a mirror pod", err, `pods "p6" is forbidden: pod does not have "kubernetes.io/config.mirror" annotation, node "n1" can only create mirror pods`)
	n2, err := admin.CoreV1().Nodes().Get(ctx, "n2", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	n2.Labels = map[string]string{"a": "b"}
	_, err = n1.CoreV1().Nodes().Update(ctx, n2, metav1.UpdateOptions{})
	wantAdmission(t, "another node", err, `nodes "n2" is forbidden: node "n1" is not allowed to modify node "n2"`)
	_, err = userClient(t, cp, "system:node:n3", "system:nodes").CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n3",
		Labels: map[string]string{"node-restriction.kubernetes.io/pool": "a", "kubernetes.io/hostname": "n3"}}}, metav1.CreateOptions{})
	wantAdmission(t, "a node-restriction label", err, `nodes "n3" is forbidden: node "n3" is not allowed to set the following labels: node-restriction.kubernetes.io/pool`)
	own, err := n1.CoreV1().Nodes().Create(ctx, &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"kubernetes.io/hostname": "n1"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("its own node: %v", err)
	}
	if len(own.Spec.Taints) != 1 || own.Spec.Taints[0].Key != corev1.TaintNodeNotReady {
		t.Errorf("its own node's taints %v, want the not-ready one", own.Spec.Taints)
	}
	if err := n1.CoreV1().Pods("default").Delete(ctx, "nothere", metav1.DeleteOptions{}); !apierrors.IsNotFound(err) || err.Error() != `pods "nothere" not found` {
		t.Errorf("delete of a missing pod: %v, want 404", err)
	}
	if _, err := n1.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "x"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("a ConfigMap, which the plugin leaves alone: %v", err)
	}
	// Other users are left alone.
	if _, err := admin.CoreV1().Pods("default").Create(ctx, selectionPod("default", "p7"), metav1.CreateOptions{}); err != nil {
		t.Errorf("the admin's pod: %v", err)
	}
}
