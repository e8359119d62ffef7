package store

// eventLog is a bounded ring of the most recent events, oldest first. Every
// commit adds exactly one event, so revisions in the log are contiguous: if
// the oldest evicted revision is C, the event with revision r sits at index
// r-C-1. Guarded by Store.mu.
type eventLog struct {
	max   int     // capacity
	buf   []Event // grows up to max, then wraps
	start int     // index in buf of the oldest event
}

// len returns the number of events held.
func (l *eventLog) len() int { return len(l.buf) }

// at returns the i-th oldest event.
func (l *eventLog) at(i int) *Event {
	return &l.buf[(l.start+i)%len(l.buf)]
}

// add appends e. When the log is full it evicts the oldest event and returns
// its revision with ok set.
func (l *eventLog) add(e Event) (evicted int64, ok bool) {
	if len(l.buf) < l.max {
		l.buf = append(l.buf, e)
		return 0, false
	}
	evicted = l.buf[l.start].Revision
	l.buf[l.start] = e
	l.start = (l.start + 1) % len(l.buf)
	return evicted, true
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
