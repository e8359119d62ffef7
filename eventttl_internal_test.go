package fakeplane

import (
	"testing"
	"time"
)

// --event-ttl counts whole seconds, as kube-apiserver's lease TTL
// (uint64(EventTTL.Seconds())): 0 means Events never expire, and etcd
// lengthens a lease to its shortest, 2 s.
func TestEventTTLCountsWholeSeconds(t *testing.T) {
	for _, tc := range []struct {
		name string
		opts []Option
		want time.Duration
	}{
		{name: "default", want: time.Hour},
		{name: "minutes", opts: []Option{WithEventTTL(5 * time.Minute)}, want: 5 * time.Minute},
		{name: "a fraction cut", opts: []Option{WithEventTTL(3500 * time.Millisecond)}, want: 3 * time.Second},
		{name: "under etcd's shortest lease", opts: []Option{WithEventTTL(1500 * time.Millisecond)}, want: 2 * time.Second},
		// Recorded on refplane: --event-ttl=-5s removed an Event within 12 s.
		{name: "negative: etcd's shortest lease", opts: []Option{WithEventTTL(-5 * time.Second)}, want: 2 * time.Second},
		{name: "under a second: none", opts: []Option{WithEventTTL(500 * time.Millisecond)}, want: 0},
		{name: "under a second below zero: none", opts: []Option{WithEventTTL(-500 * time.Millisecond)}, want: 0},
		{name: "zero: none", opts: []Option{WithEventTTL(0)}, want: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := defaultOptions()
			for _, opt := range tc.opts {
				opt(&o)
			}
			if got := o.eventTTL(); got != tc.want {
				t.Fatalf("got %v, want %v", got, tc.want)
			}
		})
	}
}
