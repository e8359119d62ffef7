// Package kubelet simulates the nodes of a cluster the way kwok does: a
// Node that carries the annotation kwok.x-k8s.io/node=fake is given the
// status a kubelet reports (Ready, no pressure, addresses, capacity, node
// info) and a Lease in kube-node-lease that is renewed periodically, as a
// kubelet's heartbeat is. The simulator can also create such nodes itself
// (fakeplane's --nodes). It talks to the control plane through client-go,
// as kwok does, so it works against any API server.
//
// Only nodes are simulated here; the pod lifecycle (moving bound pods to
// Running) is not.
package kubelet
