package admission

import (
	"context"
	"fmt"
	"reflect"

	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// OwnerReferencesPermissionEnforcementPluginName is the name of upstream's
// OwnerReferencesPermissionEnforcement plugin (plugin/pkg/admission/gc).
const OwnerReferencesPermissionEnforcementPluginName = "OwnerReferencesPermissionEnforcement"

// ownerRefsIgnored are the resources and subresources upstream's plugin
// leaves alone (its "whiteList"): pods/status, whose strategy keeps
// ownerReferences as they were.
var ownerRefsIgnored = []struct {
	gr          schema.GroupResource
	subresource string
}{
	{gr: optinPods, subresource: "status"},
}

// OwnerReferencesRESTMappings resolves an owner's group and kind, in the
// owner reference's version, to the resources it may be, as
// meta.RESTMapper.RESTMappings does (a mapper's method value fits).
type OwnerReferencesRESTMappings func(gk schema.GroupKind, versions ...string) ([]*meta.RESTMapping, error)

// OwnerReferencesPermissionEnforcementValidate is upstream's
// OwnerReferencesPermissionEnforcement plugin (validating only). On a
// Create or Update of any resource or subresource but pods/status, whose
// object (one with metadata; others are left alone) has ownerReferences
// that differ from the old object's (on a Create: has any):
//
//   - on an Update, the user must be allowed to "delete" the object (the
//     request's namespace, group, version, resource, subresource and name),
//     else a 403 `<resource> "<name>" is forbidden: cannot set an ownerRef
//     on a resource you can't delete: <reason>, <error>`;
//   - when an ownerReference sets blockOwnerDeletion to true and did not
//     before (matched by uid; a new one counts), the user must be allowed to
//     "update" every owner's "finalizers" subresource: unless allowed on
//     */*/* finalizers named * (no namespace), every mapping of the owner's
//     apiVersion/kind (restMappings) is checked with the owner's name (and
//     the request's namespace for a namespaced mapping), else a 403 `...
//     cannot set blockOwnerDeletion if an ownerReference refers to a
//     resource you can't set finalizers on: <reason>, <error>`; an
//     apiVersion that does not parse or a kind restMappings does not know
//     is a 403 `... cannot set blockOwnerDeletion in this case because
//     cannot find RESTMapping for APIVersion <v> Kind <k>: <error>`.
//
// The <error> of an authorization is the authorizer's (usually "<nil>").
// authz is kube-apiserver's authorizer; restMappings resolves kinds (e.g.
// a RESTMapper's RESTMappings). It checks the operation, resource and
// subresource itself.
func OwnerReferencesPermissionEnforcementValidate(ctx context.Context, a k8sadmission.Attributes, authz authorizer.UnconditionalAuthorizer, restMappings OwnerReferencesRESTMappings) error {
	if !optinHandles(a.GetOperation(), k8sadmission.Create, k8sadmission.Update) {
		return nil
	}
	for _, w := range ownerRefsIgnored {
		if a.GetResource().GroupResource() == w.gr && a.GetSubresource() == w.subresource {
			return nil
		}
	}
	obj, old := optin2Object(a.GetObject()), optin2Object(a.GetOldObject())
	if !ownerRefsChanged(obj, old) {
		return nil
	}
	// Who creates an object could as well not have created it: only an
	// Update needs the right to delete it.
	if a.GetOperation() != k8sadmission.Create {
		decision, reason, err := authz.Authorize(ctx, authorizer.AttributesRecord{
			User:            a.GetUserInfo(),
			Verb:            "delete",
			Namespace:       a.GetNamespace(),
			APIGroup:        a.GetResource().Group,
			APIVersion:      a.GetResource().Version,
			Resource:        a.GetResource().Resource,
			Subresource:     a.GetSubresource(),
			Name:            a.GetName(),
			ResourceRequest: true,
		})
		if decision != authorizer.DecisionAllow {
			return k8sadmission.NewForbidden(a, fmt.Errorf("cannot set an ownerRef on a resource you can't delete: %v, %v", reason, err))
		}
	}
	blocking := ownerRefsNewlyBlocking(obj, old)
	if len(blocking) == 0 {
		return nil
	}
	// One check first that needs no mapping: the right to set finalizers
	// on anything.
	if decision, _, _ := authz.Authorize(ctx, authorizer.AttributesRecord{
		User:            a.GetUserInfo(),
		Verb:            "update",
		APIGroup:        "*",
		APIVersion:      "*",
		Resource:        "*",
		Subresource:     "finalizers",
		Name:            "*",
		ResourceRequest: true,
	}); decision == authorizer.DecisionAllow {
		return nil
	}
	for _, ref := range blocking {
		records, err := ownerRefFinalizerRecords(a, ref, restMappings)
		if err != nil {
			return k8sadmission.NewForbidden(a, fmt.Errorf("cannot set blockOwnerDeletion in this case because cannot find RESTMapping for APIVersion %s Kind %s: %v", ref.APIVersion, ref.Kind, err))
		}
		for _, r := range records {
			decision, reason, err := authz.Authorize(ctx, r)
			if decision != authorizer.DecisionAllow {
				return k8sadmission.NewForbidden(a, fmt.Errorf("cannot set blockOwnerDeletion if an ownerReference refers to a resource you can't set finalizers on: %v, %v", reason, err))
			}
		}
	}
	return nil
}

// ownerRefFinalizerRecords are the authorizations to update the finalizers
// of ref's owner, one per resource its kind maps to.
func ownerRefFinalizerRecords(a k8sadmission.Attributes, ref metav1.OwnerReference, restMappings OwnerReferencesRESTMappings) ([]authorizer.AttributesRecord, error) {
	gv, err := schema.ParseGroupVersion(ref.APIVersion)
	if err != nil {
		return nil, err
	}
	if restMappings == nil {
		return nil, fmt.Errorf("no matches for kind %q in version %q", ref.Kind, gv.String())
	}
	mappings, err := restMappings(schema.GroupKind{Group: gv.Group, Kind: ref.Kind}, gv.Version)
	if err != nil {
		return nil, err
	}
	var out []authorizer.AttributesRecord
	for _, m := range mappings {
		r := authorizer.AttributesRecord{
			User:            a.GetUserInfo(),
			Verb:            "update",
			APIGroup:        m.Resource.Group,
			APIVersion:      m.Resource.Version,
			Resource:        m.Resource.Resource,
			Subresource:     "finalizers",
			Name:            ref.Name,
			ResourceRequest: true,
		}
		// A namespaced owner is in the dependent's namespace.
		if m.Scope != nil && m.Scope.Name() == meta.RESTScopeNameNamespace {
			r.Namespace = a.GetNamespace()
		}
		out = append(out, r)
	}
	return out, nil
}

// ownerRefsChanged reports whether obj's ownerReferences differ from old's
// (in number or, in order, semantically); with no old object, whether obj
// has any. An object without metadata changes none.
func ownerRefsChanged(obj, old runtime.Object) bool {
	m, err := meta.Accessor(obj)
	if err != nil {
		return false
	}
	if old == nil {
		return len(m.GetOwnerReferences()) > 0
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	refs, oldRefs := m.GetOwnerReferences(), om.GetOwnerReferences()
	if len(refs) != len(oldRefs) {
		return true
	}
	for i := range refs {
		if !apiequality.Semantic.DeepEqual(refs[i], oldRefs[i]) {
			return true
		}
	}
	return false
}

// ownerRefsNewlyBlocking are obj's ownerReferences with blockOwnerDeletion
// true whose uid old has no reference for, or one without it (all of them
// when old is nil or has no metadata).
func ownerRefsNewlyBlocking(obj, old runtime.Object) []metav1.OwnerReference {
	m, err := meta.Accessor(obj)
	if err != nil {
		return nil
	}
	var blocking []metav1.OwnerReference
	for _, ref := range m.GetOwnerReferences() {
		if ref.BlockOwnerDeletion != nil && *ref.BlockOwnerDeletion {
			blocking = append(blocking, ref)
		}
	}
	if len(blocking) == 0 || old == nil {
		return blocking
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return blocking
	}
	oldByUID := map[types.UID]metav1.OwnerReference{}
	for _, ref := range om.GetOwnerReferences() {
		oldByUID[ref.UID] = ref
	}
	var out []metav1.OwnerReference
	for _, ref := range blocking {
		o, ok := oldByUID[ref.UID]
		if !ok || o.BlockOwnerDeletion == nil || !*o.BlockOwnerDeletion {
			out = append(out, ref)
		}
	}
	return out
}

// optin2Object is obj, nil when it is a nil pointer too (as a Create's
// old object may be given).
func optin2Object(obj runtime.Object) runtime.Object {
	if obj == nil {
		return nil
	}
	if v := reflect.ValueOf(obj); v.Kind() == reflect.Pointer && v.IsNil() {
		return nil
	}
	return obj
}
