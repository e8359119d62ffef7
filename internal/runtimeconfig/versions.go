package runtimeconfig

import "k8s.io/apimachinery/pkg/runtime/schema"

// The API versions kube-apiserver v1.37 has storage for: those it serves
// by default, and the beta and alpha ones it serves only when turned on
// (k8s.io/kubernetes pkg/controlplane's lists).
var (
	servedByDefault = []schema.GroupVersion{
		{Group: "", Version: "v1"},
		{Group: "admissionregistration.k8s.io", Version: "v1"},
		{Group: "authentication.k8s.io", Version: "v1"},
		{Group: "authorization.k8s.io", Version: "v1"},
		{Group: "certificates.k8s.io", Version: "v1"},
		{Group: "coordination.k8s.io", Version: "v1"},
		{Group: "events.k8s.io", Version: "v1"},
		{Group: "rbac.authorization.k8s.io", Version: "v1"},
		{Group: "flowcontrol.apiserver.k8s.io", Version: "v1"},
		{Group: "apps", Version: "v1"},
		{Group: "autoscaling", Version: "v1"},
		{Group: "autoscaling", Version: "v2"},
		{Group: "batch", Version: "v1"},
		{Group: "discovery.k8s.io", Version: "v1"},
		{Group: "networking.k8s.io", Version: "v1"},
		{Group: "node.k8s.io", Version: "v1"},
		{Group: "policy", Version: "v1"},
		{Group: "resource.k8s.io", Version: "v1"},
		{Group: "storage.k8s.io", Version: "v1"},
		{Group: "scheduling.k8s.io", Version: "v1"},
		{Group: "storagemigration.k8s.io", Version: "v1"},
	}
	servedWhenTurnedOn = []schema.GroupVersion{
		{Group: "admissionregistration.k8s.io", Version: "v1beta1"},
		{Group: "authentication.k8s.io", Version: "v1beta1"},
		{Group: "certificates.k8s.io", Version: "v1beta1"},
		{Group: "coordination.k8s.io", Version: "v1beta1"},
		{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta1"},
		{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta2"},
		{Group: "flowcontrol.apiserver.k8s.io", Version: "v1beta3"},
		{Group: "storagemigration.k8s.io", Version: "v1beta1"},
		{Group: "storage.k8s.io", Version: "v1beta1"},
		{Group: "networking.k8s.io", Version: "v1beta1"},
		{Group: "resource.k8s.io", Version: "v1beta1"},
		{Group: "resource.k8s.io", Version: "v1beta2"},
		{Group: "scheduling.k8s.io", Version: "v1beta1"},
		{Group: "admissionregistration.k8s.io", Version: "v1alpha1"},
		{Group: "internal.apiserver.k8s.io", Version: "v1alpha1"},
		{Group: "authentication.k8s.io", Version: "v1alpha1"},
		{Group: "coordination.k8s.io", Version: "v1alpha2"},
		{Group: "certificates.k8s.io", Version: "v1alpha1"},
		{Group: "lifecycle.k8s.io", Version: "v1alpha1"},
		{Group: "resource.k8s.io", Version: "v1alpha3"},
		{Group: "scheduling.k8s.io", Version: "v1alpha3"},
		{Group: "storage.k8s.io", Version: "v1alpha1"},
	}
	// The CRD and APIService APIs: their servers (apiextensions-apiserver,
	// kube-aggregator) turn v1beta1 on by default too, but have storage
	// for v1 alone.
	apiextensionsV1   = schema.GroupVersion{Group: "apiextensions.k8s.io", Version: "v1"}
	apiregistrationV1 = schema.GroupVersion{Group: "apiregistration.k8s.io", Version: "v1"}
)

// DefaultVersions returns the API versions kube-apiserver v1.37 serves by
// default, the CRD and APIService APIs' included: what fakeplane serves.
func DefaultVersions() []schema.GroupVersion {
	return append(append([]schema.GroupVersion{}, servedByDefault...), apiextensionsV1, apiregistrationV1)
}
