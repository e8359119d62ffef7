package job

// ConvertFieldLabel accepts the field selector labels of upstream's batch/v1
// Job conversion function.
func (jobStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "metadata.namespace", "status.successful":
		return label, true
	}
	return "", false
}
