package store

import (
	"context"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
)

// chanSlots is the capacity of a watcher's channel at most: the rest of its
// buffer (WatchOptions.Buffer) is a backlog that grows only when the
// watcher falls behind, so that an idle watcher costs a few KiB, not a
// thousand Event slots.
const chanSlots = 16

// Watchers is the set of a backend's live watchers, by resource, and their
// fan-out: each watcher has a buffer, and an event that finds it full
// closes it with ErrTooSlow. The *Store and etcdstore share it. Its
// methods must be called with the mutex given to NewWatchers held (the
// backend's, which also orders its event log); the watchers' own Stop, Err
// and pumps take that mutex.
//
// A watcher's buffer is its channel (chanSlots events at most) and then a
// backlog, which a goroutine of the watcher's own (its pump) moves into
// the channel as the receiver makes room; the pump runs only while the
// backlog is not empty. Events are queued in order and never dropped
// before the buffer is full: to the receiver, the channel behaves as one
// of the buffer's capacity, except that its len does not count the
// backlog (see Watcher.Sent).
type Watchers struct {
	mu     *sync.Mutex
	logger *slog.Logger
	m      map[string]map[*watcher]struct{} // resource -> live watchers
	// draining are the watchers closed as too slow whose pump still
	// delivers their backlog: CloseAll ends them too.
	draining map[*watcher]struct{}
}

// NewWatchers returns an empty set guarded by mu, warning logger of the
// watchers it closes for being slow.
func NewWatchers(mu *sync.Mutex, logger *slog.Logger) *Watchers {
	return &Watchers{mu: mu, logger: logger, m: make(map[string]map[*watcher]struct{}), draining: make(map[*watcher]struct{})}
}

// Add registers a watcher of the keys of resource with prefix, whose
// buffer holds replay and then room for buffer more events, and which
// stops when ctx is done.
func (ws *Watchers) Add(ctx context.Context, resource, prefix string, replay []*Event, buffer int) Watcher {
	limit := buffer + len(replay)
	w := &watcher{ws: ws, resource: resource, prefix: prefix, limit: limit, ch: make(chan Event, min(limit, chanSlots))}
	if len(replay) > chanSlots {
		w.backlog = make([]Event, 0, len(replay)-chanSlots)
	}
	for _, e := range replay {
		w.queue(*e)
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

// FanOut queues ev for every watcher of its resource whose prefix it has,
// without blocking, closing the ones whose buffer is full.
func (ws *Watchers) FanOut(ev Event) {
	for w := range ws.m[ev.Resource] {
		if !strings.HasPrefix(ev.Key, w.prefix) {
			continue
		}
		if !w.queue(ev) {
			ws.logger.Warn("store: closing slow watcher", "resource", w.resource, "prefix", w.prefix, "revision", ev.Revision)
			ws.close(w, ErrTooSlow)
		}
	}
}

// CloseAll ends every watcher with err, and the pumps of those closed
// before.
func (ws *Watchers) CloseAll(err error) {
	for _, set := range ws.m {
		for w := range set {
			ws.close(w, err)
		}
	}
	for w := range ws.draining {
		w.stopPump()
	}
}

// Resources returns how many resources have live watchers.
func (ws *Watchers) Resources() int { return len(ws.m) }

// close ends w with err. A watcher too slow for its buffer still gets the
// events its backlog holds, then its channel closes; otherwise (Stop, ctx
// done, store closed) the backlog is dropped.
func (ws *Watchers) close(w *watcher, err error) {
	if w.done {
		return
	}
	w.done = true
	w.err = err
	set := ws.m[w.resource]
	delete(set, w)
	if len(set) == 0 {
		delete(ws.m, w.resource)
	}
	if w.pumping && err == ErrTooSlow {
		// Stop, ctx (still armed) or CloseAll end the pump if the
		// receiver does not take the backlog.
		ws.draining[w] = struct{}{}
		return
	}
	w.release()
	if w.pumping {
		w.stopPump()
	} else {
		close(w.ch)
	}
}

// watcher is the Watcher that Watchers.Add returns.
type watcher struct {
	ws       *Watchers
	resource string
	prefix   string
	ch       chan Event
	limit    int          // most events queued and not yet received
	sent     atomic.Int64 // revision of the last event queued

	// Guarded by ws.mu.
	stopCtx func() bool // releases the context.AfterFunc
	done    bool
	err     error
	backlog []Event // queued events that found ch full, oldest first, from head on
	head    int
	sending bool          // the pump holds an event it is sending to ch
	pumping bool          // the pump runs; it closes ch once done
	quit    chan struct{} // closed to make the pump drop the backlog and end
}

// queue adds ev to w's buffer, or reports that the buffer is full.
// Called with ws.mu held.
func (w *watcher) queue(ev Event) bool {
	// Without a backlog, the pump is not sending and only the receiver
	// uses ch: with room in it, the send does not block. Sent is stored
	// first, before the receiver can have the event.
	if w.head == len(w.backlog) && !w.sending && len(w.ch) < cap(w.ch) {
		w.sent.Store(ev.Revision)
		w.ch <- ev
		return true
	}
	queued := len(w.ch) + len(w.backlog) - w.head
	if w.sending {
		queued++
	}
	if queued >= w.limit {
		return false
	}
	w.backlog = append(w.backlog, ev)
	w.sent.Store(ev.Revision)
	if !w.pumping {
		w.pumping = true
		if w.quit == nil {
			w.quit = make(chan struct{})
		}
		go w.pump()
	}
	return true
}

// pump moves the backlog into ch, in order, until it is empty (or the
// watcher is stopped), then ends, closing ch if the watcher is done.
func (w *watcher) pump() {
	mu := w.ws.mu
	mu.Lock()
	defer mu.Unlock()
	for w.head < len(w.backlog) && !w.stopped() {
		ev := w.backlog[w.head]
		w.backlog[w.head] = Event{}
		w.head++
		if w.head == len(w.backlog) {
			// Drained: keep a small backlog's array for the next burst.
			w.backlog, w.head = w.backlog[:0], 0
			if cap(w.backlog) > chanSlots {
				w.backlog = nil
			}
		}
		w.sending = true
		mu.Unlock()
		select {
		case w.ch <- ev:
		case <-w.quit:
		}
		mu.Lock()
		w.sending = false
	}
	w.pumping = false
	clear(w.backlog)
	w.backlog, w.head = nil, 0
	if w.done {
		delete(w.ws.draining, w)
		w.release()
		close(w.ch)
	}
}

// release disarms the context.AfterFunc. Called with ws.mu held.
func (w *watcher) release() {
	if w.stopCtx != nil {
		w.stopCtx()
	}
}

// stopped reports whether stopPump was called. Called with ws.mu held.
func (w *watcher) stopped() bool {
	if w.quit == nil {
		return false
	}
	select {
	case <-w.quit:
		return true
	default:
		return false
	}
}

// stopPump makes the pump, if any, drop the backlog and end. Called with
// ws.mu held.
func (w *watcher) stopPump() {
	if w.quit != nil && !w.stopped() {
		close(w.quit)
	}
}

// Events implements Watcher.
func (w *watcher) Events() <-chan Event { return w.ch }

// Sent implements Watcher.
func (w *watcher) Sent() int64 { return w.sent.Load() }

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
	// A watcher closed as too slow may still be delivering its backlog.
	w.stopPump()
}
