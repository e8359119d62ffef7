package pod

// ConvertFieldLabel accepts the field selector labels of upstream's core/v1
// Pod conversion function, and the legacy spec.host as spec.nodeName.
// status.podIPs is accepted (for the downward API) though upstream's
// selectable fields leave it out, so it matches only "".
func (podStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "metadata.namespace",
		"spec.nodeName", "spec.restartPolicy", "spec.schedulerName", "spec.serviceAccountName", "spec.hostNetwork",
		"status.phase", "status.podIP", "status.podIPs", "status.nominatedNodeName":
		return label, true
	case "spec.host":
		// For old v1 clients.
		return "spec.nodeName", true
	}
	return "", false
}
