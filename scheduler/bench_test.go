package scheduler

import (
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// BenchmarkSchedulingCycle measures one scheduling cycle (snapshot,
// filters, scores) without an API server: 100 nodes holding 1,000 pods, the
// default profile.
func BenchmarkSchedulingCycle(b *testing.B) {
	benchmarkSchedulingCycle(b, testPod("100m", labelled("app", "a1")))
}

// BenchmarkSchedulingCycleWithSpreadAndAffinity is BenchmarkSchedulingCycle
// for a pod with a zone spread constraint and hostname anti-affinity.
func BenchmarkSchedulingCycleWithSpreadAndAffinity(b *testing.B) {
	benchmarkSchedulingCycle(b, testPod("100m", labelled("app", "new"), spread(corev1.LabelTopologyZone, corev1.DoNotSchedule), func(p *corev1.Pod) {
		p.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
			TopologyKey: corev1.LabelHostname, LabelSelector: p.Spec.TopologySpreadConstraints[0].LabelSelector,
		}}}}
	}))
}

// benchmarkSchedulingCycle schedules pod, b.N times, in the default profile
// of a scheduler whose cache holds 100 nodes in 3 zones and 1,000 pods.
func benchmarkSchedulingCycle(b *testing.B, pod *corev1.Pod) {
	var nodes []*corev1.Node
	for i := 0; i < 100; i++ {
		nodes = append(nodes, testNode(fmt.Sprintf("n%d", i), 32, 110, zone(fmt.Sprintf("z%d", i%3))))
	}
	s := offlineScheduler(b, nodes)
	for i := 0; i < 1000; i++ {
		s.cache.setPod(testPod("100m", on(fmt.Sprintf("n%d", i%100)), labelled("app", fmt.Sprintf("a%d", i%10))))
	}
	prof := s.profiles[DefaultSchedulerName]
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		nodes := s.cache.snapshot()
		if host, fe := s.schedulePod(prof, newCycleState(nodes), pod, nodes); fe != nil || host == "" {
			b.Fatalf("not scheduled: %v", fe)
		}
	}
}
