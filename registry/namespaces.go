package registry

import (
	"context"
	"encoding/json"
	"fmt"
	"sync/atomic"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
)

// RootCAConfigMapName is the ConfigMap published in every namespace with the
// cluster CA (by controllers.RootCACertPublisher).
const RootCAConfigMapName = "kube-root-ca.crt"

// terminating reports whether a stored object (a namespace, or any object
// holding a name) is being deleted: it has a deletionTimestamp.
func terminating(data []byte) bool {
	if !mayNameField(data, "deletiontimestamp") {
		return false // (most namespaces, checked on every create in them)
	}
	var ns struct {
		Metadata struct {
			DeletionTimestamp *string `json:"deletionTimestamp"`
		} `json:"metadata"`
	}
	_ = json.Unmarshal(data, &ns)
	return ns.Metadata.DeletionTimestamp != nil
}

// mayNameField reports whether encoding/json could match a member of data
// (a JSON document) to a field named lower (in lower case): false only
// when data is ASCII without \u escapes (which encoding/json unescapes in
// keys, and Unicode case folding could match) and lower appears nowhere
// in it, in any case.
func mayNameField(data []byte, lower string) bool {
	n := len(lower)
	for i := 0; i < len(data); i++ {
		c := data[i]
		if c >= 0x80 || c == '\\' && i+1 < len(data) && data[i+1] == 'u' {
			return true
		}
		if i+n <= len(data) && asciiLower(c) == lower[0] {
			j := 1
			for j < n && asciiLower(data[i+j]) == lower[j] {
				j++
			}
			if j == n {
				return true
			}
		}
	}
	return false
}

// asciiLower lowers an ASCII letter.
func asciiLower(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// internalCall builds a call for the server's own writes: made from Go, as
// the server itself.
func (s *Registry) internalCall(group, version, res, ns, name, verb string) *Request {
	r, _ := s.served.Lookup(group, version, res)
	return &Request{Res: r, Namespace: ns, User: systemUser, GoCtx: apirequest.WithUser(context.Background(), systemUser),
		Info: &apirequest.RequestInfo{IsResourceRequest: true, Verb: verb, APIGroup: group, APIVersion: version, Resource: res, Namespace: ns, Name: name}}
}

// Create creates an object given as JSON with apiVersion and kind, as the
// server itself, ignoring AlreadyExists. Fixtures use it.
func (s *Registry) Create(data []byte) error { return s.create(data, "") }

// CreateAll creates many objects (JSON with apiVersion and kind) as the
// server itself, ignoring AlreadyExists, with the managedFields entry of
// kube-apiserver's own writes. Bootstrap uses it. pre, when it has an
// object's managedFields entries, saves computing them (see
// fixtures.BootstrapManagedFields), and when it has a status for it, the
// object is created with it (see Precomputed); nil: nothing is known.
//
// The documents are decoded (and the memo of the control plane's own
// creates filled: see createMemo) on another goroutine, ahead of the
// creates, so that it takes no time on the critical path when a core is
// free; when that goroutine is not ahead, the creating one decodes the next
// document itself. Only which kinds are served can make a document decode
// differently once the ones before it are created (a CRD, then an object of
// its kind): one that did not decode ahead is decoded again in its turn.
func (s *Registry) CreateAll(docs [][]byte, pre *Precomputed) error {
	type decoded struct {
		c    *Request
		o    *Object
		err  error
		done chan struct{} // closed once the others are set
	}
	slots := make([]decoded, len(docs))
	for i := range slots {
		slots[i].done = make(chan struct{})
	}
	var next atomic.Int64 // the first document no goroutine has taken
	decodeNext := func() bool {
		i := int(next.Add(1) - 1)
		if i >= len(docs) {
			return false
		}
		x := &slots[i]
		x.c, x.o, x.err = s.decodeCreated(docs[i], serverManager, pre)
		close(x.done)
		return true
	}
	var stop atomic.Bool
	decoderDone := make(chan struct{})
	go func() {
		defer close(decoderDone)
		for !stop.Load() && decodeNext() {
		}
	}()
	defer func() {
		stop.Store(true)
		<-decoderDone
	}()
	for i, d := range docs {
		if int(next.Load()) <= i {
			decodeNext() // not decoded ahead: i (or the next, if the decoder took i meanwhile)
		}
		x := &slots[i]
		<-x.done
		if x.err != nil {
			x.c, x.o, x.err = s.decodeCreated(d, serverManager, pre)
			if x.err != nil {
				return x.err
			}
		}
		if err := s.createInternal(x.c, x.o); err != nil {
			return err
		}
		slots[i] = decoded{}
	}
	return nil
}

// CreatedManagedFields returns the managedFields entries (without their
// time) that CreateAll records for doc (JSON with apiVersion and kind),
// computed as a create computes them, and their key in CreateAll's fields.
// The bootstrap's precomputed entries are made and checked with it.
func (s *Registry) CreatedManagedFields(doc []byte) (key string, entries []metav1.ManagedFieldsEntry, err error) {
	c, o, err := s.decodeInternal(doc)
	if err != nil {
		return "", nil, err
	}
	c.TrackManagedFields(nil, o, serverManager)
	entries = o.Meta.GetManagedFields()
	for i := range entries {
		entries[i].Time = nil
	}
	return bootstrapFieldsKey(c, o), entries, nil
}

// bootstrapFieldsKey is the key of o's entries in CreateAll's fields.
func bootstrapFieldsKey(c *Request, o *Object) string {
	return c.Res.GVK.GroupVersion().String() + "/" + c.Res.GVK.Kind + "/" + o.Meta.GetNamespace() + "/" + o.Meta.GetName()
}

// serverManager is the field manager of kube-apiserver's own writes,
// through its loopback client.
const serverManager = "kube-apiserver"

// create creates an object given as JSON, as the server itself; manager,
// if set, is recorded in its managedFields.
func (s *Registry) create(data []byte, manager string) error {
	c, o, err := s.decodeCreated(data, manager, nil)
	if err != nil {
		return err
	}
	return s.createInternal(c, o)
}

// internalCreate is the create request, made by the server itself, of o in
// res.
func (s *Registry) internalCreate(res *Resource, o *Object) (*Request, *Object) {
	c := s.internalCall(res.Group, res.Version, res.Resource.Resource, "", "", "create")
	if c.Res.Namespaced {
		c.Namespace = o.Meta.GetNamespace()
		if c.Namespace == "" {
			c.Namespace = metav1.NamespaceDefault
		}
	}
	return c, o
}

// decodeInternal decodes an object given as JSON with apiVersion and kind
// into a create request made by the server itself.
func (s *Registry) decodeInternal(data []byte) (*Request, *Object, error) {
	head, ok := scanTypeHead(data)
	if !ok {
		if err := json.Unmarshal(data, &head); err != nil {
			return nil, nil, fmt.Errorf("decode object: %w", err)
		}
	}
	gv, err := schema.ParseGroupVersion(head.APIVersion)
	if err != nil {
		return nil, nil, err
	}
	res, ok := s.served.ForKind(gv.WithKind(head.Kind))
	if !ok {
		return nil, nil, fmt.Errorf("no resource serves %s %s", head.APIVersion, head.Kind)
	}
	o, err := res.decodeServerObject(data, head)
	if err != nil {
		return nil, nil, err
	}
	c, o := s.internalCreate(res, o)
	return c, o, nil
}

// decodeCreated decodes an object given as JSON that the server creates as
// manager (if set) and records its managedFields: the entries pre holds for
// it, if it holds them; a status pre holds for it is set as it is created.
func (s *Registry) decodeCreated(data []byte, manager string, pre *Precomputed) (*Request, *Object, error) {
	if pre == nil {
		pre = &Precomputed{}
	}
	c, o, err := s.decodeAs(data, manager, pre.Seeds)
	if err != nil {
		return nil, nil, err
	}
	if manager != "" {
		key := bootstrapFieldsKey(c, o)
		if st, ok := pre.Statuses[key]; ok {
			c.presetStatus = &st
		}
		if entries, ok := pre.Fields[key]; ok {
			s.setCreatedFields(o, entries)
		} else {
			s.trackCreate(c, o, data, manager)
		}
		if own, ok := bootstrapManagers[c.Res.GR.Group]; ok && manager == serverManager {
			renameManager(o, serverManager, own)
		}
	}
	return c, o, nil
}

// bootstrapManagers are, by API group, the field managers of the
// kube-apiserver components that write the group's bootstrap objects in
// place of serverManager: the priority and fairness config producer writes
// the mandatory and suggested FlowSchemas and priority levels.
var bootstrapManagers = map[string]string{
	"flowcontrol.apiserver.k8s.io": "api-priority-and-fairness-config-producer-v1",
}

// renameManager gives o's managedFields entries of manager from to manager
// to.
func renameManager(o *Object, from, to string) {
	entries := o.Meta.GetManagedFields()
	for i := range entries {
		if entries[i].Manager == from {
			entries[i].Manager = to
		}
	}
	o.Meta.SetManagedFields(entries)
}

// createWithFields creates an object given as JSON, as the server itself
// (manager, one of the server's own), with the managedFields entries a
// create records for it, known beforehand.
func (s *Registry) createWithFields(data []byte, manager string, entries []metav1.ManagedFieldsEntry) error {
	c, o, err := s.decodeAs(data, manager, nil)
	if err != nil {
		return err
	}
	s.setCreatedFields(o, entries)
	return s.createInternal(c, o)
}

// decodeAs decodes an object the server creates as manager: through the
// memo (decodeCreate, with seeds) for kube-apiserver's own creates.
func (s *Registry) decodeAs(data []byte, manager string, seeds *CreateSeeds) (*Request, *Object, error) {
	if manager == serverManager {
		return s.decodeCreate(data, seeds)
	}
	return s.decodeInternal(data)
}

// createInternal creates o, decoded for the server's own create c; an
// object that exists already is left as it is.
func (s *Registry) createInternal(c *Request, o *Object) error {
	// Nobody reads the answer: the object's protobuf is encoded when a
	// client first asks for it, not for every bootstrap object at every
	// start.
	c.noResult, c.internal = true, true
	_, err := s.CreateObject(c, o, false)
	if apierrors.IsAlreadyExists(err) {
		return nil
	}
	return err
}
