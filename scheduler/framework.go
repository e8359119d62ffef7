package scheduler

import (
	"fmt"
	"log/slog"
	"slices"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	appslisters "k8s.io/client-go/listers/apps/v1"
	corelisters "k8s.io/client-go/listers/core/v1"
	policylisters "k8s.io/client-go/listers/policy/v1"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	storagelisters "k8s.io/client-go/listers/storage/v1"
	dracel "k8s.io/dynamic-resource-allocation/cel"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
)

// maxNodeScore is the highest score a plugin gives a node.
const maxNodeScore int64 = 100

// cycleState carries what PreFilter and PreScore compute for one pod's
// scheduling cycle.
type cycleState struct {
	data map[string]any
	// nodes are all the nodes of the cycle's snapshot.
	nodes []*nodeInfo
}

func newCycleState(nodes []*nodeInfo) *cycleState {
	return &cycleState{data: map[string]any{}, nodes: nodes}
}

// plugin is a scheduling plugin.
type plugin interface{ Name() string }

// preEnqueuePlugin decides whether a pod may enter the active queue.
type preEnqueuePlugin interface {
	plugin
	PreEnqueue(pod *corev1.Pod) *status
}

// preFilterPlugin computes state for Filter over all nodes; a failure
// rejects the pod on every node.
type preFilterPlugin interface {
	plugin
	PreFilter(state *cycleState, pod *corev1.Pod) *status
}

// filterPlugin decides whether the pod fits a node.
type filterPlugin interface {
	plugin
	Filter(state *cycleState, pod *corev1.Pod, node *nodeInfo) *status
}

// preScorePlugin computes state for Score over the feasible nodes.
type preScorePlugin interface {
	plugin
	PreScore(state *cycleState, pod *corev1.Pod, nodes []*nodeInfo)
}

// scorePlugin ranks a feasible node.
type scorePlugin interface {
	plugin
	Score(state *cycleState, pod *corev1.Pod, node *nodeInfo) int64
}

// normalizePlugin scales a score plugin's scores to [0, maxNodeScore].
type normalizePlugin interface {
	NormalizeScore(state *cycleState, pod *corev1.Pod, scores []int64)
}

// handle is what plugins may read besides the snapshot: listers of the
// scheduler's informers (nil without them, as in unit tests).
type handle struct {
	namespaces   corelisters.NamespaceLister
	services     corelisters.ServiceLister
	rcs          corelisters.ReplicationControllerLister
	replicaSets  appslisters.ReplicaSetLister
	statefulSets appslisters.StatefulSetLister
	// claims and storageClasses are for VolumeBinding.
	claims         corelisters.PersistentVolumeClaimLister
	volumes        corelisters.PersistentVolumeLister
	storageClasses storagelisters.StorageClassLister
	// pdbs are the PodDisruptionBudgets DefaultPreemption weighs (nil
	// when no profile enables it).
	pdbs policylisters.PodDisruptionBudgetLister
	// draClaims, draSlices and draClasses are DynamicResources' claims,
	// ResourceSlices and DeviceClasses, draCEL its compiled selectors (nil
	// when no profile enables it).
	draClaims  *draClaims
	draSlices  patchedSlices
	draClasses resourcelisters.DeviceClassLister
	draCEL     *dracel.Cache
	// draExtended maps extended resource names to the DeviceClasses that
	// back them (DRAExtendedResource), for DynamicResources and
	// NodeResourcesFit.
	draExtended *extendedresourcecache.ExtendedResourceCache
	// log receives what plugins report besides their statuses.
	log *slog.Logger
}

// weightedScore is a score plugin with its weight.
type weightedScore struct {
	scorePlugin
	weight int64
}

// profile is one scheduler profile: its plugins per extension point.
type profile struct {
	name                     string
	percentageOfNodesToScore *int32
	preEnqueue               []preEnqueuePlugin
	preFilter                []preFilterPlugin
	filter                   []filterPlugin
	preScore                 []preScorePlugin
	score                    []weightedScore
	preemption               *defaultPreemption
	// dra is DynamicResources when the profile enables it (its Reserve,
	// PreBind and Unreserve), draPostFilter whether its PostFilter runs
	// (before DefaultPreemption's, as in upstream's default order).
	dra           *dynamicResources
	draPostFilter bool
	// hints are the enabled plugins' registered events and queueing
	// hints, by plugin name.
	hints map[string][]eventHint
}

// newPlugin makes a plugin of a name with its (defaulted) args.
func newPlugin(name string, args any, h *handle) (plugin, error) {
	switch name {
	case SchedulingGates:
		return schedulingGates{}, nil
	case PrioritySort:
		return prioritySort{}, nil
	case NodeName:
		return nodeName{}, nil
	case NodeUnschedulable:
		return nodeUnschedulable{}, nil
	case TaintToleration:
		return taintToleration{}, nil
	case NodeAffinity:
		a, _ := args.(*configv1.NodeAffinityArgs)
		return newNodeAffinity(a)
	case NodePorts:
		return nodePorts{}, nil
	case NodeResourcesFit:
		return newNodeResourcesFit(argsOf[configv1.NodeResourcesFitArgs](args), h), nil
	case NodeResourcesBalancedAllocation:
		return newBalancedAllocation(argsOf[configv1.NodeResourcesBalancedAllocationArgs](args)), nil
	case PodTopologySpread:
		return newPodTopologySpread(argsOf[configv1.PodTopologySpreadArgs](args), h)
	case InterPodAffinity:
		return newInterPodAffinity(argsOf[configv1.InterPodAffinityArgs](args), h), nil
	case DefaultPreemption:
		return &defaultPreemption{}, nil
	case DynamicResources:
		return &dynamicResources{h: h}, nil
	case VolumeBinding:
		return &volumeBinding{h: h}, nil
	case VolumeRestrictions, NodeVolumeLimits, VolumeZone, ImageLocality, DefaultBinder:
		// Simulated nodes have no volumes attached and no images; these
		// plugins accept every node and score all alike.
		return noopPlugin(name), nil
	}
	return nil, fmt.Errorf("plugin %q does not exist", name)
}

// argsOf returns a plugin's args, defaulted ones when the configuration
// has none of the right type (one not completed by Complete).
func argsOf[T any, PT interface {
	*T
	runtime.Object
}](args any) PT {
	if a, ok := args.(PT); ok && a != nil {
		return a
	}
	a := PT(new(T))
	defaultArgs(a)
	return a
}

// noopPlugin is a default plugin with nothing to decide on simulated nodes.
type noopPlugin string

func (p noopPlugin) Name() string { return string(p) }

// newProfile builds a profile from its (defaulted) configuration, as
// kube-scheduler's framework does: plugins configured at an extension point
// come first, then the multiPoint plugins implementing it that are not
// disabled there.
func newProfile(cfg configv1.KubeSchedulerProfile, h *handle) (*profile, error) {
	name := ptr.Deref(cfg.SchedulerName, "")
	args := map[string]any{}
	for _, pc := range cfg.PluginConfig {
		args[pc.Name] = pc.Args.Object
	}
	plugins := map[string]plugin{}
	get := func(n string) (plugin, error) {
		if p, ok := plugins[n]; ok {
			return p, nil
		}
		p, err := newPlugin(n, args[n], h)
		if err != nil {
			return nil, err
		}
		plugins[n] = p
		return p, nil
	}
	pr := &profile{name: name, percentageOfNodesToScore: cfg.PercentageOfNodesToScore}
	ps := cfg.Plugins
	type point struct {
		set  configv1.PluginSet
		add  func(p plugin, weight int32) bool
		name string
	}
	points := []point{
		{ps.PreEnqueue, func(p plugin, _ int32) bool {
			x, ok := p.(preEnqueuePlugin)
			if ok {
				pr.preEnqueue = append(pr.preEnqueue, x)
			}
			return ok
		}, "PreEnqueue"},
		{ps.PreFilter, func(p plugin, _ int32) bool {
			x, ok := p.(preFilterPlugin)
			if ok {
				pr.preFilter = append(pr.preFilter, x)
			}
			if d, isDRA := p.(*dynamicResources); isDRA {
				pr.dra = d
			}
			return ok
		}, "PreFilter"},
		{ps.Filter, func(p plugin, _ int32) bool {
			x, ok := p.(filterPlugin)
			if ok {
				pr.filter = append(pr.filter, x)
			}
			return ok
		}, "Filter"},
		{ps.PostFilter, func(p plugin, _ int32) bool {
			if _, ok := p.(*dynamicResources); ok {
				pr.draPostFilter = true
				return true
			}
			x, ok := p.(*defaultPreemption)
			if ok {
				pr.preemption = x
			}
			return ok
		}, "PostFilter"},
		{ps.PreScore, func(p plugin, _ int32) bool {
			x, ok := p.(preScorePlugin)
			if ok {
				pr.preScore = append(pr.preScore, x)
			}
			return ok
		}, "PreScore"},
		{ps.Score, func(p plugin, w int32) bool {
			x, ok := p.(scorePlugin)
			if ok {
				if w == 0 {
					w = 1
				}
				pr.score = append(pr.score, weightedScore{x, int64(w)})
			}
			return ok
		}, "Score"},
	}
	for _, pt := range points {
		done := sets.New[string]()
		for _, e := range pt.set.Enabled {
			p, err := get(e.Name)
			if err != nil {
				return nil, err
			}
			if _, isNoop := p.(noopPlugin); !pt.add(p, ptr.Deref(e.Weight, 0)) && !isNoop {
				return nil, fmt.Errorf("plugin %q does not extend %s plugin", e.Name, pt.name)
			}
			done.Insert(e.Name)
		}
		disabled := sets.New[string]()
		for _, d := range pt.set.Disabled {
			disabled.Insert(d.Name)
		}
		if disabled.Has("*") {
			continue
		}
		for _, e := range ps.MultiPoint.Enabled {
			if done.Has(e.Name) || disabled.Has(e.Name) {
				continue
			}
			p, err := get(e.Name)
			if err != nil {
				return nil, err
			}
			pt.add(p, ptr.Deref(e.Weight, 0))
			done.Insert(e.Name)
		}
	}
	for _, e := range slices.Concat(ps.QueueSort.Enabled, ps.Reserve.Enabled, ps.Permit.Enabled, ps.PreBind.Enabled, ps.Bind.Enabled, ps.PostBind.Enabled) {
		if _, err := get(e.Name); err != nil {
			return nil, err
		}
	}
	pr.hints = map[string][]eventHint{}
	for n, p := range plugins {
		if h, ok := p.(queueingHinter); ok {
			pr.hints[n] = h.eventsToRegister()
		}
	}
	return pr, nil
}

// prioritySort is the queue-sort plugin: higher priority first, then
// earlier in the queue. The scheduling queue implements its order.
type prioritySort struct{}

func (prioritySort) Name() string { return PrioritySort }
