package registry

import (
	"errors"
	"fmt"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/store"
)

// Deleting corrupt objects. A delete with the option
// ignoreStoreReadErrorWithClusterBreakingPotential (the
// AllowUnsafeMalformedObjectDeletion feature, beta and on in v1.37) is
// kube-apiserver's way out for an object that cannot be read from storage:
// a custom object stored in a version its CRD no longer has, or one its
// conversion webhook refuses. Its corrupt object deleter removes the stored
// value as it is, without admission, preconditions, finalizers or graceful
// deletion, and refuses an object it can read.

// NoUnsafeDeleter reports whether kube-apiserver's REST storage of a
// resource has no corrupt object deleter (its own wrappers around the
// generic store: namespaces and the RBAC kinds): a delete with
// ignoreStoreReadErrorWithClusterBreakingPotential is answered with a 500
// there.
func NoUnsafeDeleter(gr schema.GroupResource) bool {
	switch gr {
	case schema.GroupResource{Resource: "namespaces"},
		schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "roles"},
		schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "rolebindings"},
		schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"},
		schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterrolebindings"}:
		return true
	}
	return false
}

// errUnsafeDryRun ends the store update of a dry run once the object is
// known to be corrupt.
var errUnsafeDryRun = errors.New("aborting unsafe delete, dry run requested")

// UnsafeDeleteObject removes the object at key if it cannot be read, as
// kube-apiserver's corrupt object deleter does: one that is not there is
// NotFound, one that can be read is a conflict. A dry run only checks.
func (s *Registry) UnsafeDeleteObject(c *Request, key, name string, dryRun bool) error {
	if err := CheckNameParameter(name); err != nil {
		return err
	}
	bucket := c.Res.Bucket
	var gone []byte
	_, _, err := s.store.Update(bucket, key, func(cur *store.Object) (store.Write, error) {
		if cur == nil {
			return store.Write{}, apierrors.NewNotFound(c.Res.GR, name)
		}
		if s.readable(c, cur) {
			return store.Write{}, apierrors.NewConflict(c.Res.GR, name, fmt.Errorf("StorageError: invalid object, Code: 4, Key: /registry%s, ResourceVersion: 0, AdditionalErrorMsg: unsafe deletion is not allowed because the object is decodable from storage", storageKey(c.Res, key)))
		}
		if dryRun {
			return store.Write{}, errUnsafeDryRun
		}
		// The value is kept as it is: a watch's Deleted event fails to
		// read it too.
		gone = cur.Value
		return store.Write{Value: cur.Value, Delete: true, Committed: func(cur *store.Object) {
			if !s.shared {
				s.observeView(bucket, key, nil, cur.Value, true)
			}
		}}, nil
	})
	if errors.Is(err, errUnsafeDryRun) {
		return nil
	}
	if err != nil {
		return storeErr(err)
	}
	s.afterCommit(c, key, nil, gone, true)
	return nil
}

// readable reports whether a stored object decodes, in the request's
// version, as a read of it would.
func (s *Registry) readable(c *Request, cur *store.Object) bool {
	served, err := c.Res.FromStorage(cur.Value)
	if err != nil {
		return false
	}
	_, err = c.Res.DecodeStored(served)
	return err == nil
}
