package admission

import (
	"context"
	"fmt"
	"net/http"
	"reflect"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/utils/ptr"
)

// optin2Authz allows the records whose optin2AuthzKey is in allowed and
// remembers every key it was asked about.
type optin2Authz struct {
	allowed map[string]bool
	asked   []string
}

func optin2AuthzKey(a authorizer.Attributes) string {
	return fmt.Sprintf("%s %s %s/%s %s/%s %s", a.GetVerb(), a.GetNamespace(), a.GetAPIGroup(), a.GetAPIVersion(), a.GetResource(), a.GetSubresource(), a.GetName())
}

func (z *optin2Authz) Authorize(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
	k := optin2AuthzKey(a)
	z.asked = append(z.asked, k)
	if a.GetUser() == nil || a.GetUser().GetName() != "alice" || !a.IsResourceRequest() {
		return authorizer.DecisionDeny, "bad attributes", nil
	}
	if z.allowed[k] {
		return authorizer.DecisionAllow, "", nil
	}
	return authorizer.DecisionNoOpinion, "no rule", nil
}

func optin2Mapper() meta.RESTMapper {
	m := meta.NewDefaultRESTMapper(nil)
	m.Add(schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "ReplicaSet"}, meta.RESTScopeNamespace)
	m.Add(schema.GroupVersionKind{Version: "v1", Kind: "Node"}, meta.RESTScopeRoot)
	return m
}

// optin2MultiMappings maps example.com/v1 Widget to two resources, as a
// kind served by two resources maps.
func optin2MultiMappings(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error) {
	if gk == (schema.GroupKind{Group: "example.com", Kind: "Widget"}) {
		gvk := gk.WithVersion("v1")
		return []*meta.RESTMapping{
			{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}, GroupVersionKind: gvk, Scope: meta.RESTScopeNamespace},
			{Resource: schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "gadgets"}, GroupVersionKind: gvk, Scope: meta.RESTScopeRoot},
		}, nil
	}
	return optin2Mapper().RESTMappings(gk, versions...)
}

func optin2OwnedPod(refs ...metav1.OwnerReference) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", OwnerReferences: refs}}
}

func optin2Ref(apiVersion, kind, name, uid string, block *bool) metav1.OwnerReference {
	return metav1.OwnerReference{APIVersion: apiVersion, Kind: kind, Name: name, UID: types.UID("u-" + uid), BlockOwnerDeletion: block}
}

func optin2PodAttrs(op k8sadmission.Operation, subresource string, obj, old runtime.Object) k8sadmission.Attributes {
	return k8sadmission.NewAttributesRecord(obj, old, corev1.SchemeGroupVersion.WithKind("Pod"), "ns", "p",
		corev1.SchemeGroupVersion.WithResource("pods"), subresource, op, nil, false, &user.DefaultInfo{Name: "alice"})
}

func TestOptin2OwnerReferencesPermissionEnforcementChecksDeleteAndFinalizers(t *testing.T) {
	rs := func(block *bool) metav1.OwnerReference {
		return optin2Ref("apps/v1", "ReplicaSet", "rs", "1", block)
	}
	const (
		deletePod       = "delete ns /v1 pods/ p"
		deletePodStatus = "delete ns /v1 pods/status p"
		finalizeAny     = "update  */* */finalizers *"
		finalizeRS      = "update ns apps/v1 replicasets/finalizers rs"
		finalizeNode    = "update  /v1 nodes/finalizers n"
		finalizeWidgets = "update ns example.com/v1 widgets/finalizers w"
		finalizeGadgets = "update  example.com/v1 gadgets/finalizers w"
	)
	cases := []struct {
		name      string
		attrs     k8sadmission.Attributes
		allowed   []string
		wantAsked []string
		wantErr   string
	}{
		{name: "create with a non-blocking ownerRef needs nothing",
			attrs: optin2PodAttrs(k8sadmission.Create, "", optin2OwnedPod(rs(nil), rs(ptr.To(false))), nil)},
		{name: "create without ownerRefs needs nothing",
			attrs: optin2PodAttrs(k8sadmission.Create, "", optin2OwnedPod(), (*corev1.Pod)(nil))},
		{name: "update changing ownerRefs needs delete",
			attrs:     optin2PodAttrs(k8sadmission.Update, "", optin2OwnedPod(rs(nil)), optin2OwnedPod()),
			wantAsked: []string{deletePod},
			wantErr:   `pods "p" is forbidden: cannot set an ownerRef on a resource you can't delete: no rule, <nil>`},
		{name: "update changing ownerRefs with delete",
			attrs:   optin2PodAttrs(k8sadmission.Update, "", optin2OwnedPod(), optin2OwnedPod(rs(nil))),
			allowed: []string{deletePod}, wantAsked: []string{deletePod}},
		{name: "update reordering ownerRefs is a change",
			attrs:     optin2PodAttrs(k8sadmission.Update, "", optin2OwnedPod(rs(nil), optin2Ref("v1", "Node", "n", "2", nil)), optin2OwnedPod(optin2Ref("v1", "Node", "n", "2", nil), rs(nil))),
			wantAsked: []string{deletePod},
			wantErr:   `pods "p" is forbidden: cannot set an ownerRef on a resource you can't delete: no rule, <nil>`},
		{name: "update keeping ownerRefs needs nothing",
			attrs: optin2PodAttrs(k8sadmission.Update, "", optin2OwnedPod(rs(ptr.To(true))), optin2OwnedPod(rs(ptr.To(true))))},
		{name: "update through a subresource asks about it",
			attrs:     optin2PodAttrs(k8sadmission.Update, "ephemeralcontainers", optin2OwnedPod(rs(nil)), optin2OwnedPod()),
			wantAsked: []string{"delete ns /v1 pods/ephemeralcontainers p"},
			wantErr:   `pods "p" is forbidden: cannot set an ownerRef on a resource you can't delete: no rule, <nil>`},
		{name: "pods/status is ignored",
			attrs: optin2PodAttrs(k8sadmission.Update, "status", optin2OwnedPod(rs(ptr.To(true))), optin2OwnedPod())},
		{name: "delete is ignored",
			attrs: optin2PodAttrs(k8sadmission.Delete, "", optin2OwnedPod(rs(ptr.To(true))), optin2OwnedPod())},
		{name: "create blocking with finalizers on anything",
			attrs:   optin2PodAttrs(k8sadmission.Create, "", optin2OwnedPod(rs(ptr.To(true))), nil),
			allowed: []string{finalizeAny}, wantAsked: []string{finalizeAny}},
		{name: "create blocking with finalizers on the owner",
			attrs:   optin2PodAttrs(k8sadmission.Create, "", optin2OwnedPod(rs(ptr.To(true)), optin2Ref("v1", "Node", "n", "2", ptr.To(true))), nil),
			allowed: []string{finalizeRS, finalizeNode}, wantAsked: []string{finalizeAny, finalizeRS, finalizeNode}},
		{name: "create blocking without finalizers on the owner",
			attrs:     optin2PodAttrs(k8sadmission.Create, "", optin2OwnedPod(rs(ptr.To(true)), optin2Ref("v1", "Node", "n", "2", ptr.To(true))), nil),
			allowed:   []string{finalizeRS},
			wantAsked: []string{finalizeAny, finalizeRS, finalizeNode},
			wantErr:   `pods "p" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: no rule, <nil>`},
		{name: "every mapping of the kind is checked",
			attrs:     optin2PodAttrs(k8sadmission.Create, "", optin2OwnedPod(optin2Ref("example.com/v1", "Widget", "w", "3", ptr.To(true))), nil),
			allowed:   []string{finalizeWidgets},
			wantAsked: []string{finalizeAny, finalizeWidgets, finalizeGadgets},
			wantErr:   `pods "p" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: no rule, <nil>`},
		{name: "every mapping of the kind allowed",
			attrs:     optin2PodAttrs(k8sadmission.Create, "", optin2OwnedPod(optin2Ref("example.com/v1", "Widget", "w", "3", ptr.To(true))), nil),
			allowed:   []string{finalizeWidgets, finalizeGadgets},
			wantAsked: []string{finalizeAny, finalizeWidgets, finalizeGadgets}},
		{name: "unknown kind",
			attrs:     optin2PodAttrs(k8sadmission.Create, "", optin2OwnedPod(optin2Ref("example.com/v2", "Thing", "t", "4", ptr.To(true))), nil),
			wantAsked: []string{finalizeAny},
			wantErr:   `pods "p" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion example.com/v2 Kind Thing: no matches for kind "Thing" in version "example.com/v2"`},
		{name: "bad apiVersion",
			attrs:     optin2PodAttrs(k8sadmission.Create, "", optin2OwnedPod(optin2Ref("a/b/c", "Thing", "t", "4", ptr.To(true))), nil),
			wantAsked: []string{finalizeAny},
			wantErr:   `pods "p" is forbidden: cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion a/b/c Kind Thing: unexpected GroupVersion string: a/b/c`},
		{name: "update turning blocking on needs delete and finalizers",
			attrs:     optin2PodAttrs(k8sadmission.Update, "", optin2OwnedPod(rs(ptr.To(true))), optin2OwnedPod(rs(ptr.To(false)))),
			allowed:   []string{deletePod},
			wantAsked: []string{deletePod, finalizeAny, finalizeRS},
			wantErr:   `pods "p" is forbidden: cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: no rule, <nil>`},
		{name: "update keeping blocking on needs only delete",
			attrs:     optin2PodAttrs(k8sadmission.Update, "", optin2OwnedPod(rs(ptr.To(true)), optin2Ref("v1", "Node", "n", "2", nil)), optin2OwnedPod(rs(ptr.To(true)))),
			allowed:   []string{deletePod},
			wantAsked: []string{deletePod}},
		{name: "update of a status subresource but pods'",
			attrs: k8sadmission.NewAttributesRecord(&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns", OwnerReferences: []metav1.OwnerReference{rs(nil)}}},
				&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "ns"}}, appsv1.SchemeGroupVersion.WithKind("Deployment"), "ns", "d",
				appsv1.SchemeGroupVersion.WithResource("deployments"), "status", k8sadmission.Update, nil, false, &user.DefaultInfo{Name: "alice"}),
			wantAsked: []string{"delete ns apps/v1 deployments/status d"},
			wantErr:   `deployments.apps "d" is forbidden: cannot set an ownerRef on a resource you can't delete: no rule, <nil>`},
		{name: "an object without metadata is left alone",
			attrs: optin2PodAttrs(k8sadmission.Update, "", &metav1.Status{}, &metav1.Status{})},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			z := &optin2Authz{allowed: map[string]bool{}}
			for _, k := range tc.allowed {
				z.allowed[k] = true
			}
			err := OwnerReferencesPermissionEnforcementValidate(context.Background(), tc.attrs, z, optin2MultiMappings)
			if tc.wantErr == "" {
				if err != nil {
					t.Fatalf("unexpected error: %v", err)
				}
			} else {
				if err == nil || err.Error() != tc.wantErr {
					t.Fatalf("error %v, want %s", err, tc.wantErr)
				}
				if !apierrors.IsForbidden(err) {
					t.Fatalf("error %#v is not a 403", err)
				}
				if code := err.(apierrors.APIStatus).Status().Code; code != http.StatusForbidden {
					t.Fatalf("code %d", code)
				}
			}
			if !reflect.DeepEqual(z.asked, tc.wantAsked) {
				t.Fatalf("asked %q, want %q", z.asked, tc.wantAsked)
			}
		})
	}
}
