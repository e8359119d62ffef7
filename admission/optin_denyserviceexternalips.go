package admission

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	k8sadmission "k8s.io/apiserver/pkg/admission"
)

// DenyServiceExternalIPsPluginName is the name of upstream's
// DenyServiceExternalIPs plugin.
const DenyServiceExternalIPsPluginName = "DenyServiceExternalIPs"

// DenyServiceExternalIPsValidate is upstream's DenyServiceExternalIPs
// plugin (validating only): on a Create or Update of a Service (the
// services resource itself, not its status) it refuses spec.externalIPs
// unless every one of them was in the old Service's (a create with any,
// or an update adding one, is refused; keeping or removing some is not),
// with a 403 Forbidden `services "name" is forbidden: Use of external IPs
// is denied by admission control`. It checks the operation, resource and
// subresource itself; an object (or old object) that is not a
// *corev1.Service is upstream's 500 InternalError.
func DenyServiceExternalIPsValidate(a k8sadmission.Attributes) error {
	if !optinHandles(a.GetOperation(), k8sadmission.Create, k8sadmission.Update) ||
		a.GetResource().GroupResource() != optinServices || a.GetSubresource() != "" {
		return nil
	}
	notAService := func() error {
		return apierrors.NewInternalError(fmt.Errorf("Expected Service resource, got: %v", a.GetKind()))
	}
	svc, ok := a.GetObject().(*corev1.Service)
	if !ok || svc == nil {
		return notAService()
	}
	var old *corev1.Service
	if o := a.GetOldObject(); o != nil {
		if old, ok = o.(*corev1.Service); !ok {
			return notAService()
		}
	}
	if len(svc.Spec.ExternalIPs) == 0 {
		return nil
	}
	if old != nil {
		had := make(map[string]bool, len(old.Spec.ExternalIPs))
		for _, ip := range old.Spec.ExternalIPs {
			had[ip] = true
		}
		added := false
		for _, ip := range svc.Spec.ExternalIPs {
			if !had[ip] {
				added = true
				break
			}
		}
		if !added {
			return nil
		}
	}
	return k8sadmission.NewForbidden(a, errors.New("Use of external IPs is denied by admission control"))
}
