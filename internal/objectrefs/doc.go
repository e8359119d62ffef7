// Package objectrefs finds the objects a pod or a PersistentVolume refers
// to by name, as upstream's VisitPodSecretNames, VisitPodConfigmapNames
// and VisitPVSecretNames do. It imports API types only, so that any
// package (the authorizers included) may use it.
package objectrefs
