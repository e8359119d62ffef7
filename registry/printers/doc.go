// Package printers prints built-in resources as kube-apiserver v1.37 prints
// them in a meta.k8s.io Table: the column definitions of each resource
// (embedded from a recording of a real kube-apiserver) and its rows, cell for
// cell. It is fakeplane's counterpart of kube-apiserver's
// pkg/printers/internalversion, with one file per API group, and each
// resource's Printer is a k8s.io/apiserver rest.TableConvertor, as
// pkg/printers/storage's TableConvertor is upstream.
//
// kube-apiserver prints the objects it stores, after its defaulting;
// fakeplane does not default every field it prints, so the printers read a
// missing field as the default upstream would have stored.
//
// Printers are keyed by schema.GroupResource (For, Lookup). Ages are
// printed against the time a caller gives (Cells, ListCells) or the clock
// carried by the context (ConvertToTable, WithClock).
package printers
