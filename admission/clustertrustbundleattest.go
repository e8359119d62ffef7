package admission

import (
	"context"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// ValidateClusterTrustBundleAttest is kube-apiserver's
// ClusterTrustBundleAttest plugin on a create (old nil) or update of a
// ClusterTrustBundle whose spec.signerName is set: u must be allowed to
// attest for that signer, unless the update changes only what the
// garbage collector changes (owner references, finalizers).
func ValidateClusterTrustBundleAttest(ctx context.Context, authz authorizer.Authorizer, u user.Info, signerName string, obj, old runtime.Object) error {
	if signerName == "" {
		return nil
	}
	if old != nil && onlyGCFieldsChange(obj, old) {
		return nil
	}
	if !AuthorizedForSigner(ctx, authz, u, "attest", signerName) {
		return fmt.Errorf("user not permitted to attest for signerName %q", signerName)
	}
	return nil
}

// onlyGCFieldsChange reports whether obj equals old but for owner
// references, finalizers, selfLink and managedFields.
func onlyGCFieldsChange(obj, old runtime.Object) bool {
	if old == nil || reflect.ValueOf(old).IsNil() {
		return false
	}
	copied := obj.DeepCopyObject()
	cm, err := meta.Accessor(copied)
	if err != nil {
		return false
	}
	om, err := meta.Accessor(old)
	if err != nil {
		return false
	}
	cm.SetOwnerReferences(om.GetOwnerReferences())
	cm.SetFinalizers(om.GetFinalizers())
	cm.SetSelfLink(om.GetSelfLink())
	cm.SetManagedFields(om.GetManagedFields())
	return equality.Semantic.DeepEqual(copied, old)
}
