package server

import (
	"errors"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/registry/strategy"
	"github.com/fakeplane/fakeplane/store"
)

// namespacesBucket is where namespaces are stored.
const namespacesBucket = "/namespaces"

// admitNamespace is the NamespaceLifecycle admission check for creating
// o in its namespace: the namespace must exist and not be terminating.
func (s *Server) admitNamespace(c *request, o *object) error {
	ns := o.meta.GetNamespace()
	cur, err := s.store.Get(namespacesBucket, ns)
	if errors.Is(err, store.ErrNotFound) {
		return apierrors.NewNotFound(schemaNamespaces, ns)
	}
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	if terminating(cur.Value) {
		err := apierrors.NewForbidden(c.res.gr, o.meta.GetName(), fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns))
		err.ErrStatus.Details.Causes = append(err.ErrStatus.Details.Causes, metav1.StatusCause{
			Type:    corev1.NamespaceTerminatingCause,
			Message: fmt.Sprintf("namespace %s is being terminated", ns),
			Field:   "metadata.namespace",
		})
		return err
	}
	return nil
}

// beforeCreate applies per-resource create rules in upstream's order: what
// mutating admission and the storage's BeginCreate do, PrepareForCreate,
// then validation (metadata and the type's own rules in one 422), then what
// follows a valid create.
func (s *Server) beforeCreate(c *request, o *object) error {
	st, hasStrategy := registry.For(c.res.gr)
	if c.res.hasSub("status") && !hasStrategy {
		// A strategy clears the status itself (see
		// strategy.Base.ResetStatusOnCreate).
		resetStatus(o.obj)
	}
	// Admission, then allocation.
	switch obj := o.obj.(type) {
	case *corev1.Pod:
		if err := s.admitPod(c, obj); err != nil {
			return err
		}
	case *corev1.Service:
		if c.user != systemUser || obj.Spec.ClusterIP == "" {
			if err := s.allocateServiceIP(c, obj); err != nil {
				return err
			}
		}
	}
	if hasStrategy {
		st.PrepareForCreate(c.ctx(), o.obj)
	}
	if err := s.validateCreate(c, o); err != nil {
		return err
	}
	switch obj := o.obj.(type) {
	case *corev1.Secret:
		s.fillServiceAccountTokenSecret(obj)
	case *apiregistrationv1.APIService:
		if want := obj.Spec.Version + "." + obj.Spec.Group; obj.Name != want {
			return apierrors.NewInvalid(c.res.gvk.GroupKind(), obj.Name, field.ErrorList{
				field.Invalid(field.NewPath("metadata", "name"), obj.Name, fmt.Sprintf("must be `spec.version+\".\"+spec.group`: %q", want)),
			})
		}
		if obj.Spec.Service == nil {
			// kube-aggregator's availability controller: a local
			// APIService is available at once.
			obj.Status.Conditions = []apiregistrationv1.APIServiceCondition{{
				Type: apiregistrationv1.Available, Status: apiregistrationv1.ConditionTrue,
				LastTransitionTime: metav1.NewTime(s.now().Truncate(timePrecision)),
				Reason:             "Local", Message: "Local APIServices are always available",
			}}
		}
	case *apiextensionsv1.CustomResourceDefinition:
		if err := s.validateCRD(c, o, nil); err != nil {
			return err
		}
		// What upstream's naming and establishing controllers set right
		// after the create is set with it.
		before := obj.DeepCopy()
		s.crdStatus(obj, metav1.NewTime(s.now().Truncate(timePrecision)))
		c.res.recordServerWrite("status", before, o)
	case *unstructured.Unstructured:
		if c.res.schema != nil {
			return c.res.schema.Validate(c.ctx(), c.res.gvk.GroupKind(), obj, nil)
		}
	}
	return nil
}

// invalidKind is the kind a 422 names: the resource's, but core's Event for
// events.k8s.io Events, whose upstream storage is core's.
func invalidKind(c *request) schema.GroupKind {
	if c.res.Group == "events.k8s.io" && c.res.Resource.Resource == "events" {
		return schema.GroupKind{Kind: "Event"}
	}
	return c.res.gvk.GroupKind()
}

// validateCreate validates a new object: its metadata, then for built-in
// types the rules of upstream's strategy, all in one 422.
func (s *Server) validateCreate(c *request, o *object) error {
	errs := s.validateMeta(c, o)
	if st, ok := registry.For(c.res.gr); ok {
		errs = append(errs, st.Validate(c.ctx(), o.obj)...)
		if dv, ok := st.(strategy.DeclarativeValidator); ok {
			errs = dv.ValidateDeclaratively(c.ctx(), errs, o.obj, nil, false)
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(invalidKind(c), o.meta.GetName(), validate.Dedup(errs))
	}
	return nil
}

// beforeUpdate applies per-resource update rules (upstream's PrepareForUpdate)
// and validates the update: metaErrs, the metadata errors prepareUpdate
// found, come first in the 422, then the type's own rules.
func (s *Server) beforeUpdate(c *request, mode writeMode, o, old *object, metaErrs field.ErrorList) error {
	invalid := func(errs field.ErrorList) error {
		if len(errs) == 0 {
			return nil
		}
		return apierrors.NewInvalid(invalidKind(c), o.meta.GetName(), validate.Dedup(errs))
	}
	if mode == internalWrite {
		return invalid(metaErrs)
	}
	switch o.obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition, *unstructured.Unstructured:
		if err := invalid(metaErrs); err != nil {
			return err
		}
	}
	st, hasStrategy := registry.For(c.res.gr)
	if hasStrategy {
		prepareUpdate(c, st, mode, o, old)
	}
	if svc, ok := o.obj.(*corev1.Service); ok && mode == mainWrite {
		// Upstream's service storage, after PrepareForUpdate: what was
		// allocated stays, the rest is allocated.
		prev := old.obj.(*corev1.Service)
		keepAllocatedServiceFields(svc, prev)
		if err := s.allocateService(c, svc, prev); err != nil {
			return err
		}
	}
	if _, ok := o.obj.(*apiextensionsv1.CustomResourceDefinition); ok && mode == mainWrite {
		return s.validateCRD(c, o, old)
	}
	if u, ok := o.obj.(*unstructured.Unstructured); ok && c.res.schema != nil {
		ou, _ := old.obj.(*unstructured.Unstructured)
		return c.res.schema.Validate(c.ctx(), c.res.gvk.GroupKind(), u, ou)
	}
	errs := metaErrs
	switch {
	case mode == mainWrite && hasStrategy:
		errs = append(errs, st.ValidateUpdate(c.ctx(), o.obj, old.obj)...)
	case mode == statusWrite && hasStrategy:
		if ss, ok := st.(strategy.StatusStrategy); ok {
			errs = append(errs, ss.ValidateStatusUpdate(c.ctx(), o.obj, old.obj)...)
		}
	}
	if dv, ok := st.(strategy.DeclarativeValidator); ok {
		errs = dv.ValidateDeclaratively(c.ctx(), errs, o.obj, old.obj, mode == statusWrite)
	}
	return invalid(errs)
}

// prepareUpdate runs the strategy's preparation of an update (mode is not
// internalWrite): PrepareForUpdate for a write to the main resource,
// PrepareForFinalizeUpdate for one to /finalize and PrepareForStatusUpdate
// for one to /status, when the strategy has them.
func prepareUpdate(c *request, st strategy.Strategy, mode writeMode, o, old *object) {
	switch {
	case mode == statusWrite:
		if sp, ok := st.(strategy.StatusPreparer); ok {
			sp.PrepareForStatusUpdate(c.ctx(), o.obj, old.obj)
		}
	case c.info.Subresource == "finalize":
		if fp, ok := st.(strategy.FinalizePreparer); ok {
			fp.PrepareForFinalizeUpdate(c.ctx(), o.obj, old.obj)
		}
	default:
		st.PrepareForUpdate(c.ctx(), o.obj, old.obj)
	}
}

// markForDeletion applies per-resource graceful deletion and reports whether
// the object must stay (marked) rather than go at once.
func (s *Server) markForDeletion(c *request, o *object) bool {
	if crd, ok := o.obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		markCRDForDeletion(crd, metav1.NewTime(s.now().Truncate(timePrecision)))
		return true
	}
	if ns, ok := o.obj.(*corev1.Namespace); ok {
		ns.Status.Phase = corev1.NamespaceTerminating
		if len(ns.Spec.Finalizers) > 0 {
			return true
		}
	}
	return false
}

// resetStatus clears an object's status: the zero Status of a built-in type,
// no status at all for an unstructured object.
func resetStatus(obj runtime.Object) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		delete(u.Object, "status")
		return
	}
	strategy.ResetStatus(obj)
}
