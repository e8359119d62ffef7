package secret

// ConvertFieldLabel accepts the field selector labels of upstream's core/v1
// Secret conversion function (AddFieldLabelConversionsForSecret).
func (secretStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "metadata.namespace", "type":
		return label, true
	}
	return "", false
}
