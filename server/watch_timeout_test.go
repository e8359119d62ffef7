package server

import (
	"testing"
	"time"

	"k8s.io/utils/ptr"
)

func TestWatchTimeoutIsKubeAPIServers(t *testing.T) {
	for _, tc := range []struct {
		name           string
		timeoutSeconds *int64
		min            time.Duration
		lo, hi         time.Duration // want lo <= got < hi, or got == lo when hi is 0
	}{
		{name: "timeoutSeconds given", timeoutSeconds: ptr.To[int64](7), min: time.Minute, lo: 7 * time.Second},
		{name: "timeoutSeconds given with no minimum", timeoutSeconds: ptr.To[int64](7), lo: 7 * time.Second},
		{name: "none given: between the minimum and twice it", min: time.Minute, lo: time.Minute, hi: 2 * time.Minute},
		{name: "zero given: as none", timeoutSeconds: ptr.To[int64](0), min: time.Minute, lo: time.Minute, hi: 2 * time.Minute},
		{name: "none given and no minimum: no timeout", lo: 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for range 100 {
				got := watchTimeout(tc.timeoutSeconds, tc.min)
				if tc.hi == 0 && got != tc.lo || tc.hi != 0 && (got < tc.lo || got >= tc.hi) {
					t.Fatalf("got %v, want [%v, %v)", got, tc.lo, tc.hi)
				}
			}
		})
	}
}
