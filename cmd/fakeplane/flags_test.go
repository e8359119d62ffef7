package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/fakeplane/fakeplane/internal/pki"
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

func TestFrontProxyFlagsAreChecked(t *testing.T) {
	dir := t.TempDir()
	ca, err := pki.NewCA("proxy-ca")
	if err != nil {
		t.Fatal(err)
	}
	caFile := filepath.Join(dir, "ca.crt")
	if err := os.WriteFile(caFile, ca.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name  string
		args  []string
		want  string
		usage bool
	}{
		{"a cert without its key", []string{"--proxy-client-cert-file", caFile}, "--proxy-client-cert-file and --proxy-client-key-file go together", true},
		{"a key without its cert", []string{"--proxy-client-key-file", caFile}, "--proxy-client-cert-file and --proxy-client-key-file go together", true},
		{"a pair that is not one", []string{"--proxy-client-cert-file", caFile, "--proxy-client-key-file", caFile}, "proxy client certificate", false},
		{"uid headers without X-Remote-Uid", []string{"--requestheader-client-ca-file", caFile, "--requestheader-uid-headers", "X-Uid"},
			"--requestheader-uid-headers is set without specifying the standard X-Remote-Uid header", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "k")}, tc.args...)
			err := run(args)
			var ue usageError
			if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &ue) != tc.usage {
				t.Errorf("%v, want an error with %q (usage error: %v)", err, tc.want, tc.usage)
			}
		})
	}
}
