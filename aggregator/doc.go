// Package aggregator is the aggregation layer of the control plane: what
// kube-apiserver's kube-aggregator does around APIServices. Proxy sends the
// requests of group/versions that an APIService with a service claims to
// that service (front-proxy client certificate, X-Remote-* identity
// headers) and holds what discovery merges of them;
// AvailableConditionController keeps APIServices' Available condition;
// CRDAutoRegistration keeps a local APIService for every group/version a
// CustomResourceDefinition serves; ClusterAuthenticationTrust keeps the
// kube-system/extension-apiserver-authentication ConfigMap (the CAs and
// request-header settings extension API servers authenticate their
// clients with); ProxyClientCert is the certificate the proxy presents.
//
// Its control loops are controllers.Controller values, run by the root
// package with the others (controllers.Start); aggregator imports
// controllers, never the other way round.
package aggregator
