package event

// ConvertFieldLabel accepts the field selector labels of upstream's core/v1
// Event conversion function (AddFieldLabelConversionsForEvent).
func (eventStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "metadata.namespace",
		"involvedObject.kind", "involvedObject.namespace", "involvedObject.name", "involvedObject.uid",
		"involvedObject.apiVersion", "involvedObject.resourceVersion", "involvedObject.fieldPath",
		"reason", "reportingComponent", "source", "type":
		return label, true
	}
	return "", false
}
