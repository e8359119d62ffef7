package registry

import (
	"encoding/binary"
	"fmt"
	"math/rand/v2"
	"net/netip"
	"slices"
	"sync"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/core/service"
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

// ServiceAllocator hands out ClusterIPs and node ports so that no two
// Services ever hold the same one, whatever the number of concurrent writes.
//
// A write that needs an address or a port reserves it before its commit
// (reserve); the reservation is made permanent by the commit itself: the
// Service's store write checks it under the store's writer lock
// (checkService, from Stamp) and records it once committed (recordService,
// from the Committed hook), so the allocator's record of what committed
// Services hold changes in revision order. A write that fails releases what it reserved (release).
type ServiceAllocator struct {
	cidr netip.Prefix
	// nodePorts is the node port range (--service-node-port-range).
	nodePorts utilnet.PortRange

	mu sync.Mutex
	// extra are the IPv4 ranges of the other ServiceCIDRs, by name, and
	// whether each ServiceCIDR is ready (its Ready condition true, not
	// being deleted): kube-apiserver allocates from every ready one, as
	// from the default range.
	extra map[string]serviceCIDRRanges
	// held maps an address ("ip:10.0.0.5") or a node port ("port:30001") to
	// the committed Service ("ns/name") or IPAddress ("ipaddress/ip") that
	// holds it.
	held map[string]string
	// holds is the reverse of held: what each holder holds.
	holds map[string]map[string]bool
	// pending maps a reserved item to the reservation that has not committed yet.
	pending map[string]*reservation
}

// serviceCIDRRanges are the IPv4 ranges of a ServiceCIDR other than the
// default one.
type serviceCIDRRanges struct {
	prefixes []netip.Prefix
	ready    bool
}

// serviceCIDRsBucket is the store bucket of ServiceCIDRs.
const serviceCIDRsBucket = "networking.k8s.io/servicecidrs"

// reservation is what one write attempt reserved for one Service.
type reservation struct {
	a      *ServiceAllocator
	holder string
	items  []string
}

func newServiceAllocator(cidr netip.Prefix, nodePorts utilnet.PortRange) *ServiceAllocator {
	return &ServiceAllocator{cidr: cidr, nodePorts: nodePorts, held: map[string]string{}, holds: map[string]map[string]bool{}, pending: map[string]*reservation{},
		extra: map[string]serviceCIDRRanges{}}
}

func ipItem(ip string) string              { return "ip:" + ip }
func portItem(p int32) string              { return fmt.Sprintf("port:%d", p) }
func serviceHolder(ns, name string) string { return ns + "/" + name }

// Load records what the stored Services and IPAddresses hold.
func (a *ServiceAllocator) Load(st store.Interface) error {
	svcs, err := st.List("/services", store.ListOptions{})
	if err != nil {
		return err
	}
	for _, it := range svcs.Items {
		var svc corev1.Service
		if err := JSONUnmarshal(it.Value, &svc); err != nil {
			return fmt.Errorf("service %s: %w", it.Key, err)
		}
		a.setHeld(serviceHolder(svc.Namespace, svc.Name), serviceItems(&svc))
	}
	cidrs, err := st.List(serviceCIDRsBucket, store.ListOptions{})
	if err != nil {
		return err
	}
	for _, it := range cidrs.Items {
		var sc networkingv1.ServiceCIDR
		if err := JSONUnmarshal(it.Value, &sc); err != nil {
			return fmt.Errorf("servicecidr %s: %w", it.Key, err)
		}
		a.commitServiceCIDR(&sc, false)
	}
	addrs, err := st.List(ipAddressesBucket, store.ListOptions{})
	if err != nil {
		return err
	}
	for _, it := range addrs.Items {
		var addr networkingv1.IPAddress
		if err := JSONUnmarshal(it.Value, &addr); err != nil {
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
func (a *ServiceAllocator) setHeld(holder string, items []string) {
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
func (a *ServiceAllocator) takenBy(item, holder string) bool {
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
func (a *ServiceAllocator) reserve(r *reservation, items ...string) (string, bool) {
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

// inRange reports whether ip is an address a Service may hold: in the
// default range or a ready ServiceCIDR's, and neither the network nor the
// broadcast address of that range (upstream's PrefixContainsIP).
func (a *ServiceAllocator) inRange(addr netip.Addr) bool {
	if hostOf(a.cidr, addr) {
		return true
	}
	a.mu.Lock()
	defer a.mu.Unlock()
	for _, r := range a.extra {
		if r.ready && slices.ContainsFunc(r.prefixes, func(p netip.Prefix) bool { return hostOf(p, addr) }) {
			return true
		}
	}
	return false
}

// hostOf reports whether addr is in p and neither its network nor its
// broadcast address.
func hostOf(p netip.Prefix, addr netip.Addr) bool {
	if !p.Contains(addr) {
		return false
	}
	network := p.Masked().Addr()
	size := uint32(1) << (32 - p.Bits())
	off := binary.BigEndian.Uint32(addr.AsSlice()) - binary.BigEndian.Uint32(network.AsSlice())
	return off != 0 && off != size-1
}

// commitServiceCIDR records a committed ServiceCIDR write (from the
// Committed hook, under the store's writer lock, and at Load).
func (a *ServiceAllocator) commitServiceCIDR(sc *networkingv1.ServiceCIDR, deleted bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if deleted {
		delete(a.extra, sc.Name)
		return
	}
	var r serviceCIDRRanges
	for _, s := range sc.Spec.CIDRs {
		p, err := netip.ParsePrefix(s)
		if err != nil || !p.Addr().Is4() || p.Masked() == a.cidr.Masked() {
			continue
		}
		r.prefixes = append(r.prefixes, p.Masked())
	}
	r.ready = sc.DeletionTimestamp == nil && slices.ContainsFunc(sc.Status.Conditions, func(c metav1.Condition) bool {
		return c.Type == networkingv1.ServiceCIDRConditionReady && c.Status == metav1.ConditionTrue
	})
	if len(r.prefixes) == 0 {
		delete(a.extra, sc.Name)
		return
	}
	a.extra[sc.Name] = r
}

// taken reports whether item is held or reserved by another holder than
// holder (without reserving it).
func (a *ServiceAllocator) taken(item, holder string) bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.takenBy(item, holder)
}

// pickIP reserves a free address for r, from the default range or a
// ready ServiceCIDR's, the ranges tried in a random order (upstream's
// MetaAllocator ranges over a map of them).
func (a *ServiceAllocator) pickIP(r *reservation) (string, bool) {
	ranges := []netip.Prefix{a.cidr}
	a.mu.Lock()
	for _, e := range a.extra {
		if e.ready {
			ranges = append(ranges, e.prefixes...)
		}
	}
	a.mu.Unlock()
	rand.Shuffle(len(ranges), func(i, j int) { ranges[i], ranges[j] = ranges[j], ranges[i] })
	for _, p := range ranges {
		if ip, ok := a.pickIPIn(r, p); ok {
			return ip, true
		}
	}
	return "", false
}

// pickIPIn reserves a free address of range p for r.
func (a *ServiceAllocator) pickIPIn(r *reservation, p netip.Prefix) (string, bool) {
	base := binary.BigEndian.Uint32(p.Masked().Addr().AsSlice())
	size := uint32(1) << (32 - p.Bits())
	// Network and broadcast addresses are never handed out, nor the first
	// host address of the default range (the kubernetes Service's).
	first, count := uint32(2), size-3
	if p != a.cidr {
		first, count = 1, size-2
	}
	if size < 4 {
		return "", false
	}
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
func (a *ServiceAllocator) pickPort(r *reservation) (int32, bool) {
	count := int32(a.nodePorts.Size)
	start := rand.Int32N(count)
	for i := range count {
		p := int32(a.nodePorts.Base) + (start+i)%count
		if _, ok := a.reserve(r, portItem(p)); ok {
			return p, true
		}
	}
	return 0, false
}

// newReservation starts the reservations of one write attempt for a Service.
func (a *ServiceAllocator) newReservation(ns, name string) *reservation {
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
func (a *ServiceAllocator) checkService(ns, name string, svc *corev1.Service) error {
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
func (a *ServiceAllocator) recordService(ns, name string, svc *corev1.Service) {
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
func (a *ServiceAllocator) commitIPAddress(addr *networkingv1.IPAddress, deleted bool) {
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

// allocateServiceIP gives a new Service its ClusterIP and IP families, and
// node ports for NodePort and LoadBalancer Services, as upstream's service
// REST storage does.
func (s *Registry) allocateServiceIP(c *Request, svc *corev1.Service) error {
	return s.allocateService(c, svc, nil)
}

// allocateService allocates a Service's ClusterIP and ports; on update
// (old set) what old holds stays its own and the rest is allocated anew.
// What it picks is reserved for the request until its commit (see
// serviceAllocator).
func (s *Registry) allocateService(c *Request, svc, old *corev1.Service) error {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	headlessWithoutSelector := svc.Spec.ClusterIP == corev1.ClusterIPNone && len(svc.Spec.Selector) == 0
	if svc.Spec.IPFamilyPolicy == nil {
		// Upstream's default, and its special case: a headless Service
		// without a selector (its endpoints written by hand) may take both
		// families, whatever the cluster's.
		p := corev1.IPFamilyPolicySingleStack
		if headlessWithoutSelector {
			p = corev1.IPFamilyPolicyRequireDualStack
		}
		svc.Spec.IPFamilyPolicy = &p
	}
	if old == nil {
		if err := checkCreateIPFamilies(svc, headlessWithoutSelector); err != nil {
			return err
		}
	} else if errs := service.ValidateClusterIPFields(svc, old); len(errs) > 0 {
		// Upstream's initIPFamilyFields checks the clusterIP fields before
		// anything is allocated; validation then does not run.
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, errs)
	}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	if headlessWithoutSelector && len(svc.Spec.IPFamilies) == 1 && *svc.Spec.IPFamilyPolicy != corev1.IPFamilyPolicySingleStack {
		other := corev1.IPv6Protocol
		if svc.Spec.IPFamilies[0] == corev1.IPv6Protocol {
			other = corev1.IPv4Protocol
		}
		svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, other)
	}
	r := s.alloc.newReservation(svc.Namespace, svc.Name)
	c.reservations = append(c.reservations, r)
	if old != nil {
		// What the Service held before is still its own.
		if old.Spec.Type != corev1.ServiceTypeExternalName && svc.Spec.ClusterIP == old.Spec.ClusterIP {
			goto ports
		}
	}
	switch svc.Spec.ClusterIP {
	case corev1.ClusterIPNone:
		svc.Spec.ClusterIPs = []string{corev1.ClusterIPNone}
	case "":
		if c.dryRun {
			// Upstream's dry-run allocator does not look for a free
			// address: it answers the range's network address.
			ip := s.alloc.cidr.Masked().Addr().String()
			svc.Spec.ClusterIP = ip
			svc.Spec.ClusterIPs = []string{ip}
			break
		}
		ip, ok := s.alloc.pickIP(r)
		if !ok {
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: range is full"))
		}
		svc.Spec.ClusterIP = ip
		svc.Spec.ClusterIPs = []string{ip}
	default:
		ipErr := func(msg string) error {
			return apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "clusterIPs"), []string{svc.Spec.ClusterIP}, fmt.Sprintf("failed to allocate IP %s: %s", svc.Spec.ClusterIP, msg)),
			})
		}
		addr, parseErr := netip.ParseAddr(svc.Spec.ClusterIP)
		switch inRange := parseErr == nil && s.alloc.inRange(addr); {
		case parseErr != nil:
			// Not an address: validation words it.
		case !inRange && c.dryRun:
			// The dry-run allocator checks the range alone.
			return ipErr(fmt.Sprintf("the provided IP (%s) is not in the valid range. The range of valid IPs is %s", svc.Spec.ClusterIP, s.alloc.cidr.Masked()))
		case !inRange:
			// No ServiceCIDR's allocator takes it (upstream's
			// MetaAllocator, for the network and broadcast addresses too).
			return ipErr("the provided network does not match the current range")
		case !c.dryRun: // a dry run does not look at who holds it
			if _, ok := s.alloc.reserve(r, ipItem(svc.Spec.ClusterIP)); !ok {
				return ipErr("provided IP is already allocated")
			}
		}
		if len(svc.Spec.ClusterIPs) == 0 {
			svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		}
	}
ports:
	// The node ports asked for must be free and in the range; the others
	// are picked (upstream's port allocator). A port is claimed once per
	// request, as upstream's allocation operation does.
	claimed := map[int32]bool{}
	invalid := func(fld *field.Path, port int32, msg string) error {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{field.Invalid(fld, port, msg)})
	}
	// dryRunLast is the highest port a dry run has claimed: upstream's
	// dry-run port allocation answers the next number after it (from
	// 32769, whatever the range), in the range or not, and checks a port
	// asked for only against the ports held and claimed.
	nodePorts := s.alloc.nodePorts
	dryRunLast := int32(32768)
	claim := func(fld *field.Path, port *int32) error {
		if c.dryRun {
			if *port == 0 {
				*port = dryRunLast + 1
			} else if claimed[*port] || s.alloc.taken(portItem(*port), r.holder) {
				return invalid(fld, *port, "provided port is already allocated")
			}
			if len(claimed) == 0 || *port > dryRunLast {
				dryRunLast = *port
			}
			claimed[*port] = true
			return nil
		}
		if *port != 0 {
			if !nodePorts.Contains(int(*port)) {
				return invalid(fld, *port, fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %d-%d", nodePorts.Base, nodePorts.Base+nodePorts.Size-1))
			}
			if _, ok := s.alloc.reserve(r, portItem(*port)); !ok || claimed[*port] {
				return invalid(fld, *port, "provided port is already allocated")
			}
			claimed[*port] = true
			return nil
		}
		for range 100 {
			p, ok := s.alloc.pickPort(r)
			if !ok {
				break
			}
			if !claimed[p] && !s.heldByOld(old, p) {
				claimed[p] = true
				*port = p
				return nil
			}
		}
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: range is full"))
	}
	lb := svc.Spec.Type == corev1.ServiceTypeLoadBalancer
	if svc.Spec.Type == corev1.ServiceTypeNodePort || lb && (svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts) {
		// A port number serving two protocols shares its node port.
		shared := map[int32]int32{}
		for i := range svc.Spec.Ports {
			p := &svc.Spec.Ports[i]
			if p.NodePort == 0 {
				if np, ok := shared[p.Port]; ok {
					p.NodePort = np
					continue
				}
			} else if np, ok := shared[p.Port]; ok && np == p.NodePort {
				continue
			}
			if err := claim(field.NewPath("spec", "ports").Index(i).Child("nodePort"), &p.NodePort); err != nil {
				return err
			}
			shared[p.Port] = p.NodePort
		}
	}
	if service.NeedsHealthCheck(svc) {
		if err := claim(field.NewPath("spec", "healthCheckNodePort"), &svc.Spec.HealthCheckNodePort); err != nil {
			return err
		}
	}
	return nil
}

// heldByOld reports whether the Service's previous state uses node port p
// (picked ports must be new: a kept port is asked for explicitly).
func (s *Registry) heldByOld(old *corev1.Service, p int32) bool {
	if old == nil {
		return false
	}
	for _, it := range serviceItems(old) {
		if it == portItem(p) {
			return true
		}
	}
	return false
}

// checkCreateIPFamilies is upstream's initIPFamilyFields for a new Service
// (its policy defaulted) on a cluster of one IPv4 range, as fakeplane's
// is: the clusterIP fields must agree before anything is allocated (the
// storage checks them before validation, which then does not run), and
// the Service may not ask for dual-stack or for IPv6, unless it is headless
// without a selector. clusterIPs is filled in from clusterIP, and the
// families from clusterIPs.
func checkCreateIPFamilies(svc *corev1.Service, headlessWithoutSelector bool) error {
	invalid := func(errs field.ErrorList) error {
		if len(errs) == 0 {
			return nil
		}
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, errs)
	}
	// A client that sets clusterIP alone (an old one) means clusterIPs too.
	if svc.Spec.ClusterIP != "" && len(svc.Spec.ClusterIPs) == 0 {
		svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
	}
	if errs := service.ValidateClusterIPFields(svc, nil); len(errs) > 0 {
		return invalid(errs)
	}
	spec := field.NewPath("spec")
	policy := *svc.Spec.IPFamilyPolicy
	var errs field.ErrorList
	if policy == corev1.IPFamilyPolicySingleStack {
		if len(svc.Spec.ClusterIPs) == 2 {
			errs = append(errs, field.Invalid(spec.Child("ipFamilyPolicy"), policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple cluster IPs are specified"))
		}
		if len(svc.Spec.IPFamilies) == 2 {
			errs = append(errs, field.Invalid(spec.Child("ipFamilyPolicy"), policy, "must be 'RequireDualStack' or 'PreferDualStack' when multiple IP families are specified"))
		}
	}
	for i, ip := range svc.Spec.ClusterIPs {
		if ip == corev1.ClusterIPNone {
			break
		}
		if i < len(svc.Spec.IPFamilies) {
			continue
		}
		if addr, err := netip.ParseAddr(ip); err == nil && addr.Is4() {
			svc.Spec.IPFamilies = append(svc.Spec.IPFamilies, corev1.IPv4Protocol)
		} else {
			errs = append(errs, field.Invalid(spec.Child("clusterIPs").Index(i), svc.Spec.ClusterIPs, "IPv6 is not configured on this cluster"))
		}
	}
	if len(errs) > 0 || headlessWithoutSelector {
		return invalid(errs)
	}
	if policy == corev1.IPFamilyPolicyRequireDualStack {
		errs = append(errs, field.Invalid(spec.Child("ipFamilyPolicy"), policy, "this cluster is not configured for dual-stack services"))
	}
	for i, f := range svc.Spec.IPFamilies {
		if f != corev1.IPv4Protocol {
			errs = append(errs, field.Invalid(spec.Child("ipFamilies").Index(i), f, "not configured on this cluster"))
		}
	}
	return invalid(errs)
}

// DefaultServiceNodePortRange is kube-apiserver's default
// --service-node-port-range, 30000-32767.
func DefaultServiceNodePortRange() utilnet.PortRange {
	return utilnet.PortRange{Base: 30000, Size: 2768}
}

// normalizeUpdatedClusterIPs is upstream's normalizeClusterIPs for an
// update, which keeps clusterIP and clusterIPs in step: an old client that
// sends clusterIP alone keeps the stored clusterIPs, one that clears
// clusterIP clears them, and one that changes it changes them (validation
// then judges the new value).
func normalizeUpdatedClusterIPs(svc, old *corev1.Service) {
	if len(old.Spec.ClusterIPs) > 0 && len(svc.Spec.ClusterIPs) == 0 && old.Spec.ClusterIP == svc.Spec.ClusterIP {
		svc.Spec.ClusterIPs = old.Spec.ClusterIPs
	}
	if old.Spec.ClusterIP == svc.Spec.ClusterIP || !slices.Equal(old.Spec.ClusterIPs, svc.Spec.ClusterIPs) {
		return
	}
	if old.Spec.ClusterIP != "" && svc.Spec.ClusterIP == "" {
		svc.Spec.ClusterIPs = nil
		return
	}
	svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
}

// keepAllocatedServiceFields carries what was allocated at create into a
// Service update that omits it, as upstream's service storage does.
func keepAllocatedServiceFields(svc, old *corev1.Service) {
	if service.NeedsHealthCheck(svc) && service.NeedsHealthCheck(old) && svc.Spec.HealthCheckNodePort == 0 {
		svc.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName || old.Spec.Type == corev1.ServiceTypeExternalName {
		return
	}
	if svc.Spec.ClusterIP == "" {
		svc.Spec.ClusterIP = old.Spec.ClusterIP
		svc.Spec.ClusterIPs = old.Spec.ClusterIPs
	}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = old.Spec.IPFamilies
	}
	if svc.Spec.IPFamilyPolicy == nil {
		svc.Spec.IPFamilyPolicy = old.Spec.IPFamilyPolicy
	}
	if svc.Spec.Type != corev1.ServiceTypeNodePort && svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return
	}
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].NodePort != 0 {
			continue
		}
		for _, op := range old.Spec.Ports {
			if op.Port == svc.Spec.Ports[i].Port && op.Protocol == svc.Spec.Ports[i].Protocol {
				svc.Spec.Ports[i].NodePort = op.NodePort
			}
		}
	}
}
