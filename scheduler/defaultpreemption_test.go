package scheduler

import (
	"slices"
	"strconv"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	"k8s.io/client-go/tools/cache"
)

// named names a test pod (PodDisruptionBudgets' disruptedPods are by name).
func named(name string) func(*corev1.Pod) { return func(p *corev1.Pod) { p.Name = name } }

// startedAt gives a pod a start time, sec seconds after a fixed instant.
func startedAt(sec int) func(*corev1.Pod) {
	return func(p *corev1.Pod) {
		p.Status.StartTime = &metav1.Time{Time: time.Date(2026, 11, 28, 0, 0, sec, 0, time.UTC)}
	}
}

// budget is a PodDisruptionBudget in namespace "default" selecting
// matchLabels (nil: an empty selector) whose status allows allowed
// disruptions, with the disrupted pods named.
func budget(matchLabels map[string]string, allowed int32, disrupted ...string) *policyv1.PodDisruptionBudget {
	b := &policyv1.PodDisruptionBudget{
		ObjectMeta: metav1.ObjectMeta{Namespace: "default"},
		Spec:       policyv1.PodDisruptionBudgetSpec{Selector: &metav1.LabelSelector{MatchLabels: matchLabels}},
		Status:     policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: allowed},
	}
	for _, d := range disrupted {
		if b.Status.DisruptedPods == nil {
			b.Status.DisruptedPods = map[string]metav1.Time{}
		}
		b.Status.DisruptedPods[d] = metav1.Now()
	}
	return b
}

// inNamespace moves a budget to namespace ns.
func inNamespace(ns string, b *policyv1.PodDisruptionBudget) *policyv1.PodDisruptionBudget {
	b.Namespace = ns
	return b
}

// preemptionCase is a cluster where the pod fits nowhere and the choice
// preemption makes.
type preemptionCase struct {
	name     string
	nodes    []*corev1.Node
	existing []*corev1.Pod
	pdbs     []*policyv1.PodDisruptionBudget
	pod      *corev1.Pod
	// wantNode is the candidate node, wantVictims its victims in order
	// and wantViolations how many of them a budget protects.
	wantNode       string
	wantVictims    []string
	wantViolations int
}

// choosePreemption runs a scheduling cycle that fails and returns the
// candidate preemption chooses, with the budgets in the scheduler's lister.
func choosePreemption(t *testing.T, tc preemptionCase) (candidate, bool) {
	t.Helper()
	s := offlineScheduler(t, tc.nodes)
	for _, p := range tc.existing {
		s.cache.setPod(p)
	}
	idx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for i, b := range tc.pdbs {
		b = b.DeepCopy()
		b.Name = "pdb-" + strconv.Itoa(i)
		if err := idx.Add(b); err != nil {
			t.Fatal(err)
		}
	}
	s.handle.pdbs = policylisters.NewPodDisruptionBudgetLister(idx)
	nodes := s.cache.snapshot()
	p := s.profiles[DefaultSchedulerName]
	host, fe := s.schedulePod(p, newCycleState(nodes), tc.pod, nodes)
	if fe == nil {
		t.Fatalf("the pod fits on %s without preemption", host)
	}
	return s.preemptionCandidate(p, tc.pod, nodes, fe)
}

func runPreemptionCases(t *testing.T, cases []preemptionCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			c, found := choosePreemption(t, tc)
			if !found {
				t.Fatal("no preemption candidate")
			}
			var victims []string
			for _, v := range c.victims {
				victims = append(victims, v.Name)
			}
			if c.node != tc.wantNode || !slices.Equal(victims, tc.wantVictims) || c.pdbViolations != tc.wantViolations {
				t.Errorf("preempts %v on %s with %d budget violations, want %v on %s with %d",
					victims, c.node, c.pdbViolations, tc.wantVictims, tc.wantNode, tc.wantViolations)
			}
		})
	}
}

// TestPreemptionVictimsRespectDisruptionBudgets checks which pods
// preemption evicts on a node when PodDisruptionBudgets protect some of
// them, as kube-scheduler v1.37.2's DefaultPreemption chooses (upstream
// source; the "budget on c", "budget of one over all" and "every victim
// protected" cases were also run against a real kube-scheduler on refplane,
// 2026-11-28, with the same victims).
func TestPreemptionVictimsRespectDisruptionBudgets(t *testing.T) {
	// Three low-priority pods, a oldest, filling a 3-cpu node; the
	// preemptor needs one cpu unless said otherwise.
	abc := func() []*corev1.Pod {
		return []*corev1.Pod{
			testPod("1", named("a"), on("n0"), priority(0), labelled("app", "web"), labelled("name", "a"), startedAt(1)),
			testPod("1", named("b"), on("n0"), priority(0), labelled("app", "web"), labelled("name", "b"), startedAt(2)),
			testPod("1", named("c"), on("n0"), priority(0), labelled("app", "web"), labelled("name", "c"), startedAt(3)),
		}
	}
	n0 := func() []*corev1.Node { return []*corev1.Node{testNode("n0", 3, 110, nil)} }
	high := func(cpu string) *corev1.Pod { return testPod(cpu, named("high"), priority(100)) }
	runPreemptionCases(t, []preemptionCase{
		{
			name:  "without budgets the youngest pod of equal priority is evicted",
			nodes: n0(), existing: abc(), pod: high("1"),
			wantNode: "n0", wantVictims: []string{"c"},
		},
		{
			name:  "a budget allowing no disruption spares its pod",
			nodes: n0(), existing: abc(), pod: high("1"),
			pdbs:     []*policyv1.PodDisruptionBudget{budget(map[string]string{"name": "c"}, 0)},
			wantNode: "n0", wantVictims: []string{"b"},
		},
		{
			name:  "a budget on a pod that would be spared anyway changes nothing",
			nodes: n0(), existing: abc(), pod: high("1"),
			pdbs:     []*policyv1.PodDisruptionBudget{budget(map[string]string{"name": "a"}, 0)},
			wantNode: "n0", wantVictims: []string{"c"},
		},
		{
			name:  "a budget allowing one disruption spends it on the most important pod, which is evicted",
			nodes: n0(), existing: abc(), pod: high("1"),
			pdbs:     []*policyv1.PodDisruptionBudget{budget(map[string]string{"app": "web"}, 1)},
			wantNode: "n0", wantVictims: []string{"a"},
		},
		{
			name:  "when every pod is protected the least important is evicted and counts as a violation",
			nodes: n0(), existing: abc(), pod: high("1"),
			pdbs:     []*policyv1.PodDisruptionBudget{budget(map[string]string{"app": "web"}, 0)},
			wantNode: "n0", wantVictims: []string{"c"}, wantViolations: 1,
		},
		{
			name:  "a pod already among the budget's disrupted pods is not protected",
			nodes: n0(), existing: abc(), pod: high("1"),
			pdbs:     []*policyv1.PodDisruptionBudget{budget(map[string]string{"app": "web"}, 0, "a")},
			wantNode: "n0", wantVictims: []string{"a"},
		},
		{
			name:  "a budget in another namespace protects nothing",
			nodes: n0(), existing: abc(), pod: high("1"),
			pdbs:     []*policyv1.PodDisruptionBudget{inNamespace("other", budget(map[string]string{"name": "c"}, 0))},
			wantNode: "n0", wantVictims: []string{"c"},
		},
		{
			name:  "a budget with an empty selector protects nothing",
			nodes: n0(), existing: abc(), pod: high("1"),
			pdbs:     []*policyv1.PodDisruptionBudget{budget(nil, 0)},
			wantNode: "n0", wantVictims: []string{"c"},
		},
		{
			name:  "a pod protected by two exhausted budgets is one violation",
			nodes: n0(), existing: abc(), pod: high("1"),
			pdbs: []*policyv1.PodDisruptionBudget{
				budget(map[string]string{"app": "web"}, 0), budget(map[string]string{"app": "web", "name": "c"}, 0),
			},
			wantNode: "n0", wantVictims: []string{"c"}, wantViolations: 1,
		},
		{
			name:  "protected and unprotected victims are listed most important first",
			nodes: n0(), existing: abc(), pod: high("3"),
			pdbs:     []*policyv1.PodDisruptionBudget{budget(map[string]string{"name": "c"}, 0)},
			wantNode: "n0", wantVictims: []string{"a", "b", "c"}, wantViolations: 1,
		},
		{
			name:  "a higher-priority protected pod is spared before a lower-priority one",
			nodes: n0(),
			existing: []*corev1.Pod{
				testPod("1", named("a"), on("n0"), priority(5), labelled("app", "web"), startedAt(1)),
				testPod("1", named("b"), on("n0"), priority(1), labelled("app", "web"), startedAt(2)),
				testPod("1", named("c"), on("n0"), priority(10), startedAt(3)),
			},
			pod:      high("2"),
			pdbs:     []*policyv1.PodDisruptionBudget{budget(map[string]string{"app": "web"}, 0)},
			wantNode: "n0", wantVictims: []string{"c", "b"}, wantViolations: 1,
		},
	})
}

// TestPreemptionPrefersNodesWithFewerBudgetViolations checks the choice
// among candidate nodes: fewest PodDisruptionBudget violations first, then
// kube-scheduler's other criteria.
func TestPreemptionPrefersNodesWithFewerBudgetViolations(t *testing.T) {
	two := func() []*corev1.Node { return []*corev1.Node{testNode("n0", 1, 110, nil), testNode("n1", 1, 110, nil)} }
	// x on n0 has the lower priority, y on n1 the higher.
	xy := func() []*corev1.Pod {
		return []*corev1.Pod{
			testPod("1", named("x"), on("n0"), priority(1), labelled("name", "x"), startedAt(1)),
			testPod("1", named("y"), on("n1"), priority(5), labelled("name", "y"), startedAt(1)),
		}
	}
	high := testPod("1", named("high"), priority(100))
	runPreemptionCases(t, []preemptionCase{
		{
			name:  "without budgets the node with the lower-priority victim",
			nodes: two(), existing: xy(), pod: high,
			wantNode: "n0", wantVictims: []string{"x"},
		},
		{
			name:  "a node without violations wins over a lower-priority victim",
			nodes: two(), existing: xy(), pod: high,
			pdbs:     []*policyv1.PodDisruptionBudget{budget(map[string]string{"name": "x"}, 0)},
			wantNode: "n1", wantVictims: []string{"y"},
		},
		{
			name:  "when every node violates a budget the other criteria decide",
			nodes: two(), existing: xy(), pod: high,
			pdbs: []*policyv1.PodDisruptionBudget{
				budget(map[string]string{"name": "x"}, 0), budget(map[string]string{"name": "y"}, 0),
			},
			wantNode: "n0", wantVictims: []string{"x"}, wantViolations: 1,
		},
		{
			name:  "a budget allowing a disruption is no violation",
			nodes: two(), existing: xy(), pod: high,
			pdbs:     []*policyv1.PodDisruptionBudget{budget(map[string]string{"name": "x"}, 1)},
			wantNode: "n0", wantVictims: []string{"x"},
		},
	})
}

// TestPickCandidateOrdersAsKubeScheduler checks pickCandidate's criteria
// one after another on candidates built by hand.
func TestPickCandidateOrdersAsKubeScheduler(t *testing.T) {
	pod := func(prio int32, sec int) *corev1.Pod { return testPod("", priority(prio), startedAt(sec)) }
	for _, tc := range []struct {
		name string
		cs   []candidate
		want string
	}{
		{
			name: "fewer budget violations beat fewer and lower-priority victims",
			cs: []candidate{
				{node: "n0", victims: []*corev1.Pod{pod(1, 1)}, pdbViolations: 1},
				{node: "n1", victims: []*corev1.Pod{pod(9, 1), pod(9, 1)}},
			},
			want: "n1",
		},
		{
			name: "equal violations fall back to the lowest highest priority",
			cs: []candidate{
				{node: "n0", victims: []*corev1.Pod{pod(9, 1)}, pdbViolations: 2},
				{node: "n1", victims: []*corev1.Pod{pod(1, 1), pod(1, 1)}, pdbViolations: 2},
			},
			want: "n1",
		},
		{
			name: "then the smallest sum of priorities",
			cs: []candidate{
				{node: "n0", victims: []*corev1.Pod{pod(5, 1), pod(4, 1)}},
				{node: "n1", victims: []*corev1.Pod{pod(5, 1), pod(3, 1)}},
			},
			want: "n1",
		},
		{
			name: "negative priorities: fewer victims sum lower",
			cs: []candidate{
				{node: "n0", victims: []*corev1.Pod{pod(-5, 1), pod(-5, 1)}},
				{node: "n1", victims: []*corev1.Pod{pod(-5, 1)}},
			},
			want: "n1",
		},
		{
			name: "then the latest start of the highest-priority victims",
			cs: []candidate{
				{node: "n0", victims: []*corev1.Pod{pod(5, 1)}},
				{node: "n1", victims: []*corev1.Pod{pod(5, 7)}},
			},
			want: "n1",
		},
		{
			name: "a full tie keeps the first",
			cs: []candidate{
				{node: "n0", victims: []*corev1.Pod{pod(5, 1)}},
				{node: "n1", victims: []*corev1.Pod{pod(5, 1)}},
			},
			want: "n0",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := pickCandidate(tc.cs).node; got != tc.want {
				t.Errorf("picked %s, want %s", got, tc.want)
			}
		})
	}
}
