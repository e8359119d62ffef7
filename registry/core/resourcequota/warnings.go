package resourcequota

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// requestLimitResources are the resources whose request upstream's
// ResourceQuota strategy compares with their limit, in its order.
var requestLimitResources = []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory, corev1.ResourceStorage, corev1.ResourceEphemeralStorage}

// WarningsOnCreate returns upstream's warnings for a new ResourceQuota: a
// hard request above the hard limit of the same resource.
func (resourceQuotaStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	hard := obj.(*corev1.ResourceQuota).Spec.Hard
	var warnings []string
	for _, name := range requestLimitResources {
		requestName := corev1.ResourceName("requests." + string(name))
		request, ok := hard[requestName]
		if !ok && (name == corev1.ResourceCPU || name == corev1.ResourceMemory) {
			// cpu and memory also count requests under their bare name.
			if request, ok = hard[name]; ok {
				requestName = name
			}
		}
		limitName := corev1.ResourceName("limits." + string(name))
		limit, limitOK := hard[limitName]
		if ok && limitOK && request.Cmp(limit) > 0 {
			warnings = append(warnings, fmt.Sprintf("ResourceQuota %s (%s) should be less than %s (%s)", requestName, request.String(), limitName, limit.String()))
		}
	}
	return warnings
}

// WarningsOnUpdate returns none: upstream warns about a quota's requests
// and limits on create only.
func (resourceQuotaStrategy) WarningsOnUpdate(context.Context, runtime.Object, runtime.Object) []string {
	return nil
}
