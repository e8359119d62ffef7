package endpointslice

import (
	"context"
	"fmt"

	discoveryv1 "k8s.io/api/discovery/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// The managed-by label values of kube-controller-manager's EndpointSlice
// and EndpointSlice mirroring controllers, whose slices upstream does not
// check for IPs in a non-standard form.
const (
	endpointSliceController          = "endpointslice-controller.k8s.io"
	endpointSliceMirroringController = "endpointslicemirroring-controller.k8s.io"
)

// WarningsOnCreate returns upstream's warnings for a new EndpointSlice: the
// deprecated FQDN address type, then addresses not in their standard form.
func (endpointSliceStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	es := obj.(*discoveryv1.EndpointSlice)
	var warnings []string
	if es.AddressType == discoveryv1.AddressTypeFQDN {
		// Upstream's path puts the address type under a spec it does not have.
		warnings = append(warnings, fmt.Sprintf("%s: FQDN endpoints are deprecated", field.NewPath("spec", "addressType")))
	}
	return append(warnings, addressWarnings(es)...)
}

// WarningsOnUpdate returns the warnings of the updated slice's addresses:
// upstream does not warn about the address type, which cannot change.
func (endpointSliceStrategy) WarningsOnUpdate(_ context.Context, obj, _ runtime.Object) []string {
	return addressWarnings(obj.(*discoveryv1.EndpointSlice))
}

// addressWarnings is upstream's warnOnBadIPs: the endpoints' addresses
// that are IPs in a non-standard form, unless a controller that fixes them
// manages the slice.
func addressWarnings(es *discoveryv1.EndpointSlice) []string {
	if m := es.Labels[discoveryv1.LabelManagedBy]; m == endpointSliceController || m == endpointSliceMirroringController {
		return nil
	}
	var warnings []string
	for i, ep := range es.Endpoints {
		for j, a := range ep.Addresses {
			warnings = append(warnings, validate.IPWarnings(field.NewPath("endpoints").Index(i).Child("addresses").Index(j), a)...)
		}
	}
	return warnings
}
