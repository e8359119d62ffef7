package resourceslice

import (
	"fmt"

	resourcev1 "k8s.io/api/resource/v1"
)

// ConvertFieldLabel accepts the field selector labels of upstream's
// resource.k8s.io/v1 ResourceSlice conversion function, which leaves out
// metadata.namespace.
func (resourceSliceStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "spec.nodeName", "spec.driver", "spec.pool.name":
		return label, true
	}
	return "", false
}

// FieldLabelError is upstream's refusal, which names the kind.
func (resourceSliceStrategy) FieldLabelError(label string) error {
	return fmt.Errorf("field label not supported for %s: %s", resourcev1.SchemeGroupVersion.WithKind("ResourceSlice"), label)
}
