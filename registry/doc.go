// Package registry is the read and write pipeline between the API and the
// store: what kube-apiserver's generic registry and its
// pkg/registry/<group>/<resource> strategies do, with no HTTP in it.
//
// A Registry (New) serves the built-in resources and those of the stored
// CustomResourceDefinitions (ServedResources). A write decodes the object,
// defaults it, runs admission (pod, namespace and service-account rules,
// the ClusterIP and node-port allocator, RBAC escalation checks through
// Hooks), validates it with the resource's strategy (For, one per built-in
// resource in registry/<group>/<resource>) or its CRD schema (package crd),
// and commits it with store.Update: the computed write is committed only if
// the object is still at the revision it was computed from, else it is
// computed again (kube-apiserver's GuaranteedUpdate). Only the commit, the
// resourceVersion stamp and the views that must follow commits run under
// the store's lock.
//
// Package server calls it for requests over HTTP; Go callers use Interface
// (Registry.API), the same pipeline called with a context and Go objects.
// Built-in Table printers are in registry/printers.
package registry
