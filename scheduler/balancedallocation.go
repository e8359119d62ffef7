package scheduler

import (
	"math"

	corev1 "k8s.io/api/core/v1"
	configv1 "k8s.io/kube-scheduler/config/v1"
)

// balancedAllocation prefers nodes whose resource use is more even across
// resources once the pod is on them (the NodeResourcesBalancedAllocation
// plugin).
type balancedAllocation struct{ resources []configv1.ResourceSpec }

func newBalancedAllocation(args *configv1.NodeResourcesBalancedAllocationArgs) *balancedAllocation {
	return &balancedAllocation{resources: args.Resources}
}

func (*balancedAllocation) Name() string { return NodeResourcesBalancedAllocation }

// Score implements scorePlugin: half the score plus half the improvement
// of the balance the pod brings, as kube-scheduler v1.37 scores it. A pod
// requesting none of the resources is not scored (0 everywhere).
func (p *balancedAllocation) Score(state *cycleState, pod *corev1.Pod, n *nodeInfo) int64 {
	pi := cyclePodInfo(state, pod)
	if pi.requests.milliCPU == 0 && pi.requests.memory == 0 && pi.requests.ephemeralStorage == 0 && len(pi.requests.scalar) == 0 {
		return 0
	}
	withPod, without, alloc := allocation(p.resources, pi, n, true)
	scoreWith := balance(withPod, alloc)
	scoreWithout := balance(without, alloc)
	return maxNodeScore/2 + (maxNodeScore/2+scoreWith-scoreWithout)/2
}

// balance is (1 - the standard deviation of the requested fractions) on
// the 0-100 scale.
func balance(requested, alloc []int64) int64 {
	var fractions []float64
	var total float64
	for i := range requested {
		if alloc[i] == 0 {
			continue
		}
		f := min(float64(requested[i])/float64(alloc[i]), 1)
		total += f
		fractions = append(fractions, f)
	}
	std := 0.0
	switch {
	case len(fractions) == 2:
		std = math.Abs((fractions[0] - fractions[1]) / 2)
	case len(fractions) > 2:
		mean := total / float64(len(fractions))
		var sum float64
		for _, f := range fractions {
			sum += (f - mean) * (f - mean)
		}
		std = math.Sqrt(sum / float64(len(fractions)))
	}
	return int64((1 - std) * float64(maxNodeScore))
}
