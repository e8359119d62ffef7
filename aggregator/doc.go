// Package aggregator is the aggregation layer of the control plane: what
// kube-apiserver's kube-aggregator does around APIServices. Today it holds
// the CRD autoregistration (CRDAutoRegistration: a local APIService for
// every group/version a CustomResourceDefinition serves), the
// kube-system/extension-apiserver-authentication ConfigMap
// (ClusterAuthenticationTrust: the CAs and request-header settings
// extension API servers authenticate their clients with) and the
// front-proxy client certificate the proxy presents (ProxyClientCert); the
// proxy to extension API servers and APIService availability are to come
// here.
//
// Its control loops are controllers.Controller values, run by the root
// package with the others (controllers.Start); aggregator imports
// controllers, never the other way round.
package aggregator
