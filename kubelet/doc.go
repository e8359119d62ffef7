// Package kubelet simulates the nodes of a cluster and the pods bound to
// them the way kwok does. A Node that carries the annotation
// kwok.x-k8s.io/node=fake is given the status a kubelet reports (Ready, no
// pressure, addresses, capacity, node info), a pod CIDR when it has none,
// and a Lease in kube-node-lease that is renewed periodically, as a
// kubelet's heartbeat is. The simulator can also create such nodes itself
// (fakeplane's --nodes).
//
// Pods bound to those nodes move as kwok's default ("fast") stages move
// them, with the status a kubelet reports: a Pending pod goes straight to
// Running (pod-ready) with its containers started and ready, regular init
// containers completed, sidecars running, an IP from the node's pod CIDR
// and the conditions PodReadyToStartContainers, Initialized, Ready,
// ContainersReady; a running pod owned by a Job then Succeeds
// (pod-complete); a terminating pod is deleted at once (pod-delete), or,
// with Config.WaitGracePeriod, once its grace period has elapsed on the
// Now clock. Running pods keep the status they have (a test may
// write it), but for Ready following readiness gates.
// Config.DisablePodLifecycle turns this off; Config.Stages replaces it with
// kwok Stages (see Stage and LoadStages): selectors on labels, annotations
// and jq paths, weights, delays, status templates, deletion and events.
//
// With Config.API, the simulator also serves the nodes' kubelet API (see
// APIServer), one HTTPS server on loopback for every managed node as kwok
// runs one: each node's InternalIP and daemonEndpoints port point at it,
// and it answers /healthz, /pods, /containerLogs, /exec, /attach and
// /portForward as the kubelet does, with the kubelet's own streaming and
// log-reading libraries. Logs are what a test appends (APIServer.AppendLog)
// or files kwok's ClusterLogs/Logs name, empty by default; exec runs
// commands on this machine for the pods kwok's ClusterExec/Exec select and
// answers the runtime's exec error otherwise; attach streams the log;
// port-forward reaches the local addresses of kwok's
// ClusterPortForward/PortForward and is refused for other ports (see
// DebugConfig).
//
// It talks to the control plane through client-go, as kwok does, so it
// works against any API server.
package kubelet
