package registry

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/fakeplane/fakeplane/store"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/validate/content"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// Request is one call into the read and write pipeline: which resource and
// object, asked by whom, in which context. It carries no HTTP: a request
// over HTTP (call) and a call made from Go (Registry, the server's own
// controllers) both make one.
type Request struct {
	// GoCtx is the call's context, with its user in it: the HTTP
	// request's, or the Go caller's.
	GoCtx     context.Context
	Info      *apirequest.RequestInfo
	Res       *Resource
	User      user.Info
	Namespace string // the namespace of the object(s), "" for cluster-scoped
	// UserAgent is the HTTP request's User-Agent; "" for a call made from Go.
	UserAgent string
	// Result is the committed object in its Go type, when the write path
	// still holds it, so a protobuf answer need not decode it again.
	Result runtime.Object
	// ResultProto is Result's protobuf message (without the envelope),
	// when the write path encoded it for the encoding cache.
	ResultProto []byte
	// reservations are the ClusterIPs and node ports the request reserved;
	// what its commit did not take is released when it ends.
	reservations []*reservation
	// unallocated is a created Service as it was before its ClusterIP and
	// node ports were allocated, kept with a shared store to allocate
	// again if another process takes them first (Registry.reallocate).
	unallocated *corev1.Service
	// quotaUnlock ends the request's hold on its namespace's quota
	// admission, taken by admitQuota until the write committed.
	quotaUnlock func()
	// quotaLocked says the request is a quota status write made while its
	// namespace's quota lock is held (by the write that caused it).
	quotaLocked bool
	// FieldManager and FieldValidation are the write's query parameters
	// of those names, as the options of its AdmissionReview show them.
	FieldManager, FieldValidation string
	// AllowCreate lets a write to a missing object create it (server-side
	// apply), whatever the resource's createOnUpdate.
	AllowCreate bool
	// Merged says the written object is a merge result no decoder read
	// (server-side apply): a custom resource is coerced once validated, as
	// upstream's storage encoding coerces it (crd.Schema.Coerce).
	Merged bool
	// createMemo is the memo entry (see type createMemo) the server's own create
	// decoded its object from (nil for every other request): an object
	// from a document that validated once is not validated again.
	createMemo *decodedCreate
	// presetStatus is the status the server's own create gives its object
	// (see Precomputed.Statuses); nil for every other request.
	presetStatus *PresetStatus
	// dryRun says the write is not committed (dryRun=All): allocation
	// answers as upstream's dry-run allocators do.
	dryRun bool
	// noResult says the caller does not read the write's answer (the
	// server's own creates from documents): the write path leaves Result
	// and ResultProto unset and the protobuf cache unfilled.
	noResult bool
	// internal marks the control plane's own writes: its creates from
	// documents (the bootstrap objects) and the calls of its loops and
	// controllers through Registry.API. AlwaysDeny lets them through,
	// where kube-apiserver's post-start hooks, refused, would keep it from
	// ever becoming ready.
	internal bool
}

// ctx is the request's context, with its user in it (upstream's strategies
// read the user from there).
func (c *Request) Context() context.Context { return c.GoCtx }

// releaseReservations gives back what the request reserved and did not
// commit.
func (c *Request) releaseReservations() {
	for _, r := range c.reservations {
		r.release()
	}
	c.reservations = nil
	if c.quotaUnlock != nil {
		c.quotaUnlock()
		c.quotaUnlock = nil
	}
}

// Key is the store key of the named object.
func (c *Request) Key() string { return ObjectKey(c.Namespace, c.Info.Name) }

// ObjectKey is the store key for an object.
func ObjectKey(ns, name string) string {
	if ns == "" {
		return name
	}
	return ns + "/" + name
}

// ErrMethodNotSupported is the 405 for a verb a resource does not serve:
// for a built-in resource kube-apiserver has no route for it (go-restful's
// answer); apiextensions' handler answers a custom resource's with the
// verb it made of the method ("" for one it does not know, e.g. OPTIONS)
// and the resource.
func (c *Request) ErrMethodNotSupported() error {
	if c.Res != nil && c.Res.CRD != "" && c.Info != nil {
		return apierrors.NewMethodNotSupported(schema.GroupResource{Group: c.Info.APIGroup, Resource: c.Info.Resource}, c.Info.Verb)
	}
	return ErrMethodNotAllowed()
}

// ErrMethodNotAllowed is go-restful's 405, as kube-apiserver sends it for a
// method none of its routes for the path takes.
func ErrMethodNotAllowed() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Message: "the server does not allow this method on the requested resource",
		Reason:  metav1.StatusReasonMethodNotAllowed,
		Details: &metav1.StatusDetails{},
		Code:    http.StatusMethodNotAllowed,
	}}
}

// VerbAllowed checks the verb against what discovery advertises.
func (s *Registry) VerbAllowed(c *Request) bool {
	verbs := c.Res.Verbs
	if c.Info.Subresource != "" {
		verbs = c.Res.subs[c.Info.Subresource].Verbs
	}
	verb := c.Info.Verb
	for _, v := range verbs {
		if v == verb {
			return true
		}
	}
	return false
}

var schemaNamespaces = schema.GroupResource{Resource: "namespaces"}

// CheckNameParameter is the check of kube-apiserver's storage keys on the
// name of the object a request reads, writes or deletes by name: no name,
// or one that cannot be a path segment ("..", or one with a '%'), is a
// 400, not a 404, before storage is read.
func CheckNameParameter(name string) error {
	if name == "" {
		return apierrors.NewBadRequest("Name parameter required.")
	}
	if msgs := content.IsPathSegmentName(name); len(msgs) != 0 {
		return apierrors.NewBadRequest(fmt.Sprintf("Name parameter invalid: %q: %s", name, strings.Join(msgs, ";")))
	}
	return nil
}

// GetObject reads and decodes the named object.
func (s *Registry) GetObject(c *Request) (*Object, error) {
	if err := CheckNameParameter(c.Info.Name); err != nil {
		return nil, err
	}
	cur, err := s.store.Get(c.Res.Bucket, c.Key())
	if err != nil {
		return nil, apierrors.NewNotFound(c.Res.GR, c.Info.Name)
	}
	served, err := c.Res.FromStorage(cur.Value)
	if err != nil {
		return nil, ErrStorageDecode(c.Res, cur.Key, cur.Revision, err)
	}
	return c.Res.DecodeStored(served)
}

// GetServed reads the named object and returns its JSON in the request's
// version.
func (s *Registry) GetServed(c *Request) ([]byte, error) {
	_, served, err := s.GetStored(c)
	return served, err
}

// GetStored is GetServed that also returns the stored object read (its key
// and revision name its cached encodings).
func (s *Registry) GetStored(c *Request) (*store.Object, []byte, error) {
	if err := CheckNameParameter(c.Info.Name); err != nil {
		return nil, nil, err
	}
	obj, err := s.store.Get(c.Res.Bucket, c.Key())
	if errors.Is(err, store.ErrNotFound) {
		return nil, nil, apierrors.NewNotFound(c.Res.GR, c.Info.Name)
	}
	if err != nil {
		return nil, nil, apierrors.NewInternalError(err)
	}
	served, err := s.enc.ServedOf(c.Res, obj.Key, obj.Revision, obj.Value)
	if err != nil {
		return nil, nil, ErrStorageDecode(c.Res, obj.Key, obj.Revision, err)
	}
	return obj, served, nil
}

// systemUser is the identity of the server's own writes and controllers.
var systemUser user.Info = &user.DefaultInfo{Name: "system:apiserver", Groups: []string{user.SystemPrivilegedGroup, user.AllAuthenticated}}
