package store

import "sort"

// EventLog is a bounded ring of the most recent events, oldest first, that
// a backend replays to watches started at a past revision. It holds at most
// Max events and at most MaxBytes bytes of keys and values (see eventSize),
// evicting the oldest events first; the newest event is always kept,
// however big. It is not safe for concurrent use: its backend guards it
// (*Store with Store.mu, etcdstore with its own).
//
// With HotBytes > 0 only the newest events keep their bytes: once the
// values and previous values of the events that do add up to more than
// HotBytes, the oldest of them turn cold, dropping their Value and Prev (a
// Deleted event keeps its Value, the final state its writer passed, which
// nothing else records). A cold event keeps what identifies it (type,
// resource, key, revisions), and its backend reads its bytes back when it
// replays it (*Store from its file, see coldlog.go). The newest event is
// always hot. A cold event still counts its original size against
// MaxBytes, so cooling never changes which events the log holds.
type EventLog struct {
	Max      int   // most events held
	MaxBytes int64 // most bytes held
	HotBytes int64 // most bytes of values kept in memory (0: all)
	buf      []Event
	sizes    []int64 // with HotBytes, eventSize of each slot of buf as added
	start    int     // index in buf of the oldest event
	n        int     // number of events held
	bytes    int64   // sum of eventSize over the events held, as added
	cold     int     // the oldest cold events held are cold
	hot      int64   // sum of valueSize over the hot events
}

// eventSize is what an event counts against EventLog.MaxBytes: its key and
// the bytes of its new and previous values.
func eventSize(e *Event) int64 {
	return int64(len(e.Key) + len(e.Value) + len(e.Prev))
}

// valueSize is what a hot event counts against EventLog.HotBytes.
func valueSize(e *Event) int64 {
	return int64(len(e.Value) + len(e.Prev))
}

// Len returns the number of events held.
func (l *EventLog) Len() int { return l.n }

// At returns the i-th oldest event.
func (l *EventLog) At(i int) *Event {
	return &l.buf[(l.start+i)%len(l.buf)]
}

// Cold reports whether the i-th oldest event is cold: its Prev, and its
// Value unless it is Deleted, were dropped (they are nil).
func (l *EventLog) Cold(i int) bool { return i < l.cold }

// Add appends e, whose revision must be above every event's held, then
// evicts the oldest events while the log holds more than Max events or
// MaxBytes bytes (but never e itself). When it evicted any, it returns the
// revision of the newest one evicted with ok set. With HotBytes, it then
// turns the oldest hot events cold while the hot ones hold more than
// HotBytes (but never e).
func (l *EventLog) Add(e Event) (evicted int64, ok bool) {
	if l.n == len(l.buf) {
		if l.n < l.Max {
			l.grow()
		} else {
			evicted, ok = l.evict(), true
		}
	}
	size := eventSize(&e)
	at := (l.start + l.n) % len(l.buf)
	l.buf[at] = e
	if l.sizes != nil {
		l.sizes[at] = size
	}
	l.n++
	l.bytes += size
	l.hot += valueSize(&e)
	for l.n > 1 && l.bytes > l.MaxBytes {
		evicted, ok = l.evict(), true
	}
	for l.HotBytes > 0 && l.hot > l.HotBytes && l.cold < l.n-1 {
		l.cool()
	}
	return evicted, ok
}

// grow enlarges the full ring, keeping its order.
func (l *EventLog) grow() {
	size := min(l.Max, max(2*len(l.buf), 64))
	buf := make([]Event, size)
	var sizes []int64
	if l.HotBytes > 0 {
		sizes = make([]int64, size)
	}
	for i := range l.n {
		j := (l.start + i) % len(l.buf)
		buf[i] = l.buf[j]
		if sizes != nil {
			sizes[i] = l.sizes[j]
		}
	}
	l.buf, l.sizes, l.start = buf, sizes, 0
}

// cool turns the oldest hot event cold.
func (l *EventLog) cool() {
	e := l.At(l.cold)
	l.hot -= valueSize(e)
	e.Prev = nil
	if e.Type != Deleted {
		e.Value = nil
	}
	l.cold++
}

// evict drops the oldest event, releasing its values, and returns its
// revision. The log must not be empty.
func (l *EventLog) evict() int64 {
	e := &l.buf[l.start]
	rev := e.Revision
	if l.cold > 0 {
		l.cold--
	} else {
		l.hot -= valueSize(e)
	}
	if l.sizes != nil {
		l.bytes -= l.sizes[l.start]
	} else {
		l.bytes -= eventSize(e)
	}
	*e = Event{}
	l.start = (l.start + 1) % len(l.buf)
	l.n--
	return rev
}

// Since calls fn, in order, for every event held with a revision in
// (from, to]. Revisions may have gaps (etcd counts every writer's).
func (l *EventLog) Since(from, to int64, fn func(*Event)) {
	i := sort.Search(l.n, func(i int) bool { return l.At(i).Revision > from })
	l.walk(i, to, func(_ int, e *Event) { fn(e) })
}

// sinceContiguous is Since for a log whose revisions have no gaps (the
// bbolt store's: every commit adds one event): the event after from sits
// at index from-compacted, compacted being the newest evicted revision (and
// from >= compacted). fn also gets the index of the event.
func (l *EventLog) sinceContiguous(compacted, from, to int64, fn func(int, *Event)) {
	l.walk(int(from-compacted), to, fn)
}

// walk calls fn for the events from index i on while their revision is at
// most to.
func (l *EventLog) walk(i int, to int64, fn func(int, *Event)) {
	for ; i < l.n; i++ {
		e := l.At(i)
		if e.Revision > to {
			return
		}
		fn(i, e)
	}
}
