// Package registry is the pipeline between HTTP and the store: what
// kube-apiserver's generic registry and its pkg/registry/<group>/<resource>
// strategies do. Each built-in resource's rules (validation, preparation for
// create and update, its status rules) live in a strategy of its own, in a
// folder per group and resource (registry/core/configmap, ...), registered
// in one table keyed by GroupResource (For).
//
// The move is under way: the resources without a folder yet are still
// handled by package server's type switches, which For's callers fall back
// to.
package registry
