package podcertificaterequest

// ConvertFieldLabel accepts the field selector labels of upstream's
// certificates.k8s.io/v1 PodCertificateRequest conversion function, which
// leaves out metadata.namespace although the resource is namespaced.
func (podCertificateRequestStrategy) ConvertFieldLabel(label string) (string, bool) {
	switch label {
	case "metadata.name", "spec.signerName", "spec.podName", "spec.nodeName":
		return label, true
	}
	return "", false
}
