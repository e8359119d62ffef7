package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestEgressSelectorConfigFileErrorsExit checks that a bad
// --egress-selector-config-file ends the command with exit status 1 and
// kube-apiserver's error on one line.
func TestEgressSelectorConfigFileErrorsExit(t *testing.T) {
	dir := t.TempDir()
	invalid := filepath.Join(dir, "invalid.yaml")
	if err := os.WriteFile(invalid, []byte("apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: GRPC\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, file, stderrLine string
	}{
		{"missing", filepath.Join(dir, "missing.yaml"), "fakeplane: egress-selector-config-file " + filepath.Join(dir, "missing.yaml") + " does not exist"},
		{"invalid", invalid, "fakeplane: failed to validate egress selector configuration: service.connection.transport: Required value: transport must be set for GRPC"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := runCommand(t, "--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "kc"), "--egress-selector-config-file", tc.file)
			if code != 1 {
				t.Errorf("exit code %d, want 1 (stderr %q)", code, stderr)
			}
			if got := strings.TrimSuffix(stderr, "\n"); got != tc.stderrLine {
				t.Errorf("stderr %q, want the one line %q", stderr, tc.stderrLine)
			}
		})
	}
}
