package server

import (
	"context"
	"fmt"
	"net/http"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	pdbhelper "k8s.io/component-helpers/apps/poddisruptionbudget"

	"github.com/fakeplane/fakeplane/registry"
)

// pods/eviction, as kube-apiserver's eviction REST handler answers it: a
// pod that is not running (or already terminating) is deleted at once;
// otherwise the PodDisruptionBudget that selects it must allow a
// disruption, which the eviction takes from its status before it deletes
// the pod (with the DisruptionTarget condition set), and a budget that
// allows none answers 429 with the budget's reason as a cause.

var (
	evictionPodsGVR = schema.GroupVersionResource{Version: "v1", Resource: "pods"}
	evictionPDBsGVR = schema.GroupVersionResource{Group: "policy", Version: "v1", Resource: "poddisruptionbudgets"}
)

// evictionKind is the kind admission sees on pods/eviction.
var evictionKind = policyv1.SchemeGroupVersion.WithKind("Eviction")

// maxDisruptedPods is the most pods a budget's status may hold as evicted
// but not yet gone (upstream's MaxDisruptedPodSize).
const maxDisruptedPods = 2000

// serveEviction evicts a pod through pods/eviction.
func (s *Server) serveEviction(c *call) error {
	if c.Info.Verb != "create" {
		return c.ErrMethodNotSupported()
	}
	// The create handler's steps: the create options checked, the body
	// decoded with their field validation (a policy/v1beta1 Eviction as
	// well, as upstream's EvictionREST accepts it).
	wo, err := parseWriteOptions(c, "")
	if err != nil {
		return err
	}
	ev, err := c.decodeEviction(wo.fieldValidation)
	if err != nil {
		return err
	}
	// The create handler checks the body's namespace against the URL's,
	// then the eviction storage its name (an empty one too).
	if err := registry.EnsureRequestNamespace(c.Request, ev); err != nil {
		return err
	}
	if ev.Name != c.Info.Name {
		return apierrors.NewBadRequest("name in URL does not match name in Eviction object")
	}
	dry := wo.dryRun
	// Admission sees a CREATE of pods/eviction with the Eviction; the
	// pod's condition and deletion that follow are not admitted again.
	if err := s.AdmitCreate(c.Request, ev, evictionKind, c.Info.Name, dry || ev.DeleteOptions != nil && len(ev.DeleteOptions.DryRun) > 0); err != nil {
		return err
	}
	opts := ev.DeleteOptions
	if opts == nil {
		opts = &metav1.DeleteOptions{}
	}
	if dry && len(opts.DryRun) == 0 {
		opts.DryRun = []string{metav1.DryRunAll}
	}
	ctx := c.Request.GoCtx
	api := s.API()
	obj, err := api.Get(ctx, evictionPodsGVR, c.Namespace, c.Info.Name)
	if err != nil {
		return err
	}
	pod := obj.(*corev1.Pod)
	if pod.Status.Phase == corev1.PodSucceeded || pod.Status.Phase == corev1.PodFailed ||
		pod.Status.Phase == corev1.PodPending || pod.DeletionTimestamp != nil {
		return s.evict(c, pod, opts)
	}
	lst, err := api.List(ctx, evictionPDBsGVR, pod.Namespace, metav1.ListOptions{})
	if err != nil {
		return err
	}
	var pdbs []policyv1.PodDisruptionBudget
	for _, pdb := range lst.(*policyv1.PodDisruptionBudgetList).Items {
		sel, err := metav1.LabelSelectorAsSelector(pdb.Spec.Selector)
		if err != nil || sel.Empty() || !sel.Matches(labels.Set(pod.Labels)) {
			continue
		}
		pdbs = append(pdbs, pdb)
	}
	switch len(pdbs) {
	case 0:
		return s.evict(c, pod, opts)
	case 1:
	default:
		st := &metav1.Status{TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"}, Status: metav1.StatusFailure,
			Message: "This pod has more than one PodDisruptionBudget, which the eviction subresource does not support.", Code: http.StatusInternalServerError}
		return writeEncoded(c, http.StatusInternalServerError, st)
	}
	pdb := pdbs[0]
	if !podReady(pod) {
		// An unhealthy pod may go when the budget is met without it, or
		// when its policy says so.
		if p := pdb.Spec.UnhealthyPodEvictionPolicy; (p != nil && *p == policyv1.AlwaysAllow) ||
			(pdb.Status.CurrentHealthy >= pdb.Status.DesiredHealthy && pdb.Status.DesiredHealthy > 0) {
			rv := pod.ResourceVersion
			opts = opts.DeepCopy()
			if opts.Preconditions == nil {
				opts.Preconditions = &metav1.Preconditions{}
			}
			opts.Preconditions.ResourceVersion = &rv
			return s.evict(c, pod, opts)
		}
	}
	dry = len(opts.DryRun) > 0
	// kube-apiserver takes the disruption through its loopback client:
	// the budget's managedFields name kube-apiserver.
	_, err = api.UpdateSubresource(registry.WithFieldManager(ctx, "kube-apiserver"), evictionPDBsGVR, "status", pdb.Namespace, pdb.Name, func(cur runtime.Object) (runtime.Object, error) {
		p := cur.(*policyv1.PodDisruptionBudget)
		if err := disruptionAllowed(p); err != nil {
			return nil, err
		}
		if dry {
			return nil, errDryRunEviction
		}
		p.Status.DisruptionsAllowed--
		if p.Status.DisruptionsAllowed == 0 {
			pdbhelper.UpdateDisruptionAllowedCondition(p)
		}
		if p.Status.DisruptedPods == nil {
			p.Status.DisruptedPods = map[string]metav1.Time{}
		}
		p.Status.DisruptedPods[pod.Name] = metav1.NewTime(s.now())
		return p, nil
	})
	if err != nil && err != errDryRunEviction {
		return err
	}
	return s.evict(c, pod, opts)
}

// errDryRunEviction ends a dry-run eviction's budget update once the
// budget allowed it: nothing is written.
var errDryRunEviction = fmt.Errorf("dry run")

// disruptionAllowed is upstream's check of a budget before an eviction
// takes one of its disruptions.
func disruptionAllowed(pdb *policyv1.PodDisruptionBudget) error {
	cause := func(msg string) []metav1.StatusCause {
		return []metav1.StatusCause{{Type: policyv1.DisruptionBudgetCause, Message: msg}}
	}
	if pdb.Status.ObservedGeneration < pdb.Generation {
		err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 10)
		err.ErrStatus.Details.Causes = cause(fmt.Sprintf("The disruption budget %s is still being processed by the server.", pdb.Name))
		return err
	}
	gr := schema.GroupResource{Group: "policy", Resource: "poddisruptionbudget"}
	if pdb.Status.DisruptionsAllowed < 0 {
		err := apierrors.NewForbidden(gr, pdb.Name, fmt.Errorf("pdb disruptions allowed is negative"))
		err.ErrStatus.Details.Causes = cause(fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: pdb disruptions allowed is negative", pdb.Name))
		return err
	}
	if len(pdb.Status.DisruptedPods) > maxDisruptedPods {
		err := apierrors.NewForbidden(gr, pdb.Name, fmt.Errorf("DisruptedPods map too big - too many evictions not confirmed by PDB controller"))
		err.ErrStatus.Details.Causes = cause(fmt.Sprintf("The disruption budget %s does not allow evicting pods currently: too many pending evictions not confirmed by PDB controller", pdb.Name))
		return err
	}
	if pdb.Status.DisruptionsAllowed > 0 {
		return nil
	}
	err := apierrors.NewTooManyRequests("Cannot evict pod as it would violate the pod's disruption budget.", 0)
	cond := meta.FindStatusCondition(pdb.Status.Conditions, policyv1.DisruptionAllowedCondition)
	var msg string
	switch {
	case cond != nil && cond.Status == metav1.ConditionFalse && cond.Message != "" && cond.Reason == policyv1.SyncFailedReason:
		msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently because it failed sync: %s", pdb.Name, cond.Message)
	case pdb.Status.CurrentHealthy <= pdb.Status.DesiredHealthy:
		msg = fmt.Sprintf("The disruption budget %s needs %d healthy pods and has %d currently", pdb.Name, pdb.Status.DesiredHealthy, pdb.Status.CurrentHealthy)
	case cond != nil && cond.Status == metav1.ConditionFalse && cond.Message != "":
		msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently (%s): %s", pdb.Name, cond.Reason, cond.Message)
	default:
		msg = fmt.Sprintf("The disruption budget %s does not allow evicting pods currently", pdb.Name)
	}
	err.ErrStatus.Details.Causes = cause(msg)
	return err
}

// podReady reports whether pod's Ready condition is True.
func podReady(pod *corev1.Pod) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// evict marks the pod with the DisruptionTarget condition and deletes it
// with opts, answering 201 with a success Status.
func (s *Server) evict(c *call, pod *corev1.Pod, opts *metav1.DeleteOptions) error {
	if len(opts.DryRun) == 0 && pod.DeletionTimestamp == nil {
		ctx := registry.WithoutAdmission(c.Request.GoCtx)
		_, err := s.API().UpdateSubresource(ctx, evictionPodsGVR, "status", pod.Namespace, pod.Name, func(cur runtime.Object) (runtime.Object, error) {
			p := cur.(*corev1.Pod)
			if err := evictionPreconditions(p, opts); err != nil {
				return nil, err
			}
			setDisruptionTarget(p, s.now())
			return p, nil
		})
		if err != nil {
			return err
		}
		if opts.Preconditions != nil && opts.Preconditions.ResourceVersion != nil {
			// The condition moved the pod on: the delete goes with it.
			got, err := s.API().Get(context.WithoutCancel(ctx), evictionPodsGVR, pod.Namespace, pod.Name)
			if err != nil {
				return err
			}
			rv := got.(*corev1.Pod).ResourceVersion
			opts = opts.DeepCopy()
			opts.Preconditions.ResourceVersion = &rv
		}
	}
	c.Request.GoCtx = registry.WithoutAdmission(c.Request.GoCtx)
	if _, _, err := s.DeleteObject(c.Request, c.Key(), c.Info.Name, opts); err != nil {
		return err
	}
	return writeEncoded(c, http.StatusCreated, successStatus(http.StatusCreated))
}

// evictionPreconditions checks the delete options' preconditions against
// the pod before it is marked.
func evictionPreconditions(p *corev1.Pod, opts *metav1.DeleteOptions) error {
	if opts.Preconditions == nil {
		return nil
	}
	gr := schema.GroupResource{Resource: "Pod"}
	if uid := opts.Preconditions.UID; uid != nil && *uid != "" && *uid != p.UID {
		return apierrors.NewConflict(gr, p.Name, fmt.Errorf("the UID in the precondition (%s) does not match the UID in record (%s). The object might have been deleted and then recreated", *uid, p.UID))
	}
	if rv := opts.Preconditions.ResourceVersion; rv != nil && *rv != "" && *rv != p.ResourceVersion {
		return apierrors.NewConflict(gr, p.Name, fmt.Errorf("the ResourceVersion in the precondition (%s) does not match the ResourceVersion in record (%s). The object might have been modified", *rv, p.ResourceVersion))
	}
	return nil
}

// setDisruptionTarget sets the condition an eviction gives a pod.
func setDisruptionTarget(p *corev1.Pod, now time.Time) {
	cond := corev1.PodCondition{Type: corev1.DisruptionTarget, Status: corev1.ConditionTrue, Reason: "EvictionByEvictionAPI",
		Message: "Eviction API: evicting", LastTransitionTime: metav1.NewTime(now.Truncate(time.Second))}
	for i := range p.Status.Conditions {
		if p.Status.Conditions[i].Type == corev1.DisruptionTarget {
			if p.Status.Conditions[i].Status == corev1.ConditionTrue {
				cond.LastTransitionTime = p.Status.Conditions[i].LastTransitionTime
			}
			p.Status.Conditions[i] = cond
			return
		}
	}
	p.Status.Conditions = append(p.Status.Conditions, cond)
}

// decodeEviction decodes the request's Eviction, policy/v1 or v1beta1 (the
// same fields), with the field validation directive.
func (c *call) decodeEviction(directive string) (*policyv1.Eviction, error) {
	raw, err := readBody(c.r)
	if err != nil {
		return nil, err
	}
	o, err := c.decodeBodyAs(registry.Evictions, directive, raw)
	if err != nil {
		if gvk, gerr := registry.BodyGVK(raw, registry.Evictions.GVK); gerr == nil && gvk == registry.EvictionsV1beta1.GVK {
			if o, err = c.decodeBodyAs(registry.EvictionsV1beta1, directive, raw); err == nil {
				old := o.Obj.(*policyv1beta1.Eviction)
				o.Obj = &policyv1.Eviction{TypeMeta: metav1.TypeMeta{APIVersion: "policy/v1", Kind: "Eviction"}, ObjectMeta: old.ObjectMeta, DeleteOptions: old.DeleteOptions}
			}
		}
	}
	if err != nil {
		return nil, err
	}
	addWarnings(c.w, o.Warnings)
	return o.Obj.(*policyv1.Eviction), nil
}
