// Package controllers runs the control loops of a control plane, one file
// (or folder) per controller: what kube-controller-manager does (the
// workload controllers: Deployment, ReplicaSet, ReplicationController,
// StatefulSet, DaemonSet, Job, CronJob, TTLAfterFinished; Endpoints,
// EndpointSlice and EndpointSliceMirroring; PersistentVolumeBinder,
// EphemeralVolume, ResourceClaims (Dynamic Resource Allocation),
// Disruption, NodeLifecycle, TaintEviction, PodGC,
// HorizontalPodAutoscaler (without metrics APIs), TTL, ServiceCIDRs;
// ClusterRoleAggregation, NamespaceLifecycle, ServiceAccount,
// ServiceAccountTokens, RootCACertPublisher, ClusterTrustBundlePublisher,
// the garbage collector), under
// upstream's names and chosen as its --controllers chooses them
// (Selection), and what kube-apiserver runs inside itself (CRDFinalizer).
// The aggregation layer's loops (the CRD autoregistration, ...) live in
// package aggregator, which implements Controller; the root package runs
// them all with Start.
//
// A controller is fed the committed changes of the store buckets it cares
// about, as store.Event values in revision order: first the objects present
// when it starts, as Added events, then every change as it commits (see
// Controller). A Waker is woken from elsewhere as well: the garbage
// collector by the owner index that the store's commits keep up to date
// (see OwnerIndex). A controller reads nothing else from the store and
// writes through the registry's Go API (registry.Interface), like any
// client: the same defaults, admission and validation run as for a request
// over HTTP. Its writes are asynchronous, as on a cluster: a client sees
// their effect a moment after the write that caused them.
//
// A controller that syncs objects by key retries a failed key on its own
// schedule, as kube-controller-manager's rate-limited work queues do
// (keyRetries), rather than at the runner's backoff.
//
// Events about objects go through a Recorder, in the shape client-go's
// recorder gives them.
//
// Start runs each controller in a goroutine of its own; Runner.Stop ends
// them and waits for them, so that none outlives the control plane.
// Default lists the controllers a control plane runs.
package controllers
