// Package builtin describes the resources a default kube-apiserver v1.37 serves.
//
// The table is a hand-written set of facts about upstream Kubernetes v1.37
// (k8s.io/kubernetes v1.37.1, apiextensions-apiserver and kube-aggregator
// v0.37.2). It covers exactly what a kube-apiserver started with no
// --runtime-config and no --feature-gates serves:
//
//   - the group/versions enabled by DefaultAPIResourceConfigSource in
//     pkg/controlplane/instance.go (stable versions only; every beta and
//     alpha version is disabled by default), plus apiextensions.k8s.io/v1
//     and apiregistration.k8s.io/v1;
//   - within those, the resources registered by the REST storage providers
//     in pkg/registry/*/rest, taking the default state of the feature gates
//     they consult (pkg/features/kube_features.go) into account.
//
// For every resource it records what discovery reports (kind, singular
// name, scope, short names, categories, verbs, subresources) and where
// upstream stores it. (The field selector labels a resource accepts are its
// strategy's, in package registry.)
//
// Group/versions are ordered the way /apis and aggregated discovery order
// them: apiregistration.k8s.io first (the aggregator's own group), then by
// the APIService group priorities of cmd/kube-apiserver/app/aggregator.go and
// pkg/controlplane/apiserver/aggregator.go, ties broken by name. The core
// group ("" / v1), served under /api, comes first in GroupVersions.
//
// Resources within a group/version are ordered by name, and subresources by
// name, as the discovery installer sorts them.
package builtin
