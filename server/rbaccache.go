package server

import (
	"encoding/json"
	"sort"
	"strings"
	"sync"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/store"
)

// RBAC buckets, as the builtin table names them.
const (
	bucketClusterRoles        = "rbac.authorization.k8s.io/clusterroles"
	bucketClusterRoleBindings = "rbac.authorization.k8s.io/clusterrolebindings"
	bucketRoles               = "rbac.authorization.k8s.io/roles"
	bucketRoleBindings        = "rbac.authorization.k8s.io/rolebindings"
)

// rbacCache holds every RBAC object decoded, for the authorizer. The server
// updates it as each write commits, under the store's writer lock and so in
// revision order (observeCommit): a request that follows a RoleBinding's
// creation sees it, unlike an informer, and concurrent writes leave it as
// the store has it. It is loaded from the store at start.
type rbacCache struct {
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

type nsRBAC struct {
	roles    []*rbacv1.Role
	bindings []*rbacv1.RoleBinding
}

func newRBACCache() *rbacCache {
	return &rbacCache{
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

// load fills the cache from the store.
func (rc *rbacCache) load(st store.Interface) error {
	for _, b := range []string{bucketClusterRoles, bucketClusterRoleBindings, bucketRoles, bucketRoleBindings} {
		lst, err := st.List(b, store.ListOptions{})
		if err != nil {
			return err
		}
		for _, it := range lst.Items {
			rc.apply(b, it.Key, it.Value, false)
		}
	}
	return nil
}

// apply records a committed write of one RBAC object.
func (rc *rbacCache) apply(bucket, key string, data []byte, deleted bool) {
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
func (rc *rbacCache) applyObject(bucket, key string, obj runtime.Object) {
	rc.mu.Lock()
	defer rc.mu.Unlock()
	switch o := obj.(type) {
	case *rbacv1.ClusterRole:
		rc.clusterRoles[key] = o.DeepCopy()
	case *rbacv1.ClusterRoleBinding:
		rc.clusterRoleBindings[key] = o.DeepCopy()
	case *rbacv1.Role:
		rc.roles[key] = o.DeepCopy()
	case *rbacv1.RoleBinding:
		rc.roleBindings[key] = o.DeepCopy()
	default:
		return
	}
	rc.crList, rc.crbList, rc.byNS = nil, nil, nil
}

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
func (rc *rbacCache) snapshot() {
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

func (rc *rbacCache) nsEntry(ns string) *nsRBAC {
	e := rc.byNS[ns]
	if e == nil {
		e = &nsRBAC{}
		rc.byNS[ns] = e
	}
	return e
}

func sortedKeys[T any](m map[string]*T) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

func sortedValues[T any](m map[string]*T) []*T {
	keys := sortedKeys(m)
	out := make([]*T, len(keys))
	for i, k := range keys {
		out[i] = m[k]
	}
	return out
}

// view returns the snapshots, building them if needed.
func (rc *rbacCache) view() ([]*rbacv1.ClusterRole, []*rbacv1.ClusterRoleBinding, map[string]*nsRBAC) {
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

// ClusterRoles returns all ClusterRoles.
func (rc *rbacCache) ClusterRoles() []*rbacv1.ClusterRole { cr, _, _ := rc.view(); return cr }

// ClusterRoleBindings returns all ClusterRoleBindings.
func (rc *rbacCache) ClusterRoleBindings() []*rbacv1.ClusterRoleBinding {
	_, crb, _ := rc.view()
	return crb
}

// Roles returns the Roles of a namespace.
func (rc *rbacCache) Roles(ns string) []*rbacv1.Role {
	_, _, m := rc.view()
	if e := m[ns]; e != nil {
		return e.roles
	}
	return nil
}

// RoleBindings returns the RoleBindings of a namespace.
func (rc *rbacCache) RoleBindings(ns string) []*rbacv1.RoleBinding {
	_, _, m := rc.view()
	if e := m[ns]; e != nil {
		return e.bindings
	}
	return nil
}

// ClusterRole returns one ClusterRole.
func (rc *rbacCache) ClusterRole(name string) (*rbacv1.ClusterRole, bool) {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	cr, ok := rc.clusterRoles[name]
	return cr, ok
}

// Role returns one Role.
func (rc *rbacCache) Role(ns, name string) (*rbacv1.Role, bool) {
	rc.mu.RLock()
	defer rc.mu.RUnlock()
	r, ok := rc.roles[ns+"/"+name]
	return r, ok
}
