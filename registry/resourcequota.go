package registry

// ResourceQuota: kube-apiserver's admission plugin refuses creates over a
// quota, and kube-controller-manager's resource quota controller keeps
// status.used current; here both recompute a namespace's usage from the
// store, when an object is created and after every commit in a namespace
// that has quotas. Without the controller (Config.NoResourceQuotaController)
// the plugin works as kube-apiserver's alone: against each quota's status,
// which it charges (admitQuotaByStatus).

import (
	"errors"
	"strings"
	"sync"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	quota "k8s.io/apiserver/pkg/quota/v1"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
	"github.com/fakeplane/fakeplane/store"
)

// resourceQuotas are the quotas of a namespace. Every namespaced write
// asks (admission, then the status refresh after its commit), and most
// namespaces have none: a namespace found without quotas is remembered
// until ResourceQuotas change in the store (see noQuotas).
func (s *Registry) resourceQuotas(ns string) ([]corev1.ResourceQuota, error) {
	if ns == "" {
		return nil, nil
	}
	changes, counted := s.quotaChanges()
	if counted && s.noQuotas.has(ns, changes) {
		return nil, nil
	}
	quotas, err := listTyped[corev1.ResourceQuota](s, "", "resourcequotas", ns)
	if err == nil && counted && len(quotas) == 0 {
		s.noQuotas.add(ns, changes)
	}
	return quotas, err
}

// resourceChangeCounter is the store that counts the changes of each
// resource (store.Store.ResourceChanges).
type resourceChangeCounter interface {
	ResourceChanges(resource string) int64
}

// quotaChanges returns the store's count of changes to ResourceQuotas,
// and false when it keeps none or other processes write the store too
// (Config.SharedStore): then nothing is remembered.
func (s *Registry) quotaChanges() (int64, bool) {
	counter, ok := s.store.(resourceChangeCounter)
	if !ok || s.shared {
		return 0, false
	}
	r, ok := s.served.Lookup("", "v1", "resourcequotas")
	if !ok {
		return 0, false
	}
	return counter.ResourceChanges(r.Bucket), true
}

// noQuotaNamespaces remembers the namespaces a list found without
// ResourceQuotas, as of the store's count of changes to ResourceQuotas read
// before that list. All are forgotten when the count moves.
type noQuotaNamespaces struct {
	mu         sync.Mutex
	changes    int64
	namespaces map[string]struct{}
}

// has reports whether ns was found without quotas at the count changes.
func (n *noQuotaNamespaces) has(ns string, changes int64) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.changes != changes {
		return false
	}
	_, ok := n.namespaces[ns]
	return ok
}

// add remembers that ns had no quotas at the count changes.
func (n *noQuotaNamespaces) add(ns string, changes int64) {
	n.mu.Lock()
	defer n.mu.Unlock()
	if n.changes != changes || n.namespaces == nil {
		if changes < n.changes {
			return // a list older than the ones remembered
		}
		n.changes, n.namespaces = changes, map[string]struct{}{}
	}
	n.namespaces[ns] = struct{}{}
}

// quotaResourcesOf are the resources whose objects count towards the
// named quota resources.
func quotaResourcesOf(names []corev1.ResourceName) map[schema.GroupResource]bool {
	out := map[schema.GroupResource]bool{}
	for _, n := range names {
		name := string(n)
		switch {
		case strings.HasPrefix(name, "count/"):
			res, group, _ := strings.Cut(strings.TrimPrefix(name, "count/"), ".")
			out[schema.GroupResource{Group: group, Resource: res}] = true
		case name == "pods" || name == "cpu" || name == "memory" || name == "ephemeral-storage" ||
			(strings.HasPrefix(name, "requests.") && name != "requests.storage") || strings.HasPrefix(name, "limits."):
			out[schema.GroupResource{Resource: "pods"}] = true
		case strings.HasPrefix(name, "services"):
			out[schema.GroupResource{Resource: "services"}] = true
		case name == "persistentvolumeclaims" || name == "requests.storage" || strings.Contains(name, ".storageclass.storage.k8s.io/"):
			out[schema.GroupResource{Resource: "persistentvolumeclaims"}] = true
		case name == "configmaps" || name == "secrets" || name == "replicationcontrollers" || name == "resourcequotas":
			out[schema.GroupResource{Resource: name}] = true
		}
	}
	return out
}

// namespaceUsages sums, for each quota of a namespace that counts (counts
// nil: each), the quota usage of what its hard limits name over the
// namespace's objects in its scopes; the others get nil. Each resource is
// listed and decoded once, whatever the number of quotas.
func (s *Registry) namespaceUsages(ns string, quotas []corev1.ResourceQuota, counts func(*corev1.ResourceQuota) bool) ([]corev1.ResourceList, error) {
	out := make([]corev1.ResourceList, len(quotas))
	resources := make([]map[schema.GroupResource]bool, len(quotas))
	all := map[schema.GroupResource]bool{}
	for i := range quotas {
		if counts != nil && !counts(&quotas[i]) {
			continue
		}
		out[i] = corev1.ResourceList{}
		resources[i] = quotaResourcesOf(quota.ResourceNames(quotas[i].Spec.Hard))
		for gr := range resources[i] {
			all[gr] = true
		}
	}
	for gr := range all {
		version, ok := s.served.Preferred(gr.Group)
		if !ok {
			continue
		}
		r, ok := s.served.Lookup(gr.Group, version, gr.Resource)
		if !ok || !r.Namespaced || r.Virtual {
			continue
		}
		lst, err := s.store.List(r.Bucket, store.ListOptions{Prefix: ns + "/"})
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		for _, it := range lst.Items {
			var obj runtime.Object
			if r.Typed != nil && gr.Group == "" {
				obj = r.Typed()
				if err := JSONUnmarshal(it.Value, obj); err != nil {
					return nil, apierrors.NewInternalError(err)
				}
			}
			usage := admissionplugins.QuotaUsage(gr, obj)
			for i := range quotas {
				if !resources[i][gr] {
					continue
				}
				if q := &quotas[i]; len(q.Spec.Scopes) > 0 || q.Spec.ScopeSelector != nil {
					if obj == nil {
						continue // only pods and claims have scopes
					}
					if in, _ := admissionplugins.QuotaScopesMatch(q, gr, obj); !in {
						continue
					}
				}
				out[i] = quota.Add(out[i], usage)
			}
		}
	}
	for i := range quotas {
		if out[i] != nil {
			out[i] = quota.Mask(out[i], quota.ResourceNames(quotas[i].Spec.Hard))
		}
	}
	return out, nil
}

// admitQuota is the ResourceQuota admission plugin on a create of o, or
// an update of old to o (old nil on a create); dry says the write is a
// dry run.
func (s *Registry) admitQuota(c *Request, o, old *Object, dry bool) error {
	if !c.Res.Namespaced || o.Meta.GetNamespace() == "" || !s.plugins.Enabled("ResourceQuota") {
		return nil
	}
	quotas, err := s.resourceQuotas(o.Meta.GetNamespace())
	if err != nil || len(quotas) == 0 {
		return err
	}
	tracked := false
	for i := range quotas {
		// Without the controller, what a quota limits is what its status
		// says: AdmitQuotaByStatus matches quotas itself.
		tracked = tracked || s.noQuotaController || admissionplugins.QuotaTracks(&quotas[i], c.Res.GR, o.Obj)
	}
	if !tracked {
		return nil
	}
	// Quota-charged writes in a namespace are admitted one at a time, each
	// holding the lock until it committed, so that two concurrent creates
	// cannot both take the last unit (upstream serializes them through
	// the quota's status.used).
	if c.quotaUnlock == nil {
		c.quotaUnlock = s.quotaLocks.lock(o.Meta.GetNamespace())
		if quotas, err = s.resourceQuotas(o.Meta.GetNamespace()); err != nil {
			return err
		}
	}
	if s.noQuotaController {
		return s.admitQuotaByStatus(c, o, old, quotas, dry)
	}
	used, err := s.namespaceUsages(o.Meta.GetNamespace(), quotas, func(q *corev1.ResourceQuota) bool {
		return admissionplugins.QuotaTracks(q, c.Res.GR, o.Obj)
	})
	if err != nil {
		return err
	}
	for i := range quotas {
		if used[i] != nil {
			used[i] = admissionplugins.QuotaStatus(&quotas[i], used[i]).Used
		}
	}
	var oldObj runtime.Object
	if old != nil {
		oldObj = old.Obj
	}
	if err := admissionplugins.AdmitQuota(c.Res.GR, o.Obj, oldObj, quotas, used); err != nil {
		return apierrors.NewForbidden(c.Res.GR, o.Meta.GetName(), err)
	}
	return nil
}

// admitQuotaByStatus is kube-apiserver's ResourceQuota admission plugin
// without the resource quota controller: it checks a write against the
// quotas' status.hard and status.used and, unless the write is a dry run,
// writes each charged quota's new status.used before the object is stored,
// as kube-apiserver's own update of the quota's status (managedFields
// manager kube-apiserver, subresource status). Nothing gives back what a
// deleted object used.
func (s *Registry) admitQuotaByStatus(c *Request, o, old *Object, quotas []corev1.ResourceQuota, dry bool) error {
	var oldObj runtime.Object
	if old != nil {
		oldObj = old.Obj
	}
	used, err := admissionplugins.AdmitQuotaByStatus(c.Res.GR, o.Obj, oldObj, quotas)
	if err != nil {
		return apierrors.NewForbidden(c.Res.GR, o.Meta.GetName(), err)
	}
	if dry {
		return nil
	}
	for i := range quotas {
		if used[i] == nil || quota.Equals(used[i], quotas[i].Status.Used) {
			continue
		}
		q := &quotas[i]
		qc := s.internalCall("", "v1", "resourcequotas", q.Namespace, q.Name, "update")
		qc.Info.Subresource = "status"
		qc.quotaLocked = true
		charged := used[i]
		_, _, err := s.updateKey(qc, qc.Key(), q.Name, internalWrite, false, func(cur *Object) (*Object, error) {
			stored := cur.Obj.(*corev1.ResourceQuota)
			if stored.ResourceVersion != q.ResourceVersion {
				// Changed since the quotas were read: upstream's update
				// conflicts and its plugin checks again.
				return nil, errQuotaChanged
			}
			next := stored.DeepCopy()
			next.Status.Used = charged
			out := &Object{Obj: next, Meta: next}
			qc.Res.recordServerWrite("status", stored, out)
			return out, nil
		})
		if errors.Is(err, errQuotaChanged) {
			fresh, lerr := s.resourceQuotas(o.Meta.GetNamespace())
			if lerr != nil {
				return lerr
			}
			return s.admitQuotaByStatus(c, o, old, fresh, dry)
		}
		if err != nil && !errors.Is(err, store.ErrUnchanged) {
			return err
		}
	}
	return nil
}

// errQuotaChanged says a quota changed between admission's read and its
// charge.
var errQuotaChanged = errors.New("resource quota changed")

// refreshQuotas brings the status of a namespace's quotas up to date, as
// the resource quota controller does (nothing without it). The change is
// recorded in the quotas' managedFields as manager's status update: upstream's
// admission plugin charges what a write adds before the controller recounts
// (manager kube-apiserver), and the controller writes the rest (a new quota's
// hard and zero usage, what a delete gives back) as kube-controller-manager.
//
// locked says the caller holds the namespace's quota lock (a write quota
// admission charged); any other refresh takes it first, so that it cannot
// record a charged write's usage, found in the store before that write's
// own refresh, as the controller's.
func (s *Registry) refreshQuotas(ns, manager string, locked bool) {
	if s.noQuotaController {
		return
	}
	quotas, err := s.resourceQuotas(ns)
	if err != nil || len(quotas) == 0 {
		return
	}
	if !locked {
		unlock := s.quotaLocks.lock(ns)
		defer unlock()
		if quotas, err = s.resourceQuotas(ns); err != nil || len(quotas) == 0 {
			return
		}
	}
	usages, err := s.namespaceUsages(ns, quotas, nil)
	if err != nil {
		s.log.Warn("resource quota usage", "namespace", ns, "err", err)
		return
	}
	for i := range quotas {
		q, usage := &quotas[i], usages[i]
		want := admissionplugins.QuotaStatus(q, usage)
		if quota.Equals(want.Hard, q.Status.Hard) && quota.Equals(want.Used, q.Status.Used) {
			continue
		}
		c := s.internalCall("", "v1", "resourcequotas", ns, q.Name, "update")
		c.Info.Subresource = "status"
		c.quotaLocked = true
		_, _, err = s.updateKey(c, c.Key(), q.Name, internalWrite, false, func(old *Object) (*Object, error) {
			cur := old.Obj.DeepCopyObject().(*corev1.ResourceQuota)
			cur.Status = admissionplugins.QuotaStatus(cur, usage)
			out := &Object{Obj: cur, Meta: cur}
			c.Res.recordWriteAs(manager, "status", old.Obj, out)
			return out, nil
		})
		if err != nil && !apierrors.IsNotFound(err) && !errors.Is(err, store.ErrUnchanged) {
			s.log.Warn("resource quota status", "namespace", ns, "quota", q.Name, "err", err)
		}
	}
}

// namespaceLocks are mutexes by namespace, created when first locked and
// dropped when the last holder or waiter unlocks.
type namespaceLocks struct {
	mu    sync.Mutex
	locks map[string]*namespaceLock
}

// namespaceLock is one namespace's mutex and how many hold or wait for it.
type namespaceLock struct {
	sync.Mutex
	refs int
}

// lock locks ns and returns its unlock.
func (l *namespaceLocks) lock(ns string) func() {
	l.mu.Lock()
	if l.locks == nil {
		l.locks = map[string]*namespaceLock{}
	}
	nl := l.locks[ns]
	if nl == nil {
		nl = &namespaceLock{}
		l.locks[ns] = nl
	}
	nl.refs++
	l.mu.Unlock()
	nl.Lock()
	return func() {
		nl.Unlock()
		l.mu.Lock()
		if nl.refs--; nl.refs == 0 {
			delete(l.locks, ns)
		}
		l.mu.Unlock()
	}
}
