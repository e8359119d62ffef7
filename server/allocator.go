package server

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"sync"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"

	"github.com/fakeplane/fakeplane/store"
)

// DefaultServiceClusterIPRange is kube-apiserver's default
// --service-cluster-ip-range.
var DefaultServiceClusterIPRange = netip.MustParsePrefix("10.0.0.0/24")

// ParseServiceClusterIPRange checks a --service-cluster-ip-range value as
// kube-apiserver does (one IPv4 CIDR no larger than a /12).
func ParseServiceClusterIPRange(s string) (netip.Prefix, error) {
	p, err := netip.ParsePrefix(s)
	if err != nil {
		return netip.Prefix{}, fmt.Errorf("service-cluster-ip-range[0] is not a valid cidr: %w", err)
	}
	if !p.Addr().Is4() {
		return netip.Prefix{}, fmt.Errorf("service-cluster-ip-range %s: only IPv4 ranges are supported", s)
	}
	if p.Bits() < 12 {
		return netip.Prefix{}, fmt.Errorf("specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12")
	}
	if p.Bits() > 30 {
		return netip.Prefix{}, fmt.Errorf("specified --service-cluster-ip-range %s leaves no address for Services", s)
	}
	return p.Masked(), nil
}

// FirstServiceIP is the address the kubernetes Service gets: the first
// host address of the range.
func FirstServiceIP(p netip.Prefix) netip.Addr { return p.Masked().Addr().Next() }

// serviceAllocator hands out ClusterIPs and node ports so that no two
// Services ever hold the same one, whatever the number of concurrent writes.
//
// A write that needs an address or a port reserves it before its commit
// (reserve); the reservation is made permanent by the commit itself: the
// Service's store write checks it under the store's writer lock
// (checkService, from Stamp) and records it once committed (recordService,
// from the Committed hook), so the allocator's record of what committed
// Services hold changes in revision order. A write that fails releases what it reserved (release).
type serviceAllocator struct {
	cidr netip.Prefix

	mu sync.Mutex
	// held maps an address ("ip:10.0.0.5") or a node port ("port:30001") to
	// the committed Service ("ns/name") or IPAddress ("ipaddress/ip") that
	// holds it.
	held map[string]string
	// holds is the reverse of held: what each holder holds.
	holds map[string]map[string]bool
	// pending maps a reserved item to the reservation that has not committed yet.
	pending map[string]*reservation
}

// reservation is what one write attempt reserved for one Service.
type reservation struct {
	a      *serviceAllocator
	holder string
	items  []string
}

func newServiceAllocator(cidr netip.Prefix) *serviceAllocator {
	return &serviceAllocator{cidr: cidr, held: map[string]string{}, holds: map[string]map[string]bool{}, pending: map[string]*reservation{}}
}

func ipItem(ip string) string              { return "ip:" + ip }
func portItem(p int32) string              { return fmt.Sprintf("port:%d", p) }
func serviceHolder(ns, name string) string { return ns + "/" + name }

// load records what the stored Services and IPAddresses hold.
func (a *serviceAllocator) load(st store.Interface) error {
	svcs, err := st.List("/services", store.ListOptions{})
	if err != nil {
		return err
	}
	for _, it := range svcs.Items {
		var svc corev1.Service
		if err := jsonUnmarshal(it.Value, &svc); err != nil {
			return fmt.Errorf("service %s: %w", it.Key, err)
		}
		a.setHeld(serviceHolder(svc.Namespace, svc.Name), serviceItems(&svc))
	}
	addrs, err := st.List(ipAddressesBucket, store.ListOptions{})
	if err != nil {
		return err
	}
	for _, it := range addrs.Items {
		var addr networkingv1.IPAddress
		if err := jsonUnmarshal(it.Value, &addr); err != nil {
			return fmt.Errorf("ipaddress %s: %w", it.Key, err)
		}
		if h := ipAddressHolder(&addr); h != "" {
			a.setHeld(h, []string{ipItem(addr.Name)})
		}
	}
	return nil
}

// serviceItems lists the addresses and node ports a Service holds.
func serviceItems(svc *corev1.Service) []string {
	var out []string
	if svc.Spec.Type != corev1.ServiceTypeExternalName {
		for _, ip := range svc.Spec.ClusterIPs {
			if ip != "" && ip != corev1.ClusterIPNone {
				out = append(out, ipItem(ip))
			}
		}
	}
	for _, p := range svc.Spec.Ports {
		if p.NodePort != 0 {
			out = append(out, portItem(p.NodePort))
		}
	}
	if svc.Spec.HealthCheckNodePort != 0 {
		out = append(out, portItem(svc.Spec.HealthCheckNodePort))
	}
	return out
}

// ipAddressHolder is who an IPAddress object reserves its address for: its
// parent Service, whose own record already holds it (""), or the object
// itself.
func ipAddressHolder(addr *networkingv1.IPAddress) string {
	if ref := addr.Spec.ParentRef; ref != nil && ref.Resource == "services" && ref.Group == "" {
		return ""
	}
	return "ipaddress/" + addr.Name
}

// setHeld makes holder hold exactly items. Called with mu held or before
// the allocator is shared.
func (a *serviceAllocator) setHeld(holder string, items []string) {
	for it := range a.holds[holder] {
		if a.held[it] == holder {
			delete(a.held, it)
		}
	}
	delete(a.holds, holder)
	if len(items) == 0 {
		return
	}
	set := make(map[string]bool, len(items))
	for _, it := range items {
		set[it] = true
		a.held[it] = holder
	}
	a.holds[holder] = set
}

// takenBy reports who other than holder holds or has reserved item.
// Called with mu held.
func (a *serviceAllocator) takenBy(item, holder string) bool {
	if h, ok := a.held[item]; ok && h != holder {
		return true
	}
	if r, ok := a.pending[item]; ok && r.holder != holder {
		return true
	}
	return false
}

// reserve reserves items for holder. It fails, reserving nothing, when one
// of them is held or reserved by another holder, and returns that item.
func (a *serviceAllocator) reserve(r *reservation, items ...string) (string, bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, it := range items {
		if a.takenBy(it, r.holder) {
			return it, false
		}
	}
	for _, it := range items {
		if _, mine := a.pending[it]; !mine && a.held[it] != r.holder {
			a.pending[it] = r
			r.items = append(r.items, it)
		}
	}
	return "", true
}

// pickIP reserves a free address of the range for r.
func (a *serviceAllocator) pickIP(r *reservation) (string, bool) {
	base := binary.BigEndian.Uint32(a.cidr.Masked().Addr().AsSlice())
	size := uint32(1) << (32 - a.cidr.Bits())
	// Network and broadcast addresses are never handed out, nor the first
	// host address (the kubernetes Service's).
	first, count := uint32(2), size-3
	start := first + rand.Uint32N(count)
	for i := range count {
		off := first + (start-first+i)%count
		var b [4]byte
		binary.BigEndian.PutUint32(b[:], base+off)
		ip := netip.AddrFrom4(b).String()
		if _, ok := a.reserve(r, ipItem(ip)); ok {
			return ip, true
		}
	}
	return "", false
}

// pickPort reserves a free node port of the range for r.
func (a *serviceAllocator) pickPort(r *reservation) (int32, bool) {
	count := int32(nodePortMax - nodePortMin + 1)
	start := rand.Int32N(count)
	for i := range count {
		p := nodePortMin + (start+i)%count
		if _, ok := a.reserve(r, portItem(p)); ok {
			return p, true
		}
	}
	return 0, false
}

// newReservation starts the reservations of one write attempt for a Service.
func (a *serviceAllocator) newReservation(ns, name string) *reservation {
	return &reservation{a: a, holder: serviceHolder(ns, name)}
}

// release gives back what r reserved and did not commit. Safe to call more
// than once and after commit.
func (r *reservation) release() {
	a := r.a
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, it := range r.items {
		if a.pending[it] == r {
			delete(a.pending, it)
		}
	}
	r.items = nil
}

// checkService reports, under the store's writer lock as a Service write
// commits, an address or node port of svc (nil for a delete) that another
// holder holds.
func (a *serviceAllocator) checkService(ns, name string, svc *corev1.Service) error {
	if svc == nil {
		return nil
	}
	holder := serviceHolder(ns, name)
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, it := range serviceItems(svc) {
		if h, ok := a.held[it]; ok && h != holder {
			return fmt.Errorf("%s is already held by %s", it, h)
		}
	}
	return nil
}

// recordService records, once a Service write has committed (under the
// store's writer lock, in revision order), what it leaves its holder holding
// (nothing for a delete), and ends the reservations of its items.
func (a *serviceAllocator) recordService(ns, name string, svc *corev1.Service) {
	holder := serviceHolder(ns, name)
	var items []string
	if svc != nil {
		items = serviceItems(svc)
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, it := range items {
		if r, ok := a.pending[it]; ok && r.holder == holder {
			delete(a.pending, it)
		}
	}
	a.setHeld(holder, items)
}

// commitIPAddress records a committed IPAddress write (from the Committed
// hook, under the store's writer lock).
func (a *serviceAllocator) commitIPAddress(addr *networkingv1.IPAddress, deleted bool) {
	holder := ipAddressHolder(addr)
	if holder == "" {
		return
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	if deleted {
		a.setHeld(holder, nil)
		return
	}
	if h, ok := a.held[ipItem(addr.Name)]; ok && h != holder {
		return // a Service holds it already
	}
	a.setHeld(holder, []string{ipItem(addr.Name)})
}
