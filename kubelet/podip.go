package kubelet

import (
	"net/netip"

	"k8s.io/apimachinery/pkg/types"
)

// podIPs hands out pod IPs from each node's pod CIDR, one per pod, as a
// node's CNI plugin does: the first free address from the CIDR's second
// host address on (the first is the node's bridge), never the broadcast
// address. It is not safe for concurrent use.
type podIPs struct {
	byNode map[string]*nodeIPs
}

// nodeIPs are the addresses in use on one node.
type nodeIPs struct {
	byPod map[types.UID]netip.Addr
	inUse map[netip.Addr]types.UID
}

func newPodIPs() *podIPs { return &podIPs{byNode: map[string]*nodeIPs{}} }

func (p *podIPs) node(name string) *nodeIPs {
	n := p.byNode[name]
	if n == nil {
		n = &nodeIPs{byPod: map[types.UID]netip.Addr{}, inUse: map[netip.Addr]types.UID{}}
		p.byNode[name] = n
	}
	return n
}

// reserve records that pod already has ip on node (a pod reported running
// before the simulator started).
func (p *podIPs) reserve(node string, pod types.UID, ip string) {
	addr, err := netip.ParseAddr(ip)
	if err != nil {
		return
	}
	n := p.node(node)
	if _, taken := n.inUse[addr]; taken {
		return
	}
	n.byPod[pod], n.inUse[addr] = addr, pod
}

// allocate returns pod's IP on node: the one it has, else the first free
// host address of cidr. ok is false when cidr is invalid or full.
func (p *podIPs) allocate(node string, pod types.UID, cidr string) (string, bool) {
	n := p.node(node)
	if addr, ok := n.byPod[pod]; ok {
		return addr.String(), true
	}
	prefix, err := netip.ParsePrefix(cidr)
	if err != nil {
		return "", false
	}
	prefix = prefix.Masked()
	// From the second host address: the first is the node's bridge.
	for addr := prefix.Addr().Next().Next(); prefix.Contains(addr); addr = addr.Next() {
		if !prefix.Contains(addr.Next()) && addr.Is4() {
			break // the IPv4 broadcast address
		}
		if _, taken := n.inUse[addr]; !taken {
			n.byPod[pod], n.inUse[addr] = addr, pod
			return addr.String(), true
		}
	}
	return "", false
}

// release frees pod's IP on node.
func (p *podIPs) release(node string, pod types.UID) {
	n := p.byNode[node]
	if n == nil {
		return
	}
	if addr, ok := n.byPod[pod]; ok {
		delete(n.byPod, pod)
		delete(n.inUse, addr)
	}
}

// forgetNode drops a deleted node's addresses.
func (p *podIPs) forgetNode(node string) { delete(p.byNode, node) }
