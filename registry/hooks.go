package registry

import (
	"context"
	"fmt"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/warning"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/core/pod"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// namespacesBucket is where namespaces are stored.
const namespacesBucket = "/namespaces"

// admitNamespace is the NamespaceLifecycle admission check for creating
// o in its namespace: the namespace must exist and not be terminating.
func (s *Registry) admitNamespace(c *Request, o *Object) error {
	ns := o.Meta.GetNamespace()
	cur, err := s.storedNamespace(ns)
	if err != nil {
		return err
	}
	if terminating(cur.Value) {
		err := apierrors.NewForbidden(c.Res.GR, o.Meta.GetName(), fmt.Errorf("unable to create new content in namespace %s because it is being terminated", ns))
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
func (s *Registry) beforeCreate(c *Request, o *Object) error {
	st, hasStrategy := For(c.Res.GR)
	if c.Res.HasSub("status") && !hasStrategy {
		// A strategy clears the status itself (see
		// strategy.Base.ResetStatusOnCreate).
		resetStatus(o.Obj)
	}
	// Allocation (admission ran before, see admitBuiltinCreate).
	switch obj := o.Obj.(type) {
	case *corev1.Service:
		if c.User != systemUser || obj.Spec.ClusterIP == "" {
			if s.shared {
				c.unallocated = obj.DeepCopy()
			}
			if err := s.allocateServiceIP(c, obj); err != nil {
				return err
			}
		} else {
			// The control plane's own Service (kubernetes) names its
			// address, which the bootstrap's IPAddress holds: allocation
			// only completes its spec, as upstream's does.
			if len(obj.Spec.ClusterIPs) == 0 {
				obj.Spec.ClusterIPs = []string{obj.Spec.ClusterIP}
			}
			if len(obj.Spec.IPFamilies) == 0 {
				obj.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
			}
		}
	}
	dropDisabledFields(o.Obj, nil)
	if hasStrategy {
		st.PrepareForCreate(c.Context(), o.Obj)
	}
	if err := s.validateCreate(c, o); err != nil {
		return err
	}
	if hasStrategy {
		// Upstream's BeforeCreate records them once the object is valid:
		// they go with the answer whatever follows (a conflict, a denial
		// by validating admission).
		addWarnings(c, st.WarningsOnCreate(c.Context(), o.Obj))
	}
	switch obj := o.Obj.(type) {
	case *apiregistrationv1.APIService:
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
		// A client's CRD is created as upstream's strategy leaves it (no
		// status but the stored versions); the naming and establishing
		// controllers' writes follow it at once (syncCRD, before the
		// create answers). The control plane's own creates (bootstrap,
		// fixtures), which nobody watches, are created established.
		if c.noResult {
			before := obj.DeepCopy()
			now := metav1.NewTime(s.now().Truncate(timePrecision))
			s.crdStatus(obj, now) // named: Established=False, Installing
			s.crdStatus(obj, now) // established
			c.Res.recordServerWrite("status", before, o)
		}
	}
	if c.presetStatus != nil {
		return s.setPresetStatus(c, o)
	}
	return nil
}

// invalidKind is the kind a 422 names: the resource's, but core's Event for
// events.k8s.io Events, whose upstream storage is core's.
func invalidKind(c *Request) schema.GroupKind {
	if c.Res.Group == "events.k8s.io" && c.Res.Resource.Resource == "events" {
		return schema.GroupKind{Kind: "Event"}
	}
	return c.Res.GVK.GroupKind()
}

// validateCreate validates a new object: its metadata, then for built-in
// types the rules of upstream's strategy, all in one 422.
func (s *Registry) validateCreate(c *Request, o *Object) error {
	if c.createMemo != nil && c.createMemo.validated.Load() {
		return nil
	}
	if err := s.validateCreateOnce(c, o); err != nil {
		return err
	}
	if c.createMemo != nil {
		c.createMemo.validated.Store(true)
	}
	return nil
}

// validateCreateOnce is validateCreate without the memo of the server's
// own creates.
func (s *Registry) validateCreateOnce(c *Request, o *Object) error {
	if _, ok := o.Obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		// Upstream's CRD validation checks the metadata with the rest of
		// the definition, in one 422 (validateCRD, after preparation).
		return nil
	}
	var errs field.ErrorList
	metaLast := c.Res.noMetadataRules
	if !metaLast {
		errs = s.validateMeta(c, o)
	}
	if u, ok := o.Obj.(*unstructured.Unstructured); ok && c.Res.schema != nil {
		// A custom resource: metadata and schema errors in one 422.
		return c.Res.schema.ValidateWith(c.Context(), c.Res.GVK.GroupKind(), u, nil, errs, c.Res.scalePaths)
	}
	if st, ok := For(c.Res.GR); ok {
		errs = append(errs, st.Validate(s.validationContext(c), o.Obj)...)
		if metaLast && len(errs) == 0 {
			errs = s.validateMeta(c, o)
		}
		if dv, ok := st.(strategy.DeclarativeValidator); ok {
			errs = dv.ValidateDeclaratively(c.Context(), errs, o.Obj, nil, false)
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(invalidKind(c), o.Meta.GetName(), validate.Dedup(errs))
	}
	return nil
}

// beforeUpdate applies per-resource update rules (upstream's PrepareForUpdate)
// and validates the update: the metadata errors come first in the 422, then
// the type's own rules.
func (s *Registry) beforeUpdate(c *Request, mode writeMode, o, old *Object) error {
	invalid := func(errs field.ErrorList) error {
		if len(errs) == 0 {
			return nil
		}
		return apierrors.NewInvalid(invalidKind(c), o.Meta.GetName(), dedupMetaErrors(c.Res, errs))
	}
	if mode == internalWrite {
		return invalid(metaUpdateErrors(c, mode, o, old))
	}
	st, hasStrategy := For(c.Res.GR)
	if hasStrategy {
		prepareUpdate(c, st, mode, o, old)
	}
	// Upstream validates the metadata once the strategy has prepared the
	// write: what a preparation puts back (a Deployment's labels on
	// /status, the stored pod on /ephemeralcontainers) is not checked.
	metaErrs := metaUpdateErrors(c, mode, o, old)
	switch o.Obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition, *unstructured.Unstructured:
		// A custom resource with a schema reports them with the schema's.
		if _, ok := o.Obj.(*unstructured.Unstructured); !ok || c.Res.schema == nil {
			if err := invalid(metaErrs); err != nil {
				return err
			}
		}
	}
	if svc, ok := o.Obj.(*corev1.Service); ok && mode == mainWrite {
		// Upstream's service storage, after PrepareForUpdate: what was
		// allocated stays, the rest is allocated.
		prev := old.Obj.(*corev1.Service)
		keepAllocatedServiceFields(svc, prev)
		normalizeUpdatedClusterIPs(svc, prev)
		if err := s.allocateService(c, svc, prev); err != nil {
			return err
		}
	}
	if _, ok := o.Obj.(*apiextensionsv1.CustomResourceDefinition); ok && mode == mainWrite {
		return s.validateCRD(c, o, old)
	}
	if u, ok := o.Obj.(*unstructured.Unstructured); ok && c.Res.schema != nil {
		ou, _ := old.Obj.(*unstructured.Unstructured)
		if mode == statusWrite && ou != nil {
			return c.Res.schema.ValidateStatusWith(c.Context(), c.Res.GVK.GroupKind(), u, ou, metaErrs, c.Res.scalePaths)
		}
		return c.Res.schema.ValidateWith(c.Context(), c.Res.GVK.GroupKind(), u, ou, metaErrs, c.Res.scalePaths)
	}
	errs := metaErrs
	fv, finalize := st.(strategy.FinalizeValidator)
	finalize = finalize && c.Info.Subresource == "finalize"
	av, approval := st.(strategy.ApprovalValidator)
	approval = approval && c.Info.Subresource == "approval"
	ev, ephemeral := st.(strategy.EphemeralContainersStrategy)
	ephemeral = ephemeral && c.Info.Subresource == "ephemeralcontainers"
	rv, resize := st.(strategy.ResizeStrategy)
	resize = resize && c.Info.Subresource == "resize"
	switch {
	case mode == mainWrite && finalize:
		errs = append(errs, fv.ValidateFinalizeUpdate(c.Context(), o.Obj, old.Obj)...)
	case mode == mainWrite && approval:
		errs = append(errs, av.ValidateApprovalUpdate(c.Context(), o.Obj, old.Obj)...)
	case mode == mainWrite && ephemeral:
		errs = append(errs, ev.ValidateEphemeralContainersUpdate(s.validationContext(c), o.Obj, old.Obj)...)
	case mode == mainWrite && resize:
		errs = append(errs, rv.ValidateResizeUpdate(s.validationContext(c), o.Obj, old.Obj)...)
	case mode == mainWrite && hasStrategy:
		errs = append(errs, st.ValidateUpdate(s.validationContext(c), o.Obj, old.Obj)...)
	case mode == statusWrite && hasStrategy:
		if ss, ok := st.(strategy.StatusStrategy); ok {
			// A status strategy may ask the authorizer (a
			// PodCertificateRequest's signer's "sign" verb).
			ctx := validate.WithAuthorizer(c.Context(), s.hooks.Authorizer)
			errs = append(errs, ss.ValidateStatusUpdate(ctx, o.Obj, old.Obj)...)
		}
	}
	if dv, ok := st.(strategy.DeclarativeValidator); ok {
		errs = dv.ValidateDeclaratively(c.Context(), errs, o.Obj, old.Obj, mode == statusWrite)
	}
	if err := invalid(errs); err != nil {
		return err
	}
	// Upstream's BeforeUpdate records the warnings of a valid update of
	// the resource, or of its scale (which upstream writes through the
	// resource's strategy). The other subresources' strategies (finalize,
	// approval, ephemeral containers, resize) have none.
	switch {
	case mode == mainWrite && hasStrategy && (c.Info.Subresource == "" || c.Info.Subresource == "scale"):
		addWarnings(c, st.WarningsOnUpdate(c.Context(), o.Obj, old.Obj))
	case mode == statusWrite:
		if sw, ok := st.(strategy.StatusWarner); ok {
			addWarnings(c, sw.WarningsOnStatusUpdate(c.Context(), o.Obj, old.Obj))
		}
	}
	return nil
}

// addWarnings records warnings on the request's context, where upstream's
// strategies put them (warning.AddWarning): the server's recorder sends
// each once, in a Warning header, with the answer whatever it is. A call
// made from Go has no recorder, and they are dropped.
func addWarnings(c *Request, warnings []string) {
	for _, w := range warnings {
		warning.AddWarning(c.Context(), "", w)
	}
}

// prepareUpdate runs the strategy's preparation of an update (mode is not
// internalWrite): PrepareForUpdate for a write to the main resource,
// PrepareForFinalizeUpdate for one to /finalize, PrepareForApprovalUpdate
// for one to /approval, PrepareForEphemeralContainersUpdate and
// PrepareForResizeUpdate for one to a pod's /ephemeralcontainers and
// /resize, and PrepareForStatusUpdate for one to /status, when the
// strategy has them.
func prepareUpdate(c *Request, st strategy.Strategy, mode writeMode, o, old *Object) {
	switch {
	case mode == statusWrite:
		if sp, ok := st.(strategy.StatusPreparer); ok {
			sp.PrepareForStatusUpdate(c.Context(), o.Obj, old.Obj)
		}
	case c.Info.Subresource == "finalize":
		if fp, ok := st.(strategy.FinalizePreparer); ok {
			fp.PrepareForFinalizeUpdate(c.Context(), o.Obj, old.Obj)
		}
	case c.Info.Subresource == "ephemeralcontainers":
		if ep, ok := st.(strategy.EphemeralContainersStrategy); ok {
			ep.PrepareForEphemeralContainersUpdate(c.Context(), o.Obj, old.Obj)
		}
	case c.Info.Subresource == "resize":
		if rp, ok := st.(strategy.ResizeStrategy); ok {
			rp.PrepareForResizeUpdate(c.Context(), o.Obj, old.Obj)
		}
	case c.Info.Subresource == "approval":
		if ap, ok := st.(strategy.ApprovalPreparer); ok {
			ap.PrepareForApprovalUpdate(c.Context(), o.Obj, old.Obj)
		}
	default:
		dropDisabledFields(o.Obj, old.Obj)
		st.PrepareForUpdate(c.Context(), o.Obj, old.Obj)
	}
}

// markForDeletion applies per-resource graceful deletion and reports whether
// the object must stay (marked) rather than go at once.
func (s *Registry) markForDeletion(c *Request, o *Object) bool {
	if crd, ok := o.Obj.(*apiextensionsv1.CustomResourceDefinition); ok {
		markCRDForDeletion(crd, metav1.NewTime(s.now().Truncate(timePrecision)))
		return true
	}
	if ns, ok := o.Obj.(*corev1.Namespace); ok {
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

// validationContext is the context the strategies validate c's object in:
// c's, with the cluster policy of --allow-privileged=false
// (Config.DisallowPrivileged) for the pod and pod template rules.
func (s *Registry) validationContext(c *Request) context.Context {
	if !s.disallowPrivileged {
		return c.Context()
	}
	return pod.WithPrivilegedDisallowed(c.Context())
}
