package server

import (
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	resourcehelper "k8s.io/component-helpers/resource"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/registry/apps/daemonset"
	"github.com/fakeplane/fakeplane/registry/strategy"
	"github.com/fakeplane/fakeplane/store"
)

// namespacesBucket is where namespaces are stored.
const namespacesBucket = "/namespaces"

// admitNamespace is the NamespaceLifecycle admission check for creating
// o in its namespace: the namespace must exist and not be terminating.
func (s *Server) admitNamespace(c *call, o *object) error {
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

// statusResetOnCreate lists resources whose create keeps the status the
// client sent (upstream resets it for the others with a status subresource).
var statusKeptOnCreate = map[string]bool{"/nodes": true}

// beforeCreate applies per-resource create rules in upstream's order: what
// mutating admission and the storage's BeginCreate do, PrepareForCreate,
// then validation (metadata and the type's own rules in one 422), then what
// follows a valid create.
func (s *Server) beforeCreate(c *call, o *object) error {
	key := c.res.Group + "/" + c.res.Resource.Resource
	if c.res.hasSub("status") && !statusKeptOnCreate[key] {
		resetStatus(o.obj)
	}
	switch obj := o.obj.(type) {
	case *corev1.Namespace:
		obj.Spec.Finalizers = []corev1.FinalizerName{corev1.FinalizerKubernetes}
		obj.Status = corev1.NamespaceStatus{Phase: corev1.NamespaceActive}
		labels := obj.GetLabels()
		if labels == nil {
			labels = map[string]string{}
		}
		labels[corev1.LabelMetadataName] = obj.Name
		obj.SetLabels(labels)
	case *corev1.Pod:
		if err := s.admitPod(c, obj); err != nil {
			return err
		}
		obj.Status = corev1.PodStatus{Phase: corev1.PodPending, QOSClass: podQOS(obj)}
	case *corev1.Service:
		if c.user != systemUser || obj.Spec.ClusterIP == "" {
			if err := s.allocateServiceIP(c, obj); err != nil {
				return err
			}
		}
	case *batchv1.Job:
		generateJobSelector(obj)
	case *appsv1.DaemonSet:
		daemonset.SetTemplateGeneration(obj, 1)
	case *corev1.Node:
		// The TaintNodesByCondition admission plugin: a new node is
		// not ready until its kubelet says otherwise...
		notReady := corev1.Taint{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}
		if !slices.ContainsFunc(obj.Spec.Taints, func(t corev1.Taint) bool { return t.MatchTaint(&notReady) }) {
			obj.Spec.Taints = append(obj.Spec.Taints, notReady)
		}
		// ...and the node lifecycle controller's pass follows at once.
		nodeConditionTaints(obj)
	case *corev1.PersistentVolume:
		obj.Status = corev1.PersistentVolumeStatus{Phase: corev1.VolumePending}
	case *corev1.PersistentVolumeClaim:
		obj.Status = corev1.PersistentVolumeClaimStatus{Phase: corev1.ClaimPending}
	}
	if err := s.validateCreate(c, o); err != nil {
		return err
	}
	switch obj := o.obj.(type) {
	case *corev1.Secret:
		s.fillServiceAccountTokenSecret(obj)
	case *certificatesv1.CertificateSigningRequest:
		// The requestor is who creates the request, whatever it says.
		obj.Spec.Username, obj.Spec.UID, obj.Spec.Groups, obj.Spec.Extra = "", "", nil, nil
		if c.user != nil {
			obj.Spec.Username, obj.Spec.UID, obj.Spec.Groups = c.user.GetName(), c.user.GetUID(), c.user.GetGroups()
			if extra := c.user.GetExtra(); len(extra) > 0 {
				obj.Spec.Extra = map[string]certificatesv1.ExtraValue{}
				for k, v := range extra {
					obj.Spec.Extra[k] = v
				}
			}
		}
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
func invalidKind(c *call) schema.GroupKind {
	if c.res.Group == "events.k8s.io" && c.res.Resource.Resource == "events" {
		return schema.GroupKind{Kind: "Event"}
	}
	return c.res.gvk.GroupKind()
}

// validateCreate validates a new object: its metadata, then for built-in
// types the rules of upstream's strategy, all in one 422.
func (s *Server) validateCreate(c *call, o *object) error {
	errs := s.validateMeta(c, o)
	if st, ok := registry.For(c.res.gr); ok {
		st.PrepareForCreate(c.ctx(), o.obj)
		errs = append(errs, st.Validate(c.ctx(), o.obj)...)
	}
	errs = withDeclarative(errs, o.obj, nil, false)
	if len(errs) > 0 {
		return apierrors.NewInvalid(invalidKind(c), o.meta.GetName(), validate.Dedup(errs))
	}
	return nil
}

// beforeUpdate applies per-resource update rules (upstream's PrepareForUpdate)
// and validates the update: metaErrs, the metadata errors prepareUpdate
// found, come first in the 422, then the type's own rules.
func (s *Server) beforeUpdate(c *call, mode writeMode, o, old *object, metaErrs field.ErrorList) error {
	invalid := func(errs field.ErrorList) error {
		if len(errs) == 0 {
			return nil
		}
		return apierrors.NewInvalid(invalidKind(c), o.meta.GetName(), validate.Dedup(errs))
	}
	if mode == internalWrite {
		return invalid(metaErrs)
	}
	switch obj := o.obj.(type) {
	case *apiextensionsv1.CustomResourceDefinition, *unstructured.Unstructured:
		if err := invalid(metaErrs); err != nil {
			return err
		}
	case *corev1.Service:
		if mode == mainWrite {
			prev := old.obj.(*corev1.Service)
			dropTypeDependentFields(obj, prev)
			keepAllocatedServiceFields(obj, prev)
			if err := s.allocateService(c, obj, prev); err != nil {
				return err
			}
		}
	case *certificatesv1.CertificateSigningRequest:
		// A request's spec, the requestor included, does not change.
		if mode == mainWrite {
			obj.Spec = old.obj.(*certificatesv1.CertificateSigningRequest).Spec
		}
	case *corev1.Node:
		nodeConditionTaints(obj)
	case *corev1.Pod:
		// Upstream's Priority admission keeps what it set at create.
		prev := old.obj.(*corev1.Pod)
		if obj.Spec.Priority == nil {
			obj.Spec.Priority = prev.Spec.Priority
		}
		if obj.Spec.PreemptionPolicy == nil {
			obj.Spec.PreemptionPolicy = prev.Spec.PreemptionPolicy
		}
	case *appsv1.DaemonSet:
		prev := old.obj.(*appsv1.DaemonSet)
		gen := daemonset.TemplateGeneration(prev)
		if mode == mainWrite && !apiequality.Semantic.DeepEqual(obj.Spec.Template, prev.Spec.Template) {
			gen++
		}
		daemonset.SetTemplateGeneration(obj, gen)
	case *corev1.Namespace:
		if c.info.Subresource != "finalize" {
			obj.Spec.Finalizers = old.obj.(*corev1.Namespace).Spec.Finalizers
		}
		if c.info.Subresource == "" || c.info.Subresource == "finalize" {
			obj.Status = old.obj.(*corev1.Namespace).Status
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
	case mode == mainWrite:
		if st, ok := registry.For(c.res.gr); ok {
			st.PrepareForUpdate(c.ctx(), o.obj, old.obj)
			errs = append(errs, st.ValidateUpdate(c.ctx(), o.obj, old.obj)...)
		}
	case mode == statusWrite:
		if st, ok := registry.For(c.res.gr); ok {
			if ss, ok := st.(strategy.StatusStrategy); ok {
				errs = append(errs, ss.ValidateStatusUpdate(c.ctx(), o.obj, old.obj)...)
			}
		}
	}
	errs = withDeclarative(errs, o.obj, old.obj, mode == statusWrite)
	return invalid(errs)
}

// nodeConditionTaints is what kube-controller-manager's node lifecycle
// controller keeps on a node: a NoSchedule taint for a Ready condition
// False (not-ready) or Unknown (unreachable), none when it is True, and
// the unschedulable taint while spec.unschedulable is set. A node without
// a Ready condition keeps what it has.
func nodeConditionTaints(n *corev1.Node) {
	want := map[string]bool{corev1.TaintNodeUnschedulable: n.Spec.Unschedulable}
	ready := false
	for _, c := range n.Status.Conditions {
		if c.Type == corev1.NodeReady {
			ready = true
			want[corev1.TaintNodeNotReady] = c.Status == corev1.ConditionFalse
			want[corev1.TaintNodeUnreachable] = c.Status == corev1.ConditionUnknown
		}
	}
	var taints []corev1.Taint
	has := map[string]bool{}
	for _, t := range n.Spec.Taints {
		if t.Effect == corev1.TaintEffectNoSchedule {
			if w, managed := want[t.Key]; managed && (ready || t.Key == corev1.TaintNodeUnschedulable) && !w {
				continue
			}
			has[t.Key] = true
		}
		taints = append(taints, t)
	}
	for _, k := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable, corev1.TaintNodeUnschedulable} {
		if want[k] && !has[k] {
			taints = append(taints, corev1.Taint{Key: k, Effect: corev1.TaintEffectNoSchedule})
		}
	}
	n.Spec.Taints = taints
}

// markForDeletion applies per-resource graceful deletion and reports whether
// the object must stay (marked) rather than go at once.
func (s *Server) markForDeletion(c *call, o *object) bool {
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

// afterCreate runs what controllers of a fresh cluster do for a new object.
func (s *Server) afterCreate(c *call, o *object) {
	if ns, ok := o.obj.(*corev1.Namespace); ok {
		s.populateNamespace(ns.Name)
	}
}

// podQOS computes the QoS class kube-apiserver v1.37's pod strategy gives a
// new pod (ComputePodQOS after DefaultPodLevelResources, PodLevelResources
// and PodLevelResourcesFixKubeletQOSClass on): from the pod-level resources
// when spec.resources sets cpu, memory or hugepages once defaulted, else
// from each container's resources. Requests are taken as defaulting leaves
// them: a container's missing request is its limit, and pod-level requests
// and limits are filled in from the containers' and the pod's limits.
func podQOS(pod *corev1.Pod) corev1.PodQOSClass {
	// SetDefaults_Pod: a container's missing request takes its limit.
	defaulted := func(list []corev1.Container) []corev1.Container {
		out := make([]corev1.Container, len(list))
		for i, c := range list {
			r := corev1.ResourceRequirements{Limits: c.Resources.Limits}
			if len(c.Resources.Requests)+len(c.Resources.Limits) > 0 {
				r.Requests = corev1.ResourceList{}
				for name, q := range c.Resources.Limits {
					r.Requests[name] = q
				}
				for name, q := range c.Resources.Requests {
					r.Requests[name] = q
				}
			}
			out[i] = corev1.Container{Name: c.Name, RestartPolicy: c.RestartPolicy, Resources: r}
		}
		return out
	}
	ctrs := &corev1.Pod{Spec: corev1.PodSpec{InitContainers: defaulted(pod.Spec.InitContainers), Containers: defaulted(pod.Spec.Containers)}}
	// requirementsQOS is upstream's: BestEffort without requests and
	// limits, else the shape common to cpu and memory (Burstable when a
	// request differs from its limit or the two disagree).
	requirementsQOS := func(r *corev1.ResourceRequirements) corev1.PodQOSClass {
		if len(r.Requests) == 0 && len(r.Limits) == 0 {
			return corev1.PodQOSBestEffort
		}
		var qos corev1.PodQOSClass
		for _, name := range []corev1.ResourceName{corev1.ResourceCPU, corev1.ResourceMemory} {
			req, lim := r.Requests[name], r.Limits[name]
			shape := corev1.PodQOSGuaranteed
			switch {
			case !req.Equal(lim):
				return corev1.PodQOSBurstable
			case req.IsZero():
				shape = corev1.PodQOSBestEffort
			}
			if qos == "" {
				qos = shape
			} else if qos != shape {
				return corev1.PodQOSBurstable
			}
		}
		return qos
	}
	if r := pod.Spec.Resources; r != nil && len(r.Requests)+len(r.Limits) > 0 {
		// DefaultPodLevelResources, on a copy.
		res := r.DeepCopy()
		if res.Requests == nil {
			res.Requests = corev1.ResourceList{}
		}
		if res.Limits == nil {
			res.Limits = corev1.ResourceList{}
		}
		hugePages := func(name corev1.ResourceName) bool {
			return strings.HasPrefix(string(name), corev1.ResourceHugePagesPrefix)
		}
		ctrLimits := resourcehelper.AggregateContainerLimits(ctrs, resourcehelper.PodResourcesOptions{})
		for name, q := range ctrLimits {
			_, req := res.Requests[name]
			if _, lim := res.Limits[name]; hugePages(name) && !req && !lim {
				res.Limits[name] = q.DeepCopy()
			}
		}
		for name, q := range resourcehelper.AggregateContainerRequests(ctrs, resourcehelper.PodResourcesOptions{}) {
			// Only overcommittable resources (not hugepages) come from
			// the containers' requests.
			if _, ok := res.Requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) && !hugePages(name) {
				res.Requests[name] = q.DeepCopy()
			}
		}
		for name, q := range res.Limits {
			if _, ok := res.Requests[name]; !ok && resourcehelper.IsSupportedPodLevelResource(name) {
				res.Requests[name] = q.DeepCopy()
			}
		}
		// A missing pod-level limit is the containers' total limit (at
		// least the pod-level request) when every container has one.
		for name, req := range res.Requests {
			if _, ok := res.Limits[name]; ok || !resourcehelper.IsSupportedPodLevelResource(name) {
				continue
			}
			all := true
			for _, c := range append(append([]corev1.Container{}, ctrs.Spec.InitContainers...), ctrs.Spec.Containers...) {
				if _, ok := c.Resources.Limits[name]; !ok {
					all = false
				}
			}
			if lim, ok := ctrLimits[name]; all && ok {
				if req.Cmp(lim) > 0 {
					lim = req
				}
				res.Limits[name] = lim.DeepCopy()
			}
		}
		if resourcehelper.IsPodLevelResourcesSet(&corev1.Pod{Spec: corev1.PodSpec{Resources: res}}) {
			return requirementsQOS(res)
		}
	}
	var qos corev1.PodQOSClass
	for _, c := range append(append([]corev1.Container{}, ctrs.Spec.InitContainers...), ctrs.Spec.Containers...) {
		switch shape := requirementsQOS(&c.Resources); {
		case shape == corev1.PodQOSBurstable:
			return shape
		case qos == "":
			qos = shape
		case qos != shape:
			return corev1.PodQOSBurstable
		}
	}
	if qos == "" {
		return corev1.PodQOSBestEffort
	}
	return qos
}

// resetStatus clears an object's status: the zero Status of a built-in type,
// no status at all for an unstructured object.
func resetStatus(obj runtime.Object) {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		delete(u.Object, "status")
		return
	}
	v := reflect.ValueOf(obj).Elem().FieldByName("Status")
	if v.IsValid() && v.CanSet() {
		v.Set(reflect.Zero(v.Type()))
	}
}
