package namespace

// ConvertFieldLabel accepts the field selector labels of upstream's core/v1
// Namespace conversion function (AddFieldLabelConversionsForNamespace),
// which leaves out metadata.namespace.
func (namespaceStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "status.phase":
		return label, true
	}
	return "", false
}
