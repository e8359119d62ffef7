package registry

import (
	"bytes"
	"errors"
	"fmt"
	"net/http"
	"reflect"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/admission"

	"github.com/fakeplane/fakeplane/store"
)

// dryRunResult carries a computed but uncommitted write out of a store update.
type dryRunResult struct{ data []byte }

// Error implements error.
func (d *dryRunResult) Error() string { return "dry run" }

// CreateObject runs create admission and commits a new object. It returns
// the stored bytes.
func (s *Registry) CreateObject(c *Request, o *Object, dry bool) ([]byte, error) {
	defer c.releaseReservations()
	c.dryRun = dry
	// Mutating admission sees the object as the client sent it (before the
	// server sets uid, creationTimestamp and a generated name), as
	// upstream's create handler admits it before the storage's BeforeCreate.
	if err := EnsureRequestNamespace(c, o.Meta); err != nil {
		return nil, err
	}
	if c.Res.CRD != "" && s.served.crdTerminating(c.Res.CRD) {
		return nil, errCRDTerminating(c, o.Meta.GetName())
	}
	if c.Res.Namespaced {
		if err := s.admitNamespaceCreate(c, o, dry); err != nil {
			return nil, err
		}
	}
	if err := s.admitBuiltinCreate(c, o); err != nil {
		return nil, err
	}
	if err := s.runBuiltinPlugins(c, false, admission.Create, o, nil, dry); err != nil {
		return nil, err
	}
	if err := s.admitMutating(c, admission.Create, o, nil, dry); err != nil {
		return nil, err
	}
	DedupOwnerReferences(c, o.Meta, true)
	// Upstream's RBAC storage checks escalation before its store
	// prepares and validates the object.
	if err := s.checkRBACWrite(c, o, nil); err != nil {
		return nil, err
	}
	if err := s.prepareCreate(c, o); err != nil {
		return nil, err
	}
	if err := s.beforeCreate(c, o); err != nil {
		return nil, err
	}
	if c.Res.Namespaced && s.plugins.Enabled("NamespaceExists") {
		// NamespaceExists: the namespace must exist, terminating or not.
		if _, err := s.storedNamespace(o.Meta.GetNamespace()); err != nil {
			return nil, err
		}
	}
	if err := s.validateBuiltinCreate(c, o); err != nil {
		return nil, err
	}
	if err := s.runBuiltinPlugins(c, true, admission.Create, o, nil, dry); err != nil {
		return nil, err
	}
	if err := s.admitValidating(c, admission.Create, o, nil, dry, nil); err != nil {
		return nil, err
	}
	if err := s.admitQuota(c, o, nil, dry); err != nil {
		return nil, err
	}
	key := ObjectKey(o.Meta.GetNamespace(), o.Meta.GetName())
	if !dry && rvSetOnCreate(o.Meta.GetResourceVersion()) {
		return nil, errRVSetOnCreate()
	}
	if dry {
		if cur, err := s.store.Get(c.Res.Bucket, key); err == nil {
			return nil, errAlreadyExists(c.Res.GR, o.Meta.GetName(), cur.Value)
		}
		b, err := Encode(o.Obj)
		if err != nil || c.Res.conv == nil {
			c.Result = o.Obj
			return b, err
		}
		// As upstream's dry run, which round-trips the object through its
		// storage encoding: what a conversion changes shows.
		if b, err = c.Res.toStorage(b); err != nil {
			return nil, ErrUnknown(err)
		}
		return c.Res.FromStorage(b)
	}
	o.Meta.SetResourceVersion("")
	b, err := encodeCreate(c, o)
	if err != nil {
		return nil, err
	}
	w, err := s.storageWriteEncoded(c.Res, key, o, false, b)
	if err != nil {
		return nil, err
	}
	again := false
	_, cur, err := s.store.Update(c.Res.Bucket, key, func(cur *store.Object) (store.Write, error) {
		if cur != nil {
			return store.Write{}, errAlreadyExists(c.Res.GR, o.Meta.GetName(), cur.Value)
		}
		if again && c.unallocated != nil {
			// Called again with the key still absent: another process
			// took what was allocated (store.ErrRetry). Allocate anew.
			if err := s.reallocate(c, o); err != nil {
				return store.Write{}, err
			}
			if w, err = s.storageWrite(c.Res, key, o, false); err != nil {
				return store.Write{}, err
			}
		}
		again = true
		return w, nil
	})
	if err != nil {
		return nil, storeErr(err)
	}
	s.afterCommit(c, key, o.Obj, cur.Value, false)
	if c.noResult {
		return cur.Value, nil
	}
	if c.Res.conv == nil {
		// What is served is what was committed (else it is converted from
		// the stored bytes).
		c.ResultProto = s.enc.putProto(c.Res, key, cur.Revision, o.Obj)
		c.Result = o.Obj
	}
	out, err := c.Res.FromStorage(cur.Value)
	if err != nil {
		return nil, ErrStorageDecode(c.Res, cur.Key, cur.Revision, err)
	}
	return out, nil
}

// storeErr turns a store error into an API error.
func storeErr(err error) error {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		return err
	}
	if errors.Is(err, store.ErrNoSpace) {
		return errNoSpace()
	}
	return apierrors.NewInternalError(err)
}

// ErrCreateInstead tells update that the object is missing and the resource
// creates on update.
var ErrCreateInstead = errors.New("create instead")

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

// UpdateObject applies a change to the request's object inside one store
// write. mutate receives the stored object and returns the desired one.
func (s *Registry) UpdateObject(c *Request, statusOnly, dry bool, mutate func(old *Object) (*Object, error)) (data []byte, created bool, err error) {
	mode := mainWrite
	if statusOnly {
		mode = statusWrite
	}
	return s.updateKey(c, c.Key(), c.Info.Name, mode, dry, mutate)
}

// updateKey applies a change to the object at key inside one store write.
func (s *Registry) updateKey(c *Request, key, name string, mode writeMode, dry bool, mutate func(old *Object) (*Object, error)) (data []byte, created bool, err error) {
	defer c.releaseReservations()
	if err := CheckNameParameter(name); err != nil {
		return nil, false, err
	}
	c.dryRun = dry
	statusOnly := mode == statusWrite
	var deletedAnswer []byte
	var committed *Object
	_, cur, err := s.store.Update(c.Res.Bucket, key, func(cur *store.Object) (store.Write, error) {
		deletedAnswer, committed = nil, nil
		if cur == nil {
			if (c.Res.createOnUpdate || c.AllowCreate) && mode == mainWrite {
				return store.Write{}, ErrCreateInstead
			}
			return store.Write{}, apierrors.NewNotFound(c.Res.GR, name)
		}
		curServed, err := c.Res.FromStorage(cur.Value)
		if err != nil {
			return store.Write{}, ErrStorageDecode(c.Res, cur.Key, cur.Revision, err)
		}
		old, err := c.Res.DecodeStored(curServed)
		if err != nil {
			return store.Write{}, err
		}
		old.Stored = curServed
		o, err := mutate(old)
		if err != nil {
			return store.Write{}, err
		}
		if mode != internalWrite {
			// Upstream's update runs mutating admission on the object the
			// client sent, before the strategy prepares it.
			if err := s.runBuiltinPlugins(c, false, admission.Update, o, old, dry); err != nil {
				return store.Write{}, err
			}
			if err := s.admitMutating(c, admission.Update, o, old, dry); err != nil {
				return store.Write{}, err
			}
			DedupOwnerReferences(c, o.Meta, true)
			// Upstream's RBAC storage checks escalation on the admitted
			// object, before its store prepares and validates it.
			if err := s.checkRBACWrite(c, o, old); err != nil {
				return store.Write{}, err
			}
		}
		// As upstream's store, once admission and the RBAC storage have
		// the updated object: the resourceVersion as a number, 0 when
		// empty, and an error that does not parse.
		var rv uint64
		if s := o.Meta.GetResourceVersion(); s != "" {
			if rv, err = strconv.ParseUint(s, 10, 64); err != nil {
				return store.Write{}, ErrUnknown(err)
			}
		}
		switch {
		case rv == 0 && c.Res.conditionalUpdate && mode != internalWrite:
			return store.Write{}, apierrors.NewInvalid(schema.GroupKind{Group: c.Res.GR.Group, Kind: c.Res.GR.Resource}, name, field.ErrorList{
				field.Invalid(field.NewPath("metadata", "resourceVersion"), 0, "must be specified for an update"),
			})
		case rv != 0 && strconv.FormatUint(rv, 10) != old.Meta.GetResourceVersion():
			return store.Write{}, ErrConflict(c.Res.GR, name)
		}
		// Unconditional, or the current revision however written ("007").
		o.Meta.SetResourceVersion(old.Meta.GetResourceVersion())
		if statusOnly {
			// As upstream's BeforeUpdate, before the status strategy
			// puts the stored metadata back: the object's namespace is
			// the request's.
			if err := EnsureRequestNamespace(c, o.Meta); err != nil {
				return store.Write{}, err
			}
			o, err = withStatusOf(c.Res, old, o)
			if err != nil {
				return store.Write{}, err
			}
		} else if c.Res.HasSub("status") && mode == mainWrite && c.Info.Subresource == "" {
			// A write to the resource itself keeps the stored status; the
			// other subresources (finalize, approval, ...) leave it to their
			// strategy's preparer.
			if err := copyStatus(old.Obj, o.Obj); err != nil {
				return store.Write{}, err
			}
		}
		if err := s.prepareUpdate(c, o, old); err != nil {
			return store.Write{}, err
		}
		if err := s.beforeUpdate(c, mode, o, old); err != nil {
			return store.Write{}, err
		}
		// Internal writes (a pod's binding, ...) go to storage as
		// kube-apiserver's own subresource handlers write them, without the
		// strategy's generation bump.
		if c.Res.generation && !statusOnly && mode != internalWrite && (!sameContent(o.Obj, old.Obj, true) || annotationsBumpGeneration(c.Res, o, old)) {
			o.Meta.SetGeneration(old.Meta.GetGeneration() + 1)
		}
		if mode != internalWrite {
			if err := s.runBuiltinPlugins(c, true, admission.Update, o, old, dry); err != nil {
				return store.Write{}, err
			}
			if err := s.admitValidating(c, admission.Update, o, old, dry, nil); err != nil {
				return store.Write{}, err
			}
		}
		if mode == mainWrite && c.subresource() != "scale" {
			// ResourceQuota charges what an update adds (a bigger claim,
			// a Service turned LoadBalancer).
			if err := s.admitQuota(c, o, old, dry); err != nil {
				return store.Write{}, err
			}
		}
		if u, ok := o.Obj.(*unstructured.Unstructured); ok && c.Merged {
			if err := c.Res.schema.Coerce(u); err != nil {
				return store.Write{}, ErrUnknown(err)
			}
		}
		o.Meta.SetResourceVersion(old.Meta.GetResourceVersion())
		// Encoded once: without a resourceVersion for storage, with the
		// stored one spliced in to compare with what is stored.
		bare, b, err := encodeWithAndWithoutRV(o)
		if err != nil {
			return store.Write{}, err
		}
		if bytes.Equal(b, curServed) && (dry || !s.storedStale(c.Res, b, cur.Value)) {
			if dry {
				return store.Write{}, &dryRunResult{data: curServed}
			}
			return store.Write{}, store.ErrUnchanged
		}
		if dry {
			return store.Write{}, &dryRunResult{data: b}
		}
		del := o.Meta.GetDeletionTimestamp() != nil && !hasFinalizers(o)
		written := o
		if del {
			// The answer shows the update (its finalizers gone) at the
			// revision it replaced. As kube-apiserver's store, the update
			// is not stored: the object is deleted as it was last stored,
			// and the DELETED event carries that state (finalizers and
			// all) at the deletion's revision.
			deletedAnswer = b
			if written, err = c.Res.DecodeStored(curServed); err != nil {
				return store.Write{}, err
			}
			if bare, _, err = encodeWithAndWithoutRV(written); err != nil {
				return store.Write{}, err
			}
		}
		w, err := s.storageWriteEncoded(c.Res, key, written, del, bare)
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
		if errors.Is(err, ErrCreateInstead) {
			return nil, false, err
		}
		return nil, false, storeErr(err)
	}
	if deletedAnswer != nil {
		s.enc.forget(c.Res.Bucket, key)
		s.afterCommit(c, key, nil, deletedAnswer, true)
		return deletedAnswer, false, nil
	}
	var proto []byte
	if cur != nil && committed != nil {
		s.afterCommit(c, key, committed.Obj, cur.Value, false)
		if c.Res.conv == nil {
			proto = s.enc.putProto(c.Res, key, cur.Revision, committed.Obj)
		}
	}
	if committed != nil && key == c.Key() && c.Res.conv == nil {
		c.Result, c.ResultProto = committed.Obj, proto
	}
	out, err := c.Res.FromStorage(cur.Value)
	if err != nil {
		return nil, false, ErrStorageDecode(c.Res, cur.Key, cur.Revision, err)
	}
	return out, false, nil
}

// storedStale reports whether an object that an update leaves as its
// client sees it (served, the served form of the update, with the stored
// resourceVersion) must still be written, because what is stored (stored)
// is not what it encodes to now: a custom resource stored at an earlier
// storage version, or without defaults that its schema gained since and
// that reading it applies. etcd3's GuaranteedUpdate compares the encoded
// bytes alike, which is how storage migration rewrites objects. Built-in
// resources are stored as they are served, or (events.k8s.io Events)
// converted without loss, so only custom resources are compared.
func (s *Registry) storedStale(res *Resource, served, stored []byte) bool {
	if res.CRD == "" || res.conv == nil {
		return false
	}
	b, err := res.toStorage(served)
	if err != nil {
		return true // the write converts again and reports the error
	}
	return !bytes.Equal(b, stored)
}

// withStatusOf returns old with the status of o, and o's labels,
// annotations, finalizers and owner references where a write to /status
// sets them (Resource.statusSetsMetadata).
func withStatusOf(res *Resource, old, o *Object) (*Object, error) {
	out, err := res.DecodeStored(MustEncode(old.Obj))
	if err != nil {
		return nil, err
	}
	if err := copyStatus(o.Obj, out.Obj); err != nil {
		return nil, err
	}
	if res.statusSetsMetadata {
		out.Meta.SetLabels(o.Meta.GetLabels())
		out.Meta.SetAnnotations(o.Meta.GetAnnotations())
		out.Meta.SetFinalizers(o.Meta.GetFinalizers())
		out.Meta.SetOwnerReferences(o.Meta.GetOwnerReferences())
		// A deletion timestamp the write sets stays too, for the
		// update rules to refuse (prepareUpdate keeps a stored one).
		if ts := o.Meta.GetDeletionTimestamp(); ts != nil {
			out.Meta.SetDeletionTimestamp(ts)
		}
	}
	if !res.statusKeepsMetadata {
		// Most status strategies do not put back the generateName, UID
		// or grace period a write sends: the metadata rules then check
		// them (a new UID or grace period is immutable).
		out.Meta.SetGenerateName(o.Meta.GetGenerateName())
		if uid := o.Meta.GetUID(); uid != "" {
			out.Meta.SetUID(uid)
		}
		if g := o.Meta.GetDeletionGracePeriodSeconds(); g != nil {
			out.Meta.SetDeletionGracePeriodSeconds(g)
		}
	}
	out.Meta.SetResourceVersion(o.Meta.GetResourceVersion())
	// The managed fields were computed for the request, as upstream's
	// status strategies keep them.
	out.Meta.SetManagedFields(o.Meta.GetManagedFields())
	if out.Meta.GetResourceVersion() == "" {
		out.Meta.SetResourceVersion(old.Meta.GetResourceVersion())
	}
	return out, nil
}

// MustEncode is Encode for objects known to encode (a decoded object).
func MustEncode(obj runtime.Object) []byte {
	b, err := Encode(obj)
	if err != nil {
		panic(err)
	}
	return b
}

// copyStatus copies the status field of from into to.
func copyStatus(from, to runtime.Object) error {
	// A built-in object's status is its Status field: set as it is, the
	// rest of the object keeps what a trip through a map would lose (an
	// empty map, which omitempty drops).
	if dst := reflect.ValueOf(to); dst.Kind() == reflect.Pointer && dst.Elem().Kind() == reflect.Struct {
		if df := dst.Elem().FieldByName("Status"); df.IsValid() && df.CanSet() {
			src := reflect.ValueOf(from.DeepCopyObject())
			if src.Kind() == reflect.Pointer && src.Elem().Type() == dst.Elem().Type() {
				df.Set(src.Elem().FieldByName("Status"))
				return nil
			}
		}
	}
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
func hasFinalizers(o *Object) bool {
	if len(o.Meta.GetFinalizers()) > 0 {
		return true
	}
	if ns, ok := o.Obj.(*corev1.Namespace); ok {
		return len(ns.Spec.Finalizers) > 0
	}
	return false
}

// annotationsBumpGeneration reports an annotation change on a Deployment,
// which upstream counts as a new generation because annotations are copied
// to its ReplicaSets.
func annotationsBumpGeneration(res *Resource, o, old *Object) bool {
	if res.GR != (schema.GroupResource{Group: "apps", Resource: "deployments"}) {
		return false
	}
	a, b := o.Meta.GetAnnotations(), old.Meta.GetAnnotations()
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

// maxStoredRequestBytes is what etcd's default --max-request-bytes (1.5
// MiB) leaves for an object and its key, less the ~120 bytes etcd's own
// request wraps them in (measured on refplane: a custom resource whose
// stored JSON is 1,572,735 bytes is written, one 50 bytes larger is not).
const maxStoredRequestBytes = 1572864 - 120

// errRequestTooLarge is kube-apiserver's answer when etcd refuses a write
// over --max-request-bytes: a 500 with etcd's message and no reason.
func errRequestTooLarge() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError,
		Message: "etcdserver: request is too large"}}
}

// storageWrite encodes o in its bucket's storage version without a
// resourceVersion (outside the store's lock: this may call a conversion
// webhook) and returns the write whose Stamp, under the lock, splices in
// the commit revision and checks what the commit allocates, and whose
// Committed hook sets o's resourceVersion to the commit revision and brings
// the revision-ordered views up to date: once Update returns, o is the
// committed object.
func (s *Registry) storageWrite(res *Resource, key string, o *Object, del bool) (store.Write, error) {
	o.Meta.SetResourceVersion("")
	b, err := Encode(o.Obj)
	if err != nil {
		return store.Write{}, err
	}
	return s.storageWriteEncoded(res, key, o, del, b)
}

// encodeWithAndWithoutRV encodes o without its resourceVersion (bare, what
// storageWrite stores) and returns also what encoding it with the
// resourceVersion it has gives, spliced into bare rather than encoded
// again (encoded again when the resourceVersion is not a revision).
// o's resourceVersion is left as it was.
func encodeWithAndWithoutRV(o *Object) (bare, withRV []byte, err error) {
	rv := o.Meta.GetResourceVersion()
	o.Meta.SetResourceVersion("")
	bare, err = Encode(o.Obj)
	o.Meta.SetResourceVersion(rv)
	if err != nil {
		return nil, nil, err
	}
	if rv == "" {
		return bare, bare, nil
	}
	if rev, perr := strconv.ParseInt(rv, 10, 64); perr == nil && rev > 0 && strconv.FormatInt(rev, 10) == rv {
		order := structOrder
		if _, ok := o.Obj.(*unstructured.Unstructured); ok {
			order = sortedOrder
		}
		if withRV, err = spliceResourceVersion(bare, rev, order); err == nil {
			return bare, withRV, nil
		}
	}
	withRV, err = Encode(o.Obj)
	return bare, withRV, err
}

// storageWriteEncoded is storageWrite for o already encoded without its
// resourceVersion (b).
func (s *Registry) storageWriteEncoded(res *Resource, key string, o *Object, del bool, b []byte) (store.Write, error) {
	o.Meta.SetResourceVersion("")
	var err error
	if b, err = res.toStorage(b); err != nil {
		return store.Write{}, ErrUnknown(err)
	}
	if !del && len(b)+len(res.Bucket)+len(key) > maxStoredRequestBytes {
		return store.Write{}, errRequestTooLarge()
	}
	order := structOrder
	if _, ok := o.Obj.(*unstructured.Unstructured); ok {
		order = sortedOrder
	}
	return store.Write{Value: b, Delete: del, Index: LabelIndexTerms(o.Meta.GetLabels()), Claims: s.claimsOf(res, o, del), Stamp: func(v []byte, rev int64) ([]byte, error) {
		out, err := spliceResourceVersion(v, rev, order)
		if err != nil {
			return nil, err
		}
		if err := s.checkAllocations(res, o, del); err != nil {
			return nil, err
		}
		if del && res.Bucket == crdBucket {
			s.unserveDeletedCRD(o)
		}
		return out, nil
	}, Committed: func(cur *store.Object) {
		stampRV(o, cur.Revision)
		s.observeCommit(res.Bucket, key, o, cur.Value, del)
	}}, nil
}

// observeCommit keeps the in-memory views that must follow the store in
// revision order (the allocator's record of held ClusterIPs and node ports,
// the garbage collector's owner index, the RBAC cache) in step with a
// commit. It runs under the store's writer lock, once the write committed.
func (s *Registry) observeCommit(bucket, key string, o *Object, data []byte, deleted bool) {
	if s.shared {
		return // ObserveStoreEvent has done it, from the store's watch
	}
	s.observeView(bucket, key, o.Obj, data, deleted)
}

// observeView brings the views that follow the store in revision order up
// to date with one committed write: obj is the object in its Go type, or
// nil (it is then decoded from data where a view needs it).
func (s *Registry) observeView(bucket, key string, o runtime.Object, data []byte, deleted bool) {
	switch obj := o.(type) {
	case *corev1.Service:
		svc := obj
		if deleted {
			svc = nil
		}
		s.alloc.recordService(obj.Namespace, obj.Name, svc)
	case *networkingv1.IPAddress:
		s.alloc.commitIPAddress(obj, deleted)
	case *networkingv1.ServiceCIDR:
		s.alloc.commitServiceCIDR(obj, deleted)
	}
	if s.hooks.CommitObserver != nil {
		s.hooks.CommitObserver(bucket, key, o, data, deleted)
	}
}

// checkAllocations runs under the store's writer lock before a write
// commits: a Service may not commit an address or node port that another
// committed Service holds.
func (s *Registry) checkAllocations(res *Resource, o *Object, del bool) error {
	svc, ok := o.Obj.(*corev1.Service)
	if !ok || del {
		return nil
	}
	if err := s.alloc.checkService(o.Meta.GetNamespace(), o.Meta.GetName(), svc); err != nil {
		if s.shared {
			// Another process's Service took it since the allocation:
			// allocate again, as upstream's allocator does.
			return fmt.Errorf("%w: %v", store.ErrRetry, err)
		}
		return apierrors.NewConflict(res.GR, o.Meta.GetName(), err)
	}
	return nil
}

// afterCommit keeps in-memory views in step with a committed write.
// obj, when not nil, is the committed object in its Go type (data then
// need not be decoded again).
func (s *Registry) afterCommit(c *Request, key string, obj runtime.Object, data []byte, deleted bool) {
	s.syncServiceIPAddresses(c.Res.Bucket, obj, data, deleted)
	if c.Res.Namespaced {
		// The resource quota controller's part: status.used follows. What
		// quota admission charged (a tracked write that is not a delete)
		// is kube-apiserver's change.
		if ns, _, ok := strings.Cut(key, "/"); ok {
			manager := "kube-controller-manager"
			if c.quotaUnlock != nil && !deleted {
				manager = "kube-apiserver"
			}
			s.refreshQuotas(ns, manager, c.quotaUnlock != nil || c.quotaLocked)
		}
	}
	if c.Res.Bucket == crdBucket && deleted {
		s.forgetCRD(key, data)
	}
	if c.Res.Bucket == crdBucket && !deleted {
		crd, ok := obj.(*apiextensionsv1.CustomResourceDefinition)
		if !ok {
			crd = &apiextensionsv1.CustomResourceDefinition{}
			if err := JSONUnmarshal(data, crd); err != nil {
				return
			}
		}
		s.syncCRD(crd.DeepCopy())
	}
}
