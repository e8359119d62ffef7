package registry

import (
	"context"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// Interface is the registry's Go API: the read and write pipeline that
// serves the REST API, called with a context and Go objects instead of an
// HTTP request. A write runs what the same write over HTTP runs (defaults,
// admission, validation, the optimistic commit, the views that follow
// commits) and fails with the error kube-apiserver would answer
// (k8s.io/apimachinery/pkg/api/errors: NotFound, AlreadyExists, Conflict,
// Invalid, ...).
//
// Objects are the built-in Go types (*corev1.ConfigMap, ...) for built-in
// resources and *unstructured.Unstructured for the others (custom
// resources). A write may also be given an *unstructured.Unstructured for a
// built-in resource. Results are fresh objects the caller owns, in the
// version gvr names.
//
// The user making the call comes from the context
// (k8s.io/apiserver/pkg/endpoints/request.WithUser): admission, RBAC
// escalation checks and audit see it. A call without a user fails. The
// Interface does not authorize the call: its callers are the control plane's
// own components, trusted as kube-apiserver trusts its loopback clients.
//
// namespace is ignored for cluster-scoped resources; for namespaced ones,
// Get, Update and Delete need it, and List lists every namespace when it is
// empty. Create takes the namespace from the object.
type Interface interface {
	// Get returns the object namespace/name of gvr.
	Get(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string) (runtime.Object, error)
	// List returns the objects of gvr in namespace ("" for all) that opts
	// selects, as a list object (*corev1.ConfigMapList, ...,
	// *unstructured.UnstructuredList) with its resourceVersion and, when
	// opts.Limit cut it short, a continue token.
	List(ctx context.Context, gvr schema.GroupVersionResource, namespace string, opts metav1.ListOptions) (runtime.Object, error)
	// Create creates obj and returns it as stored.
	Create(ctx context.Context, gvr schema.GroupVersionResource, obj runtime.Object) (runtime.Object, error)
	// Update reads the object, calls tryUpdate with a copy of it and writes
	// what tryUpdate returns, as kube-apiserver's GuaranteedUpdate does: if
	// the object changed in between, tryUpdate is called again with the new
	// one, so it must be safe to call more than once. The returned object's
	// resourceVersion may be left empty (write whatever is current) or kept
	// from current; any other value is a precondition that fails with a
	// Conflict. An error from tryUpdate aborts the update and is returned as
	// is. It returns the object as stored.
	Update(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, tryUpdate UpdateFunc) (runtime.Object, error)
	// UpdateSubresource is Update through a subresource of gvr, as a PUT to
	// it is: "status" writes the status alone, "finalize" (namespaces) the
	// spec.finalizers alone, "scale" the replicas of a workload (tryUpdate
	// is handed and returns an *autoscalingv1.Scale, which is returned as
	// written; a resource without the subresource is a 404). Other
	// subresources fail with MethodNotSupported.
	UpdateSubresource(ctx context.Context, gvr schema.GroupVersionResource, subresource, namespace, name string, tryUpdate UpdateFunc) (runtime.Object, error)
	// Delete deletes the object, or marks it for deletion while finalizers
	// hold it, as a DELETE with opts does. It returns the object's last
	// state: with a deletionTimestamp when it is not gone yet.
	Delete(ctx context.Context, gvr schema.GroupVersionResource, namespace, name string, opts metav1.DeleteOptions) (runtime.Object, error)
}

// UpdateFunc computes the next state of an object from its current one, for
// Interface.Update.
type UpdateFunc func(current runtime.Object) (runtime.Object, error)

// fieldManagerKey is the context key of WithFieldManager.
type fieldManagerKey struct{}

// WithFieldManager returns a context whose writes through Interface record
// the fields they set in metadata.managedFields under manager, as writes
// over HTTP do under their fieldManager (or user agent). Writes made
// without one leave managedFields as they are.
func WithFieldManager(ctx context.Context, manager string) context.Context {
	return context.WithValue(ctx, fieldManagerKey{}, manager)
}

// FieldManagerFrom returns the field manager WithFieldManager set, or "".
func FieldManagerFrom(ctx context.Context) string {
	m, _ := ctx.Value(fieldManagerKey{}).(string)
	return m
}
