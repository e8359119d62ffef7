package clustertrustbundle

// ConvertFieldLabel accepts the field selector labels of upstream's
// certificates.k8s.io/v1 ClusterTrustBundle conversion function, which
// leaves out metadata.namespace.
func (clusterTrustBundleStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "spec.signerName":
		return label, true
	}
	return "", false
}
