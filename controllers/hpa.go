package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// hpasBucket is the store bucket of HorizontalPodAutoscalers (stored as
// autoscaling/v2).
const hpasBucket = "autoscaling/horizontalpodautoscalers"

// DefaultHPASyncPeriod is kube-controller-manager's
// --horizontal-pod-autoscaler-sync-period: how often each
// HorizontalPodAutoscaler is reconciled.
const DefaultHPASyncPeriod = 15 * time.Second

// hpaComponent is the source of the controller's events.
const hpaComponent = "horizontal-pod-autoscaler"

var hpasGVR = schema.GroupVersionResource{Group: "autoscaling", Version: "v2", Resource: "horizontalpodautoscalers"}

// KindResourcesFunc lists the resources serving a kind of a group, in any
// version, the preferred first (none: the kind is not served), as a REST
// mapper's RESTMappings do.
type KindResourcesFunc func(schema.GroupKind) []schema.GroupVersionResource

// HorizontalPodAutoscaler is kube-controller-manager's
// horizontal-pod-autoscaler-controller in a cluster that serves none of
// the metrics APIs (metrics.k8s.io, custom.metrics.k8s.io,
// external.metrics.k8s.io), as a cluster without metrics-server or an
// adapter is. Each HorizontalPodAutoscaler is reconciled when it is created
// or its spec changes, and every sync period (15 s) after: its target's
// scale is read through the scale subresource of the resource serving the
// target's kind; a target below minReplicas or above maxReplicas is scaled
// to the bound (SuccessfulRescale), one at zero replicas is left alone
// (ScalingDisabled), and otherwise every metric fails as upstream's
// metrics clients fail without their APIs, which sets ScalingActive to
// false with the first metric's reason and leaves the replicas as they
// are. Its conditions, status fields, events and their messages are
// upstream's, and so is the check that no other HorizontalPodAutoscaler
// selects the same pods (AmbiguousSelector).
//
// Not built: reading metrics. A cluster that registers a metrics API
// (an APIService of metrics.k8s.io, ...) gets the same failures here,
// where kube-controller-manager would ask it and scale by its answers.
type HorizontalPodAutoscaler struct {
	reg    registry.Interface
	kinds  KindResourcesFunc
	rec    *Recorder
	log    *slog.Logger
	now    func() time.Time
	user   user.Info
	period time.Duration
	// hpas are the HorizontalPodAutoscalers by store key.
	hpas map[string]*hpaEntry
}

// hpaEntry is what the controller keeps of a HorizontalPodAutoscaler.
type hpaEntry struct {
	hpa *autoscalingv2.HorizontalPodAutoscaler
	// next is when it is reconciled next (zero: at once).
	next time.Time
	// selector is its target's pod selector once a reconcile parsed it
	// (nil: none yet, which selects no pods), for the ambiguity check.
	selector labels.Selector
}

// NewHorizontalPodAutoscaler returns the controller, writing through reg,
// resolving targets' kinds with kinds, reconciling every period (0:
// DefaultHPASyncPeriod) and stamping times from now (nil: time.Now).
func NewHorizontalPodAutoscaler(reg registry.Interface, kinds KindResourcesFunc, period time.Duration, now func() time.Time, log *slog.Logger) *HorizontalPodAutoscaler {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	if period <= 0 {
		period = DefaultHPASyncPeriod
	}
	u := controllerUser("horizontal-pod-autoscaler")
	return &HorizontalPodAutoscaler{
		reg: reg, kinds: kinds, log: log, now: now, user: u, period: period,
		rec:  NewRecorder(reg, hpaComponent, u, now, log),
		hpas: map[string]*hpaEntry{},
	}
}

// Name implements Controller.
func (c *HorizontalPodAutoscaler) Name() string { return HorizontalPodAutoscalerName }

// Resources implements Controller.
func (c *HorizontalPodAutoscaler) Resources() []string { return []string{hpasBucket} }

// Sync implements Controller: it takes in the changes, reconciles the
// HorizontalPodAutoscalers that are due and asks to be called again when
// the next one is.
func (c *HorizontalPodAutoscaler) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if ev.Type == store.Deleted {
			delete(c.hpas, ev.Key)
			continue
		}
		hpa, err := decodeEvent[autoscalingv2.HorizontalPodAutoscaler](ev)
		if err != nil {
			c.log.Warn("undecodable HorizontalPodAutoscaler", "key", ev.Key, "err", err)
			continue
		}
		e, ok := c.hpas[ev.Key]
		switch {
		case !ok:
			c.hpas[ev.Key] = &hpaEntry{hpa: hpa}
		case hpa.Generation != e.hpa.Generation:
			// A spec change is reconciled at once, other changes (its
			// status) at the next period.
			e.hpa, e.next = hpa, time.Time{}
		default:
			e.hpa = hpa
		}
	}
	keys := sortedKeys(c.hpas)
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var soonest time.Time
	for _, k := range keys {
		if ctx.Err() != nil {
			return nil
		}
		e := c.hpas[k]
		if !time.Now().Before(e.next) {
			c.reconcile(ctx, e)
			e.next = time.Now().Add(c.period)
		}
		if soonest.IsZero() || e.next.Before(soonest) {
			soonest = e.next
		}
	}
	if soonest.IsZero() {
		return nil
	}
	return &Requeue{After: max(time.Until(soonest), 0)}
}

// reconcile is upstream's reconcileAutoscaler without metrics.
func (c *HorizontalPodAutoscaler) reconcile(ctx context.Context, e *hpaEntry) {
	hpa := e.hpa.DeepCopy()
	original := hpa.Status.DeepCopy()
	ref := EventRef("autoscaling/v2", "HorizontalPodAutoscaler", hpa)

	scale, gvr, err := c.scale(ctx, hpa)
	if err != nil {
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedGetScale", "%s", err.Error())
		c.setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedGetScale", "the HPA controller was unable to get the target's current scale: %v", err)
		c.updateStatusIfNeeded(ctx, e, original, hpa)
		return
	}
	c.setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededGetScale", "the HPA controller was able to get the target's current scale")
	current := scale.Spec.Replicas
	minReplicas := int32(1)
	if hpa.Spec.MinReplicas != nil {
		minReplicas = *hpa.Spec.MinReplicas
	}
	scaledToZero := hasConditionTrue(hpa, autoscalingv2.ScaledToZero)
	objectOrExternal := slices.ContainsFunc(hpa.Spec.Metrics, func(m autoscalingv2.MetricSpec) bool {
		return m.Type == autoscalingv2.ObjectMetricSourceType || m.Type == autoscalingv2.ExternalMetricSourceType
	})
	desired, reason, rescale, needsMetrics := int32(0), "", true, true
	switch {
	case current == 0:
		if !((minReplicas != 0 && scaledToZero) || (scaledToZero && objectOrExternal)) {
			needsMetrics, rescale = false, false
			c.setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, "ScalingDisabled", "scaling is disabled since the replica count of the target is zero")
		}
	case current > hpa.Spec.MaxReplicas:
		reason, desired, needsMetrics = "Current number of replicas above Spec.MaxReplicas", hpa.Spec.MaxReplicas, false
	case current < minReplicas:
		reason, desired, needsMetrics = "Current number of replicas below Spec.MinReplicas", minReplicas, false
	}
	if needsMetrics {
		// Without metrics APIs no metric gives a replica count: the
		// status records the failure and the target keeps its replicas.
		statuses, err := c.computeReplicasForMetrics(ctx, e, hpa, ref, scale)
		c.setStatus(hpa, current, hpa.Status.DesiredReplicas, statuses, false)
		c.updateStatusIfNeeded(ctx, e, original, hpa)
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedComputeMetricsReplicas", "%s", err.Error())
		return
	}
	if rescale {
		_, err := c.reg.UpdateSubresource(ctx, gvr, "scale", hpa.Namespace, hpa.Spec.ScaleTargetRef.Name, func(cur runtime.Object) (runtime.Object, error) {
			sc := cur.(*autoscalingv1.Scale)
			sc.Spec.Replicas = desired
			return sc, nil
		})
		if err != nil {
			c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, "FailedRescale", "New size: %d; reason: %s; error: %v", desired, reason, err.Error())
			c.setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionFalse, "FailedUpdateScale", "the HPA controller was unable to update the target scale: %v", err)
			c.setStatus(hpa, current, hpa.Status.DesiredReplicas, nil, false)
			c.updateStatusIfNeeded(ctx, e, original, hpa)
			return
		}
		c.setCondition(hpa, autoscalingv2.AbleToScale, corev1.ConditionTrue, "SucceededRescale", "the HPA controller was able to update the target scale to %d", desired)
		c.rec.Eventf(ctx, ref, corev1.EventTypeNormal, "SuccessfulRescale", "New size: %d; reason: %s", desired, reason)
		// (HPAScaleToZero, on in v1.37: set on every rescale.)
		if current > 0 && desired == 0 && minReplicas == 0 && objectOrExternal {
			c.setCondition(hpa, autoscalingv2.ScaledToZero, corev1.ConditionTrue, "ScaledToZero", "the HPA controller scaled the workload to zero")
		} else {
			c.setCondition(hpa, autoscalingv2.ScaledToZero, corev1.ConditionFalse, "NotScaledToZero", "the HPA controller did not scale the workload to zero")
		}
	} else {
		desired = current
	}
	c.setStatus(hpa, current, desired, nil, rescale)
	c.updateStatusIfNeeded(ctx, e, original, hpa)
}

// scale reads the target's Scale through the scale subresource of the
// first resource serving its kind that has one, as upstream's
// scaleForResourceMappings (the first resource's error if none does).
func (c *HorizontalPodAutoscaler) scale(ctx context.Context, hpa *autoscalingv2.HorizontalPodAutoscaler) (*autoscalingv1.Scale, schema.GroupVersionResource, error) {
	target := hpa.Spec.ScaleTargetRef
	gv, err := schema.ParseGroupVersion(target.APIVersion)
	if err != nil {
		return nil, schema.GroupVersionResource{}, err
	}
	gk := schema.GroupKind{Group: gv.Group, Kind: target.Kind}
	var gvrs []schema.GroupVersionResource
	if c.kinds != nil {
		gvrs = c.kinds(gk)
	}
	if len(gvrs) == 0 {
		return nil, schema.GroupVersionResource{}, &apimeta.NoKindMatchError{GroupKind: gk}
	}
	scales, ok := c.reg.(registry.ScaleGetter)
	if !ok {
		return nil, schema.GroupVersionResource{}, errors.New("no scale subresource to read")
	}
	var first error
	for _, gvr := range gvrs {
		sc, err := scales.GetScale(ctx, gvr, hpa.Namespace, target.Name)
		if err == nil {
			return sc, gvr, nil
		}
		if first == nil {
			first = err
		}
	}
	return nil, schema.GroupVersionResource{}, first
}

// computeReplicasForMetrics is upstream's with every metric failing for
// want of its API: it checks the target's selector, records each metric's
// failure (an event, and the first's ScalingActive condition) and returns
// the empty metric statuses and upstream's error.
func (c *HorizontalPodAutoscaler) computeReplicasForMetrics(ctx context.Context, e *hpaEntry, hpa *autoscalingv2.HorizontalPodAutoscaler, ref corev1.ObjectReference, scale *autoscalingv1.Scale) ([]autoscalingv2.MetricStatus, error) {
	if err := c.checkSelector(ctx, e, hpa, ref, scale.Status.Selector); err != nil {
		return nil, err
	}
	statuses := make([]autoscalingv2.MetricStatus, len(hpa.Spec.Metrics))
	var firstReason, firstMessage string
	var firstErr error
	for _, spec := range hpa.Spec.Metrics {
		reason, failure, err := metricFailure(hpa.Namespace, spec)
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, reason, "%s", failure.Error())
		if firstErr == nil {
			firstReason, firstMessage, firstErr = reason, "the HPA was unable to compute the replica count: "+failure.Error(), err
		}
	}
	if firstErr == nil {
		// (No metrics: the API's defaults give every one at least one.)
		return statuses, errors.New("no metrics to compute a replica count from")
	}
	c.setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, firstReason, "%s", firstMessage)
	return statuses, fmt.Errorf("invalid metrics (%v invalid out of %v), first error is: %w", len(hpa.Spec.Metrics), len(hpa.Spec.Metrics), firstErr)
}

// The errors of upstream's metrics clients when their APIs are not served.
var (
	errNoResourceMetricsAPI = errors.New("unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)")
	errNoCustomMetricsAPI   = errors.New("unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered")
)

// errNoExternalMetricsAPI is the external metrics client's error for a
// metric when its API is not served.
func errNoExternalMetricsAPI(metric string) error {
	return fmt.Errorf("unable to fetch metrics from external metrics API: the server could not find the requested resource (get %s.external.metrics.k8s.io)", metric)
}

// metricFailure is how upstream fails to compute a replica count from
// spec without metrics APIs: the event reason, the failure its event and
// condition give, and the error computeReplicasForMetric returns.
func metricFailure(namespace string, spec autoscalingv2.MetricSpec) (reason string, failure, err error) {
	switch spec.Type {
	case autoscalingv2.ResourceMetricSourceType, autoscalingv2.ContainerResourceMetricSourceType:
		reason = "FailedGetResourceMetric"
		name, target := corev1.ResourceName(""), autoscalingv2.MetricTarget{}
		if spec.Resource != nil {
			name, target = spec.Resource.Name, spec.Resource.Target
		}
		if spec.Type == autoscalingv2.ContainerResourceMetricSourceType {
			reason = "FailedGetContainerResourceMetric"
			if spec.ContainerResource != nil {
				name, target = spec.ContainerResource.Name, spec.ContainerResource.Target
			}
		}
		unavailable := fmt.Errorf("unable to get metrics for resource %s: %w", name, errNoResourceMetricsAPI)
		switch {
		case target.AverageValue != nil:
			failure = fmt.Errorf("failed to get %s usage: %w", name, unavailable)
		case target.AverageUtilization != nil:
			failure = fmt.Errorf("failed to get %s utilization: %w", name, unavailable)
		default:
			failure = errors.New("invalid resource metric source: neither an average utilization target nor an average value (usage) target was set")
		}
		if spec.Type == autoscalingv2.ContainerResourceMetricSourceType {
			return reason, failure, fmt.Errorf("failed to get %s container metric value: %w", spec.ContainerResource.Container, failure)
		}
		return reason, failure, fmt.Errorf("failed to get %s resource metric value: %w", name, failure)
	case autoscalingv2.PodsMetricSourceType:
		reason = "FailedGetPodsMetric"
		if _, err := metav1.LabelSelectorAsSelector(spec.Pods.Metric.Selector); err != nil {
			return reason, err, fmt.Errorf("failed to get pods metric value: %w", err)
		}
		failure = fmt.Errorf("unable to get metric %s: %w", spec.Pods.Metric.Name, errNoCustomMetricsAPI)
		return reason, failure, fmt.Errorf("failed to get pods metric value: %w", failure)
	case autoscalingv2.ObjectMetricSourceType:
		reason = "FailedGetObjectMetric"
		o := spec.Object
		if _, err := metav1.LabelSelectorAsSelector(o.Metric.Selector); err != nil {
			return reason, err, fmt.Errorf("failed to get object metric value: %w", err)
		}
		unavailable := fmt.Errorf("unable to get metric %s on %s %s/%s: %w", o.Metric.Name, o.DescribedObject.Kind, namespace, o.DescribedObject.Name, errNoCustomMetricsAPI)
		switch {
		case o.Target.Type == autoscalingv2.ValueMetricType && o.Target.Value != nil:
			return reason, unavailable, fmt.Errorf("failed to get object metric value: %w", unavailable)
		case o.Target.Type == autoscalingv2.AverageValueMetricType && o.Target.AverageValue != nil:
			return reason, unavailable, fmt.Errorf("failed to get object metric value: failed to get %s object metric: %w", o.Metric.Name, unavailable)
		}
		failure = errors.New("invalid object metric source: neither a value target nor an average value target was set")
		return reason, failure, fmt.Errorf("failed to get object metric value: %w", failure)
	case autoscalingv2.ExternalMetricSourceType:
		reason = "FailedGetExternalMetric"
		x := spec.External
		unavailable := fmt.Errorf("unable to get external metric %s/%s/%+v: %s", namespace, x.Metric.Name, x.Metric.Selector, errNoExternalMetricsAPI(x.Metric.Name))
		switch {
		case x.Target.AverageValue != nil:
			return reason, unavailable, fmt.Errorf("failed to get %s external metric value: failed to get %s external metric: %w", x.Metric.Name, x.Metric.Name, unavailable)
		case x.Target.Value != nil:
			return reason, unavailable, fmt.Errorf("failed to get %s external metric value: failed to get external metric %s: %w", x.Metric.Name, x.Metric.Name, unavailable)
		}
		failure = errors.New("invalid external metric source: neither a value target nor an average value target was set")
		return reason, failure, fmt.Errorf("failed to get %s external metric value: %w", x.Metric.Name, failure)
	}
	failure = fmt.Errorf("unknown metric source type %q", string(spec.Type))
	return "InvalidMetricSourceType", failure, failure
}

// checkSelector is upstream's validateAndParseSelector: the target's scale
// must have a selector that parses, and no other HorizontalPodAutoscaler
// may select any of the pods it selects. It records a failure (an event
// and the ScalingActive condition) and returns it.
func (c *HorizontalPodAutoscaler) checkSelector(ctx context.Context, e *hpaEntry, hpa *autoscalingv2.HorizontalPodAutoscaler, ref corev1.ObjectReference, selector string) error {
	fail := func(reason, event, message string) error {
		c.rec.Eventf(ctx, ref, corev1.EventTypeWarning, reason, "%s", event)
		c.setCondition(hpa, autoscalingv2.ScalingActive, corev1.ConditionFalse, reasonOfSelector(reason), "%s", message)
		return errors.New(event)
	}
	if selector == "" {
		return fail("SelectorRequired", "selector is required", "the HPA target's scale is missing a selector")
	}
	parsed, err := labels.Parse(selector)
	if err != nil {
		msg := fmt.Sprintf("couldn't convert selector into a corresponding internal selector object: %v", err)
		return fail("InvalidSelector", msg, msg)
	}
	e.selector = parsed
	list, err := c.reg.List(ctx, podsGVR, hpa.Namespace, metav1.ListOptions{LabelSelector: selector})
	if err != nil {
		return err
	}
	pods := list.(*corev1.PodList).Items
	var selecting []string
	for _, k := range sortedKeys(c.hpas) {
		o := c.hpas[k]
		if o.hpa.Namespace != hpa.Namespace || o.selector == nil {
			continue
		}
		if slices.ContainsFunc(pods, func(p corev1.Pod) bool { return o.selector.Matches(labels.Set(p.Labels)) }) {
			selecting = append(selecting, k)
			if len(selecting) == 2 {
				break
			}
		}
	}
	if len(selecting) > 1 {
		msg := fmt.Sprintf("pods by selector %v are controlled by more than one HPA (e.g. %v)", selector, selecting)
		return fail("AmbiguousSelector", msg, msg)
	}
	return nil
}

// reasonOfSelector is the ScalingActive reason of a selector failure's
// event reason: a missing selector's is InvalidSelector too.
func reasonOfSelector(eventReason string) string {
	if eventReason == "SelectorRequired" {
		return "InvalidSelector"
	}
	return eventReason
}

// setStatus is upstream's: the status made anew from the replicas and
// metrics, keeping the conditions and the last scale time (now, after a
// rescale), observing the generation.
func (c *HorizontalPodAutoscaler) setStatus(hpa *autoscalingv2.HorizontalPodAutoscaler, current, desired int32, metrics []autoscalingv2.MetricStatus, rescale bool) {
	generation := hpa.Generation
	hpa.Status = autoscalingv2.HorizontalPodAutoscalerStatus{
		CurrentReplicas:    current,
		DesiredReplicas:    desired,
		LastScaleTime:      hpa.Status.LastScaleTime,
		CurrentMetrics:     metrics,
		Conditions:         hpa.Status.Conditions,
		ObservedGeneration: &generation,
	}
	if rescale {
		now := metav1.NewTime(c.now())
		hpa.Status.LastScaleTime = &now
	}
}

// setCondition sets a condition of the status, its transition time moved
// only when its status changes.
func (c *HorizontalPodAutoscaler) setCondition(hpa *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType, status corev1.ConditionStatus, reason, format string, args ...any) {
	conds := hpa.Status.Conditions
	i := slices.IndexFunc(conds, func(cond autoscalingv2.HorizontalPodAutoscalerCondition) bool { return cond.Type == t })
	if i < 0 {
		conds = append(conds, autoscalingv2.HorizontalPodAutoscalerCondition{Type: t})
		i = len(conds) - 1
	}
	if conds[i].Status != status {
		conds[i].LastTransitionTime = metav1.NewTime(c.now())
	}
	conds[i].Status, conds[i].Reason, conds[i].Message = status, reason, fmt.Sprintf(format, args...)
	hpa.Status.Conditions = conds
}

// hasConditionTrue reports whether the status has the condition, true.
func hasConditionTrue(hpa *autoscalingv2.HorizontalPodAutoscaler, t autoscalingv2.HorizontalPodAutoscalerConditionType) bool {
	for _, cond := range hpa.Status.Conditions {
		if cond.Type == t {
			return cond.Status == corev1.ConditionTrue
		}
	}
	return false
}

// updateStatusIfNeeded writes hpa's status unless it is original's.
func (c *HorizontalPodAutoscaler) updateStatusIfNeeded(ctx context.Context, e *hpaEntry, original *autoscalingv2.HorizontalPodAutoscalerStatus, hpa *autoscalingv2.HorizontalPodAutoscaler) {
	if apiequality.Semantic.DeepEqual(original, &hpa.Status) {
		return
	}
	out, err := c.reg.UpdateSubresource(ctx, hpasGVR, "status", hpa.Namespace, hpa.Name, func(cur runtime.Object) (runtime.Object, error) {
		live := cur.(*autoscalingv2.HorizontalPodAutoscaler)
		live.Status = hpa.Status
		return live, nil
	})
	if err != nil {
		c.rec.Eventf(ctx, EventRef("autoscaling/v2", "HorizontalPodAutoscaler", hpa), corev1.EventTypeWarning, "FailedUpdateStatus", "%s", err.Error())
		c.log.Debug("status not written", "hpa", hpa.Namespace+"/"+hpa.Name, "err", err)
		return
	}
	if written, ok := out.(*autoscalingv2.HorizontalPodAutoscaler); ok && written.Generation == e.hpa.Generation {
		e.hpa = written
	}
}
