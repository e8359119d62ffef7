package scheduler

import (
	"context"
	"fmt"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	corelisters "k8s.io/client-go/listers/core/v1"
	"k8s.io/client-go/tools/cache"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
)

// testNode is a node with cpu cores, room for pods, labels and taints.
func testNode(name string, cpu, pods int, labels map[string]string, taints ...corev1.Taint) *corev1.Node {
	l := map[string]string{corev1.LabelHostname: name}
	for k, v := range labels {
		l[k] = v
	}
	alloc := corev1.ResourceList{
		corev1.ResourceCPU:    *resource.NewQuantity(int64(cpu), resource.DecimalSI),
		corev1.ResourceMemory: resource.MustParse("8Gi"),
		corev1.ResourcePods:   *resource.NewQuantity(int64(pods), resource.DecimalSI),
	}
	return &corev1.Node{
		ObjectMeta: metav1.ObjectMeta{Name: name, Labels: l},
		Spec:       corev1.NodeSpec{Taints: taints},
		Status:     corev1.NodeStatus{Allocatable: alloc, Capacity: alloc},
	}
}

var podCount int

// testPod is a pod asking for cpu ("" for none), changed by the options.
func testPod(cpu string, opts ...func(*corev1.Pod)) *corev1.Pod {
	podCount++
	c := corev1.Container{Name: "c", Image: "pause"}
	if cpu != "" {
		c.Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
	}
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p" + strconv.Itoa(podCount), Namespace: "default", UID: types.UID("uid-" + strconv.Itoa(podCount))},
		Spec:       corev1.PodSpec{SchedulerName: DefaultSchedulerName, Containers: []corev1.Container{c}},
	}
	for _, o := range opts {
		o(p)
	}
	return p
}

func on(node string) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Spec.NodeName = node } }
func labelled(k, v string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		if p.Labels == nil {
			p.Labels = map[string]string{}
		}
		p.Labels[k] = v
	}
}
func priority(v int32) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Spec.Priority = &v } }
func withHostPort(port int32) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Containers[0].Ports = []corev1.ContainerPort{{ContainerPort: 80, HostPort: port}}
	}
}

// zone labels a node with a topology zone.
func zone(z string) map[string]string { return map[string]string{corev1.LabelTopologyZone: z} }

// scheduleCase is one decision: the cluster, the pod, and either the nodes
// it may go to or the message of its PodScheduled condition.
type scheduleCase struct {
	name     string
	profile  configv1.KubeSchedulerProfile
	nodes    []*corev1.Node
	existing []*corev1.Pod
	// nominated are pending pods that preemption nominated to a node.
	nominated []*corev1.Pod
	services  []*corev1.Service
	pod       *corev1.Pod
	// wantNodes are the acceptable choices; empty means no node fits.
	wantNodes []string
	// wantMessage is the FitError message (upstream text, v1.37.2 source).
	wantMessage string
}

// decide runs one scheduling cycle (and, when no node fits, preemption's
// evaluation) without an API server.
func decide(t *testing.T, tc scheduleCase) (string, string) {
	t.Helper()
	prof := tc.profile
	if prof.SchedulerName == nil {
		prof.SchedulerName = ptr.To(DefaultSchedulerName)
	}
	s := offlineScheduler(t, tc.nodes, prof)
	svcs := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, svc := range tc.services {
		_ = svcs.Add(svc)
	}
	s.handle.services = corelisters.NewServiceLister(svcs)
	for _, p := range tc.existing {
		s.cache.setPod(p)
	}
	for _, p := range tc.nominated {
		s.queue.Add(p)
	}
	nodes := s.cache.snapshot()
	p := s.profiles[DefaultSchedulerName]
	state := newCycleState(nodes)
	host, fe := s.schedulePod(p, state, tc.pod, nodes)
	if fe == nil {
		return host, ""
	}
	if p.preemption != nil {
		if c, found := s.preemptionCandidate(p, tc.pod, nodes, fe); found {
			return "", "preempt-on:" + c.node
		}
		s.postFilter(context.Background(), p, state, tc.pod, nodes, fe)
	}
	return "", fe.Error()
}

// TestSchedulingDecisions checks each default plugin's decisions and
// messages. The messages were taken from upstream's source and then
// compared with a real kube-scheduler v1.37.2 run against refplane (with
// kwok nodes, 2026-11-23): a node selector matching no node, Insufficient
// cpu, Insufficient cpu and memory, pod anti-affinity with no preemption
// victims, a topology spread key no node has, conflicting node affinity
// terms, a missing claim and an unbound Immediate claim all read the same;
// the last three end in "not found" (see Scheduler.preempt).
func TestSchedulingDecisions(t *testing.T) {
	three := func() []*corev1.Node {
		return []*corev1.Node{testNode("n0", 4, 110, nil), testNode("n1", 4, 110, nil), testNode("n2", 4, 110, nil)}
	}
	noSchedule := corev1.Taint{Key: "dedicated", Value: "gpu", Effect: corev1.TaintEffectNoSchedule}
	notHelpful := func(n int) string {
		return fmt.Sprintf(" preemption: 0/%d nodes are available: %d Preemption is not helpful for scheduling.", n, n)
	}
	for _, tc := range []scheduleCase{
		{
			name: "nodeSelector matches one node", nodes: []*corev1.Node{testNode("n0", 4, 110, nil), testNode("n1", 4, 110, map[string]string{"disk": "ssd"})},
			pod:       testPod("", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} }),
			wantNodes: []string{"n1"},
		},
		{
			name: "nodeSelector matches no node", nodes: three(),
			pod:         testPod("", func(p *corev1.Pod) { p.Spec.NodeSelector = map[string]string{"disk": "ssd"} }),
			wantMessage: "0/3 nodes are available: 3 node(s) didn't match Pod's node affinity/selector." + notHelpful(3),
		},
		{
			name: "required node affinity NotIn", nodes: []*corev1.Node{testNode("n0", 4, 110, zone("a")), testNode("n1", 4, 110, zone("b"))},
			pod: testPod("", func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpNotIn, Values: []string{"a"}}}}},
				}}}
			}),
			wantNodes: []string{"n1"},
		},
		{
			name: "preferred node affinity wins the score", nodes: []*corev1.Node{testNode("n0", 4, 110, zone("a")), testNode("n1", 4, 110, zone("b")), testNode("n2", 4, 110, zone("c"))},
			pod: testPod("", func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{PreferredDuringSchedulingIgnoredDuringExecution: []corev1.PreferredSchedulingTerm{{
					Weight: 50, Preference: corev1.NodeSelectorTerm{MatchExpressions: []corev1.NodeSelectorRequirement{{Key: corev1.LabelTopologyZone, Operator: corev1.NodeSelectorOpIn, Values: []string{"c"}}}},
				}}}}
			}),
			wantNodes: []string{"n2"},
		},
		{
			name: "an untolerated taint and nodes too small", nodes: []*corev1.Node{testNode("n0", 4, 110, nil, noSchedule), testNode("n1", 1, 110, nil), testNode("n2", 1, 110, nil)},
			pod: testPod("2"),
			// Preemption cannot help: the taint is unresolvable, and so is
			// asking for more cpu than a node has.
			wantMessage: "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 3 Preemption is not helpful for scheduling.",
		},
		{
			name: "an untolerated taint and full nodes", nodes: []*corev1.Node{testNode("n0", 4, 110, nil, noSchedule), testNode("n1", 2, 110, nil), testNode("n2", 2, 110, nil)},
			existing: []*corev1.Pod{testPod("1", on("n1")), testPod("1", on("n2"))},
			pod:      testPod("2"),
			// The tainted node cannot be helped (absent from the
			// candidates); the full ones have no lower-priority pods.
			wantMessage: "0/3 nodes are available: 1 node(s) had untolerated taint(s), 2 Insufficient cpu. preemption: 0/3 nodes are available: 1 Preemption is not helpful for scheduling, 2 No preemption victims found for incoming pod.",
		},
		{
			name: "full nodes with a lower-priority pod to preempt", nodes: []*corev1.Node{testNode("n0", 2, 110, nil), testNode("n1", 2, 110, nil)},
			existing: []*corev1.Pod{testPod("1500m", on("n0"), priority(100)), testPod("1500m", on("n1"), priority(5))},
			pod:      testPod("1", priority(50)),
			// Only n1's pod has a lower priority; preemption nominates n1
			// (acting on the victim needs an API server: see the
			// end-to-end test).
			wantMessage: "preempt-on:n1",
		},
		{
			name: "a toleration lets the pod on the tainted node", nodes: []*corev1.Node{testNode("n0", 4, 110, nil, noSchedule), testNode("n1", 1, 110, nil)},
			pod: testPod("2", func(p *corev1.Pod) {
				p.Spec.Tolerations = []corev1.Toleration{{Key: "dedicated", Operator: corev1.TolerationOpEqual, Value: "gpu", Effect: corev1.TaintEffectNoSchedule}}
			}),
			wantNodes: []string{"n0"},
		},
		{
			name: "PreferNoSchedule taints are avoided", nodes: []*corev1.Node{testNode("n0", 4, 110, nil, corev1.Taint{Key: "k", Effect: corev1.TaintEffectPreferNoSchedule}), testNode("n1", 4, 110, nil)},
			pod: testPod(""), wantNodes: []string{"n1"},
		},
		{
			name: "a cordoned node and a not-ready taint", nodes: func() []*corev1.Node {
				n := three()
				n[0].Spec.Unschedulable = true
				n[1].Spec.Taints = []corev1.Taint{{Key: corev1.TaintNodeNotReady, Effect: corev1.TaintEffectNoSchedule}}
				return n
			}(),
			pod: testPod(""), wantNodes: []string{"n2"},
		},
		{
			name: "all cordoned", nodes: func() []*corev1.Node {
				n := three()
				for _, x := range n {
					x.Spec.Unschedulable = true
				}
				return n
			}(),
			pod:         testPod(""),
			wantMessage: "0/3 nodes are available: 3 node(s) were unschedulable." + notHelpful(3),
		},
		{
			name: "tolerating node.kubernetes.io/unschedulable passes a cordon", nodes: func() []*corev1.Node {
				n := three()
				n[0].Spec.Unschedulable, n[1].Spec.Unschedulable = true, true
				n[2].Spec.Taints = []corev1.Taint{noSchedule}
				return n
			}(),
			pod: testPod("", func(p *corev1.Pod) {
				p.Spec.Tolerations = []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoSchedule}}
			}),
			wantNodes: []string{"n0", "n1"},
		},
		{
			name: "too many pods and insufficient cpu", nodes: []*corev1.Node{testNode("n0", 1, 1, nil), testNode("n1", 1, 110, nil)},
			existing:    []*corev1.Pod{testPod("", on("n0")), testPod("800m", on("n1"))},
			pod:         testPod("500m"),
			wantMessage: "0/2 nodes are available: 1 Insufficient cpu, 1 Too many pods. preemption: 0/2 nodes are available: 2 No preemption victims found for incoming pod.",
		},
		{
			name: "pod-level resources are the pod's requests", nodes: []*corev1.Node{testNode("n0", 2, 110, nil)},
			pod: testPod("100m", func(p *corev1.Pod) {
				p.Spec.Resources = &corev1.ResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("3")}}
			}),
			wantMessage: "0/1 nodes are available: 1 Insufficient cpu." + notHelpful(1),
		},
		{
			name: "a taken host port", nodes: []*corev1.Node{testNode("n0", 4, 110, nil), testNode("n1", 4, 110, nil)},
			existing:  []*corev1.Pod{testPod("", on("n0"), withHostPort(8080))},
			pod:       testPod("", withHostPort(8080)),
			wantNodes: []string{"n1"},
		},
		{
			name: "host port taken everywhere", nodes: []*corev1.Node{testNode("n0", 4, 110, nil)},
			existing:    []*corev1.Pod{testPod("", on("n0"), withHostPort(8080))},
			pod:         testPod("", withHostPort(8080)),
			wantMessage: "0/1 nodes are available: 1 node(s) didn't have free ports for the requested pod ports. preemption: 0/1 nodes are available: 1 No preemption victims found for incoming pod.",
		},
		{
			name: "preemptionPolicy Never", nodes: []*corev1.Node{testNode("n0", 1, 110, nil)},
			existing:    []*corev1.Pod{testPod("1", on("n0"), priority(0))},
			pod:         testPod("1", priority(100), func(p *corev1.Pod) { p.Spec.PreemptionPolicy = ptr.To(corev1.PreemptNever) }),
			wantMessage: "0/1 nodes are available: 1 Insufficient cpu. preemption: not eligible due to preemptionPolicy=Never.",
		},
		{
			name: "LeastAllocated prefers the emptier node", nodes: []*corev1.Node{testNode("n0", 4, 110, nil), testNode("n1", 4, 110, nil)},
			existing: []*corev1.Pod{testPod("3", on("n0"))},
			pod:      testPod("500m"), wantNodes: []string{"n1"},
		},
		{
			name: "MostAllocated prefers the fuller node", nodes: []*corev1.Node{testNode("n0", 4, 110, nil), testNode("n1", 4, 110, nil)},
			profile: configv1.KubeSchedulerProfile{PluginConfig: []configv1.PluginConfig{{Name: NodeResourcesFit, Args: runtimeObject(&configv1.NodeResourcesFitArgs{
				ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.MostAllocated, Resources: []configv1.ResourceSpec{{Name: "cpu", Weight: 1}}},
			})}}},
			existing: []*corev1.Pod{testPod("3", on("n0"))},
			pod:      testPod("500m"), wantNodes: []string{"n0"},
		},
		{
			name: "RequestedToCapacityRatio with a rising shape packs", nodes: []*corev1.Node{testNode("n0", 4, 110, nil), testNode("n1", 4, 110, nil)},
			profile: configv1.KubeSchedulerProfile{PluginConfig: []configv1.PluginConfig{{Name: NodeResourcesFit, Args: runtimeObject(&configv1.NodeResourcesFitArgs{
				ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.RequestedToCapacityRatio, Resources: []configv1.ResourceSpec{{Name: "cpu", Weight: 1}},
					RequestedToCapacityRatio: &configv1.RequestedToCapacityRatioParam{Shape: []configv1.UtilizationShapePoint{{Utilization: 0, Score: 0}, {Utilization: 100, Score: 10}}}},
			})}}},
			existing: []*corev1.Pod{testPod("3", on("n0"))},
			pod:      testPod("500m"), wantNodes: []string{"n0"},
		},
		{
			name: "RequestedToCapacityRatio with a falling shape spreads", nodes: []*corev1.Node{testNode("n0", 4, 110, nil), testNode("n1", 4, 110, nil)},
			profile: configv1.KubeSchedulerProfile{PluginConfig: []configv1.PluginConfig{{Name: NodeResourcesFit, Args: runtimeObject(&configv1.NodeResourcesFitArgs{
				ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.RequestedToCapacityRatio, Resources: []configv1.ResourceSpec{{Name: "cpu", Weight: 1}},
					RequestedToCapacityRatio: &configv1.RequestedToCapacityRatioParam{Shape: []configv1.UtilizationShapePoint{{Utilization: 0, Score: 10}, {Utilization: 100, Score: 0}}}},
			})}}},
			existing: []*corev1.Pod{testPod("3", on("n0"))},
			pod:      testPod("500m"), wantNodes: []string{"n1"},
		},
		{
			name: "required anti-affinity avoids the node with a match", nodes: three(),
			existing: []*corev1.Pod{testPod("", on("n0"), labelled("app", "web")), testPod("", on("n1"), labelled("app", "web"))},
			pod: testPod("", labelled("app", "web"), func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}},
				}}}}
			}),
			wantNodes: []string{"n2"},
		},
		{
			name: "existing pods' anti-affinity", nodes: []*corev1.Node{testNode("n0", 4, 110, zone("a")), testNode("n1", 4, 110, zone("b"))},
			existing: []*corev1.Pod{testPod("", on("n0"), func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					TopologyKey: corev1.LabelTopologyZone, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "db"}},
				}}}}
			})},
			pod:       testPod("", labelled("app", "db")),
			wantNodes: []string{"n1"},
		},
		{
			name: "required affinity to pods that do not exist", nodes: three(),
			pod: testPod("", func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}},
				}}}}
			}),
			wantMessage: "0/3 nodes are available: 3 node(s) didn't match pod affinity rules." + notHelpful(3),
		},
		{
			name: "required affinity follows the matching pod", nodes: three(),
			existing: []*corev1.Pod{testPod("", on("n1"), labelled("app", "cache"))},
			pod: testPod("", func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{PodAffinity: &corev1.PodAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
					TopologyKey: corev1.LabelHostname, LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "cache"}},
				}}}}
			}),
			wantNodes: []string{"n1"},
		},
		{
			name: "spread DoNotSchedule goes to the emptier zone", nodes: []*corev1.Node{testNode("n0", 4, 110, zone("a")), testNode("n1", 4, 110, zone("a")), testNode("n2", 4, 110, zone("b"))},
			existing:  []*corev1.Pod{testPod("", on("n0"), labelled("app", "web")), testPod("", on("n1"), labelled("app", "web"))},
			pod:       testPod("", labelled("app", "web"), spread(corev1.LabelTopologyZone, corev1.DoNotSchedule)),
			wantNodes: []string{"n2"},
		},
		{
			name: "spread cannot be kept", nodes: []*corev1.Node{testNode("n0", 4, 110, zone("a")), testNode("n1", 4, 110, zone("b"), noSchedule)},
			existing:    []*corev1.Pod{testPod("", on("n0"), labelled("app", "web"))},
			pod:         testPod("", labelled("app", "web"), spread(corev1.LabelTopologyZone, corev1.DoNotSchedule)),
			wantMessage: "0/2 nodes are available: 1 node(s) didn't match pod topology spread constraints, 1 node(s) had untolerated taint(s). preemption: 0/2 nodes are available: 1 No preemption victims found for incoming pod, 1 Preemption is not helpful for scheduling.",
		},
		{
			name: "spread on a label no node has", nodes: three(),
			pod:         testPod("", labelled("app", "web"), spread("rack", corev1.DoNotSchedule)),
			wantMessage: "0/3 nodes are available: 3 node(s) didn't match pod topology spread constraints (missing required label)." + notHelpful(3),
		},
		{
			name: "spread ScheduleAnyway prefers the emptier zone", nodes: []*corev1.Node{testNode("n0", 4, 110, zone("a")), testNode("n1", 4, 110, zone("b"))},
			existing:  []*corev1.Pod{testPod("", on("n0"), labelled("app", "web")), testPod("", on("n0"), labelled("app", "web"))},
			pod:       testPod("", labelled("app", "web"), spread(corev1.LabelTopologyZone, corev1.ScheduleAnyway)),
			wantNodes: []string{"n1"},
		},
		{
			name: "system default spreading for a Service's pods outweighs bin packing", nodes: three(), profile: mostAllocated(),
			services: []*corev1.Service{{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"}, Spec: corev1.ServiceSpec{Selector: map[string]string{"app": "web"}}}},
			existing: []*corev1.Pod{testPod("", on("n0"), labelled("app", "web")), testPod("", on("n0"), labelled("app", "web"))},
			pod:      testPod("", labelled("app", "web")), wantNodes: []string{"n1", "n2"},
		},
		{
			name: "without a Service, bin packing wins", nodes: three(), profile: mostAllocated(),
			existing: []*corev1.Pod{testPod("", on("n0"), labelled("app", "web")), testPod("", on("n0"), labelled("app", "web"))},
			pod:      testPod("", labelled("app", "web")), wantNodes: []string{"n0"},
		},
		{
			name: "nodeName set by the user is honoured by the filter", nodes: three(),
			pod: testPod("", func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n2"}}}}},
				}}}
			}),
			wantNodes: []string{"n2"},
		},
		{
			name: "pinned by metadata.name to a full node, as a DaemonSet's pod", nodes: []*corev1.Node{testNode("n0", 4, 110, nil), testNode("n1", 1, 110, nil), testNode("n2", 4, 110, nil)},
			existing: []*corev1.Pod{testPod("1", on("n1"))},
			pod:      testPod("500m", pinnedTo("n1")),
			// The nodes PreFilter left out count as rejected by it
			// (upstream's PreFilterResult).
			wantMessage: "0/3 nodes are available: 1 Insufficient cpu, 2 node(s) didn't satisfy plugin(s) [NodeAffinity]. preemption: 0/3 nodes are available: 1 No preemption victims found for incoming pod, 2 Preemption is not helpful for scheduling.",
		},
		{
			name: "terms naming no common node", nodes: three(),
			pod: testPod("", func(p *corev1.Pod) {
				p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
					NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{
						{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n0"}},
						{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{"n1"}},
					}}},
				}}}
			}),
			// A PreFilter rejection: kube-scheduler's DynamicResources
			// PostFilter then fails with "not found" before preemption
			// (refplane's kube-scheduler v1.37.2: "0/2 nodes are available:
			// pod affinity terms conflict. not found").
			wantMessage: "0/3 nodes are available: pod affinity terms conflict. not found",
		},
		{
			name: "room kept for a nominated pod of higher priority", nodes: []*corev1.Node{testNode("n0", 2, 110, nil), testNode("n1", 1, 110, nil)},
			nominated: []*corev1.Pod{testPod("2", priority(100), func(p *corev1.Pod) { p.Status.NominatedNodeName = "n0" })},
			pod:       testPod("1", priority(10)), wantNodes: []string{"n1"},
		},
		{
			name: "a nominated pod of lower priority keeps no room", nodes: []*corev1.Node{testNode("n0", 2, 110, nil), testNode("n1", 1, 110, nil)},
			nominated: []*corev1.Pod{testPod("2", priority(1), func(p *corev1.Pod) { p.Status.NominatedNodeName = "n0" })},
			pod:       testPod("1", priority(10)), wantNodes: []string{"n0"},
		},
		{
			name: "a disabled filter does not filter", nodes: []*corev1.Node{testNode("n0", 4, 110, nil, noSchedule)},
			profile: configv1.KubeSchedulerProfile{Plugins: &configv1.Plugins{MultiPoint: configv1.PluginSet{Disabled: []configv1.Plugin{{Name: TaintToleration}}}}},
			pod:     testPod(""), wantNodes: []string{"n0"},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			host, msg := decide(t, tc)
			if len(tc.wantNodes) == 0 {
				if msg != tc.wantMessage {
					t.Errorf("message\n got %q\nwant %q (host %q)", msg, tc.wantMessage, host)
				}
				return
			}
			ok := false
			for _, n := range tc.wantNodes {
				ok = ok || n == host
			}
			if !ok {
				t.Errorf("scheduled to %q (%s), want one of %v", host, msg, tc.wantNodes)
			}
		})
	}
}

// pinnedTo is the node affinity a DaemonSet gives its pods.
func pinnedTo(node string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{NodeAffinity: &corev1.NodeAffinity{RequiredDuringSchedulingIgnoredDuringExecution: &corev1.NodeSelector{
			NodeSelectorTerms: []corev1.NodeSelectorTerm{{MatchFields: []corev1.NodeSelectorRequirement{{Key: "metadata.name", Operator: corev1.NodeSelectorOpIn, Values: []string{node}}}}},
		}}}
	}
}

func mostAllocated() configv1.KubeSchedulerProfile {
	return configv1.KubeSchedulerProfile{PluginConfig: []configv1.PluginConfig{{Name: NodeResourcesFit, Args: runtimeObject(&configv1.NodeResourcesFitArgs{
		ScoringStrategy: &configv1.ScoringStrategy{Type: configv1.MostAllocated},
	})}}}
}

func spread(key string, action corev1.UnsatisfiableConstraintAction) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: action, LabelSelector: &metav1.LabelSelector{MatchLabels: p.Labels},
		})
	}
}

func TestNumFeasibleNodesToFindIsKubeSchedulers(t *testing.T) {
	s := &Scheduler{}
	for _, tc := range []struct {
		pct       int32
		all, want int
	}{
		{0, 50, 50},       // below 100 nodes, all of them
		{0, 1000, 420},    // adaptive: 50 - 1000/125 = 42%
		{0, 6000, 300},    // adaptive, at least 5%
		{10, 500, 100},    // never fewer than 100
		{30, 1000, 300},   // as configured
		{100, 5000, 5000}, // all
	} {
		if got := s.numFeasibleNodesToFind(&profile{percentageOfNodesToScore: &tc.pct}, tc.all); got != tc.want {
			t.Errorf("%d%% of %d nodes: %d, want %d", tc.pct, tc.all, got, tc.want)
		}
	}
}

func TestHostPortConflictsAsNodePorts(t *testing.T) {
	port := func(ip string, proto corev1.Protocol, p int32) hostPort {
		return hostPort{ip: ip, protocol: proto, port: p}
	}
	for _, tc := range []struct {
		name     string
		used     []hostPort
		want     hostPort
		conflict bool
	}{
		{"same port on the wildcard", []hostPort{port("0.0.0.0", "TCP", 80)}, port("0.0.0.0", "TCP", 80), true},
		{"a specific address against the wildcard", []hostPort{port("0.0.0.0", "TCP", 80)}, port("10.0.0.1", "TCP", 80), true},
		{"the wildcard against a specific address", []hostPort{port("10.0.0.1", "TCP", 80)}, port("0.0.0.0", "TCP", 80), true},
		{"two specific addresses", []hostPort{port("10.0.0.1", "TCP", 80)}, port("10.0.0.2", "TCP", 80), false},
		{"another protocol", []hostPort{port("0.0.0.0", "TCP", 53)}, port("0.0.0.0", "UDP", 53), false},
		{"another port", []hostPort{port("0.0.0.0", "TCP", 80)}, port("0.0.0.0", "TCP", 81), false},
	} {
		used := map[hostPort]bool{}
		for _, u := range tc.used {
			used[u] = true
		}
		if got := portConflicts(used, tc.want); got != tc.conflict {
			t.Errorf("%s: conflict %v, want %v", tc.name, got, tc.conflict)
		}
	}
}
