package resourceslice

// ConvertFieldLabel accepts the field selector labels of upstream's
// resource.k8s.io/v1 ResourceSlice conversion function, which leaves out
// metadata.namespace.
func (resourceSliceStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "spec.nodeName", "spec.driver", "spec.pool.name":
		return label, true
	}
	return "", false
}
