package main

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestServiceClusterIPRangeFlagIsChecked(t *testing.T) {
	for _, tc := range []struct {
		value, want string
	}{
		{"10.0.0.0/8", "specified --service-cluster-ip-range is too large; for 32-bit addresses, the mask must be >= 12"},
		{"banana", "service-cluster-ip-range[0] is not a valid cidr"},
	} {
		err := run([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "k"), "--service-cluster-ip-range", tc.value})
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("--service-cluster-ip-range %s: %v, want one line with %q", tc.value, err, tc.want)
		}
	}
}
