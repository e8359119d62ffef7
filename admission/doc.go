// Package admission is the part of kube-apiserver's admission chain that
// clients configure through the API: MutatingAdmissionPolicy,
// MutatingAdmissionWebhook, ValidatingAdmissionPolicy and
// ValidatingAdmissionWebhook, in kube-apiserver's plugin order.
//
// The plugins are upstream's (k8s.io/apiserver/pkg/admission/plugin/...):
// they read their configurations, namespaces and policy parameters through
// informers over a loopback client to the control plane itself, as
// kube-apiserver's do, reach webhooks given as a Service through the
// registry's service resolver, and answer with upstream's messages. A Chain
// starts them the first time an admission configuration is stored, so a
// control plane that never has one pays nothing for them, and stops them
// with the control plane.
//
// Package registry calls a Chain (registry.Admission) from its write
// pipeline: mutating admission before the object is prepared, defaulted
// and validated, validating admission after, both before the commit.
//
// It also holds the logic of compiled-in plugins that the registry runs
// itself (LimitRanger, DefaultStorageClass, ResourceQuota, PodSecurity);
// the registry supplies what they read from the store.
package admission
