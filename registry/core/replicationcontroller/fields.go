package replicationcontroller

// ConvertFieldLabel accepts the field selector labels of upstream's core/v1
// ReplicationController conversion function.
func (rcStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "metadata.namespace", "status.replicas":
		return label, true
	}
	return "", false
}
