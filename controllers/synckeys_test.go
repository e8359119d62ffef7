package controllers

import (
	"testing"
	"time"
)

// TestKeyRetriesFollowUpstreamsRateLimiters checks the delays after each
// failure in a row of one key, for each controller's schedule.
func TestKeyRetriesFollowUpstreamsRateLimiters(t *testing.T) {
	ms := time.Millisecond
	tests := []struct {
		name     string
		retries  func() *keyRetries
		failures int
		// want are the delays of the first failures, then of the last.
		want []time.Duration
		last time.Duration
	}{
		{name: "most controllers: 5 ms doubling to 1000 s", retries: newKeyRetries, failures: 70,
			want: []time.Duration{5 * ms, 10 * ms, 20 * ms, 40 * ms, 80 * ms}, last: 1000 * time.Second},
		{name: "the job controller: 1 s doubling to 1 min", retries: func() *keyRetries { return newKeyRetriesWithin(jobKeyRetryBase, jobKeyRetryMax) }, failures: 70,
			want: []time.Duration{time.Second, 2 * time.Second, 4 * time.Second}, last: time.Minute},
		{name: "the deployment controller: no retry after 15", retries: func() *keyRetries { r := newKeyRetries(); r.limit = deploymentMaxRetries; return r }, failures: 16,
			want: []time.Duration{5 * ms, 10 * ms}, last: 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			r := tt.retries()
			clock := time.Now()
			r.now = func() time.Time { return clock }
			var got []time.Duration
			for range tt.failures {
				dirty := map[string]bool{"ns/a": true}
				r.failed(dirty, "ns/a")
				if dirty["ns/a"] {
					t.Fatal("a failed key stayed dirty")
				}
				at, ok := r.at["ns/a"]
				var d time.Duration
				if ok {
					d = at.Sub(clock)
					clock = at
					r.due(dirty)
					if !dirty["ns/a"] {
						t.Fatal("a key was not dirty at its retry time")
					}
				}
				got = append(got, d)
			}
			for i, w := range tt.want {
				if got[i] != w {
					t.Errorf("delay after failure %d: %v, want %v (all: %v)", i+1, got[i], w, got)
				}
			}
			// Each delay doubles the one before, up to the bound.
			for i := 1; i < len(got) && got[i] != 0; i++ {
				if w := min(2*got[i-1], r.max); got[i] != w {
					t.Errorf("delay after failure %d: %v, want %v (all: %v)", i+1, got[i], w, got)
				}
			}
			if l := got[len(got)-1]; l != tt.last {
				t.Errorf("delay after failure %d: %v, want %v", len(got), l, tt.last)
			}
		})
	}
}
