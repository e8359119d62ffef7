package fakeplane

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	authenticationv1 "k8s.io/api/authentication/v1"
	"k8s.io/apiserver/pkg/server/egressselector"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// FuzzEgressSelectorConfigFile reads fuzzed --egress-selector-config-file
// contents as Start does. Any input either gives a working selector (one
// that ReadEgressSelectorConfiguration and its validation accept) or an
// error, never a panic.
func FuzzEgressSelectorConfigFile(f *testing.F) {
	dir := f.TempDir()
	for _, s := range []string{
		// The Konnectivity setup of the Kubernetes documentation.
		"apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: GRPC\n    transport:\n      uds:\n        udsName: /etc/kubernetes/konnectivity-server/konnectivity-server.socket\n- name: master\n  connection:\n    proxyProtocol: Direct\n- name: etcd\n  connection:\n    proxyProtocol: Direct\n",
		// HTTP CONNECT over TCP, with and without TLS files.
		"apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n      tcp:\n        url: http://127.0.0.1:8131\n",
		"apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: controlplane\n  connection:\n    proxyProtocol: HTTPConnect\n    transport:\n      tcp:\n        url: https://127.0.0.1:8131\n        tlsConfig:\n          caBundle: " + filepath.Join(dir, "missing-ca.crt") + "\n          clientKey: " + filepath.Join(dir, "missing.key") + "\n          clientCert: " + filepath.Join(dir, "missing.crt") + "\n",
		`{"apiVersion":"apiserver.k8s.io/v1beta1","kind":"EgressSelectorConfiguration","egressSelections":[{"name":"cluster","connection":{"proxyProtocol":"Direct"}}]}`,
		"apiVersion: apiserver.k8s.io/v1alpha1\nkind: EgressSelectorConfiguration\negressSelections: []\n",
		"apiVersion: apiserver.k8s.io/v1beta1\nkind: EgressSelectorConfiguration\negressSelections:\n- name: cluster\n  connection:\n    proxyProtocol: GRPC\n    transport:\n      tcp:\n        url: grpc://x\n- name: cluster\n",
		"kind: EgressSelectorConfiguration\n",
	} {
		f.Add([]byte(s))
	}
	file := filepath.Join(dir, "egress.yaml")

	f.Fuzz(func(t *testing.T, data []byte) {
		// The selections name files to read; keep the fuzzer off devices
		// and kernel files (reading /dev/zero never ends).
		for _, p := range []string{"/dev", "/proc", "/sys"} {
			if bytes.Contains(data, []byte(p)) {
				t.Skip("names a device or kernel file")
			}
		}
		if err := os.WriteFile(file, data, 0o600); err != nil {
			t.Fatal(err)
		}
		e, err := newEgress(&options{egressConfigFile: file})
		if err != nil {
			return
		}
		defer e.close()
		cfg, rerr := egressselector.ReadEgressSelectorConfiguration(file)
		if rerr != nil {
			t.Fatalf("newEgress accepted a file ReadEgressSelectorConfiguration refuses: %v", rerr)
		}
		if errs := egressselector.ValidateEgressSelectorConfiguration(cfg); len(errs) > 0 {
			t.Fatalf("newEgress accepted a configuration that does not validate: %v", errs.ToAggregate())
		}
	})
}

// FuzzWriteKubeconfig writes kubeconfigs for fuzzed user and group names.
// Either WriteKubeconfig fails or the file loads with clientcmd and
// authenticates as the user it names, in the group it names.
func FuzzWriteKubeconfig(f *testing.F) {
	cp := Start(f, WithControllers())
	for _, s := range [][2]string{
		{"alice", "devs"}, {"system:serviceaccount:default:bot", "system:serviceaccounts"},
		{"bob@example.com", ""}, {"jane doe", "team:a,b"}, {"élodie", "équipe"},
		{"", "devs"}, {"a: b\n- c", "'quoted'"}, {"\x00", "\xff"},
	} {
		f.Add(s[0], s[1])
	}
	path := filepath.Join(f.TempDir(), "user.kubeconfig")

	f.Fuzz(func(t *testing.T, name, group string) {
		if err := cp.WriteKubeconfig(path, name, group); err != nil {
			return
		}
		raw, err := clientcmd.LoadFromFile(path)
		if err != nil {
			t.Fatalf("kubeconfig for %q does not load: %v", name, err)
		}
		rc, err := clientcmd.NewDefaultClientConfig(*raw, nil).ClientConfig()
		if err != nil {
			t.Fatalf("kubeconfig for %q gives no client configuration: %v", name, err)
		}
		if name == "" {
			// A certificate without a common name authenticates nobody,
			// on kube-apiserver as here.
			return
		}
		// A transport of its own, closed after: client-go caches one per
		// distinct certificate for the life of the process.
		tc, err := rest.TLSConfigFor(rc)
		if err != nil {
			t.Fatalf("kubeconfig for %q: TLS: %v", name, err)
		}
		tr := &http.Transport{TLSClientConfig: tc}
		defer tr.CloseIdleConnections()
		resp, err := (&http.Client{Transport: tr}).Post(rc.Host+"/apis/authentication.k8s.io/v1/selfsubjectreviews", "application/json",
			strings.NewReader(`{"apiVersion":"authentication.k8s.io/v1","kind":"SelfSubjectReview"}`))
		if err != nil {
			t.Fatalf("kubeconfig for %q: SelfSubjectReview: %v", name, err)
		}
		defer resp.Body.Close()
		var ssr authenticationv1.SelfSubjectReview
		if err := json.NewDecoder(resp.Body).Decode(&ssr); err != nil || resp.StatusCode != 201 {
			t.Fatalf("kubeconfig for %q: SelfSubjectReview: %d %v", name, resp.StatusCode, err)
		}
		u := ssr.Status.UserInfo
		if u.Username != name || !slices.Contains(u.Groups, group) || !slices.Contains(u.Groups, "system:authenticated") {
			t.Fatalf("kubeconfig for %q in %q authenticates as %q in %q", name, group, u.Username, u.Groups)
		}
	})
}
