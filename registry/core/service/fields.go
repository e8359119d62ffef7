package service

// ConvertFieldLabel accepts the field selector labels of upstream's core/v1
// Service conversion function (AddFieldLabelConversionsForService).
func (serviceStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "metadata.namespace", "spec.clusterIP", "spec.type":
		return label, true
	}
	return "", false
}
