package fakeplane_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/apis/apiserver"

	"github.com/fakeplane/fakeplane"
)

// TestEgressSelectorConfigurationErrorsFailStart checks that a bad
// --egress-selector-config-file stops the start with kube-apiserver's
// error, on one line; apiserver.k8s.io/v1 is refused as kube-apiserver
// v1.37 refuses it (only v1beta1 has the kind).
func TestEgressSelectorConfigurationErrorsFailStart(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.yaml")
	for _, tc := range []struct {
		name, config, want string
	}{
		{"missing file", "", "egress-selector-config-file " + missing + " does not exist"},
		{"v1 is not served", "apiVersion: apiserver.k8s.io/v1\nkind: EgressSelectorConfiguration\negressSelections: []\n", `failed to read egress selector config: no kind "EgressSelectorConfiguration" is registered for version "apiserver.k8s.io/v1" in scheme "pkg/runtime/scheme.go:111"`},
		{"unknown field", "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  bogus: 1\n  connection:\n    proxyProtocol: Direct\n", "failed to read egress selector config: strict decoding error: unknown field \"egressSelections[0].bogus\""},
		{"unknown selection", "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: nodes\n  connection:\n    proxyProtocol: Direct\n", "failed to validate egress selector configuration: service.connection: Unsupported value: \"nodes\": supported values: \"cluster\", \"controlplane\", \"etcd\""},
		{"HTTPConnect without a transport", "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: HTTPConnect\n", "failed to validate egress selector configuration: service.connection.transport: Required value: transport must be set for HTTPConnect"},
		{"GRPC over TCP", "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: GRPC\n    transport:\n      tcp:\n        url: https://127.0.0.1:8131\n", "failed to validate egress selector configuration: service.connection.uds: Required value: UDS must be set with GRPC"},
		{"a selection twice", "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: Direct\n- name: cluster\n  connection:\n    proxyProtocol: Direct\n", "failed to validate egress selector configuration: service.connection[1]: Duplicate value: \"cluster\""},
		{"HTTPConnect over TCP with http:// (kube-apiserver crashes on it)", "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n      tcp:\n        url: http://127.0.0.1:8131\n", `failed to setup egress selector: egress selection "cluster": HTTPConnect over TCP to http://127.0.0.1:8131 has no tlsConfig, which kube-apiserver v1.37 needs to dial it (and crashes without)`},
		{"missing client certificate files", "apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n      tcp:\n        url: https://127.0.0.1:8131\n        tlsConfig:\n          clientCert: /nonexistent/c.crt\n          clientKey: /nonexistent/c.key\n", "failed to validate egress selector configuration: [service.connection.tlsConfig.clientCert: Invalid value: \"/nonexistent/c.crt\": TLS client cert does not exist, service.connection.tlsConfig.clientKey: Invalid value: \"/nonexistent/c.key\": TLS client key does not exist]"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			path := missing
			if tc.config != "" {
				path = filepath.Join(t.TempDir(), "egress.yaml")
				if err := os.WriteFile(path, []byte(tc.config), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			cp, err := fakeplane.New(fakeplane.WithEgressSelectorConfigFile(path))
			if err != nil {
				t.Fatal(err)
			}
			err = cp.Start(context.Background())
			defer cp.Stop()
			if err == nil || err.Error() != "fakeplane: "+tc.want {
				t.Errorf("Start: %v\nwant fakeplane: %s", err, tc.want)
			}
			if err != nil && strings.Contains(err.Error(), "\n") {
				t.Errorf("a message of more than one line: %q", err)
			}
		})
	}
}

func TestEgressSelectorGivenAsAValueIsValidated(t *testing.T) {
	t.Parallel()
	cp, err := fakeplane.New(fakeplane.WithEgressSelector(&apiserver.EgressSelectorConfiguration{EgressSelections: []apiserver.EgressSelection{
		{Name: "cluster", Connection: apiserver.Connection{ProxyProtocol: apiserver.ProtocolHTTPConnect}},
	}}))
	if err != nil {
		t.Fatal(err)
	}
	defer cp.Stop()
	const want = "fakeplane: failed to validate egress selector configuration: service.connection.transport: Required value: transport must be set for HTTPConnect"
	if err := cp.Start(context.Background()); err == nil || err.Error() != want {
		t.Errorf("Start: %v, want %s", err, want)
	}
}
