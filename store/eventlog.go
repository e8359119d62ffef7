package store

// eventLog is a bounded ring of the most recent events, oldest first. It
// holds at most max events and at most maxBytes bytes of keys and values
// (see eventSize), evicting the oldest events first; the newest event is
// always kept, however big. Every commit adds exactly one event, so
// revisions in the log are contiguous: if the newest evicted revision is C,
// the event with revision r sits at index r-C-1. Guarded by Store.mu.
type eventLog struct {
	max      int     // most events held
	maxBytes int64   // most bytes held
	buf      []Event // ring; grows (up to max slots) when full
	start    int     // index in buf of the oldest event
	n        int     // number of events held
	bytes    int64   // sum of eventSize over the events held
}

// eventSize is what an event counts against Options.EventLogBytes: its key
// and the bytes of its new and previous values.
func eventSize(e *Event) int64 {
	return int64(len(e.Key) + len(e.Value) + len(e.Prev))
}

// len returns the number of events held.
func (l *eventLog) len() int { return l.n }

// at returns the i-th oldest event.
func (l *eventLog) at(i int) *Event {
	return &l.buf[(l.start+i)%len(l.buf)]
}

// add appends e, then evicts the oldest events while the log holds more
// than max events or maxBytes bytes (but never e itself). When it evicted
// any, it returns the revision of the newest one evicted with ok set.
func (l *eventLog) add(e Event) (evicted int64, ok bool) {
	if l.n == len(l.buf) {
		if l.n < l.max {
			l.grow()
		} else {
			evicted, ok = l.evict(), true
		}
	}
	l.buf[(l.start+l.n)%len(l.buf)] = e
	l.n++
	l.bytes += eventSize(&e)
	for l.n > 1 && l.bytes > l.maxBytes {
		evicted, ok = l.evict(), true
	}
	return evicted, ok
}

// grow enlarges the full ring, keeping its order.
func (l *eventLog) grow() {
	size := min(l.max, max(2*len(l.buf), 64))
	buf := make([]Event, size)
	for i := range l.n {
		buf[i] = *l.at(i)
	}
	l.buf, l.start = buf, 0
}

// evict drops the oldest event, releasing its values, and returns its
// revision. The log must not be empty.
func (l *eventLog) evict() int64 {
	e := &l.buf[l.start]
	rev := e.Revision
	l.bytes -= eventSize(e)
	*e = Event{}
	l.start = (l.start + 1) % len(l.buf)
	l.n--
	return rev
}

// since calls fn, in order, for every logged event of resource with a
// revision in (from, to]. compacted is the current Store.compacted, and from
// must be >= it.
func (l *eventLog) since(compacted, from, to int64, resource string, fn func(*Event)) {
	for i := int(from - compacted); i < l.len(); i++ {
		e := l.at(i)
		if e.Revision > to {
			return
		}
		if e.Resource == resource {
			fn(e)
		}
	}
}
