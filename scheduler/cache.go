package scheduler

import (
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
)

// nodeCache holds the nodes and the pods bound or assumed bound to them,
// as kube-scheduler's cache does; a scheduling cycle works on a snapshot.
// A nodeInfo in the cache is never changed once a snapshot may hold it: a
// change replaces it with a changed copy (copy on write), so a snapshot is
// a list of pointers.
type nodeCache struct {
	mu    sync.Mutex
	nodes map[string]*nodeInfo
	// names are the names of the nodes that exist, sorted.
	names []string
	// podNode is where each cached pod is.
	podNode map[types.UID]string
}

func newNodeCache() *nodeCache {
	return &nodeCache{nodes: map[string]*nodeInfo{}, podNode: map[types.UID]string{}}
}

// setNode adds or updates a node.
func (c *nodeCache) setNode(node *corev1.Node) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n := c.writable(node.Name)
	if n.node == nil {
		i, _ := slices.BinarySearch(c.names, node.Name)
		c.names = slices.Insert(c.names, i, node.Name)
	}
	n.setNode(node)
}

// writable replaces the named nodeInfo with a copy (a new one when there is
// none) and returns the copy, to change.
func (c *nodeCache) writable(name string) *nodeInfo {
	n := &nodeInfo{}
	if old, ok := c.nodes[name]; ok {
		n = old.clone()
	}
	c.nodes[name] = n
	return n
}

// deleteNode removes a node; its pods stay accounted for until they go.
func (c *nodeCache) deleteNode(name string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.nodes[name]
	if !ok {
		return
	}
	if i, found := slices.BinarySearch(c.names, name); found {
		c.names = slices.Delete(c.names, i, i+1)
	}
	if len(n.pods) == 0 {
		delete(c.nodes, name)
		return
	}
	c.writable(name).node = nil
}

// setPod adds or updates a pod bound (or assumed bound) to pod.Spec.NodeName.
func (c *nodeCache) setPod(pod *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removePodLocked(pod)
	c.writable(pod.Spec.NodeName).addPod(newPodInfo(pod))
	c.podNode[pod.UID] = pod.Spec.NodeName
}

// removePod forgets a pod.
func (c *nodeCache) removePod(pod *corev1.Pod) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.removePodLocked(pod)
}

func (c *nodeCache) removePodLocked(pod *corev1.Pod) {
	name, ok := c.podNode[pod.UID]
	if !ok {
		return
	}
	delete(c.podNode, pod.UID)
	if _, ok := c.nodes[name]; ok {
		n := c.writable(name)
		n.removePod(pod)
		if n.node == nil && len(n.pods) == 0 {
			delete(c.nodes, name)
		}
	}
}

// snapshot lists the existing nodes, sorted by name. The caller must not
// change them (clone one to change it).
func (c *nodeCache) snapshot() []*nodeInfo {
	c.mu.Lock()
	defer c.mu.Unlock()
	out := make([]*nodeInfo, 0, len(c.names))
	for _, name := range c.names {
		out = append(out, c.nodes[name])
	}
	return out
}

// nodeOf returns where a cached pod is.
func (c *nodeCache) nodeOf(uid types.UID) (string, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	n, ok := c.podNode[uid]
	return n, ok
}
