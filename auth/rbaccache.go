package auth

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/store"
)

// The store buckets of the RBAC resources, as the registry names them
// (group/resource).
const (
	bucketClusterRoles        = "rbac.authorization.k8s.io/clusterroles"
	bucketClusterRoleBindings = "rbac.authorization.k8s.io/clusterrolebindings"
	bucketRoles               = "rbac.authorization.k8s.io/roles"
	bucketRoleBindings        = "rbac.authorization.k8s.io/rolebindings"
)

// RBACCache is an RBACSource holding every RBAC object of a store, decoded.
// Load fills it from the store at start; Observe, called as each write
// commits, under the store's writer lock and so in revision order (the
// registry's commit hook), keeps it in step: a request that follows a
// RoleBinding's creation sees it, unlike through an informer, and
// concurrent writes leave it as the store has them. It is safe for
// concurrent use.
type RBACCache struct {
	mu                  sync.RWMutex
	clusterRoles        map[string]*rbacv1.ClusterRole
	clusterRoleBindings map[string]*rbacv1.ClusterRoleBinding
	roles               map[string]*rbacv1.Role        // key ns/name
	roleBindings        map[string]*rbacv1.RoleBinding // key ns/name

	// sorted snapshots, rebuilt after a change
	crList  []*rbacv1.ClusterRole
	crbList []*rbacv1.ClusterRoleBinding
	byNS    map[string]*nsRBAC
}

var _ RBACSource = (*RBACCache)(nil)

// nsRBAC holds the sorted Roles and RoleBindings of one namespace.
type nsRBAC struct {
	roles    []*rbacv1.Role
	bindings []*rbacv1.RoleBinding
}

// NewRBACCache returns an empty cache.
func NewRBACCache() *RBACCache {
	return &RBACCache{
		clusterRoles:        map[string]*rbacv1.ClusterRole{},
		clusterRoleBindings: map[string]*rbacv1.ClusterRoleBinding{},
		roles:               map[string]*rbacv1.Role{},
		roleBindings:        map[string]*rbacv1.RoleBinding{},
	}
}

// isRBACBucket reports whether a bucket feeds the cache.
func isRBACBucket(bucket string) bool {
	switch bucket {
	case bucketClusterRoles, bucketClusterRoleBindings, bucketRoles, bucketRoleBindings:
		return true
	}
	return false
}

// Load adds the RBAC objects stored in st to the cache. Call it before the
// first write that Observe is told of.
func (rc *RBACCache) Load(st store.Interface) error {
	for _, b := range []string{bucketClusterRoles, bucketClusterRoleBindings, bucketRoles, bucketRoleBindings} {
		lst, err := st.List(b, store.ListOptions{})
		if err != nil {
			return fmt.Errorf("list %s: %w", b, err)
		}
		for _, it := range lst.Items {
			rc.apply(b, it.Key, it.Value, false)
		}
	}
	return nil
}

// Observe records a committed write to key in bucket: obj is the object in
// its Go type (when the write path has it) and data its stored JSON;
// deleted says the object is gone. Writes to other buckets than the RBAC
// resources' are ignored. It has the signature of
// registry.Hooks.CommitObserver and must be called in revision order.
func (rc *RBACCache) Observe(bucket, key string, obj runtime.Object, data []byte, deleted bool) {
	if !isRBACBucket(bucket) {
		return
	}
	if !deleted && obj != nil {
		rc.applyObject(key, obj)
		return
	}
	rc.apply(bucket, key, data, deleted)
}

// apply records a committed write of one RBAC object given as JSON.
func (rc *RBACCache) apply(bucket, key string, data []byte, deleted bool) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	switch bucket {
	case bucketClusterRoles:
		applyTo(rc.clusterRoles, key, data, deleted)
	case bucketClusterRoleBindings:
		applyTo(rc.clusterRoleBindings, key, data, deleted)
	case bucketRoles:
		applyTo(rc.roles, key, data, deleted)
	case bucketRoleBindings:
		applyTo(rc.roleBindings, key, data, deleted)
	default:
		return
	}
	rc.crList, rc.crbList, rc.byNS = nil, nil, nil
}

// applyObject records a committed RBAC object given in its Go type.
func (rc *RBACCache) applyObject(key string, obj runtime.Object) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	// Copied without their managedFields, which authorization never
	// reads: they are the larger part of a bootstrap role.
	switch o := obj.(type) {
	case *rbacv1.ClusterRole:
		rc.clusterRoles[key] = copyWithoutManagedFields(o)
	case *rbacv1.ClusterRoleBinding:
		rc.clusterRoleBindings[key] = copyWithoutManagedFields(o)
	case *rbacv1.Role:
		rc.roles[key] = copyWithoutManagedFields(o)
	case *rbacv1.RoleBinding:
		rc.roleBindings[key] = copyWithoutManagedFields(o)
	default:
		return
	}
	rc.crList, rc.crbList, rc.byNS = nil, nil, nil
}

// copyWithoutManagedFields is a deep copy of o with no managedFields; o
// is left as it is.
func copyWithoutManagedFields[T any, PT interface {
	*T
	metav1.Object
	DeepCopy() *T
}](o PT) *T {
	c := *o
	PT(&c).SetManagedFields(nil)
	return PT(&c).DeepCopy()
}

// applyTo records a stored object in m, or removes it when deleted. JSON
// that does not decode leaves m as it is.
func applyTo[T any](m map[string]*T, key string, data []byte, deleted bool) {
	if deleted {
		delete(m, key)
		return
	}
	obj := new(T)
	if err := json.Unmarshal(data, obj); err != nil {
		return
	}
	m[key] = obj
}

// snapshot rebuilds the sorted views; the caller holds rc.mu for writing.
func (rc *RBACCache) snapshot() {
	if rc.byNS != nil {
		return
	}
	rc.crList = sortedValues(rc.clusterRoles)
	rc.crbList = sortedValues(rc.clusterRoleBindings)
	rc.byNS = map[string]*nsRBAC{}
	for _, k := range sortedKeys(rc.roles) {
		ns := k[:strings.IndexByte(k, '/')]
		rc.nsEntry(ns).roles = append(rc.nsEntry(ns).roles, rc.roles[k])
	}
	for _, k := range sortedKeys(rc.roleBindings) {
		ns := k[:strings.IndexByte(k, '/')]
		rc.nsEntry(ns).bindings = append(rc.nsEntry(ns).bindings, rc.roleBindings[k])
	}
}

// nsEntry returns the views of namespace ns, adding them if needed; the
// caller holds rc.mu for writing.
func (rc *RBACCache) nsEntry(ns string) *nsRBAC {
	e := rc.byNS[ns]
	if e == nil {
		e = &nsRBAC{}
		rc.byNS[ns] = e
	}
	return e
}

// sortedKeys returns the keys of m in order.
func sortedKeys[T any](m map[string]*T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// view returns the snapshots, building them if needed.
func (rc *RBACCache) view() ([]*rbacv1.ClusterRole, []*rbacv1.ClusterRoleBinding, map[string]*nsRBAC) {
	rc.mu.RLock()
	if rc.byNS != nil {
		defer rc.mu.RUnlock()
		return rc.crList, rc.crbList, rc.byNS
	}
	rc.mu.RUnlock()
	rc.mu.Lock()
	defer rc.mu.Unlock()
	rc.snapshot()
	return rc.crList, rc.crbList, rc.byNS
}

// ClusterRoles implements RBACSource, sorted by name.
func (rc *RBACCache) ClusterRoles() []*rbacv1.ClusterRole { cr, _, _ := rc.view(); return cr }

// ClusterRoleBindings implements RBACSource, sorted by name.
func (rc *RBACCache) ClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	_, crb, _ := rc.view()
	return crb
}

// Roles implements RBACSource, sorted by name.
func (rc *RBACCache) Roles(ns string) []*rbacv1.Role {
	_, _, m := rc.view()
	if e := m[ns]; e != nil {
		return e.roles
	}
	return nil
}

// RoleBindings implements RBACSource, sorted by name.
func (rc *RBACCache) RoleBindings(ns string) []*rbacv1.RoleBinding {
	_, _, m := rc.view()
	if e := m[ns]; e != nil {
		return e.bindings
	}
	return nil
}

// ClusterRole implements RBACSource.
func (rc *RBACCache) ClusterRole(name string) (*rbacv1.ClusterRole, bool) {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	cr, ok := rc.clusterRoles[name]
	return cr, ok
}

// Role implements RBACSource.
func (rc *RBACCache) Role(ns, name string) (*rbacv1.Role, bool) {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	r, ok := rc.roles[ns+"/"+name]
	return r, ok
}
