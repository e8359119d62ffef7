package server

import (
	"bytes"
	"errors"
	"reflect"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/store"
)

// dryRunResult carries a computed but uncommitted write out of a store update.
type dryRunResult struct{ data []byte }

func (d *dryRunResult) Error() string { return "dry run" }

// createObject runs create admission and commits a new object. It returns
// the stored bytes.
func (s *Server) createObject(c *request, o *object, dry bool) ([]byte, error) {
	defer c.releaseReservations()
	if err := s.prepareCreate(c, o); err != nil {
		return nil, err
	}
	if c.res.Namespaced {
		if err := s.admitNamespace(c, o); err != nil {
			return nil, err
		}
	}
	if err := s.beforeCreate(c, o); err != nil {
		return nil, err
	}
	if err := s.checkRBACWrite(c, o, nil); err != nil {
		return nil, err
	}
	key := objectKey(o.meta.GetNamespace(), o.meta.GetName())
	if dry {
		if _, err := s.store.Get(c.res.bucket, key); err == nil {
			return nil, apierrors.NewAlreadyExists(c.res.gr, o.meta.GetName())
		}
		c.result = o.obj
		return encode(o.obj)
	}
	w, err := s.storageWrite(c.res, key, o, false)
	if err != nil {
		return nil, err
	}
	_, cur, err := s.store.Update(c.res.bucket, key, func(cur *store.Object) (store.Write, error) {
		if cur != nil {
			return store.Write{}, apierrors.NewAlreadyExists(c.res.gr, o.meta.GetName())
		}
		return w, nil
	})
	if err != nil {
		return nil, storeErr(err)
	}
	s.afterCommit(c, key, o.obj, cur.Value, false)
	s.enc.putProto(c.res, key, cur.Revision, o.obj)
	c.result = o.obj
	out, err := c.res.fromStorage(cur.Value)
	if err != nil {
		return nil, errStorageDecode(c.res, cur.Key, cur.Revision, err)
	}
	return out, nil
}

// storeErr turns a store error into an API error.
func storeErr(err error) error {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return err
	}
	return apierrors.NewInternalError(err)
}

// errCreateInstead tells update that the object is missing and the resource
// creates on update.
var errCreateInstead = errors.New("create instead")

// writeMode says which parts of an object an update may change.
type writeMode int

const (
	// mainWrite is a write to the main resource: status is kept.
	mainWrite writeMode = iota
	// statusWrite is a write to /status: only status changes.
	statusWrite
	// internalWrite is the server's own write (binding, controllers): everything may change.
	internalWrite
)

// updateObject applies a change to the request's object inside one store
// write. mutate receives the stored object and returns the desired one.
func (s *Server) updateObject(c *request, statusOnly, dry bool, mutate func(old *object) (*object, error)) (data []byte, created bool, err error) {
	mode := mainWrite
	if statusOnly {
		mode = statusWrite
	}
	return s.updateKey(c, c.key(), c.info.Name, mode, dry, mutate)
}

// updateKey applies a change to the object at key inside one store write.
func (s *Server) updateKey(c *request, key, name string, mode writeMode, dry bool, mutate func(old *object) (*object, error)) (data []byte, created bool, err error) {
	defer c.releaseReservations()
	statusOnly := mode == statusWrite
	var deletedAnswer []byte
	var committed *object
	_, cur, err := s.store.Update(c.res.bucket, key, func(cur *store.Object) (store.Write, error) {
		deletedAnswer, committed = nil, nil
		if cur == nil {
			if (c.res.createOnUpdate || c.allowCreate) && mode == mainWrite {
				return store.Write{}, errCreateInstead
			}
			return store.Write{}, apierrors.NewNotFound(c.res.gr, name)
		}
		curServed, err := c.res.fromStorage(cur.Value)
		if err != nil {
			return store.Write{}, errStorageDecode(c.res, cur.Key, cur.Revision, err)
		}
		old, err := c.res.decodeStored(curServed)
		if err != nil {
			return store.Write{}, err
		}
		o, err := mutate(old)
		if err != nil {
			return store.Write{}, err
		}
		switch rv := o.meta.GetResourceVersion(); {
		case rv == "" && c.res.conditionalUpdate && mode != internalWrite:
			return store.Write{}, apierrors.NewInvalid(schema.GroupKind{Group: c.res.gr.Group, Kind: c.res.gr.Resource}, name, field.ErrorList{
				field.Invalid(field.NewPath("metadata", "resourceVersion"), 0, "must be specified for an update"),
			})
		case rv == "":
			o.meta.SetResourceVersion(old.meta.GetResourceVersion())
		case rv != old.meta.GetResourceVersion():
			return store.Write{}, errConflict(c.res.gr, name)
		}
		if statusOnly {
			o, err = withStatusOf(c.res, old, o)
			if err != nil {
				return store.Write{}, err
			}
		} else if c.res.hasSub("status") && mode == mainWrite {
			if err := copyStatus(old.obj, o.obj); err != nil {
				return store.Write{}, err
			}
		}
		metaErrs, err := s.prepareUpdate(c, o, old)
		if err != nil {
			return store.Write{}, err
		}
		if err := s.beforeUpdate(c, mode, o, old, metaErrs); err != nil {
			return store.Write{}, err
		}
		if mode != internalWrite {
			if err := s.checkRBACWrite(c, o, old); err != nil {
				return store.Write{}, err
			}
		}
		if c.res.generation && !statusOnly && (!sameContent(o.obj, old.obj, true) || annotationsBumpGeneration(c.res, o, old)) {
			o.meta.SetGeneration(old.meta.GetGeneration() + 1)
		}
		o.meta.SetResourceVersion(old.meta.GetResourceVersion())
		b, err := encode(o.obj)
		if err != nil {
			return store.Write{}, err
		}
		if bytes.Equal(b, curServed) {
			if dry {
				return store.Write{}, &dryRunResult{data: curServed}
			}
			return store.Write{}, store.ErrUnchanged
		}
		if dry {
			return store.Write{}, &dryRunResult{data: b}
		}
		del := o.meta.GetDeletionTimestamp() != nil && !hasFinalizers(o)
		if del {
			// The answer shows the object as it was last stored, with its
			// finalizers gone; the DELETED event carries the new revision.
			deletedAnswer = b
		}
		w, err := s.storageWrite(c.res, key, o, del)
		if err != nil {
			return store.Write{}, err
		}
		committed = o
		return w, nil
	})
	var dr *dryRunResult
	if errors.As(err, &dr) {
		return dr.data, false, nil
	}
	if err != nil {
		if errors.Is(err, errCreateInstead) {
			return nil, false, err
		}
		return nil, false, storeErr(err)
	}
	if deletedAnswer != nil {
		s.enc.forget(c.res.bucket, key)
		s.afterCommit(c, key, nil, deletedAnswer, true)
		return deletedAnswer, false, nil
	}
	if cur != nil && committed != nil {
		s.afterCommit(c, key, committed.obj, cur.Value, false)
		s.enc.putProto(c.res, key, cur.Revision, committed.obj)
	}
	if committed != nil && key == c.key() {
		c.result = committed.obj
	}
	out, err := c.res.fromStorage(cur.Value)
	if err != nil {
		return nil, false, errStorageDecode(c.res, cur.Key, cur.Revision, err)
	}
	return out, false, nil
}

// withStatusOf returns old with the status of o: a /status write changes
// only status.
func withStatusOf(res *resource, old, o *object) (*object, error) {
	out, err := res.decodeStored(mustEncode(old.obj))
	if err != nil {
		return nil, err
	}
	if err := copyStatus(o.obj, out.obj); err != nil {
		return nil, err
	}
	out.meta.SetResourceVersion(o.meta.GetResourceVersion())
	// The managed fields were computed for the request, as upstream's
	// status strategies keep them.
	out.meta.SetManagedFields(o.meta.GetManagedFields())
	if out.meta.GetResourceVersion() == "" {
		out.meta.SetResourceVersion(old.meta.GetResourceVersion())
	}
	return out, nil
}

func mustEncode(obj runtime.Object) []byte {
	b, err := encode(obj)
	if err != nil {
		panic(err)
	}
	return b
}

// copyStatus copies the status field of from into to.
func copyStatus(from, to runtime.Object) error {
	fm, err := toMap(from)
	if err != nil {
		return err
	}
	status, has := fm["status"]
	if u, ok := to.(*unstructured.Unstructured); ok {
		if has {
			u.Object["status"] = runtime.DeepCopyJSONValue(status)
		} else {
			delete(u.Object, "status")
		}
		return nil
	}
	tm, err := toMap(to)
	if err != nil {
		return err
	}
	if has {
		tm["status"] = status
	} else {
		delete(tm, "status")
	}
	return setFromMap(to, tm)
}

// setFromMap replaces the content of obj with the map m.
func setFromMap(obj runtime.Object, m map[string]any) error {
	if u, ok := obj.(*unstructured.Unstructured); ok {
		u.Object = m
		return nil
	}
	fresh := reflect.New(reflect.TypeOf(obj).Elem())
	if err := runtime.DefaultUnstructuredConverter.FromUnstructured(m, fresh.Interface()); err != nil {
		return err
	}
	reflect.ValueOf(obj).Elem().Set(fresh.Elem())
	return nil
}

// hasFinalizers reports whether anything still holds an object being
// deleted: metadata.finalizers, or a namespace's spec.finalizers.
func hasFinalizers(o *object) bool {
	if len(o.meta.GetFinalizers()) > 0 {
		return true
	}
	if ns, ok := o.obj.(*corev1.Namespace); ok {
		return len(ns.Spec.Finalizers) > 0
	}
	return false
}

// annotationsBumpGeneration reports an annotation change on a Deployment,
// which upstream counts as a new generation because annotations are copied
// to its ReplicaSets.
func annotationsBumpGeneration(res *resource, o, old *object) bool {
	if res.gr != (schema.GroupResource{Group: "apps", Resource: "deployments"}) {
		return false
	}
	a, b := o.meta.GetAnnotations(), old.meta.GetAnnotations()
	if len(a) != len(b) {
		return true
	}
	for k, v := range a {
		if w, ok := b[k]; !ok || w != v {
			return true
		}
	}
	return false
}

// storageWrite encodes o in its bucket's storage version without a
// resourceVersion (outside the store's lock: this may call a conversion
// webhook) and returns the write whose Stamp, under the lock, splices in
// the commit revision and checks what the commit allocates, and whose
// Committed hook sets o's resourceVersion to the commit revision and brings
// the revision-ordered views up to date: once Update returns, o is the
// committed object.
func (s *Server) storageWrite(res *resource, key string, o *object, del bool) (store.Write, error) {
	o.meta.SetResourceVersion("")
	b, err := encode(o.obj)
	if err != nil {
		return store.Write{}, err
	}
	if b, err = res.toStorage(b); err != nil {
		return store.Write{}, errUnknown(err)
	}
	order := structOrder
	if _, ok := o.obj.(*unstructured.Unstructured); ok {
		order = sortedOrder
	}
	return store.Write{Value: b, Delete: del, Stamp: func(v []byte, rev int64) ([]byte, error) {
		out, err := spliceResourceVersion(v, rev, order)
		if err != nil {
			return nil, err
		}
		if err := s.checkAllocations(res, o, del); err != nil {
			return nil, err
		}
		if del && res.bucket == crdBucket {
			s.unserveDeletedCRD(o)
		}
		return out, nil
	}, Committed: func(cur *store.Object) {
		stampRV(o, cur.Revision)
		s.observeCommit(res.bucket, key, o, cur.Value, del)
	}}, nil
}

// observeCommit keeps the in-memory views that must follow the store in
// revision order (the allocator's record of held ClusterIPs and node ports,
// the garbage collector's owner index, the RBAC cache) in step with a
// commit. It runs under the store's writer lock, once the write committed.
func (s *Server) observeCommit(bucket, key string, o *object, data []byte, deleted bool) {
	switch obj := o.obj.(type) {
	case *corev1.Service:
		svc := obj
		if deleted {
			svc = nil
		}
		s.alloc.recordService(o.meta.GetNamespace(), o.meta.GetName(), svc)
	case *networkingv1.IPAddress:
		s.alloc.commitIPAddress(obj, deleted)
	}
	if s.commitObserver != nil {
		s.commitObserver(bucket, key, o.obj, data, deleted)
	}
}

// checkAllocations runs under the store's writer lock before a write
// commits: a Service may not commit an address or node port that another
// committed Service holds.
func (s *Server) checkAllocations(res *resource, o *object, del bool) error {
	svc, ok := o.obj.(*corev1.Service)
	if !ok || del {
		return nil
	}
	if err := s.alloc.checkService(o.meta.GetNamespace(), o.meta.GetName(), svc); err != nil {
		return apierrors.NewConflict(res.gr, o.meta.GetName(), err)
	}
	return nil
}

// afterCommit keeps in-memory views in step with a committed write.
// obj, when not nil, is the committed object in its Go type (data then
// need not be decoded again).
func (s *Server) afterCommit(c *request, key string, obj runtime.Object, data []byte, deleted bool) {
	s.syncServiceIPAddresses(c.res.bucket, obj, data, deleted)
	if c.res.bucket == crdBucket && deleted {
		s.forgetCRD(key, data)
	}
	if c.res.bucket == crdBucket && !deleted {
		crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			crd = &apiextensionsv1.CustomResourceDefinition{}
			if err := jsonUnmarshal(data, crd); err != nil {
				return
			}
		}
		s.syncCRD(crd.DeepCopy())
	}
}
