// Package store keeps Kubernetes objects in bbolt with one global revision
// counter, optimistic concurrency, consistent (and historical) lists, and an
// in-memory event log that feeds watches.
//
// The store knows nothing about Kubernetes types: an object is a key
// ("namespace/name" or "name") holding opaque bytes (the server stores JSON)
// inside a resource bucket ("apps/deployments", "core/pods", ...).
package store

import "errors"

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
}

// UpdateFunc computes the next value of a key. cur is nil when the key does
// not exist. rev is the revision this write will commit at (so the caller can
// stamp metadata.resourceVersion into Value). Returning an error aborts the
// write; nothing is committed and no revision is consumed.
type UpdateFunc func(cur *Object, rev int64) (Write, error)

// ListOptions selects part of a resource bucket.
type ListOptions struct {
	Prefix     string // only keys with this prefix ("ns/" for one namespace; "" for all)
	StartAfter string // only keys strictly greater than this (continue tokens)
	Limit      int    // at most this many items after Filter (0: no limit)
	Revision   int64  // 0: the current state; > 0: the state exactly as of that revision (from the history, until compacted)
	// Filter is optional; items it rejects are skipped and not counted. The
	// Value it is given is valid only during the call: it must not keep it.
	Filter func(Object) bool
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
	Buffer       int // channel capacity; a watcher whose channel is full is closed with ErrTooSlow (0: store default)
}

// ErrTooSlow is the Err of a watcher that could not keep up.
var ErrTooSlow = errors.New("store: watcher too slow")

// Watcher receives events for one resource.
type Watcher interface {
	// Events delivers events in revision order. It is closed when the watch
	// ends: Stop, ctx done, store closed, or the watcher was too slow.
	Events() <-chan Event
	// Err says why Events was closed (nil after Stop or ctx done).
	Err() error
	// Stop ends the watch. Safe to call more than once.
	Stop()
}
