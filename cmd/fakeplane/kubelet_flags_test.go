package main

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestKubeletClientFlagsAreChecked: the --kubelet-* flags are usage
// errors (exit status 2, one line) when they do not fit together or name
// an unknown address type, and a missing file fails the start (status 1).
func TestKubeletClientFlagsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		code int
		line string
	}{
		{"certificate without key", []string{"--kubelet-client-certificate", "c.crt"}, 2, "fakeplane: --kubelet-client-certificate and --kubelet-client-key go together"},
		{"key without certificate", []string{"--kubelet-client-key", "c.key"}, 2, "fakeplane: --kubelet-client-certificate and --kubelet-client-key go together"},
		{"unknown address type", []string{"--kubelet-preferred-address-types", "InternalIP,Foo"}, 2,
			`fakeplane: --kubelet-preferred-address-types: unknown address type "Foo" (Hostname, InternalIP, ExternalIP, InternalDNS, ExternalDNS)`},
		{"missing CA file", []string{"--kubelet-certificate-authority", "/nonexistent/ca.crt"}, 1,
			"fakeplane: kubelet certificate authority: open /nonexistent/ca.crt: no such file or directory"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "kc")}, tc.args...)
			code, _, stderr := runCommand(t, args...)
			if code != tc.code || strings.TrimSuffix(stderr, "\n") != tc.line {
				t.Errorf("exit %d stderr %q, want %d %q", code, stderr, tc.code, tc.line)
			}
		})
	}
}
