package scheduler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/sets"
)

// queued asks the default profile's hints whether e may make pod, rejected
// by plugin, schedulable (kube-scheduler's Queue or QueueSkip).
func queued(t *testing.T, plugin string, pod *corev1.Pod, e clusterEvent) bool {
	t.Helper()
	q := newTestQueue(t, &fakeClock{})
	if _, ok := q.hints[DefaultSchedulerName][plugin]; !ok {
		t.Fatalf("plugin %s registers no events", plugin)
	}
	return q.worthRequeuing(&queuedPod{pod: pod, rejectors: sets.New(plugin)}, e)
}

// updated is the event of a change from old to cur (the first of the
// update's events, as the informers classify it).
func updated(old, cur any) clusterEvent {
	switch o := old.(type) {
	case *corev1.Pod:
		return podUpdateEvents(o, cur.(*corev1.Pod))[0]
	case *corev1.Node:
		if es := nodeUpdateEvents(o, cur.(*corev1.Node)); len(es) > 0 {
			return es[0]
		}
	}
	return clusterEvent{resource: resNode, action: actUpdate, oldObj: old, newObj: cur}
}

// withAntiAffinityTo gives a pod a required anti-affinity to pods labelled
// app=value, per node.
func withAntiAffinityTo(value string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{
			RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
				LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": value}},
				TopologyKey:   corev1.LabelHostname,
			}},
		}}
	}
}

// spreadOver gives a pod a DoNotSchedule constraint over key counting pods
// labelled app=value.
func spreadOver(key, value string) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Spec.TopologySpreadConstraints = append(p.Spec.TopologySpreadConstraints, corev1.TopologySpreadConstraint{
			MaxSkew: 1, TopologyKey: key, WhenUnsatisfiable: corev1.DoNotSchedule,
			LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": value}},
		})
	}
}

func TestQueueingHintsAreKubeSchedulers(t *testing.T) {
	plain := testNode("n1", 4, 110, nil)
	zoned := testNode("n1", 4, 110, zone("a"))
	otherZone := testNode("n1", 4, 110, zone("b"))
	tainted := testNode("n1", 4, 110, nil, corev1.Taint{Key: "k", Effect: corev1.TaintEffectNoSchedule})
	cordoned := plain.DeepCopy()
	cordoned.Spec.Unschedulable = true
	bigger := testNode("n1", 8, 110, nil)
	annotated := plain.DeepCopy()
	annotated.Annotations = map[string]string{"a": "b"}
	withVolume := func(claim string) func(*corev1.Pod) {
		return func(p *corev1.Pod) {
			p.Spec.Volumes = append(p.Spec.Volumes, corev1.Volume{Name: "data", VolumeSource: corev1.VolumeSource{
				PersistentVolumeClaim: &corev1.PersistentVolumeClaimVolumeSource{ClaimName: claim},
			}})
		}
	}
	claim := func(ns, name string) *corev1.PersistentVolumeClaim {
		return &corev1.PersistentVolumeClaim{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name}}
	}
	class := &storagev1.StorageClass{ObjectMeta: metav1.ObjectMeta{Name: "fast"}, Provisioner: "p"}
	classWithTopology := class.DeepCopy()
	classWithTopology.AllowedTopologies = []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{{Key: "k", Values: []string{"v"}}}}}
	classRelabelled := class.DeepCopy()
	classRelabelled.Labels = map[string]string{"x": "y"}
	anchor := testPod("", on("n1"), labelled("app", "anchor"))
	db := testPod("", on("n1"), labelled("app", "db"))
	pendingDB := testPod("", labelled("app", "db"))
	dbRelabelled := db.DeepCopy()
	dbRelabelled.Labels = map[string]string{"app": "cache"}
	anchorBecomesDB := anchor.DeepCopy()
	anchorBecomesDB.Labels = map[string]string{"app": "db"}
	otherNamespace := testPod("", on("n1"), labelled("app", "db"), func(p *corev1.Pod) { p.Namespace = "other" })
	hater := testPod("", on("n1"), labelled("app", "anchor"), withAntiAffinityTo("web"))
	web := testPod("", labelled("app", "web"))
	port := testPod("", on("n1"), withHostPort(8080))
	otherPort := testPod("", on("n1"), withHostPort(9090))
	twoCPU := testPod("2", on("n1"))
	oneCPU := twoCPU.DeepCopy()
	oneCPU.Spec.Containers[0].Resources.Requests[corev1.ResourceCPU] = resource.MustParse("1")

	for _, tc := range []struct {
		name   string
		plugin string
		pod    *corev1.Pod
		event  clusterEvent
		want   bool
	}{
		// InterPodAffinity (the recorded case: an unrelated pod is bound).
		{"affinity: a bound pod matching no term is skipped", InterPodAffinity, testPod("", withAffinityTo("db")), added(anchor), false},
		{"affinity: a bound pod matching the term queues", InterPodAffinity, testPod("", withAffinityTo("db")), added(db), true},
		{"affinity: a matching pod in another namespace is skipped", InterPodAffinity, testPod("", withAffinityTo("db")), added(otherNamespace), false},
		{"affinity: a matching pod not yet placed is skipped", InterPodAffinity, testPod("", withAffinityTo("db")), added(pendingDB), false},
		{"affinity: a bound pod relabelled to match queues", InterPodAffinity, testPod("", withAffinityTo("db")), updated(anchor, anchorBecomesDB), true},
		{"anti-affinity: a bound pod relabelled out of the term queues", InterPodAffinity, testPod("", withAntiAffinityTo("db")), updated(db, dbRelabelled), true},
		{"anti-affinity: a deleted pod the term selects queues", InterPodAffinity, testPod("", withAntiAffinityTo("db")), deleted(db), true},
		{"anti-affinity: a deleted pod whose own anti-affinity selects the pod queues", InterPodAffinity, web, deleted(hater), true},
		{"affinity: a deleted unrelated pod is skipped", InterPodAffinity, testPod("", withAffinityTo("db")), deleted(anchor), false},
		{"affinity: a new node with the topology key queues", InterPodAffinity, testPod("", withAffinityTo("db")), nodeAdded(plain), true},
		{"affinity: a node relabelled without touching the key is skipped", InterPodAffinity, testPod("", withAffinityTo("db")), updated(plain, testNode("n1", 4, 110, zone("a"))), false},
		{"affinity: the pod's own new labels queue", InterPodAffinity, testPod(""), updated(testPod(""), testPod("", labelled("a", "b"))), true},

		// PodTopologySpread.
		{"spread: a bound pod the selector does not match is skipped", PodTopologySpread, testPod("", spreadOver(corev1.LabelTopologyZone, "db")), added(anchor), false},
		{"spread: a bound pod the selector matches queues", PodTopologySpread, testPod("", spreadOver(corev1.LabelTopologyZone, "db")), added(db), true},
		{"spread: a matching pod in another namespace is skipped", PodTopologySpread, testPod("", spreadOver(corev1.LabelTopologyZone, "db")), added(otherNamespace), false},
		{"spread: a deleted matching pod queues", PodTopologySpread, testPod("", spreadOver(corev1.LabelTopologyZone, "db")), deleted(db), true},
		{"spread: a bound pod relabelled out of the selector queues", PodTopologySpread, testPod("", spreadOver(corev1.LabelTopologyZone, "db")), updated(db, dbRelabelled), true},
		{"spread: a new node without the key is skipped", PodTopologySpread, testPod("", spreadOver(corev1.LabelTopologyZone, "db")), nodeAdded(plain), false},
		{"spread: a new node with the key queues", PodTopologySpread, testPod("", spreadOver(corev1.LabelTopologyZone, "db")), nodeAdded(zoned), true},
		{"spread: a node gaining the key queues", PodTopologySpread, testPod("", spreadOver(corev1.LabelTopologyZone, "db")), updated(plain, zoned), true},
		{"spread: a node changing zone queues", PodTopologySpread, testPod("", spreadOver(corev1.LabelTopologyZone, "db")), updated(zoned, otherZone), true},
		{"spread: a deleted node without the key is skipped", PodTopologySpread, testPod("", spreadOver(corev1.LabelTopologyZone, "db")), clusterEvent{resource: resNode, action: actDelete, oldObj: plain}, false},

		// NodeResourcesFit.
		{"fit: a deleted bound pod queues", NodeResourcesFit, testPod("1"), deleted(anchor), true},
		{"fit: a deleted pending pod is skipped", NodeResourcesFit, testPod("1"), deleted(pendingDB), false},
		{"fit: a new node too small is skipped", NodeResourcesFit, testPod("6"), nodeAdded(plain), false},
		{"fit: a new node big enough queues", NodeResourcesFit, testPod("6"), nodeAdded(bigger), true},
		{"fit: a node grown to fit queues", NodeResourcesFit, testPod("6"), updated(plain, bigger), true},
		{"fit: a node grown when the pod asks for no cpu is skipped", NodeResourcesFit, testPod(""), updated(plain, bigger), false},
		{"fit: a bound pod scaled down queues", NodeResourcesFit, testPod("3"), updated(twoCPU, oneCPU), true},
		{"fit: a bound pod scaled down in what the pod does not ask for is skipped", NodeResourcesFit, testPod(""), updated(twoCPU, oneCPU), false},

		// NodePorts.
		{"ports: a deleted pod holding the port queues", NodePorts, testPod("", withHostPort(8080)), deleted(port), true},
		{"ports: a deleted pod holding another port is skipped", NodePorts, testPod("", withHostPort(8080)), deleted(otherPort), false},
		{"ports: a new node queues", NodePorts, testPod("", withHostPort(8080)), nodeAdded(plain), true},

		// NodeAffinity.
		{"node affinity: a new node matching the selector queues", NodeAffinity, testPod("", func(p *corev1.Pod) { p.Spec.NodeSelector = zone("a") }), nodeAdded(zoned), true},
		{"node affinity: a new node not matching is skipped", NodeAffinity, testPod("", func(p *corev1.Pod) { p.Spec.NodeSelector = zone("a") }), nodeAdded(plain), false},
		{"node affinity: a node that already matched is skipped", NodeAffinity, testPod("", func(p *corev1.Pod) { p.Spec.NodeSelector = zone("a") }), updated(zoned, func() *corev1.Node { n := zoned.DeepCopy(); n.Labels["x"] = "y"; return n }()), false},
		{"node affinity: a node relabelled to match queues", NodeAffinity, testPod("", func(p *corev1.Pod) { p.Spec.NodeSelector = zone("a") }), updated(otherZone, zoned), true},

		// TaintToleration and NodeUnschedulable.
		{"taints: a node losing its taint queues", TaintToleration, testPod(""), updated(tainted, plain), true},
		{"taints: a node gaining a taint is skipped", TaintToleration, testPod(""), updated(plain, tainted), false},
		{"taints: a new tainted node is skipped", TaintToleration, testPod(""), nodeAdded(tainted), false},
		{"unschedulable: an uncordoned node queues", NodeUnschedulable, testPod(""), updated(cordoned, plain), true},
		{"unschedulable: a new cordoned node is skipped", NodeUnschedulable, testPod(""), nodeAdded(cordoned), false},
		{"unschedulable: a toleration of the cordon queues", NodeUnschedulable, testPod(""), updated(testPod(""), testPod("", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: corev1.TaintNodeUnschedulable, Operator: corev1.TolerationOpExists}}
		})), true},
		{"unschedulable: an unrelated toleration is skipped", NodeUnschedulable, testPod(""), updated(testPod(""), testPod("", func(p *corev1.Pod) {
			p.Spec.Tolerations = []corev1.Toleration{{Key: "other", Operator: corev1.TolerationOpExists}}
		})), false},

		// NodeName, SchedulingGates, VolumeBinding.
		{"node name: a new node queues", NodeName, testPod(""), nodeAdded(plain), true},
		{"node name: a relabelled node is skipped", NodeName, testPod(""), updated(plain, zoned), false},
		{"gates: removing the last gate queues", SchedulingGates, testPod(""), updated(testPod("", func(p *corev1.Pod) { p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g"}} }), testPod("")), true},
		{"volumes: the pod's claim appearing queues", VolumeBinding, testPod("", withVolume("data")), clusterEvent{resource: resPersistentVolumeClaim, action: actAdd, newObj: claim("default", "data")}, true},
		{"volumes: another claim is skipped", VolumeBinding, testPod("", withVolume("data")), clusterEvent{resource: resPersistentVolumeClaim, action: actAdd, newObj: claim("default", "logs")}, false},
		{"volumes: a claim of that name elsewhere is skipped", VolumeBinding, testPod("", withVolume("data")), clusterEvent{resource: resPersistentVolumeClaim, action: actUpdate, oldObj: claim("other", "data"), newObj: claim("other", "data")}, false},
		{"volumes: a new class queues", VolumeBinding, testPod("", withVolume("data")), clusterEvent{resource: resStorageClass, action: actAdd, newObj: class}, true},
		{"volumes: a class with new allowed topologies queues", VolumeBinding, testPod("", withVolume("data")), clusterEvent{resource: resStorageClass, action: actUpdate, oldObj: class, newObj: classWithTopology}, true},
		{"volumes: a relabelled class is skipped", VolumeBinding, testPod("", withVolume("data")), clusterEvent{resource: resStorageClass, action: actUpdate, oldObj: class, newObj: classRelabelled}, false},
		{"volumes: a node annotation is no event it registers", VolumeBinding, testPod("", withVolume("data")), updated(plain, annotated), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := queued(t, tc.plugin, tc.pod, tc.event); got != tc.want {
				t.Errorf("%s on %s: queue %v, want %v", tc.plugin, tc.event.label(), got, tc.want)
			}
		})
	}
}

func TestUpdatesAreClassifiedAsKubeSchedulersEvents(t *testing.T) {
	node := testNode("n1", 4, 110, nil)
	heartbeat := node.DeepCopy()
	heartbeat.Status.Conditions = []corev1.NodeCondition{{Type: corev1.NodeReady, Status: corev1.ConditionTrue, LastHeartbeatTime: metav1.Now()}}
	beat := heartbeat.DeepCopy()
	beat.Status.Conditions[0].LastHeartbeatTime = metav1.NewTime(beat.Status.Conditions[0].LastHeartbeatTime.Add(10e9))
	cordoned := node.DeepCopy()
	cordoned.Spec.Unschedulable = true
	relabelled := testNode("n1", 8, 110, zone("a"))
	pending := testPod("1")
	bound := testPod("1", on("n1"))
	for _, tc := range []struct {
		name   string
		events []clusterEvent
		want   []string
	}{
		{"a heartbeat is no event", nodeUpdateEvents(heartbeat, beat), nil},
		{"cordoning is no event", nodeUpdateEvents(node, cordoned), nil},
		{"uncordoning is a taint change", nodeUpdateEvents(cordoned, node), []string{"NodeUpdateNodeTaint"}},
		{"a node changes allocatable and labels", nodeUpdateEvents(node, relabelled), []string{"NodeUpdateNodeAllocatable", "NodeUpdateNodeLabel"}},
		{"a condition's status changes", nodeUpdateEvents(node, heartbeat), []string{"NodeUpdateNodeCondition"}},
		{"a pending pod's labels change", podUpdateEvents(pending, testPod("1", labelled("a", "b"))), []string{"TargetPodUpdatePodLabel"}},
		{"a bound pod's status changes", podUpdateEvents(bound, func() *corev1.Pod { p := bound.DeepCopy(); p.Status.Phase = corev1.PodRunning; return p }()), []string{"AssignedPodUpdate"}},
		{"a pending pod loses its gates", podUpdateEvents(testPod("", func(p *corev1.Pod) { p.Spec.SchedulingGates = []corev1.PodSchedulingGate{{Name: "g"}} }), testPod("")), []string{"TargetPodUpdatePodSchedulingGatesEliminated"}},
		{"a bound pod asks for less", podUpdateEvents(bound, testPod("500m", on("n1"))), []string{"AssignedPodUpdatePodScaleDown"}},
		{"a bound pod asks for more", podUpdateEvents(bound, testPod("2", on("n1"))), []string{"AssignedPodUpdatePodScaleUp"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got []string
			for _, e := range tc.events {
				got = append(got, e.label())
			}
			if len(got) != len(tc.want) {
				t.Fatalf("events %v, want %v", got, tc.want)
			}
			for i := range got {
				if got[i] != tc.want[i] {
					t.Errorf("events %v, want %v", got, tc.want)
				}
			}
		})
	}
}
