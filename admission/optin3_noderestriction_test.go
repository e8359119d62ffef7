package admission

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"net/http"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/utils/ptr"
)

var (
	nrtNode1 = &user.DefaultInfo{Name: "system:node:node1", Groups: []string{user.NodesGroup, user.AllAuthenticated}}
	nrtAlice = &user.DefaultInfo{Name: "alice", Groups: []string{user.AllAuthenticated}}

	nrtPodsGVR   = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	nrtNodesGVR  = schema.GroupVersionResource{Version: "v1", Resource: "nodes"}
	nrtPVCGVR    = schema.GroupVersionResource{Version: "v1", Resource: "persistentvolumeclaims"}
	nrtSAGVR     = schema.GroupVersionResource{Version: "v1", Resource: "serviceaccounts"}
	nrtLeaseGVR  = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}
	nrtCSINGVR   = schema.GroupVersionResource{Group: "storage.k8s.io", Version: "v1", Resource: "csinodes"}
	nrtSliceGVR  = schema.GroupVersionResource{Group: "resource.k8s.io", Version: "v1", Resource: "resourceslices"}
	nrtCSRGVR    = schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "certificatesigningrequests"}
	nrtPCRGVR    = schema.GroupVersionResource{Group: "certificates.k8s.io", Version: "v1", Resource: "podcertificaterequests"}
	nrtGVKByGVR  = map[schema.GroupVersionResource]string{nrtPodsGVR: "Pod", nrtNodesGVR: "Node", nrtPVCGVR: "PersistentVolumeClaim", nrtSAGVR: "ServiceAccount", nrtLeaseGVR: "Lease", nrtCSINGVR: "CSINode", nrtSliceGVR: "ResourceSlice", nrtCSRGVR: "CertificateSigningRequest", nrtPCRGVR: "PodCertificateRequest"}
	nrtEviction  = &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "ns"}}
	nrtNoOptions runtime.Object
)

// nrtReq is one request for the table tests.
type nrtReq struct {
	op       k8sadmission.Operation
	gvr      schema.GroupVersionResource
	sub      string
	ns, name string
	obj, old runtime.Object
	user     user.Info
}

func (r nrtReq) attrs() k8sadmission.Attributes {
	u := r.user
	if u == nil {
		u = nrtNode1
	}
	gvk := r.gvr.GroupVersion().WithKind(nrtGVKByGVR[r.gvr])
	return k8sadmission.NewAttributesRecord(r.obj, r.old, gvk, r.ns, r.name, r.gvr, r.sub, r.op, nrtNoOptions, false, u)
}

// nrtAuthz allows the "verb resource name" keys in allowed, fails with err
// when set.
type nrtAuthz struct {
	allowed map[string]bool
	err     error
}

func (z nrtAuthz) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	if z.allowed[a.GetVerb()+" "+a.GetNamespace()+" "+a.GetResource()+" "+a.GetName()] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "", z.err
}

// nrtLookups answer from a small fixed world: pods mine, theirs, mirror
// and csi in ns, node node1, service account ns/sa, claim ns/claim on pv1.
func nrtLookups() NodeRestrictionLookups {
	pods := map[string]*corev1.Pod{
		"ns/mine":   {ObjectMeta: metav1.ObjectMeta{Name: "mine", Namespace: "ns", UID: "pod-uid"}, Spec: corev1.PodSpec{NodeName: "node1", ServiceAccountName: "sa"}},
		"ns/theirs": {ObjectMeta: metav1.ObjectMeta{Name: "theirs", Namespace: "ns", UID: "theirs-uid"}, Spec: corev1.PodSpec{NodeName: "node2"}},
		"ns/mirror": {ObjectMeta: metav1.ObjectMeta{Name: "mirror", Namespace: "ns", UID: "mirror-uid", Annotations: map[string]string{corev1.MirrorPodAnnotationKey: "x"}}, Spec: corev1.PodSpec{NodeName: "node1"}},
		"ns/csi": {ObjectMeta: metav1.ObjectMeta{Name: "csi", Namespace: "ns", UID: "csi-uid"}, Spec: corev1.PodSpec{NodeName: "node1", Volumes: []corev1.Volume{
			{Name: "tok", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{Audience: "projected-aud"}}}}}},
			{Name: "missing", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "nope"}}},
			{Name: "claim", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "claim"}}},
			{Name: "inline", VolumeSource: corev1.VolumeSource{CSI: &corev1.CSIVolumeSource{Driver: "inline.csi"}}},
			{Name: "ebs", VolumeSource: corev1.VolumeSource{AWSElasticBlockStore: &corev1.AWSElasticBlockStoreVolumeSource{VolumeID: "vol-1"}}},
			{Name: "cert", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{PodCertificate: &corev1.PodCertificateProjection{SignerName: "example.com/mounted"}}}}}},
		}}},
	}
	drivers := map[string]*storagev1.CSIDriver{
		"pv.csi":          {Spec: storagev1.CSIDriverSpec{TokenRequests: []storagev1.TokenRequest{{Audience: "pv-aud"}}}},
		"inline.csi":      {Spec: storagev1.CSIDriverSpec{TokenRequests: []storagev1.TokenRequest{{Audience: "inline-aud"}}}},
		"ebs.csi.aws.com": {Spec: storagev1.CSIDriverSpec{TokenRequests: []storagev1.TokenRequest{{Audience: "ebs-aud"}}}},
	}
	return NodeRestrictionLookups{
		Pod: func(ns, name string) (*corev1.Pod, error) {
			if name == "broken" {
				return nil, errors.New("cache broken")
			}
			return pods[ns+"/"+name], nil
		},
		Node: func(name string) (*corev1.Node, error) {
			if name == "node1" {
				return &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "node1", UID: "node1-uid"}}, nil
			}
			return nil, apierrors.NewNotFound(schema.GroupResource{Resource: "nodes"}, name)
		},
		ServiceAccount: func(ns, name string) (*corev1.ServiceAccount, error) {
			if ns == "ns" && name == "sa" {
				return &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Name: "sa", Namespace: "ns", UID: "sa-uid"}}, nil
			}
			return nil, nil
		},
		PVC: func(ns, name string) (*corev1.PersistentVolumeClaim, error) {
			if ns == "ns" && name == "claim" {
				return &corev1.PersistentVolumeClaim{Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv1"}}, nil
			}
			return nil, nil
		},
		PV: func(name string) (*corev1.PersistentVolume, error) {
			if name == "pv1" {
				return &corev1.PersistentVolume{Spec: corev1.PersistentVolumeSpec{PersistentVolumeSource: corev1.PersistentVolumeSource{CSI: &corev1.CSIPersistentVolumeSource{Driver: "pv.csi"}}}}, nil
			}
			return nil, nil
		},
		CSIDriver: func(name string) (*storagev1.CSIDriver, error) { return drivers[name], nil },
		Authorizer: nrtAuthz{allowed: map[string]bool{
			"request-serviceaccounts-token-audience ns authorized-aud sa":                true,
			"request-serviceaccounts-podcertificate-signer ns example.com:authorized sa": true,
		}},
	}
}

type nrtCase struct {
	name string
	req  nrtReq
	// want is the whole error message ("" for none); code its HTTP
	// status (0: not an API status, or no error).
	want string
	code int32
}

func nrtRun(t *testing.T, cases []nrtCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := NodeRestrictionAdmit(context.Background(), tc.req.attrs(), nrtLookups())
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.want {
				t.Fatalf("error:\n got %q\nwant %q", got, tc.want)
			}
			var code int32
			// As kube-apiserver's responsewriters.ErrorToAPIStatus: only
			// an error that is itself an API status keeps its code.
			if status, ok := err.(apierrors.APIStatus); ok {
				code = status.Status().Code
			}
			if code != tc.code {
				t.Fatalf("status code %d, want %d", code, tc.code)
			}
		})
	}
}

func nrtMirrorPod(mutate func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{
			Name: "static", Namespace: "ns",
			Annotations:     map[string]string{corev1.MirrorPodAnnotationKey: "hash"},
			OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "node1", UID: "node1-uid", Controller: ptr.To(true)}},
		},
		Spec: corev1.PodSpec{NodeName: "node1", Containers: []corev1.Container{{Name: "c", Image: "i"}},
			Volumes: []corev1.Volume{{Name: "e", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{}}}}},
	}
	if mutate != nil {
		mutate(p)
	}
	return p
}

func nrtMirrorCreate(mutate func(*corev1.Pod)) nrtReq {
	return nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, ns: "ns", name: "static", obj: nrtMirrorPod(mutate)}
}

const nrtPodForbidden = `pods "static" is forbidden: `

func TestOptin3NodeRestrictionIdentity(t *testing.T) {
	for _, tc := range []struct {
		u      user.Info
		name   string
		isNode bool
	}{
		{nil, "", false},
		{nrtNode1, "node1", true},
		{&user.DefaultInfo{Name: "system:node:node1"}, "", false},
		{&user.DefaultInfo{Name: "node1", Groups: []string{user.NodesGroup}}, "", false},
		{&user.DefaultInfo{Name: "system:node:", Groups: []string{user.NodesGroup}}, "", true},
	} {
		name, isNode := NodeRestrictionNodeIdentity(tc.u)
		if name != tc.name || isNode != tc.isNode {
			t.Errorf("%v: got %q %v, want %q %v", tc.u, name, isNode, tc.name, tc.isNode)
		}
	}
}

func TestOptin3NodeRestrictionUsers(t *testing.T) {
	nrtRun(t, []nrtCase{
		{name: "not a node is left alone", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, ns: "ns", name: "p", obj: &corev1.Pod{}, user: nrtAlice}},
		{name: "node name without the group is left alone", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, ns: "ns", name: "p", obj: &corev1.Pod{}, user: &user.DefaultInfo{Name: "system:node:node1"}}},
		{name: "connect is left alone", req: nrtReq{op: k8sadmission.Connect, gvr: nrtPodsGVR, sub: "exec", ns: "ns", name: "theirs"}},
		{name: "empty node name", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, ns: "ns", name: "p", obj: &corev1.Pod{}, user: &user.DefaultInfo{Name: "system:node:", Groups: []string{user.NodesGroup}}},
			want: `pods "p" is forbidden: could not determine node from user "system:node:"`, code: http.StatusForbidden},
		{name: "other resources are left alone", req: nrtReq{op: k8sadmission.Create, gvr: schema.GroupVersionResource{Version: "v1", Resource: "secrets"}, ns: "ns", name: "s", obj: &corev1.Secret{}}},
	})
}

func TestOptin3NodeRestrictionMirrorPodCreate(t *testing.T) {
	secretVolume := corev1.Volume{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{SecretName: "s"}}}
	nrtRun(t, []nrtCase{
		{name: "allowed", req: nrtMirrorCreate(nil)},
		{name: "not a mirror pod", req: nrtMirrorCreate(func(p *corev1.Pod) { p.Annotations = nil }),
			want: nrtPodForbidden + `pod does not have "kubernetes.io/config.mirror" annotation, node "node1" can only create mirror pods`, code: 403},
		{name: "other node", req: nrtMirrorCreate(func(p *corev1.Pod) { p.Spec.NodeName = "node2" }),
			want: nrtPodForbidden + `node "node1" can only create pods with spec.nodeName set to itself`, code: 403},
		{name: "no owner", req: nrtMirrorCreate(func(p *corev1.Pod) { p.OwnerReferences = nil }),
			want: nrtPodForbidden + `node "node1" can only create pods with an owner reference set to itself`, code: 403},
		{name: "two owners", req: nrtMirrorCreate(func(p *corev1.Pod) { p.OwnerReferences = append(p.OwnerReferences, p.OwnerReferences[0]) }),
			want: nrtPodForbidden + `node "node1" can only create pods with a single owner reference set to itself`, code: 403},
		{name: "owner another node", req: nrtMirrorCreate(func(p *corev1.Pod) { p.OwnerReferences[0].Name = "node2" }),
			want: nrtPodForbidden + `node "node1" can only create pods with an owner reference set to itself`, code: 403},
		{name: "owner not a node", req: nrtMirrorCreate(func(p *corev1.Pod) { p.OwnerReferences[0].Kind = "Pod" }),
			want: nrtPodForbidden + `node "node1" can only create pods with an owner reference set to itself`, code: 403},
		{name: "owner not controller", req: nrtMirrorCreate(func(p *corev1.Pod) { p.OwnerReferences[0].Controller = nil }),
			want: nrtPodForbidden + `node "node1" can only create pods with a controller owner reference set to itself`, code: 403},
		{name: "blockOwnerDeletion", req: nrtMirrorCreate(func(p *corev1.Pod) { p.OwnerReferences[0].BlockOwnerDeletion = ptr.To(true) }),
			want: nrtPodForbidden + `node "node1" must not set blockOwnerDeletion on an owner reference`, code: 403},
		{name: "blockOwnerDeletion false is fine", req: nrtMirrorCreate(func(p *corev1.Pod) { p.OwnerReferences[0].BlockOwnerDeletion = ptr.To(false) })},
		{name: "owner uid mismatch", req: nrtMirrorCreate(func(p *corev1.Pod) { p.OwnerReferences[0].UID = "stale" }),
			want: nrtPodForbidden + `node node1 UID mismatch: expected stale got node1-uid`, code: 403},
		{name: "service account", req: nrtMirrorCreate(func(p *corev1.Pod) { p.Spec.ServiceAccountName = "sa" }),
			want: nrtPodForbidden + `node "node1" can not create pods that reference serviceaccounts`, code: 403},
		{name: "image pull secret", req: nrtMirrorCreate(func(p *corev1.Pod) { p.Spec.ImagePullSecrets = []corev1.LocalObjectReference{{Name: "pull"}} }),
			want: nrtPodForbidden + `node "node1" can not create pods that reference secrets`, code: 403},
		{name: "secret volume", req: nrtMirrorCreate(func(p *corev1.Pod) { p.Spec.Volumes = append(p.Spec.Volumes, secretVolume) }),
			want: nrtPodForbidden + `node "node1" can not create pods that reference secrets`, code: 403},
		{name: "secret volume without a name", req: nrtMirrorCreate(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "s", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{}}}}
		}),
			want: nrtPodForbidden + `node "node1" can not create pods that reference secrets (via secret volumes)`, code: 403},
		{name: "ephemeral container configmap env", req: nrtMirrorCreate(func(p *corev1.Pod) {
			p.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "e", EnvFrom: []corev1.EnvFromSource{{ConfigMapRef: &corev1.ConfigMapEnvSource{LocalObjectReference: corev1.LocalObjectReference{Name: "cm"}}}}}}}
		}), want: nrtPodForbidden + `node "node1" can not create pods that reference configmaps`, code: 403},
		{name: "resource claims", req: nrtMirrorCreate(func(p *corev1.Pod) { p.Spec.ResourceClaims = []corev1.PodResourceClaim{{Name: "c"}} }),
			want: nrtPodForbidden + `node "node1" can not create pods that reference resourceclaims`, code: 403},
		{name: "pvc volume", req: nrtMirrorCreate(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: "c"}}}}
		}), want: nrtPodForbidden + `node "node1" can not create pods that reference persistentvolumeclaims`, code: 403},
		{name: "projected token", req: nrtMirrorCreate(func(p *corev1.Pod) {
			p.Spec.Volumes = []corev1.Volume{{Name: "v", VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{Sources: []corev1.VolumeProjection{{DownwardAPI: &corev1.DownwardAPIProjection{}}, {ServiceAccountToken: &corev1.ServiceAccountTokenProjection{}}}}}}}
		}), want: nrtPodForbidden + `node "node1" can not create pods that reference serviceaccounts (via projected volumes)`, code: 403},
		{name: "unknown volume type", req: nrtMirrorCreate(func(p *corev1.Pod) { p.Spec.Volumes = []corev1.Volume{{Name: "v"}} }),
			want: nrtPodForbidden + `error checking mirror pod for API references: unknown volume type for volume  "v"`, code: 403},
		{name: "node object missing", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, ns: "ns", name: "static", user: &user.DefaultInfo{Name: "system:node:node9", Groups: []string{user.NodesGroup}},
			obj: nrtMirrorPod(func(p *corev1.Pod) { p.Spec.NodeName = "node9"; p.OwnerReferences[0].Name = "node9" })},
			want: `node "node9" not found`, code: 404},
		{name: "not a pod", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, ns: "ns", name: "static", obj: &corev1.Node{}},
			want: nrtPodForbidden + `unexpected type *v1.Node`, code: 403},
	})
}

func TestOptin3NodeRestrictionPodWrites(t *testing.T) {
	pod := func(node string, labels map[string]string) *corev1.Pod {
		return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", Labels: labels}, Spec: corev1.PodSpec{NodeName: node}}
	}
	claimed := pod("node1", nil)
	claimed.Status.ResourceClaimStatuses = []corev1.PodResourceClaimStatus{{Name: "c", ResourceClaimName: ptr.To("p-c")}}
	allocatable := pod("node1", nil)
	allocatable.Status.NodeAllocatableResourceClaimStatuses = []corev1.NodeAllocatableResourceClaimStatus{{ResourceClaimName: "c", Mapping: []corev1.NodeAllocatableMappedResources{{Name: "cpu", Quantity: ptr.To(resource.MustParse("1"))}}}}
	allocatable2 := allocatable.DeepCopy()
	allocatable2.Status.NodeAllocatableResourceClaimStatuses[0].Mapping[0].Quantity = ptr.To(resource.MustParse("1000m"))
	allocatable3 := allocatable.DeepCopy()
	allocatable3.Status.NodeAllocatableResourceClaimStatuses[0].Mapping[0].Quantity = ptr.To(resource.MustParse("2"))
	extended := pod("node1", nil)
	extended.Status.ExtendedResourceClaimStatus = &corev1.PodExtendedResourceClaimStatus{ResourceClaimName: "x"}
	status := func(old, obj *corev1.Pod) nrtReq {
		return nrtReq{op: k8sadmission.Update, gvr: nrtPodsGVR, sub: "status", ns: "ns", name: "p", obj: obj, old: old}
	}
	nrtRun(t, []nrtCase{
		{name: "delete own pod", req: nrtReq{op: k8sadmission.Delete, gvr: nrtPodsGVR, ns: "ns", name: "mine"}},
		{name: "delete other node's pod", req: nrtReq{op: k8sadmission.Delete, gvr: nrtPodsGVR, ns: "ns", name: "theirs"},
			want: `pods "theirs" is forbidden: node "node1" can only delete pods with spec.nodeName set to itself`, code: 403},
		{name: "delete missing pod", req: nrtReq{op: k8sadmission.Delete, gvr: nrtPodsGVR, ns: "ns", name: "gone"},
			want: `pod "gone" not found`, code: 404},
		{name: "delete with lookup error", req: nrtReq{op: k8sadmission.Delete, gvr: nrtPodsGVR, ns: "ns", name: "broken"},
			want: `pods "broken" is forbidden: cache broken`, code: 403},
		{name: "update pod", req: nrtReq{op: k8sadmission.Update, gvr: nrtPodsGVR, ns: "ns", name: "p", obj: pod("node1", nil), old: pod("node1", nil)},
			want: `pods "p" is forbidden: unexpected operation "UPDATE", node "node1" can only create and delete mirror pods`, code: 403},
		{name: "status of own pod", req: status(pod("node1", nil), pod("node1", nil))},
		{name: "status of other node's pod", req: status(pod("node2", nil), pod("node2", nil)),
			want: `pods "p" is forbidden: node "node1" can only update pod status for pods with spec.nodeName set to itself`, code: 403},
		{name: "status changing labels", req: status(pod("node1", nil), pod("node1", map[string]string{"a": "b"})),
			want: `pods "p" is forbidden: node "node1" cannot update labels through pod status`, code: 403},
		{name: "status changing claim statuses", req: status(pod("node1", nil), claimed),
			want: `pods "p" is forbidden: node "node1" cannot update resource claim statues`, code: 403},
		{name: "status changing extended claim status", req: status(extended, pod("node1", nil)),
			want: `pods "p" is forbidden: node "node1" cannot update extended resource claim status`, code: 403},
		{name: "status same allocatable quantity in another form", req: status(allocatable, allocatable2)},
		{name: "status changing allocatable claim statuses", req: status(allocatable, allocatable3),
			want: `pods "p" is forbidden: node "node1" cannot update node allocatable resource claim statuses`, code: 403},
		{name: "status create", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, sub: "status", ns: "ns", name: "p", obj: pod("node1", nil)},
			want: `pods "p" is forbidden: unexpected operation "CREATE"`, code: 403},
		{name: "evict own pod", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, sub: "eviction", ns: "ns", name: "mine", obj: nrtEviction}},
		{name: "evict own pod named by the eviction", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, sub: "eviction", ns: "ns", obj: nrtEviction}},
		{name: "evict unnamed", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, sub: "eviction", ns: "ns", obj: &policyv1.Eviction{}},
			want: `pods "Unknown" is forbidden: could not determine pod from request data`, code: 403},
		{name: "evict other node's pod", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, sub: "eviction", ns: "ns", name: "theirs", obj: nrtEviction},
			want: `pods "theirs" is forbidden: node node1 can only evict pods with spec.nodeName set to itself`, code: 403},
		{name: "evict missing pod", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, sub: "eviction", ns: "ns", name: "gone", obj: nrtEviction},
			want: `pod "gone" not found`, code: 404},
		{name: "eviction update", req: nrtReq{op: k8sadmission.Update, gvr: nrtPodsGVR, sub: "eviction", ns: "ns", name: "mine", obj: nrtEviction},
			want: `pods "mine" is forbidden: unexpected operation UPDATE`, code: 403},
		{name: "binding", req: nrtReq{op: k8sadmission.Create, gvr: nrtPodsGVR, sub: "binding", ns: "ns", name: "mine", obj: &corev1.Binding{}},
			want: `pods "mine" is forbidden: unexpected pod subresource "binding", only 'status' and 'eviction' are allowed`, code: 403},
		{name: "ephemeral containers", req: nrtReq{op: k8sadmission.Update, gvr: nrtPodsGVR, sub: "ephemeralcontainers", ns: "ns", name: "mine", obj: pod("node1", nil), old: pod("node1", nil)},
			want: `pods "mine" is forbidden: unexpected pod subresource "ephemeralcontainers", only 'status' and 'eviction' are allowed`, code: 403},
	})
}

func TestOptin3NodeRestrictionNodes(t *testing.T) {
	node := func(name string, labels map[string]string, mutate func(*corev1.Node)) *corev1.Node {
		n := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}
		if mutate != nil {
			mutate(n)
		}
		return n
	}
	update := func(old, obj *corev1.Node) nrtReq {
		return nrtReq{op: k8sadmission.Update, gvr: nrtNodesGVR, name: "node1", obj: obj, old: old}
	}
	allowed := map[string]string{
		"kubernetes.io/hostname": "h", "topology.kubernetes.io/zone": "z", "beta.kubernetes.io/arch": "amd64",
		"kubelet.kubernetes.io/x": "1", "foo.node.kubernetes.io/y": "2", "example.com/z": "3", "plain": "4",
	}
	taint := func(n *corev1.Node) { n.Spec.Taints = []corev1.Taint{{Key: "k", Effect: corev1.TaintEffectNoSchedule}} }
	config := func(n *corev1.Node) {
		n.Spec.ConfigSource = &corev1.NodeConfigSource{ConfigMap: &corev1.ConfigMapNodeConfigSource{Name: "c", Namespace: "kube-system", KubeletConfigKey: "k"}}
	}
	nrtRun(t, []nrtCase{
		{name: "create own node with allowed labels", req: nrtReq{op: k8sadmission.Create, gvr: nrtNodesGVR, name: "node1", obj: node("node1", allowed, nil)}},
		{name: "create other node", req: nrtReq{op: k8sadmission.Create, gvr: nrtNodesGVR, name: "node2", obj: node("node2", nil, nil)},
			want: `nodes "node2" is forbidden: node "node1" is not allowed to modify node "node2"`, code: 403},
		{name: "delete other node", req: nrtReq{op: k8sadmission.Delete, gvr: nrtNodesGVR, name: "node2"},
			want: `nodes "node2" is forbidden: node "node1" is not allowed to modify node "node2"`, code: 403},
		{name: "delete own node", req: nrtReq{op: k8sadmission.Delete, gvr: nrtNodesGVR, name: "node1"}},
		{name: "create with configSource", req: nrtReq{op: k8sadmission.Create, gvr: nrtNodesGVR, name: "node1", obj: node("node1", nil, config)},
			want: `nodes "node1" is forbidden: node "node1" is not allowed to create pods with a non-nil configSource`, code: 403},
		{name: "create with forbidden labels", req: nrtReq{op: k8sadmission.Create, gvr: nrtNodesGVR, name: "node1", obj: node("node1", map[string]string{
			"node-restriction.kubernetes.io/a": "", "x.node-restriction.kubernetes.io/b": "", "k8s.io/c": "", "foo.kubernetes.io/d": "", "node-role.kubernetes.io/master": "", "kubernetes.io/hostname": "h"}, nil)},
			want: `nodes "node1" is forbidden: node "node1" is not allowed to set the following labels: foo.kubernetes.io/d, k8s.io/c, node-restriction.kubernetes.io/a, node-role.kubernetes.io/master, x.node-restriction.kubernetes.io/b`, code: 403},
		{name: "status update keeping everything", req: nrtReq{op: k8sadmission.Update, gvr: nrtNodesGVR, sub: "status", name: "node1", obj: node("node1", allowed, taint), old: node("node1", allowed, taint)}},
		{name: "update changing allowed labels", req: update(node("node1", nil, nil), node("node1", allowed, nil))},
		{name: "update keeping a forbidden label", req: update(node("node1", map[string]string{"node-role.kubernetes.io/x": ""}, nil), node("node1", map[string]string{"node-role.kubernetes.io/x": ""}, nil))},
		{name: "update removing a forbidden label", req: update(node("node1", map[string]string{"node-role.kubernetes.io/x": ""}, nil), node("node1", nil, nil)),
			want: `nodes "node1" is forbidden: is not allowed to modify labels: node-role.kubernetes.io/x`, code: 403},
		{name: "update changing taints", req: update(node("node1", nil, nil), node("node1", nil, taint)),
			want: `nodes "node1" is forbidden: node "node1" is not allowed to modify taints`, code: 403},
		{name: "update setting a new configSource", req: update(node("node1", nil, nil), node("node1", nil, config)),
			want: `nodes "node1" is forbidden: node "node1" is not allowed to update configSource to a new non-nil configSource`, code: 403},
		{name: "update dropping configSource", req: update(node("node1", nil, config), node("node1", nil, nil))},
		{name: "update changing ownerReferences", req: update(node("node1", nil, nil), node("node1", nil, func(n *corev1.Node) {
			n.OwnerReferences = []metav1.OwnerReference{{APIVersion: "v1", Kind: "Node", Name: "x", UID: "u"}}
		})), want: `nodes "node1" is forbidden: node "node1" is not allowed to modify ownerReferences`, code: 403},
	})
}

func TestOptin3NodeRestrictionPVCStatus(t *testing.T) {
	pvc := func(mutate func(*corev1.PersistentVolumeClaim)) *corev1.PersistentVolumeClaim {
		p := &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Name: "c", Namespace: "ns", ResourceVersion: "1"}, Spec: corev1.PersistentVolumeClaimSpec{VolumeName: "pv1"}}
		if mutate != nil {
			mutate(p)
		}
		return p
	}
	status := func(old, obj *corev1.PersistentVolumeClaim) nrtReq {
		return nrtReq{op: k8sadmission.Update, gvr: nrtPVCGVR, sub: "status", ns: "ns", name: "c", obj: obj, old: old}
	}
	nrtRun(t, []nrtCase{
		{name: "capacity conditions and allocated resources", req: status(pvc(nil), pvc(func(p *corev1.PersistentVolumeClaim) {
			p.ResourceVersion = ""
			p.Status.Capacity = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}
			p.Status.Conditions = []corev1.PersistentVolumeClaimCondition{{Type: corev1.PersistentVolumeClaimResizing, Status: corev1.ConditionTrue}}
			p.Status.AllocatedResources = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("2Gi")}
			p.Status.AllocatedResourceStatuses = map[corev1.ResourceName]corev1.ClaimResourceStatus{corev1.ResourceStorage: corev1.PersistentVolumeClaimNodeResizePending}
		}))},
		{name: "phase", req: status(pvc(nil), pvc(func(p *corev1.PersistentVolumeClaim) { p.Status.Phase = corev1.ClaimBound })),
			want: `persistentvolumeclaims "c" is forbidden: node "node1" is not allowed to update fields other than status.quantity and status.conditions: @@ -16,7 +16,7 @@
   "VolumeAttributesClassName": null
  },
  "Status": {
-  "Phase": "",
+  "Phase": "Bound",
   "AccessModes": null,
   "Capacity": null,
   "Conditions": null,
`, code: 403},
		{name: "spec", req: status(pvc(nil), pvc(func(p *corev1.PersistentVolumeClaim) { p.Spec.VolumeName = "pv2" })),
			want: `persistentvolumeclaims "c" is forbidden: node "node1" is not allowed to update fields other than status.quantity and status.conditions: @@ -8,7 +8,7 @@
    "Limits": null,
    "Requests": null
   },
-  "VolumeName": "pv1",
+  "VolumeName": "pv2",
   "StorageClassName": null,
   "VolumeMode": null,
   "DataSource": null,
`, code: 403},
		{name: "update of the claim", req: nrtReq{op: k8sadmission.Update, gvr: nrtPVCGVR, ns: "ns", name: "c", obj: pvc(nil), old: pvc(nil)},
			want: `persistentvolumeclaims "c" is forbidden: may only update PVC status`, code: 403},
		{name: "create", req: nrtReq{op: k8sadmission.Create, gvr: nrtPVCGVR, ns: "ns", name: "c", obj: pvc(nil)},
			want: `persistentvolumeclaims "c" is forbidden: may only update PVC status`, code: 403},
	})
}

func TestOptin3NodeRestrictionServiceAccountToken(t *testing.T) {
	token := func(podName, uid string, audiences ...string) nrtReq {
		tr := &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{Audiences: audiences}}
		if podName != "" {
			tr.Spec.BoundObjectRef = &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Pod", Name: podName, UID: types.UID(uid)}
		}
		return nrtReq{op: k8sadmission.Create, gvr: nrtSAGVR, sub: "token", ns: "ns", name: "sa", obj: tr}
	}
	const forbidden = `serviceaccounts "sa" is forbidden: `
	nrtRun(t, []nrtCase{
		{name: "not a token request", req: nrtReq{op: k8sadmission.Create, gvr: nrtSAGVR, ns: "ns", name: "sa", obj: &corev1.ServiceAccount{}}},
		{name: "unbound", req: token("", ""), want: forbidden + `node requested token not bound to a pod`, code: 403},
		{name: "bound to a secret", req: nrtReq{op: k8sadmission.Create, gvr: nrtSAGVR, sub: "token", ns: "ns", name: "sa", obj: &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
			BoundObjectRef: &authenticationv1.BoundObjectReference{APIVersion: "v1", Kind: "Secret", Name: "s", UID: "u"}}}},
			want: forbidden + `node requested token not bound to a pod`, code: 403},
		{name: "no uid", req: token("mine", ""), want: forbidden + `node requested token with a pod binding without a uid`, code: 403},
		{name: "missing pod", req: token("gone", "u"), want: `pod "gone" not found`, code: 404},
		{name: "uid mismatch", req: token("mine", "old"),
			want: forbidden + `the UID in the bound object reference (old) does not match the UID in record. The object might have been deleted and then recreated`, code: 403},
		{name: "other node's pod", req: token("theirs", "theirs-uid"), want: forbidden + `node requested token bound to a pod scheduled on a different node`, code: 403},
		{name: "two audiences", req: token("mine", "pod-uid", "a", "b"), want: forbidden + `node may only request 0 or 1 audiences`, code: 403},
		{name: "default audience not used by the pod", req: token("mine", "pod-uid"),
			want: forbidden + `system:node:node1 is not authorized to request tokens for audience ""`, code: 403},
		{name: "authorized audience", req: token("mine", "pod-uid", "authorized-aud")},
		{name: "projected audience", req: token("csi", "csi-uid", "projected-aud")},
		{name: "audience of a PV's CSI driver", req: token("csi", "csi-uid", "pv-aud")},
		{name: "audience of an inline CSI driver", req: token("csi", "csi-uid", "inline-aud")},
		{name: "audience of a migrated in-tree volume", req: token("csi", "csi-uid", "ebs-aud")},
		{name: "unknown audience reports lookup errors", req: token("csi", "csi-uid", "other"),
			want: forbidden + `error validating audience "other": persistentvolumeclaim "nope" not found`, code: 403},
	})
}

func TestOptin3NodeRestrictionPodCertificateRequest(t *testing.T) {
	pcr := func(mutate func(*certificatesv1.PodCertificateRequestSpec)) nrtReq {
		s := certificatesv1.PodCertificateRequestSpec{SignerName: "example.com/mounted", PodName: "csi", PodUID: "csi-uid", ServiceAccountName: "", NodeName: "node1", NodeUID: "node1-uid"}
		if mutate != nil {
			mutate(&s)
		}
		return nrtReq{op: k8sadmission.Create, gvr: nrtPCRGVR, ns: "ns", name: "r", obj: &certificatesv1.PodCertificateRequest{Spec: s}}
	}
	mine := func(s *certificatesv1.PodCertificateRequestSpec) {
		s.PodName, s.PodUID, s.ServiceAccountName, s.ServiceAccountUID = "mine", "pod-uid", "sa", "sa-uid"
	}
	const forbidden = `podcertificaterequests.certificates.k8s.io "r" is forbidden: `
	nrtRun(t, []nrtCase{
		{name: "other node", req: pcr(func(s *certificatesv1.PodCertificateRequestSpec) { s.NodeName = "node2" }),
			want: forbidden + `PodCertificateRequest.Spec.NodeName="node2", which is not the requesting node "node1"`, code: 403},
		{name: "node uid mismatch", req: pcr(func(s *certificatesv1.PodCertificateRequestSpec) { s.NodeUID = "x" }),
			want: `PodCertificateRequest for pod "ns/csi" names node UID "x", inconsistent with the running node ("node1-uid")`},
		{name: "missing pod", req: pcr(func(s *certificatesv1.PodCertificateRequestSpec) { s.PodName = "gone" }),
			want: `while retrieving pod "ns/gone" named in the PodCertificateRequest: pod "gone" not found`},
		{name: "pod uid mismatch", req: pcr(func(s *certificatesv1.PodCertificateRequestSpec) { s.PodUID = "x" }),
			want: `PodCertificateRequest for pod "ns/csi" contains pod UID ("x") which differs from running pod "csi-uid"`},
		{name: "other node's pod", req: pcr(func(s *certificatesv1.PodCertificateRequestSpec) { s.PodName, s.PodUID = "theirs", "theirs-uid" }),
			want: forbidden + `pod "ns/theirs" is not running on node "node1" named in the PodCertificateRequest`, code: 403},
		{name: "mirror pod", req: pcr(func(s *certificatesv1.PodCertificateRequestSpec) { s.PodName, s.PodUID = "mirror", "mirror-uid" }),
			want: forbidden + `pod "ns/mirror" is a mirror pod`, code: 403},
		{name: "service account mismatch", req: pcr(func(s *certificatesv1.PodCertificateRequestSpec) { mine(s); s.ServiceAccountName = "other" }),
			want: forbidden + `PodCertificateRequest for pod "ns/mine" contains serviceAccountName ("other") that differs from running pod ("sa")`, code: 403},
		{name: "missing service account", req: pcr(nil),
			want: `while retrieving service account "ns/" named in the PodCertificateRequest: serviceaccount "" not found`},
		{name: "service account uid mismatch", req: pcr(func(s *certificatesv1.PodCertificateRequestSpec) { mine(s); s.ServiceAccountUID = "x" }),
			want: `PodCertificateRequest for pod "ns/mine" names service account UID "x", which differs from the running service account ("sa-uid")`},
		{name: "unauthorized signer", req: pcr(mine),
			want: forbidden + `pod "ns/mine" does not mount a podCertificate projected volume for signer "example.com/mounted"`, code: 403},
		{name: "authorized signer", req: pcr(func(s *certificatesv1.PodCertificateRequestSpec) { mine(s); s.SignerName = "example.com/authorized" })},
		{name: "update", req: nrtReq{op: k8sadmission.Update, gvr: nrtPCRGVR, ns: "ns", name: "r", obj: &certificatesv1.PodCertificateRequest{}, old: &certificatesv1.PodCertificateRequest{}},
			want: forbidden + `unexpected operation UPDATE`, code: 403},
		{name: "status", req: nrtReq{op: k8sadmission.Create, gvr: nrtPCRGVR, sub: "status", ns: "ns", name: "r", obj: &certificatesv1.PodCertificateRequest{}},
			want: forbidden + `unexpected subresource status`, code: 403},
	})
}

func TestOptin3NodeRestrictionLeasesCSINodesSlices(t *testing.T) {
	lease := func(name string) *coordinationv1.Lease {
		return &coordinationv1.Lease{ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: corev1.NamespaceNodeLease}}
	}
	slice := func(node *string) *resourcev1.ResourceSlice {
		return &resourcev1.ResourceSlice{ObjectMeta: metav1.ObjectMeta{Name: "s"}, Spec: resourcev1.ResourceSliceSpec{NodeName: node}}
	}
	csiNode := func(name string) *storagev1.CSINode {
		return &storagev1.CSINode{ObjectMeta: metav1.ObjectMeta{Name: name}}
	}
	nrtRun(t, []nrtCase{
		{name: "create own lease", req: nrtReq{op: k8sadmission.Create, gvr: nrtLeaseGVR, ns: corev1.NamespaceNodeLease, obj: lease("node1")}},
		{name: "create other lease", req: nrtReq{op: k8sadmission.Create, gvr: nrtLeaseGVR, ns: corev1.NamespaceNodeLease, name: "node2", obj: lease("node2")},
			want: `leases.coordination.k8s.io "node2" is forbidden: can only access node lease with the same name as the requesting node`, code: 403},
		{name: "update own lease", req: nrtReq{op: k8sadmission.Update, gvr: nrtLeaseGVR, ns: corev1.NamespaceNodeLease, name: "node1", obj: lease("node1"), old: lease("node1")}},
		{name: "delete other lease", req: nrtReq{op: k8sadmission.Delete, gvr: nrtLeaseGVR, ns: corev1.NamespaceNodeLease, name: "node2"},
			want: `leases.coordination.k8s.io "node2" is forbidden: can only access node lease with the same name as the requesting node`, code: 403},
		{name: "lease in another namespace", req: nrtReq{op: k8sadmission.Update, gvr: nrtLeaseGVR, ns: "default", name: "node1", obj: lease("node1"), old: lease("node1")},
			want: `leases.coordination.k8s.io "node1" is forbidden: can only access leases in the "kube-node-lease" system namespace`, code: 403},
		{name: "create own csinode", req: nrtReq{op: k8sadmission.Create, gvr: nrtCSINGVR, obj: csiNode("node1")}},
		{name: "update other csinode", req: nrtReq{op: k8sadmission.Update, gvr: nrtCSINGVR, name: "node2", obj: csiNode("node2"), old: csiNode("node2")},
			want: `csinodes.storage.k8s.io "node2" is forbidden: can only access CSINode with the same name as the requesting node`, code: 403},
		{name: "csinode status", req: nrtReq{op: k8sadmission.Update, gvr: nrtCSINGVR, sub: "status", name: "node1", obj: csiNode("node1"), old: csiNode("node1")},
			want: `csinodes.storage.k8s.io "node1" is forbidden: CSIVolumeHealth feature gate is disabled`, code: 403},
		{name: "create own slice", req: nrtReq{op: k8sadmission.Create, gvr: nrtSliceGVR, name: "s", obj: slice(ptr.To("node1"))}},
		{name: "create slice for other node", req: nrtReq{op: k8sadmission.Create, gvr: nrtSliceGVR, name: "s", obj: slice(ptr.To("node2"))},
			want: `resourceslices.resource.k8s.io "s" is forbidden: can only create ResourceSlice with the same NodeName as the requesting node`, code: 403},
		{name: "create slice without node", req: nrtReq{op: k8sadmission.Create, gvr: nrtSliceGVR, name: "s", obj: slice(nil)},
			want: `resourceslices.resource.k8s.io "s" is forbidden: can only create ResourceSlice with the same NodeName as the requesting node`, code: 403},
		{name: "delete slice of other node", req: nrtReq{op: k8sadmission.Delete, gvr: nrtSliceGVR, name: "s", old: slice(ptr.To("node2"))},
			want: `resourceslices.resource.k8s.io "s" is forbidden: can only delete ResourceSlice with the same NodeName as the requesting node`, code: 403},
		{name: "update slice of other node is the authorizer's", req: nrtReq{op: k8sadmission.Update, gvr: nrtSliceGVR, name: "s", obj: slice(ptr.To("node2")), old: slice(ptr.To("node2"))}},
	})
}

func nrtCSRPEM(t *testing.T, cn string) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: cn, Organization: []string{"system:nodes"}}}, key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
}

func TestOptin3NodeRestrictionCSR(t *testing.T) {
	csr := func(signer string, req []byte) nrtReq {
		return nrtReq{op: k8sadmission.Create, gvr: nrtCSRGVR, name: "csr", obj: &certificatesv1.CertificateSigningRequest{Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: signer, Request: req}}}
	}
	own, other := nrtCSRPEM(t, "system:node:node1"), nrtCSRPEM(t, "system:node:node2")
	const forbidden = `certificatesigningrequests.certificates.k8s.io "csr" is forbidden: `
	nrtRun(t, []nrtCase{
		{name: "serving for itself", req: csr(certificatesv1.KubeletServingSignerName, own)},
		{name: "client for itself", req: csr(certificatesv1.KubeAPIServerClientKubeletSignerName, own)},
		{name: "serving for another node", req: csr(certificatesv1.KubeletServingSignerName, other),
			want: forbidden + `can only create a node CSR with CN=system:node:node1`, code: 403},
		{name: "client for another node", req: csr(certificatesv1.KubeAPIServerClientKubeletSignerName, other),
			want: forbidden + `can only create a node CSR with CN=system:node:node1`, code: 403},
		{name: "unparsable", req: csr(certificatesv1.KubeletServingSignerName, []byte("junk")),
			want: forbidden + `unable to parse csr: PEM block type must be CERTIFICATE REQUEST`, code: 403},
		{name: "other signer", req: csr("example.com/x", other)},
	})
}

// The PVC status diff is upstream's, from its internal type's JSON.
func TestOptin3NodeRestrictionPVCDiffShape(t *testing.T) {
	pvc := &corev1.PersistentVolumeClaim{TypeMeta: metav1.TypeMeta{Kind: "PersistentVolumeClaim", APIVersion: "v1"}}
	pvc.Spec.Resources.Requests = corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")}
	d := nrPVCInternalJSON(nrPVCStatusComparable(pvc))
	if d.Kind != "" || d.Spec.Resources.Requests.Storage().String() != "1Gi" {
		t.Fatalf("unexpected %+v", d)
	}
	if strings.Contains(nrPVCStatusComparable(pvc).APIVersion, "v1") {
		t.Fatal("type meta kept")
	}
}
