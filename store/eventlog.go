package store

import "sort"

// EventLog is a bounded ring of the most recent events, oldest first, that
// a backend replays to watches started at a past revision. It holds at most
// Max events and at most MaxBytes bytes of keys and values (see eventSize),
// evicting the oldest events first; the newest event is always kept,
// however big. It is not safe for concurrent use: its backend guards it
// (*Store with Store.mu, etcdstore with its own).
type EventLog struct {
	Max      int     // most events held
	MaxBytes int64   // most bytes held
	buf      []Event // ring; grows (up to Max slots) when full
	start    int     // index in buf of the oldest event
	n        int     // number of events held
	bytes    int64   // sum of eventSize over the events held
}

// eventSize is what an event counts against EventLog.MaxBytes: its key and
// the bytes of its new and previous values.
func eventSize(e *Event) int64 {
	return int64(len(e.Key) + len(e.Value) + len(e.Prev))
}

// Len returns the number of events held.
func (l *EventLog) Len() int { return l.n }

// At returns the i-th oldest event.
func (l *EventLog) At(i int) *Event {
	return &l.buf[(l.start+i)%len(l.buf)]
}

// Add appends e, whose revision must be above every event's held, then
// evicts the oldest events while the log holds more than Max events or
// MaxBytes bytes (but never e itself). When it evicted any, it returns the
// revision of the newest one evicted with ok set.
func (l *EventLog) Add(e Event) (evicted int64, ok bool) {
	if l.n == len(l.buf) {
		if l.n < l.Max {
			l.grow()
		} else {
			evicted, ok = l.evict(), true
		}
	}
	l.buf[(l.start+l.n)%len(l.buf)] = e
	l.n++
	l.bytes += eventSize(&e)
	for l.n > 1 && l.bytes > l.MaxBytes {
		evicted, ok = l.evict(), true
	}
	return evicted, ok
}

// grow enlarges the full ring, keeping its order.
func (l *EventLog) grow() {
	size := min(l.Max, max(2*len(l.buf), 64))
	buf := make([]Event, size)
	for i := range l.n {
		buf[i] = *l.At(i)
	}
	l.buf, l.start = buf, 0
}

// evict drops the oldest event, releasing its values, and returns its
// revision. The log must not be empty.
func (l *EventLog) evict() int64 {
	e := &l.buf[l.start]
	rev := e.Revision
	l.bytes -= eventSize(e)
	*e = Event{}
	l.start = (l.start + 1) % len(l.buf)
	l.n--
	return rev
}

// Since calls fn, in order, for every event held with a revision in
// (from, to]. Revisions may have gaps (etcd counts every writer's).
func (l *EventLog) Since(from, to int64, fn func(*Event)) {
	i := sort.Search(l.n, func(i int) bool { return l.At(i).Revision > from })
	l.walk(i, to, fn)
}

// sinceContiguous is Since for a log whose revisions have no gaps (the
// bbolt store's: every commit adds one event): the event after from sits
// at index from-compacted, compacted being the newest evicted revision (and
// from >= compacted).
func (l *EventLog) sinceContiguous(compacted, from, to int64, fn func(*Event)) {
	l.walk(int(from-compacted), to, fn)
}

// walk calls fn for the events from index i on while their revision is at
// most to.
func (l *EventLog) walk(i int, to int64, fn func(*Event)) {
	for ; i < l.n; i++ {
		e := l.At(i)
		if e.Revision > to {
			return
		}
		fn(e)
	}
}
