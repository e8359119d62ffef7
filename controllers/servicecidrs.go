package controllers

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/netip"
	"slices"
	"time"

	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// ipAddressesBucket is the store bucket of IPAddresses.
const ipAddressesBucket = "networking.k8s.io/ipaddresses"

const (
	// serviceCIDRFinalizer holds a ServiceCIDR until no Service's address
	// depends on it alone.
	serviceCIDRFinalizer = "networking.k8s.io/service-cidr-finalizer"
	// serviceCIDRDeletionGrace is how long after its deletion a ServiceCIDR
	// keeps its finalizer, for the allocators to see the deletion.
	serviceCIDRDeletionGrace = 10 * time.Second
	// serviceCIDRControllerManager is the controller's field manager for
	// its status applies.
	serviceCIDRControllerManager = "service-cidr-controller"
)

// ServiceCIDRs is kube-controller-manager's service-cidr-controller: every
// ServiceCIDR gets the networking.k8s.io/service-cidr-finalizer and a Ready
// condition ("Kubernetes Service CIDR is ready", applied with force as the
// field manager service-cidr-controller). A deleted ServiceCIDR loses its
// finalizer ten seconds after its deletion unless an allocated IPAddress
// lies in it and in no other ServiceCIDR (and its ranges are not all within
// other ServiceCIDRs): it is then Ready=False, Terminating, until that
// address goes.
type ServiceCIDRs struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	now  func() time.Time
	// cidrs are the ServiceCIDRs by name, addresses the allocated
	// IPAddresses (managed by ipallocator.k8s.io).
	cidrs     map[string]*networkingv1.ServiceCIDR
	addresses map[string]netip.Addr
	// dirty are the ServiceCIDRs to look at.
	dirty map[string]bool
}

// NewServiceCIDRs returns the controller, writing through reg (which must
// implement registry.Applier for the status) at the time now gives (nil:
// time.Now).
func NewServiceCIDRs(reg registry.Interface, now func() time.Time, log *slog.Logger) *ServiceCIDRs {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &ServiceCIDRs{
		reg: reg, log: log, now: now, user: controllerUser("service-cidrs-controller"),
		cidrs: map[string]*networkingv1.ServiceCIDR{}, addresses: map[string]netip.Addr{}, dirty: map[string]bool{},
	}
}

// Name implements Controller.
func (c *ServiceCIDRs) Name() string { return ServiceCIDRName }

// Resources implements Controller.
func (c *ServiceCIDRs) Resources() []string { return []string{serviceCIDRsBucket, ipAddressesBucket} }

// Sync implements Controller.
func (c *ServiceCIDRs) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		switch ev.Resource {
		case serviceCIDRsBucket:
			cidr, err := trackEvent(c.cidrs, ev)
			if err != nil {
				continue
			}
			c.dirty[ev.Key] = true
			if cidr != nil && ev.Type == store.Added {
				// A new ServiceCIDR may unblock the deletion of one it
				// overlaps.
				for name, other := range c.cidrs {
					if overlaps(cidr, other) {
						c.dirty[name] = true
					}
				}
			}
		case ipAddressesBucket:
			ip, err := decodeEvent[networkingv1.IPAddress](ev)
			if err != nil || ip.Labels[networkingv1.LabelManagedBy] != "ipallocator.k8s.io" {
				continue
			}
			addr, err := netip.ParseAddr(ip.Name)
			if err != nil {
				continue
			}
			if ev.Type == store.Deleted {
				delete(c.addresses, ev.Key)
			} else {
				c.addresses[ev.Key] = addr
			}
			if ev.Type != store.Modified {
				for _, name := range c.containing(addr) {
					c.dirty[name] = true
				}
			}
		}
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-controller-manager")
	var errs []error
	var next time.Duration
	for _, name := range sortedKeys(c.dirty) {
		wait, err := c.sync(ctx, name)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if wait > 0 && (next == 0 || wait < next) {
			next = wait
		}
		if wait == 0 {
			delete(c.dirty, name)
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	if next > 0 {
		return &Requeue{After: next}
	}
	return nil
}

// sync is upstream's: it returns how long a deleted ServiceCIDR still has
// to wait for its finalizer to go (0: nothing to wait for).
func (c *ServiceCIDRs) sync(ctx context.Context, name string) (time.Duration, error) {
	cidr, ok := c.cidrs[name]
	if !ok {
		return 0, nil
	}
	if cidr.DeletionTimestamp != nil {
		if !c.canDelete(cidr) {
			return 0, c.setReady(ctx, cidr, metav1.ConditionFalse, networkingv1.ServiceCIDRReasonTerminating,
				"There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR")
		}
		if wait := serviceCIDRDeletionGrace - time.Since(cidr.DeletionTimestamp.Time); wait > 0 {
			return wait, nil
		}
		return 0, c.setFinalizer(ctx, name, false)
	}
	if err := c.setFinalizer(ctx, name, true); err != nil {
		return 0, err
	}
	return 0, c.setReady(ctx, cidr, metav1.ConditionTrue, "", "Kubernetes Service CIDR is ready")
}

// canDelete is upstream's canDeleteCIDR.
func (c *ServiceCIDRs) canDelete(cidr *networkingv1.ServiceCIDR) bool {
	hasParent := true
	for _, s := range cidr.Spec.CIDRs {
		prefix, err := netip.ParsePrefix(s)
		if err != nil {
			continue
		}
		parents := c.containingPrefix(prefix)
		if len(parents) == 0 || len(parents) == 1 && parents[0] == cidr.Name {
			hasParent = false
		}
	}
	if hasParent {
		return true
	}
	for _, addr := range c.addresses {
		if in := c.containing(addr); len(in) == 1 && in[0] == cidr.Name {
			return false
		}
	}
	return true
}

// containing lists the ServiceCIDRs one of whose ranges holds addr.
func (c *ServiceCIDRs) containing(addr netip.Addr) []string {
	return c.withRange(func(p netip.Prefix) bool { return p.Contains(addr) })
}

// containingPrefix lists the ServiceCIDRs one of whose ranges holds all of
// prefix.
func (c *ServiceCIDRs) containingPrefix(prefix netip.Prefix) []string {
	return c.withRange(func(p netip.Prefix) bool { return p.Bits() <= prefix.Bits() && p.Contains(prefix.Addr()) })
}

// withRange lists, in order, the ServiceCIDRs one of whose ranges is as
// wanted.
func (c *ServiceCIDRs) withRange(wanted func(netip.Prefix) bool) []string {
	var out []string
	for _, name := range sortedKeys(c.cidrs) {
		if slices.ContainsFunc(c.cidrs[name].Spec.CIDRs, func(s string) bool {
			p, err := netip.ParsePrefix(s)
			return err == nil && wanted(p)
		}) {
			out = append(out, name)
		}
	}
	return out
}

// overlaps reports whether two ServiceCIDRs share addresses.
func overlaps(a, b *networkingv1.ServiceCIDR) bool {
	for _, x := range a.Spec.CIDRs {
		for _, y := range b.Spec.CIDRs {
			p, err1 := netip.ParsePrefix(x)
			q, err2 := netip.ParsePrefix(y)
			if err1 == nil && err2 == nil && p.Overlaps(q) {
				return true
			}
		}
	}
	return false
}

// setFinalizer adds or removes the finalizer, as the controller's patches
// do.
func (c *ServiceCIDRs) setFinalizer(ctx context.Context, name string, on bool) error {
	_, err := c.reg.Update(ctx, serviceCIDRsGVR, "", name, func(cur runtime.Object) (runtime.Object, error) {
		sc := cur.(*networkingv1.ServiceCIDR)
		has := slices.Contains(sc.Finalizers, serviceCIDRFinalizer)
		switch {
		case on && !has:
			sc.Finalizers = append(sc.Finalizers, serviceCIDRFinalizer)
		case !on && has:
			sc.Finalizers = slices.DeleteFunc(sc.Finalizers, func(f string) bool { return f == serviceCIDRFinalizer })
		default:
			return nil, errNoChange
		}
		return sc, nil
	})
	if err == nil || errors.Is(err, errNoChange) || apierrors.IsNotFound(err) {
		return nil
	}
	return fmt.Errorf("finalizer of ServiceCIDR %s: %w", name, err)
}

// setReady applies the Ready condition unless it already says the same,
// as upstream's updateConditionIfNeeded.
func (c *ServiceCIDRs) setReady(ctx context.Context, cidr *networkingv1.ServiceCIDR, status metav1.ConditionStatus, reason, message string) error {
	if cur := apimeta.FindStatusCondition(cidr.Status.Conditions, networkingv1.ServiceCIDRConditionReady); cur != nil &&
		cur.Status == status && cur.Reason == reason && cur.Message == message {
		return nil
	}
	applier, ok := c.reg.(registry.Applier)
	if !ok {
		return nil
	}
	ctx = registry.WithFieldManager(ctx, serviceCIDRControllerManager)
	_, err := applyStatusCondition(ctx, applier, serviceCIDRsGVR, "ServiceCIDR", cidr.Name, map[string]any{
		"type": networkingv1.ServiceCIDRConditionReady, "status": string(status), "reason": reason, "message": message,
		"lastTransitionTime": c.now().UTC().Format(time.RFC3339),
	})
	if err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("set the Ready condition of ServiceCIDR %s: %w", cidr.Name, err)
	}
	return nil
}
