package fakeplane_test

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// hpaSyncPeriod is the autoscaler controller's period in these tests
// (kube-controller-manager's is 15 s).
const hpaSyncPeriod = 200 * time.Millisecond

// Messages of kube-controller-manager's autoscaler without metrics APIs.
const (
	hpaGotScale        = "the HPA controller was able to get the target's current scale"
	noResourceMetrics  = "unable to fetch metrics from resource metrics API: the server could not find the requested resource (get pods.metrics.k8s.io)"
	noCustomMetrics    = "unable to fetch metrics from custom metrics API: no custom metrics API (custom.metrics.k8s.io) registered"
	unableToCompute    = "the HPA was unable to compute the replica count: "
	cpuUtilizationFail = "failed to get cpu utilization: unable to get metrics for resource cpu: " + noResourceMetrics
)

// hpaDeployment creates a Deployment of replicas pods labelled app=name.
func hpaDeployment(t *testing.T, cs kubernetes.Interface, name string, replicas int32) {
	t.Helper()
	labels := map[string]string{"app": name}
	_, err := cs.AppsV1().Deployments("default").Create(ctxT(t), &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: ptr.To(replicas), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "nginx",
					Resources: corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")}}}}},
			},
		},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// createHPA creates an autoscaler of target (a Deployment unless kind is
// given as "apiVersion/Kind") between min and max replicas, with metrics
// (none: the API's default, CPU at 80%).
func createHPA(t *testing.T, cs kubernetes.Interface, name, target string, minReplicas, maxReplicas int32, metrics ...autoscalingv2.MetricSpec) {
	t.Helper()
	ref := autoscalingv2.CrossVersionObjectReference{APIVersion: "apps/v1", Kind: "Deployment", Name: target}
	if strings.Contains(target, "/") {
		// apiVersion/Kind/name
		parts := strings.Split(target, "/")
		ref = autoscalingv2.CrossVersionObjectReference{APIVersion: strings.Join(parts[:len(parts)-2], "/"), Kind: parts[len(parts)-2], Name: parts[len(parts)-1]}
	}
	_, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Create(ctxT(t), &autoscalingv2.HorizontalPodAutoscaler{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec:       autoscalingv2.HorizontalPodAutoscalerSpec{ScaleTargetRef: ref, MinReplicas: ptr.To(minReplicas), MaxReplicas: maxReplicas, Metrics: metrics},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
}

// hpaConditions renders an autoscaler's conditions as "Type=Status Reason: message" lines.
func hpaConditions(h *autoscalingv2.HorizontalPodAutoscaler) string {
	var lines []string
	for _, c := range h.Status.Conditions {
		lines = append(lines, fmt.Sprintf("%s=%s %s: %s", c.Type, c.Status, c.Reason, c.Message))
	}
	return strings.Join(lines, "\n")
}

// TestHorizontalPodAutoscalerWithoutMetricsAsKubeControllerManager: in a
// cluster that serves no metrics APIs, kube-controller-manager's autoscaler
// scales a target below minReplicas or above maxReplicas to the bound,
// leaves one at zero alone, reports every metric as failing with its
// metrics client's error, refuses targets it cannot scale and pods two
// autoscalers select; the conditions, status fields and events are those
// kube-controller-manager v1.37 wrote for the same objects (recorded from
// refplane with its kube-controller-manager).
func TestHorizontalPodAutoscalerWithoutMetricsAsKubeControllerManager(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithHorizontalPodAutoscalerSyncPeriod(hpaSyncPeriod))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	avg := func(q string) *resource.Quantity { v := resource.MustParse(q); return &v }
	for name, replicas := range map[string]int32{"below": 1, "above": 7, "zero": 0, "inside": 2, "pods": 2, "object": 2, "external": 2, "container": 2, "two": 2, "shared": 2} {
		hpaDeployment(t, cs, name, replicas)
	}
	if _, err := cs.RbacV1().Roles("default").Create(ctx, &rbacv1.Role{ObjectMeta: metav1.ObjectMeta{Name: "role"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	podsMetric := autoscalingv2.MetricSpec{Type: autoscalingv2.PodsMetricSourceType, Pods: &autoscalingv2.PodsMetricSource{
		Metric: autoscalingv2.MetricIdentifier{Name: "packets"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: avg("1k")}}}
	cpuMetric := autoscalingv2.MetricSpec{Type: autoscalingv2.ResourceMetricSourceType, Resource: &autoscalingv2.ResourceMetricSource{
		Name: corev1.ResourceCPU, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: ptr.To[int32](50)}}}
	createHPA(t, cs, "below", "below", 3, 5)
	createHPA(t, cs, "above", "above", 1, 3)
	createHPA(t, cs, "zero", "zero", 2, 3)
	createHPA(t, cs, "inside", "inside", 1, 5)
	createHPA(t, cs, "pods", "pods", 1, 5, podsMetric)
	createHPA(t, cs, "object", "object", 1, 5, autoscalingv2.MetricSpec{Type: autoscalingv2.ObjectMetricSourceType, Object: &autoscalingv2.ObjectMetricSource{
		DescribedObject: autoscalingv2.CrossVersionObjectReference{APIVersion: "networking.k8s.io/v1", Kind: "Ingress", Name: "ing"},
		Metric:          autoscalingv2.MetricIdentifier{Name: "requests"}, Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: avg("10")}}})
	createHPA(t, cs, "external", "external", 1, 5, autoscalingv2.MetricSpec{Type: autoscalingv2.ExternalMetricSourceType, External: &autoscalingv2.ExternalMetricSource{
		Metric: autoscalingv2.MetricIdentifier{Name: "queue", Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"q": "a"}}},
		Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: avg("30")}}})
	createHPA(t, cs, "container", "container", 1, 5, autoscalingv2.MetricSpec{Type: autoscalingv2.ContainerResourceMetricSourceType, ContainerResource: &autoscalingv2.ContainerResourceMetricSource{
		Name: corev1.ResourceMemory, Container: "c", Target: autoscalingv2.MetricTarget{Type: autoscalingv2.AverageValueMetricType, AverageValue: avg("100Mi")}}})
	createHPA(t, cs, "two", "two", 1, 5, podsMetric, cpuMetric)
	createHPA(t, cs, "missing", "nothere", 1, 3)
	createHPA(t, cs, "badkind", "apps/v1/Nothing/x", 1, 3)
	createHPA(t, cs, "role", "rbac.authorization.k8s.io/v1/Role/role", 1, 3)
	createHPA(t, cs, "shared-a", "shared", 1, 5)

	got := func(ctx context.Context, name string) (*autoscalingv2.HorizontalPodAutoscaler, error) {
		return cs.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, name, metav1.GetOptions{})
	}
	for _, tc := range []struct {
		name       string
		conditions []string
		current    int32
		desired    int32
		metrics    int // currentMetrics entries (-1: none)
		scaled     bool
		// events are reason: message pairs the autoscaler has.
		events []string
	}{
		{name: "below", current: 3, desired: 3, metrics: 1, scaled: true, conditions: []string{
			"AbleToScale=True SucceededGetScale: " + hpaGotScale,
			"ScaledToZero=False NotScaledToZero: the HPA controller did not scale the workload to zero",
			"ScalingActive=False FailedGetResourceMetric: " + unableToCompute + cpuUtilizationFail,
		}, events: []string{
			"SuccessfulRescale: New size: 3; reason: Current number of replicas below Spec.MinReplicas",
			"FailedGetResourceMetric: " + cpuUtilizationFail,
			"FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 1), first error is: failed to get cpu resource metric value: " + cpuUtilizationFail,
		}},
		{name: "above", current: 3, desired: 3, metrics: 1, scaled: true, conditions: []string{
			"AbleToScale=True SucceededGetScale: " + hpaGotScale,
			"ScaledToZero=False NotScaledToZero: the HPA controller did not scale the workload to zero",
			"ScalingActive=False FailedGetResourceMetric: " + unableToCompute + cpuUtilizationFail,
		}, events: []string{"SuccessfulRescale: New size: 3; reason: Current number of replicas above Spec.MaxReplicas"}},
		{name: "zero", current: 0, desired: 0, metrics: -1, conditions: []string{
			"AbleToScale=True SucceededGetScale: " + hpaGotScale,
			"ScalingActive=False ScalingDisabled: scaling is disabled since the replica count of the target is zero",
		}},
		{name: "inside", current: 2, desired: 0, metrics: 1, conditions: []string{
			"AbleToScale=True SucceededGetScale: " + hpaGotScale,
			"ScalingActive=False FailedGetResourceMetric: " + unableToCompute + cpuUtilizationFail,
		}},
		{name: "pods", current: 2, desired: 0, metrics: 1, conditions: []string{
			"AbleToScale=True SucceededGetScale: " + hpaGotScale,
			"ScalingActive=False FailedGetPodsMetric: " + unableToCompute + "unable to get metric packets: " + noCustomMetrics,
		}, events: []string{
			"FailedGetPodsMetric: unable to get metric packets: " + noCustomMetrics,
			"FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 1), first error is: failed to get pods metric value: unable to get metric packets: " + noCustomMetrics,
		}},
		{name: "object", current: 2, desired: 0, metrics: 1, conditions: []string{
			"AbleToScale=True SucceededGetScale: " + hpaGotScale,
			"ScalingActive=False FailedGetObjectMetric: " + unableToCompute + "unable to get metric requests on Ingress default/ing: " + noCustomMetrics,
		}, events: []string{
			"FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 1), first error is: failed to get object metric value: failed to get requests object metric: unable to get metric requests on Ingress default/ing: " + noCustomMetrics,
		}},
		{name: "external", current: 2, desired: 0, metrics: 1, conditions: []string{
			"AbleToScale=True SucceededGetScale: " + hpaGotScale,
			"ScalingActive=False FailedGetExternalMetric: " + unableToCompute + "unable to get external metric default/queue/&LabelSelector{MatchLabels:map[string]string{q: a,},MatchExpressions:[]LabelSelectorRequirement{},}: unable to fetch metrics from external metrics API: the server could not find the requested resource (get queue.external.metrics.k8s.io)",
		}},
		{name: "container", current: 2, desired: 0, metrics: 1, conditions: []string{
			"AbleToScale=True SucceededGetScale: " + hpaGotScale,
			"ScalingActive=False FailedGetContainerResourceMetric: " + unableToCompute + "failed to get memory usage: unable to get metrics for resource memory: " + noResourceMetrics,
		}, events: []string{
			"FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 1), first error is: failed to get c container metric value: failed to get memory usage: unable to get metrics for resource memory: " + noResourceMetrics,
		}},
		{name: "two", current: 2, desired: 0, metrics: 2, conditions: []string{
			"AbleToScale=True SucceededGetScale: " + hpaGotScale,
			"ScalingActive=False FailedGetPodsMetric: " + unableToCompute + "unable to get metric packets: " + noCustomMetrics,
		}, events: []string{
			"FailedGetPodsMetric: unable to get metric packets: " + noCustomMetrics,
			"FailedGetResourceMetric: " + cpuUtilizationFail,
			"FailedComputeMetricsReplicas: invalid metrics (2 invalid out of 2), first error is: failed to get pods metric value: unable to get metric packets: " + noCustomMetrics,
		}},
		{name: "missing", metrics: -1, conditions: []string{
			`AbleToScale=False FailedGetScale: the HPA controller was unable to get the target's current scale: deployments.apps "nothere" not found`,
		}, events: []string{`FailedGetScale: deployments.apps "nothere" not found`}},
		{name: "badkind", metrics: -1, conditions: []string{
			`AbleToScale=False FailedGetScale: the HPA controller was unable to get the target's current scale: no matches for kind "Nothing" in group "apps"`,
		}},
		{name: "role", metrics: -1, conditions: []string{
			`AbleToScale=False FailedGetScale: the HPA controller was unable to get the target's current scale: the server could not find the requested resource`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			want := strings.Join(tc.conditions, "\n")
			var h *autoscalingv2.HorizontalPodAutoscaler
			eventuallyT(t, "the autoscaler's conditions", func(ctx context.Context) (bool, error) {
				var err error
				h, err = got(ctx, tc.name)
				return err == nil && hpaConditions(h) == want, err
			})
			st := h.Status
			if st.CurrentReplicas != tc.current || st.DesiredReplicas != tc.desired || (st.LastScaleTime != nil) != tc.scaled {
				t.Errorf("status: current %d desired %d lastScaleTime %v; want %d %d scaled %v", st.CurrentReplicas, st.DesiredReplicas, st.LastScaleTime, tc.current, tc.desired, tc.scaled)
			}
			if tc.metrics < 0 && st.CurrentMetrics != nil || tc.metrics >= 0 && (len(st.CurrentMetrics) != tc.metrics || st.CurrentMetrics[0].Type != "") {
				t.Errorf("currentMetrics %+v, want %d empty entries", st.CurrentMetrics, tc.metrics)
			}
			// A target the controller cannot scale leaves the generation unobserved.
			if observed := st.ObservedGeneration != nil && *st.ObservedGeneration == h.Generation; observed == strings.HasPrefix(tc.conditions[0], "AbleToScale=False") {
				t.Errorf("observedGeneration %v of generation %d", st.ObservedGeneration, h.Generation)
			}
			eventuallyT(t, "the autoscaler's events", func(context.Context) (bool, error) {
				evs := eventsFor(t, cs, "default", "HorizontalPodAutoscaler", tc.name)
				for _, e := range tc.events {
					reason, message, _ := strings.Cut(e, ": ")
					if !hasEvent(evs, reason, "horizontal-pod-autoscaler", message) {
						return false, nil
					}
				}
				return true, nil
			})
		})
	}
	for name, want := range map[string]int32{"below": 3, "above": 3, "zero": 0, "inside": 2} {
		d, err := cs.AppsV1().Deployments("default").Get(ctx, name, metav1.GetOptions{})
		if err != nil || *d.Spec.Replicas != want {
			t.Errorf("deployment %s: %v, replicas %d, want %d", name, err, *d.Spec.Replicas, want)
		}
	}
	// The rescale went through the scale subresource, as
	// kube-controller-manager's: its managedFields entry is the scale's.
	d, err := cs.AppsV1().Deployments("default").Get(ctx, "below", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var scaleEntry bool
	for _, m := range d.ManagedFields {
		scaleEntry = scaleEntry || m.Manager == "kube-controller-manager" && m.Subresource == "scale" && m.Operation == metav1.ManagedFieldsOperationUpdate
	}
	if !scaleEntry {
		t.Errorf("no scale entry of kube-controller-manager in %+v", d.ManagedFields)
	}

	// A second autoscaler of the same pods makes both ambiguous once both
	// have seen their target's selector.
	createHPA(t, cs, "shared-b", "shared", 1, 5)
	ambiguous := "pods by selector app=shared are controlled by more than one HPA (e.g. [default/shared-a default/shared-b])"
	for _, name := range []string{"shared-a", "shared-b"} {
		eventuallyT(t, name+" ambiguous", func(ctx context.Context) (bool, error) {
			h, err := got(ctx, name)
			return err == nil && strings.Contains(hpaConditions(h), "ScalingActive=False AmbiguousSelector: "+ambiguous), err
		})
	}
	eventuallyT(t, "the ambiguity's events", func(context.Context) (bool, error) {
		evs := eventsFor(t, cs, "default", "HorizontalPodAutoscaler", "shared-b")
		return hasEvent(evs, "AmbiguousSelector", "horizontal-pod-autoscaler", ambiguous) &&
			hasEvent(evs, "FailedComputeMetricsReplicas", "horizontal-pod-autoscaler", ambiguous), nil
	})
	// The same event again counts on the first, as client-go's recorder
	// counts it.
	eventuallyT(t, "a repeated event counted", func(context.Context) (bool, error) {
		for _, e := range eventsFor(t, cs, "default", "HorizontalPodAutoscaler", "missing") {
			if e.Reason == "FailedGetScale" && e.Count >= 3 && e.LastTimestamp.After(e.FirstTimestamp.Time) {
				return true, nil
			}
		}
		return false, nil
	})
	if n := len(eventsFor(t, cs, "default", "HorizontalPodAutoscaler", "missing")); n != 1 {
		t.Errorf("%d events about missing, want one counted", n)
	}
}

// TestHorizontalPodAutoscalerFollowsItsSpec: a spec change is reconciled at
// once, whatever the sync period, and the controller can be turned off.
func TestHorizontalPodAutoscalerFollowsItsSpec(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithHorizontalPodAutoscalerSyncPeriod(time.Hour))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	hpaDeployment(t, cs, "web", 1)
	createHPA(t, cs, "web", "web", 1, 5)
	eventuallyT(t, "the first reconcile", func(ctx context.Context) (bool, error) {
		h, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && h.Status.ObservedGeneration != nil, err
	})
	h, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	h.Spec.MinReplicas = ptr.To[int32](4)
	if _, err := cs.AutoscalingV2().HorizontalPodAutoscalers("default").Update(ctx, h, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the target scaled to the new minimum", func(ctx context.Context) (bool, error) {
		d, err := cs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && *d.Spec.Replicas == 4, err
	})

	off := fakeplane.Start(t, fakeplane.WithControllers("*", "-horizontalpodautoscaling"))
	ocs := clientset(t, off)
	hpaDeployment(t, ocs, "web", 1)
	createHPA(t, ocs, "web", "web", 3, 5)
	// The deployment controller acting on the Deployment shows the
	// controllers have run; the autoscaler has not.
	eventuallyT(t, "the deployment controller's status", func(ctx context.Context) (bool, error) {
		d, err := ocs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && d.Status.ObservedGeneration == d.Generation, err
	})
	time.Sleep(300 * time.Millisecond)
	oh, err := ocs.AutoscalingV2().HorizontalPodAutoscalers("default").Get(ctx, "web", metav1.GetOptions{})
	if err != nil || len(oh.Status.Conditions) != 0 {
		t.Errorf("autoscaler with its controller off: %v %+v", err, oh.Status)
	}
	if d, err := ocs.AppsV1().Deployments("default").Get(ctx, "web", metav1.GetOptions{}); err != nil || *d.Spec.Replicas != 1 {
		t.Errorf("deployment with the autoscaler off: %v %v", err, d.Spec.Replicas)
	}
}
