package store

import (
	"context"
	"log/slog"
	"strings"
	"sync"
)

// Watchers is the set of a backend's live watchers, by resource, and their
// fan-out: each watcher has a buffered channel, and an event that finds it
// full closes it with ErrTooSlow. The *Store and etcdstore share it. Its
// methods must be called with the mutex given to NewWatchers held (the
// backend's, which also orders its event log); the watchers' own Stop and
// Err take that mutex.
type Watchers struct {
	mu     *sync.Mutex
	logger *slog.Logger
	m      map[string]map[*watcher]struct{} // resource -> live watchers
}

// NewWatchers returns an empty set guarded by mu, warning logger of the
// watchers it closes for being slow.
func NewWatchers(mu *sync.Mutex, logger *slog.Logger) *Watchers {
	return &Watchers{mu: mu, logger: logger, m: make(map[string]map[*watcher]struct{})}
}

// Add registers a watcher of the keys of resource with prefix, whose
// channel holds replay and then room for buffer more events, and which
// stops when ctx is done.
func (ws *Watchers) Add(ctx context.Context, resource, prefix string, replay []*Event, buffer int) Watcher {
	w := &watcher{ws: ws, resource: resource, prefix: prefix, ch: make(chan Event, buffer+len(replay))}
	for _, e := range replay {
		w.ch <- *e
	}
	set := ws.m[resource]
	if set == nil {
		set = make(map[*watcher]struct{})
		ws.m[resource] = set
	}
	set[w] = struct{}{}
	// If ctx is already done, Stop runs in its own goroutine and waits
	// for mu, so stopCtx is set before it reads it.
	w.stopCtx = context.AfterFunc(ctx, w.Stop)
	return w
}

// FanOut sends ev to every watcher of its resource whose prefix it has,
// without blocking, closing the ones that are full.
func (ws *Watchers) FanOut(ev Event) {
	for w := range ws.m[ev.Resource] {
		if !strings.HasPrefix(ev.Key, w.prefix) {
			continue
		}
		select {
		case w.ch <- ev:
		default:
			ws.logger.Warn("store: closing slow watcher", "resource", w.resource, "prefix", w.prefix, "revision", ev.Revision)
			ws.close(w, ErrTooSlow)
		}
	}
}

// CloseAll ends every watcher with err.
func (ws *Watchers) CloseAll(err error) {
	for _, set := range ws.m {
		for w := range set {
			ws.close(w, err)
		}
	}
}

// Resources returns how many resources have live watchers.
func (ws *Watchers) Resources() int { return len(ws.m) }

// close ends w with err.
func (ws *Watchers) close(w *watcher, err error) {
	if w.done {
		return
	}
	w.done = true
	w.err = err
	close(w.ch)
	set := ws.m[w.resource]
	delete(set, w)
	if len(set) == 0 {
		delete(ws.m, w.resource)
	}
	if w.stopCtx != nil {
		w.stopCtx()
	}
}

// watcher is the Watcher that Watchers.Add returns.
type watcher struct {
	ws       *Watchers
	resource string
	prefix   string
	ch       chan Event

	// Guarded by ws.mu.
	stopCtx func() bool // releases the context.AfterFunc
	done    bool
	err     error
}

// Events implements Watcher.
func (w *watcher) Events() <-chan Event { return w.ch }

// Err implements Watcher.
func (w *watcher) Err() error {
	w.ws.mu.Lock()
	defer w.ws.mu.Unlock()
	return w.err
}

// Stop implements Watcher.
func (w *watcher) Stop() {
	w.ws.mu.Lock()
	defer w.ws.mu.Unlock()
	w.ws.close(w, nil)
}
