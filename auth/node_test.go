package auth

import (
	"context"
	"encoding/json"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/utils/ptr"
)

// observeJSON tells g of obj's commit at key in bucket as the store has
// it (JSON, no Go object), or of its deletion.
func observeJSON(t *testing.T, g *NodeGraph, bucket, key string, obj runtime.Object, deleted bool) {
	t.Helper()
	data, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	g.Observe(bucket, key, nil, data, deleted)
}

// nodeTestGraph is a graph of two nodes' objects: n1 runs p1 (which refers
// to a ServiceAccount, Secrets, a ConfigMap, a claim, an ephemeral
// volume's claim and a ResourceClaim) and a mirror pod; n2 runs p2; p3 is
// not scheduled. pv1 is bound to p1's claim.
func nodeTestGraph(t *testing.T) *NodeGraph {
	t.Helper()
	g := NewNodeGraph()
	p1 := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p1"}, Spec: corev1.PodSpec{
		NodeName: "n1", ServiceAccountName: "sa1", ImagePullSecrets: []corev1.LocalObjectReference{{Name: "pull"}},
		Containers: []corev1.Container{{Name: "c", Env: []corev1.EnvVar{{Name: "E", ValueFrom: &corev1.EnvVarSource{ConfigMapKeyRef: &corev1.ConfigMapKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "c1"}, Key: "k"}}}}}},
		Volumes: []corev1.Volume{
			{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s1"}}},
			{Name: "data", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "claim1"}}},
			{Name: "eph", VolumeSource: corev1.VolumeSource{Ephemeral: &corev1.EphemeralVolumeSource{}}},
		},
		ResourceClaims: []corev1.PodResourceClaim{{Name: "gpu", ResourceClaimName: ptr.To("rc1")}},
	}}
	mirror := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "mirror", Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"}}, Spec: corev1.PodSpec{
		NodeName: "n1", Volumes: []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s-mirror"}}}}}}
	p2 := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p2"}, Spec: corev1.PodSpec{
		NodeName: "n2", Volumes: []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s2"}}}}}}
	p3 := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p3"}, Spec: corev1.PodSpec{
		Volumes: []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s3"}}}}}}
	for _, p := range []*corev1.Pod{p1, mirror, p2, p3} {
		observeJSON(t, g, bucketPods, p.Namespace+"/"+p.Name, p, false)
	}
	pv := &corev1.PersistentVolume{ObjectMeta: metav1.ObjectMeta{Name: "pv1"}, Spec: corev1.PersistentVolumeSpec{
		ClaimRef: &corev1.ObjectReference{Namespace: "default", Name: "claim1"},
		PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "d", VolumeHandle: "h",
			NodePublishSecretRef:       &corev1.SecretReference{Namespace: "kube-system", Name: "csi-secret"},
			ControllerPublishSecretRef: &corev1.SecretReference{Namespace: "kube-system", Name: "ctrl-secret"}}}}}
	observeJSON(t, g, bucketPersistentVolumes, "pv1", pv, false)
	observeJSON(t, g, bucketVolumeAttachments, "va1", &storagev1.VolumeAttachment{ObjectMeta: metav1.ObjectMeta{Name: "va1"}, Spec: storagev1.VolumeAttachmentSpec{NodeName: "n1"}}, false)
	observeJSON(t, g, bucketResourceSlices, "slice1", &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "slice1"}, Spec: resourcev1.ResourceSliceSpec{NodeName: ptr.To("n1")}}, false)
	observeJSON(t, g, bucketPodCertificateRequests, "default/pcr1", &certificatesv1.PodCertificateRequest{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "pcr1"}, Spec: certificatesv1.PodCertificateRequestSpec{NodeName: "n1"}}, false)
	return g
}

// nodeRequest is a resource request of node n1.
func nodeRequest(verb, group, resource, subresource, namespace, name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{User: &user.DefaultInfo{Name: "system:node:n1", Groups: []string{user.NodesGroup, user.AllAuthenticated}},
		Verb: verb, APIGroup: group, Resource: resource, Subresource: subresource, Namespace: namespace, Name: name, ResourceRequest: true}
}

// onNode is a with a field selector spec.nodeName=node.
func onNode(a authorizer.AttributesRecord, node string) authorizer.AttributesRecord {
	a.FieldSelectorRequirements = fields.Requirements{{Operator: selection.Equals, Field: "spec.nodeName", Value: node}}
	return a
}

// TestNodeAuthorizerDecidesAsKubeAPIServers checks each of the Node
// authorizer's rules, with upstream's reasons, over nodeTestGraph.
func TestNodeAuthorizerDecidesAsKubeAPIServers(t *testing.T) {
	r := NewNodeAuthorizer(nodeTestGraph(t), []rbacv1.PolicyRule{{APIGroups: []string{""}, Resources: []string{"services"}, Verbs: []string{"get", "list", "watch"}}})
	const none = "no relationship found between node 'n1' and this object"
	for _, tc := range []struct {
		name   string
		attrs  authorizer.AttributesRecord
		allow  bool
		reason string
	}{
		{"a secret of its pod's volume", nodeRequest("get", "", "secrets", "", "default", "s1"), true, ""},
		{"its pod's image pull secret, watched by name", nodeRequest("watch", "", "secrets", "", "default", "pull"), true, ""},
		{"secrets listed", nodeRequest("list", "", "secrets", "", "default", ""), false, "No Object name found"},
		{"another node's pod's secret", nodeRequest("get", "", "secrets", "", "default", "s2"), false, none},
		{"an unscheduled pod's secret", nodeRequest("get", "", "secrets", "", "default", "s3"), false, none},
		{"a mirror pod's secret", nodeRequest("get", "", "secrets", "", "default", "s-mirror"), false, none},
		{"its secret in another namespace", nodeRequest("get", "", "secrets", "", "other", "s1"), false, none},
		{"a secret created", nodeRequest("create", "", "secrets", "", "default", "s1"), false, "can only read resources of this type"},
		{"a secret across namespaces", nodeRequest("get", "", "secrets", "", "", "s1"), false, "can only read namespaced object of this type"},
		{"its volume's node publish secret", nodeRequest("get", "", "secrets", "", "kube-system", "csi-secret"), true, ""},
		{"its volume's controller secret", nodeRequest("get", "", "secrets", "", "kube-system", "ctrl-secret"), false, none},
		{"its pod's configmap", nodeRequest("get", "", "configmaps", "", "default", "c1"), true, ""},
		{"its pod's claim", nodeRequest("get", "", "persistentvolumeclaims", "", "default", "claim1"), true, ""},
		{"its pod's ephemeral volume's claim", nodeRequest("get", "", "persistentvolumeclaims", "", "default", "p1-eph"), true, ""},
		{"its claim's status updated", nodeRequest("update", "", "persistentvolumeclaims", "status", "default", "claim1"), true, ""},
		{"a claim's status read", nodeRequest("get", "", "persistentvolumeclaims", "status", "default", "claim1"), false, "can only get/update/patch this type"},
		{"claims listed", nodeRequest("list", "", "persistentvolumeclaims", "", "default", ""), false, "can only get individual resources of this type"},
		{"its claim's volume", nodeRequest("get", "", "persistentvolumes", "", "", "pv1"), true, ""},
		{"its pod's ResourceClaim", nodeRequest("get", "resource.k8s.io", "resourceclaims", "", "default", "rc1"), true, ""},
		{"its VolumeAttachment", nodeRequest("get", "storage.k8s.io", "volumeattachments", "", "", "va1"), true, ""},
		{"its pod's ServiceAccount", nodeRequest("get", "", "serviceaccounts", "", "default", "sa1"), true, ""},
		{"a token of its pod's ServiceAccount", nodeRequest("create", "", "serviceaccounts", "token", "default", "sa1"), true, ""},
		{"a token of another ServiceAccount", nodeRequest("create", "", "serviceaccounts", "token", "default", "default"), false, none},
		{"a ServiceAccount created", nodeRequest("create", "", "serviceaccounts", "", "default", "sa1"), false, "can only create token subresource of serviceaccount"},
		{"ServiceAccounts listed", nodeRequest("list", "", "serviceaccounts", "", "default", ""), false, "can only create tokens for individual service accounts"},
		{"its Lease", nodeRequest("update", "coordination.k8s.io", "leases", "", "kube-node-lease", "n1"), true, ""},
		{"another node's Lease", nodeRequest("get", "coordination.k8s.io", "leases", "", "kube-node-lease", "n2"), false, "can only access node lease with the same name as the requesting node"},
		{"a Lease elsewhere", nodeRequest("create", "coordination.k8s.io", "leases", "", "default", "n1"), false, `can only access leases in the "kube-node-lease" system namespace`},
		{"Leases listed", nodeRequest("list", "coordination.k8s.io", "leases", "", "kube-node-lease", ""), false, "can only get, create, update, patch, or delete a node lease"},
		{"its CSINode", nodeRequest("patch", "storage.k8s.io", "csinodes", "", "", "n1"), true, ""},
		{"another CSINode", nodeRequest("get", "storage.k8s.io", "csinodes", "", "", "n2"), false, "can only access CSINode with the same name as the requesting node"},
		{"a CSINode's status", nodeRequest("get", "storage.k8s.io", "csinodes", "status", "", "n1"), false, "CSINode status access requires CSIVolumeHealth feature"},
		{"its Node", nodeRequest("get", "", "nodes", "", "", "n1"), true, ""},
		{"another Node", nodeRequest("get", "", "nodes", "", "", "n2"), false, "node 'n1' cannot read 'n2', only its own Node object"},
		{"Nodes listed", nodeRequest("list", "", "nodes", "", "", ""), false, "node 'n1' cannot read all nodes, only its own Node object"},
		{"a Node's status patched", nodeRequest("patch", "", "nodes", "status", "", "n2"), true, ""},
		{"a Node deleted", nodeRequest("delete", "", "nodes", "", "", "n1"), false, ""},
		{"its pod", nodeRequest("get", "", "pods", "", "default", "p1"), true, ""},
		{"another node's pod", nodeRequest("get", "", "pods", "", "default", "p2"), false, none},
		{"its pods listed by node", onNode(nodeRequest("list", "", "pods", "", "", ""), "n1"), true, ""},
		{"another node's pods listed", onNode(nodeRequest("watch", "", "pods", "", "", ""), "n2"), false, "can only list/watch pods with spec.nodeName field selector"},
		{"a mirror pod created", nodeRequest("create", "", "pods", "", "default", "m"), true, ""},
		{"a pod evicted", nodeRequest("create", "", "pods", "eviction", "default", "p2"), true, ""},
		{"a pod's status updated", nodeRequest("update", "", "pods", "status", "default", "p2"), true, ""},
		{"a pod's binding", nodeRequest("create", "", "pods", "binding", "default", "p1"), false, ""},
		{"its ResourceSlices listed", onNode(nodeRequest("list", "resource.k8s.io", "resourceslices", "", "", ""), "n1"), true, ""},
		{"ResourceSlices listed", nodeRequest("list", "resource.k8s.io", "resourceslices", "", "", ""), false, "can only list/watch/deletecollection resourceslices with nodeName field selector"},
		{"its ResourceSlice", nodeRequest("delete", "resource.k8s.io", "resourceslices", "", "", "slice1"), true, ""},
		{"its PodCertificateRequest", nodeRequest("get", "certificates.k8s.io", "podcertificaterequests", "", "default", "pcr1"), true, ""},
		{"a PodCertificateRequest deleted", nodeRequest("delete", "certificates.k8s.io", "podcertificaterequests", "", "default", "pcr1"), false, "nodes may not delete podcertificaterequests"},
		{"a resource by the node rules", nodeRequest("get", "", "services", "", "default", "kubernetes"), true, ""},
		{"a resource no rule grants", nodeRequest("get", "apps", "deployments", "", "default", "d"), false, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			d, reason, err := r.Authorize(context.Background(), tc.attrs)
			if err != nil {
				t.Fatal(err)
			}
			if (d == authorizer.DecisionAllow) != tc.allow || reason != tc.reason {
				t.Errorf("decision %v, reason %q; want allow=%v, reason %q", d, reason, tc.allow, tc.reason)
			}
			if !tc.allow && d != authorizer.DecisionNoOpinion {
				t.Errorf("decision %v, want no opinion (for the next authorizer)", d)
			}
		})
	}
}

// TestNodeAuthorizerKnowsOnlyNodes checks who is a node: a user named
// system:node:NAME in the group system:nodes.
func TestNodeAuthorizerKnowsOnlyNodes(t *testing.T) {
	r := NewNodeAuthorizer(nodeTestGraph(t), nil)
	for _, tc := range []struct {
		name   string
		u      user.Info
		reason string
	}{
		{"not a node", &user.DefaultInfo{Name: "alice", Groups: []string{user.NodesGroup}}, ""},
		{"a node's name outside system:nodes", &user.DefaultInfo{Name: "system:node:n1"}, ""},
		{"a node without a name", &user.DefaultInfo{Name: "system:node:", Groups: []string{user.NodesGroup}}, `unknown node for user "system:node:"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := nodeRequest("get", "", "secrets", "", "default", "s1")
			a.User = tc.u
			d, reason, err := r.Authorize(context.Background(), a)
			if err != nil || d != authorizer.DecisionNoOpinion || reason != tc.reason {
				t.Errorf("decision %v, reason %q, %v; want no opinion, %q", d, reason, err, tc.reason)
			}
		})
	}
	_, _, incomplete, err := r.RulesFor(context.Background(), &user.DefaultInfo{Name: "system:node:n1", Groups: []string{user.NodesGroup}}, "default")
	if !incomplete || err == nil || err.Error() != "node authorizer does not support user rule resolution" {
		t.Errorf("a node's rules: incomplete %v, %v; want incomplete with upstream's error", incomplete, err)
	}
}

// TestNodeGraphFollowsCommits checks that the graph follows pods as they
// are bound, changed and deleted, and objects given in their Go type.
func TestNodeGraphFollowsCommits(t *testing.T) {
	g := nodeTestGraph(t)
	p3 := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: "default", Name: "p3"}, Spec: corev1.PodSpec{NodeName: "n1",
		Volumes: []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s3"}}}}}}
	g.Observe(bucketPods, "default/p3", p3, nil, false)
	if !g.related("n1", nodeKindSecret, "default", "s3") {
		t.Error("a pod bound to n1: its secret is not related to n1")
	}
	observeJSON(t, g, bucketPods, "default/p1", &corev1.Pod{}, true)
	for _, ref := range [][2]string{{nodeKindSecret, "s1"}, {nodeKindPVC, "claim1"}, {nodeKindPod, "p1"}} {
		if g.related("n1", ref[0], "default", ref[1]) {
			t.Errorf("p1 deleted: %s %s still related to n1", ref[0], ref[1])
		}
	}
	if g.related("n1", nodeKindPV, "", "pv1") || g.related("n1", nodeKindSecret, "kube-system", "csi-secret") {
		t.Error("p1 deleted: its claim's volume, or the volume's secret, still related to n1")
	}
	observeJSON(t, g, bucketVolumeAttachments, "va1", &storagev1.VolumeAttachment{}, true)
	if g.related("n1", nodeKindVolumeAttachment, "", "va1") {
		t.Error("a deleted VolumeAttachment is still related")
	}
}
