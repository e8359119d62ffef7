package event

// ConvertFieldLabel accepts the field selector labels of upstream's
// events.k8s.io/v1 Event conversion function, and returns the core Event
// fields they are matched against (an events.k8s.io Event is stored as a
// core one): regarding.* as involvedObject.*, reportingController as
// reportingComponent.
func (eventStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "metadata.namespace", "reason", "type":
		return label, true
	case "regarding.kind", "regarding.namespace", "regarding.name", "regarding.uid",
		"regarding.apiVersion", "regarding.resourceVersion", "regarding.fieldPath":
		return "involvedObject." + label[len("regarding."):], true
	case "reportingController":
		return "reportingComponent", true
	}
	return "", false
}
