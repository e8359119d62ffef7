// Package store keeps Kubernetes objects in bbolt with one global revision
// counter, optimistic concurrency, consistent (and historical) lists, and an
// in-memory event log that feeds watches.
//
// The store knows nothing about Kubernetes types: an object is a key
// ("namespace/name" or "name") holding opaque bytes (the server stores JSON)
// inside a resource bucket ("apps/deployments", "core/pods", ...).
//
// Interface is what the control plane uses; *Store, on bbolt, implements it.
// A write's work runs outside the store's lock (UpdateFunc); the lock covers
// only the check that the key is unchanged and the commit.
package store

import (
	"context"
	"errors"
)

// Interface is the storage a control plane runs on: revisioned objects in
// resource buckets, optimistic writes, consistent lists and ordered watches.
// *Store (bbolt) implements it; a second backend implements the same
// methods with the same semantics.
type Interface interface {
	// Get returns the object at key, or ErrNotFound.
	Get(resource, key string) (*Object, error)
	// List returns one page of a resource bucket, consistent at one revision.
	List(resource string, opts ListOptions) (*ListResult, error)
	// Watch delivers the committed changes of a resource in revision order.
	Watch(ctx context.Context, resource string, opts WatchOptions) (Watcher, error)
	// Update computes a key's next value with fn and commits it if the key
	// is still as fn saw it, calling fn again otherwise.
	Update(resource, key string, fn UpdateFunc) (prev, cur *Object, err error)
	// DeleteResource drops a resource bucket with all its objects.
	DeleteResource(resource string) error
	// Resources names the resources that have a bucket.
	Resources() ([]string, error)
	// CurrentRevision is the revision of the last committed write.
	CurrentRevision() int64
	// CompactedRevision is the revision below which history is gone.
	CompactedRevision() int64
	// Close stops the watchers and releases the backend.
	Close() error
}

// Errors returned by the store. Callers map them to API status codes.
var (
	// ErrNotFound is returned by Get for a missing key.
	ErrNotFound = errors.New("store: not found")
	// ErrUnchanged may be returned by an UpdateFunc to say "nothing to write":
	// Update then commits nothing, consumes no revision and returns the
	// current object as both prev and cur.
	ErrUnchanged = errors.New("store: unchanged")
	// ErrClosed is returned after Close.
	ErrClosed = errors.New("store: closed")
	// ErrNoSpace is in the chain of a write that could not be committed
	// because the file cannot grow (the disk is full, a quota or the
	// file size limit was reached). The write changed nothing, the
	// store stays usable and a later write succeeds once there is room.
	ErrNoSpace = errors.New("store: no space left for the write")
	// ErrRetry, in the chain of an error that Write.Stamp returns, says
	// that what the UpdateFunc decided rests on a view another process's
	// commit has changed since (with a store several processes share): the
	// write is not committed and Update calls the UpdateFunc again, as for
	// a key that changed.
	ErrRetry = errors.New("store: decided on an outdated view; try again")
)

// CompactedError says a requested revision is older than the store can serve:
// for a list, than CompactedRevision (the history was compacted); for a watch,
// than WatchCompactedRevision (the event log has let it go).
type CompactedError struct {
	Requested int64 // the revision asked for
	Oldest    int64 // the oldest revision that can still be served
}

// Error implements error.
func (e *CompactedError) Error() string {
	return "store: revision compacted"
}

// FutureRevisionError says a requested revision is newer than the current one.
type FutureRevisionError struct {
	Requested int64
	Current   int64
}

// Error implements error.
func (e *FutureRevisionError) Error() string {
	return "store: revision is in the future"
}

// Object is one stored value.
type Object struct {
	Key      string // "namespace/name" for namespaced objects, "name" otherwise
	Value    []byte // owned by the caller; never aliased to bbolt memory
	Revision int64  // the revision of the write that produced Value
}

// EventType is the kind of a watch event.
type EventType string

// Event types, as in the watch API.
const (
	Added    EventType = "ADDED"
	Modified EventType = "MODIFIED"
	Deleted  EventType = "DELETED"
)

// Event is one committed change.
//
// The byte slices of an Event are shared between the store's event log and
// every watcher that receives it: callers must not modify them.
type Event struct {
	Type         EventType
	Resource     string
	Key          string
	Value        []byte // the new value; for Deleted, the final value passed in Write.Value
	Prev         []byte // the value before the change; nil for Added
	Revision     int64
	PrevRevision int64 // the revision that wrote Prev; 0 for Added
}

// Write is what an UpdateFunc decides.
type Write struct {
	Value  []byte // the value to store (for a delete, the final state that the Deleted event carries)
	Delete bool   // remove the key instead of storing Value
	// Stamp, when set, turns Value into the bytes stored at the revision the
	// write commits at (the server writes metadata.resourceVersion into
	// them). It runs under the store's writer lock, once per commit: it must
	// be quick, must not block and must not call the store.
	Stamp func(value []byte, rev int64) ([]byte, error)
	// Committed, when set, is told of the write once it has committed,
	// still under the writer lock, so that the calls of all writes come in
	// revision order. It gets the stored value (for a delete, the final
	// one). It must be quick, must not block and must not call the store.
	Committed func(cur *Object)
	// Claims, when not nil, are what the key holds from now on against
	// every other key of every process sharing the store (a Service's
	// ClusterIPs and node ports): the write commits only if no other key
	// holds one of them, and releases what the key held before and no
	// longer names (a delete with an empty Claims releases all). A
	// backend that only one process writes (the bbolt store) ignores
	// them: the caller's own check under the writer lock (Stamp) is
	// enough there. A backend that honours them and finds one held calls
	// the UpdateFunc again, once it has seen the holder's write, as for a
	// key that changed.
	Claims []string
	// Index, when not nil, holds the index terms of Value (the server's:
	// its labels, see ListOptions.Index); nil has the store compute them
	// with Options.IndexTerms. Ignored for a delete.
	Index []string
}

// UpdateFunc computes the next value of a key from its current value (nil
// when the key does not exist). It runs outside the store's writer lock, so
// slow work (conversion webhooks, admission, validation) holds up no other
// write. If the key changes between the read that fed fn and the commit,
// Update calls fn again with the new value, as kube-apiserver's
// GuaranteedUpdate does: fn must be safe to call more than once. Returning
// an error aborts the write; nothing is committed and no revision is
// consumed.
type UpdateFunc func(cur *Object) (Write, error)

// ListOptions selects part of a resource bucket.
type ListOptions struct {
	Prefix     string // only keys with this prefix ("ns/" for one namespace; "" for all)
	StartAfter string // only keys strictly greater than this (continue tokens)
	Limit      int    // at most this many items after Filter (0: no limit)
	Revision   int64  // 0: the current state; > 0: the state exactly as of that revision (from the history, until compacted)
	// Filter is optional; items it rejects are skipped and not counted. The
	// Value it is given is valid only during the call: it must not keep it.
	Filter func(Object) bool
	// Index, when not empty, is a term that every item Filter accepts has
	// (see Write.Index): a backend with an index may read only the keys
	// with it. It never changes the items; with it Remaining is not
	// computed (0). A hint: a backend without an index ignores it.
	Index string
	// IndexExact says the items with Index are exactly those Filter
	// accepts: a backend that reads through its index need not call
	// Filter (one that does not still does).
	IndexExact bool
}

// ListResult is one page of a list.
type ListResult struct {
	Items     []Object
	Revision  int64 // the revision the list is consistent at
	More      bool  // more matching keys after the last item
	Remaining int64 // number of keys after the last item in Prefix (unfiltered) when More; 0 otherwise
}

// WatchOptions selects what a watch delivers.
type WatchOptions struct {
	Prefix string // only keys with this prefix
	// FromRevision: deliver every event with a revision > FromRevision.
	// 0 means "from now": only events committed after Watch returns.
	FromRevision int64
	Buffer       int // most events queued and not yet received; a watcher whose buffer is full is closed with ErrTooSlow (0: store default)
}

// ErrTooSlow is the Err of a watcher that could not keep up.
var ErrTooSlow = errors.New("store: watcher too slow")

// Watcher receives events for one resource.
type Watcher interface {
	// Events delivers events in revision order. It is closed when the watch
	// ends: Stop, ctx done, store closed, or the watcher was too slow.
	Events() <-chan Event
	// Sent returns the revision of the last event queued for Events (0 if
	// none): a caller that has received the event at that revision has
	// received every event queued so far. Events' channel holds only part
	// of the buffer, so its len says nothing of what is still to come;
	// Sent does (see Store.Watch on progress).
	Sent() int64
	// Err says why Events was closed (nil after Stop or ctx done).
	Err() error
	// Stop ends the watch. Safe to call more than once.
	Stop()
}
