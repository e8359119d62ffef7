package registry

import (
	"testing"
	"time"
)

// An Event rewritten many times within its TTL leaves one entry due, not
// one per write.
func TestEventExpiryKeepsOneDueEntryPerEvent(t *testing.T) {
	now := time.Unix(0, 0)
	e := &EventExpiry{ttl: time.Hour, now: func() time.Time { return now }, last: map[string]eventWrite{}}
	for rev := range int64(10000) {
		e.recordLocked("ns/a", rev+1)
		e.recordLocked("ns/b", rev+1)
	}
	if len(e.due) > 2*len(e.last)+64 {
		t.Fatalf("%d entries due for %d events", len(e.due), len(e.last))
	}
	if w := e.last["ns/a"]; w.rev != 10000 {
		t.Fatalf("last write of ns/a: %+v", w)
	}
	// The entry that comes up first is a live one or a superseded one
	// Expire skips; both events' last writes are still due.
	live := 0
	for _, w := range e.due {
		if e.last[w.key] == w {
			live++
		}
	}
	if live != 2 {
		t.Fatalf("%d live entries, want 2", live)
	}
}
