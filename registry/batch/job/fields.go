package job

import "fmt"

// ConvertFieldLabel accepts the field selector labels of upstream's batch/v1
// Job conversion function.
func (jobStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "metadata.namespace", "status.successful":
		return label, true
	}
	return "", false
}

// FieldLabelError is upstream's refusal, which quotes the label and names
// the kind.
func (jobStrategy) FieldLabelError(label string) error {
	return fmt.Errorf("field label %q not supported for Job", label)
}
