package node

// ConvertFieldLabel accepts the field selector labels of upstream's core/v1
// Node conversion function, which leaves out metadata.namespace.
func (nodeStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "spec.unschedulable":
		return label, true
	}
	return "", false
}
