// Package scheduler is an in-process kube-scheduler: it schedules pods of
// the profiles a KubeSchedulerConfiguration (kubescheduler.config.k8s.io/v1)
// describes, each profile named by its schedulerName, with the default
// plugins' semantics (NodeName, NodeUnschedulable, TaintToleration,
// NodeAffinity, NodePorts, NodeResourcesFit, NodeResourcesBalancedAllocation,
// PodTopologySpread, InterPodAffinity, VolumeBinding, SchedulingGates,
// PrioritySort, DefaultPreemption, DefaultBinder). VolumeRestrictions,
// NodeVolumeLimits, VolumeZone and ImageLocality accept every node and
// score all alike: simulated nodes have no attached volumes and no images.
//
// Like kube-scheduler it is a client of the API server: it watches pods,
// nodes and namespaces through client-go, binds through pods/binding,
// records Scheduled and FailedScheduling events in events.k8s.io/v1 as the
// profile's scheduler name, sets the PodScheduled condition and
// nominatedNodeName through pods/status, deletes preemption victims, and
// holds its leader-election Lease when leaderElection.leaderElect is true.
// A pod whose spec.schedulerName names no profile is left alone.
//
// Several schedulers (each a *Scheduler with its own configuration) can run
// against one control plane, in one process or not.
package scheduler
