// Package server is the HTTP surface of fakeplane: it authenticates a
// request, parses it the way kube-apiserver does (k8s.io/apiserver's
// RequestInfoFactory), and serves discovery, health, version and the generic
// REST verbs (get, list, watch, create, update, patch, delete,
// deletecollection) for every registered resource, with objects kept in a
// store.Store.
//
// Objects travel through the server as runtime.Objects: the built-in types
// from k8s.io/api for built-in resources (decoding into them drops unknown
// fields exactly as kube-apiserver does) and *unstructured.Unstructured for
// everything else. They are stored as the JSON of their served version, with
// metadata.resourceVersion stamped at commit, so a get or a list writes stored
// bytes straight to the client.
package server
