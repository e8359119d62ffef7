package main

import (
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane/internal/etcdtest"
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

// TestCAFileFlagsFailAsKubeAPIServer: a CA file that is missing or holds
// no certificate stops the start with kube-apiserver's error.
func TestCAFileFlagsFailAsKubeAPIServer(t *testing.T) {
	dir := t.TempDir()
	missing := filepath.Join(dir, "missing.pem")
	garbage := filepath.Join(dir, "garbage.pem")
	if err := os.WriteFile(garbage, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		flag, file, want string
	}{
		{"--client-ca-file", missing, "fakeplane: open " + missing + ": no such file or directory"},
		{"--client-ca-file", garbage, `fakeplane: error loading CA bundle for "client-ca-bundle::` + garbage + `": data does not contain any valid RSA or ECDSA certificates`},
		{"--requestheader-client-ca-file", missing, "fakeplane: open " + missing + ": no such file or directory"},
		{"--requestheader-client-ca-file", garbage, `fakeplane: error loading CA bundle for "request-header::` + garbage + `": data does not contain any valid RSA or ECDSA certificates`},
	} {
		t.Run(tc.flag+" "+filepath.Base(tc.file), func(t *testing.T) {
			err := run([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "k"), tc.flag, tc.file})
			var ue usageError
			if err == nil || err.Error() != tc.want || errors.As(err, &ue) {
				t.Errorf("%v, want %q (not a usage error)", err, tc.want)
			}
		})
	}
}

// TestRuntimeConfigFlagIsChecked: --runtime-config's values are merged
// across the flag's uses, and one kube-apiserver refuses, or one turning a
// served API on or off, stops the start in one line.
func TestRuntimeConfigFlagIsChecked(t *testing.T) {
	for _, tc := range []struct {
		values []string
		want   string
	}{
		{[]string{"apps/v9=true"}, "fakeplane: group version apps/v9 that has not been registered"},
		{[]string{"api/all=true"}, "fakeplane: --runtime-config: turning admissionregistration.k8s.io/v1alpha1 on is not built"},
		{[]string{"batch/v1=true", "batch/v1=false"}, "fakeplane: --runtime-config: turning batch/v1 off is not built"},
	} {
		args := []string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "k")}
		for _, v := range tc.values {
			args = append(args, "--runtime-config", v)
		}
		err := run(args)
		var ue usageError
		if err == nil || !strings.HasPrefix(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") || errors.As(err, &ue) {
			t.Errorf("--runtime-config %q: %v, want one line starting %q (not a usage error)", tc.values, err, tc.want)
		}
	}
}

// TestFlagzListsTheCommandsFlags: the command's /flagz lists every flag,
// given or default, as kube-apiserver's lists its own: values as pflag
// prints them, lists in brackets.
func TestFlagzListsTheCommandsFlags(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "admin.kubeconfig")
	a, b := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	for _, d := range []string{a, b} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", kc, "--requestheader-allowed-names", "front-proxy-client, other",
		"--fixtures", a, "--fixtures", b, "--request-timeout", "90s", "--anonymous-auth=false",
		"--kubelet-timeout", "3s", "--delete-collection-workers", "4", "--lease-reuse-duration-seconds", "30")
	cs := clientForFile(t, kc)
	checkFlagz(t, cs, map[string]string{
		"anonymous-auth":                  "false",
		"authorization-mode":              "[RBAC]",
		"etcd-servers":                    "[]",
		"fixtures":                        "[" + a + "," + b + "]",
		"kubeconfig":                      kc,
		"kubelet-timeout":                 "3s",
		"delete-collection-workers":       "4",
		"lease-reuse-duration-seconds":    "30",
		"kubelet-preferred-address-types": "[InternalIP,ExternalIP,Hostname]",
		"max-requests-inflight":           "400",
		"request-timeout":                 "1m30s",
		"requestheader-allowed-names":     "[front-proxy-client,other]",
		"requestheader-username-headers":  "[X-Remote-User]",
		"service-cluster-ip-range":        "10.0.0.0/24",
		"token-auth-file":                 "",
	})
}

// checkFlagz checks that /flagz lists each flag of want with its value.
func checkFlagz(t *testing.T, cs kubernetes.Interface, want map[string]string) {
	t.Helper()
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/flagz").SetHeader("Accept", "application/json;g=config.k8s.io;v=v1beta1;as=Flagz").DoRaw(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Flags map[string]string }
	if err := json.Unmarshal(body, &got); err != nil {
		t.Fatalf("%v\n%s", err, body)
	}
	for name, w := range want {
		if v, ok := got.Flags[name]; !ok || v != w {
			t.Errorf("/flagz --%s: %q (listed %v), want %q", name, v, ok, w)
		}
	}
}

// TestVerbosityFlag checks that -v is a switch that also takes
// kube-apiserver's --v=N.
func TestVerbosityFlag(t *testing.T) {
	for _, tc := range []struct {
		value string
		want  verbosity
		ok    bool
	}{
		{"true", 1, true}, {"false", 0, true}, {"0", 0, true}, {"1", 1, true}, {"4", 4, true},
		{"x", 0, false}, {"-1", 0, false},
	} {
		var v verbosity
		err := v.Set(tc.value)
		if (err == nil) != tc.ok || v != tc.want {
			t.Errorf("-v=%s: %d, %v; want %d (ok %v)", tc.value, v, err, tc.want, tc.ok)
		}
	}
}

// TestFeatureGatesFlag checks that --feature-gates takes v1.37's defaults
// and refuses the rest at start, as one line and exit status 1.
func TestFeatureGatesFlag(t *testing.T) {
	dir := t.TempDir()
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "k1"), "--feature-gates", "kube:APIResponseCompression=true", "--feature-gates", "APIServerIdentity=true")
	if p.url == "" {
		t.Fatal("not serving")
	}
	code, stderr := runToExit(t, "--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "k2"), "--feature-gates", "Foo=true")
	if code != 1 || stderr != "fakeplane: unrecognized feature gate: Foo\n" {
		t.Errorf("--feature-gates Foo=true: exit %d, %q", code, stderr)
	}
}

// TestEtcdTLSFlags runs the command on an etcd that serves over TLS and
// requires a client certificate, as kubeadm's kube-apiserver runs
// (--etcd-cafile, --etcd-certfile, --etcd-keyfile): it serves, and what it
// writes is in etcd. A certificate without its key fails the start as
// kube-apiserver's does, on one line with exit status 1.
func TestEtcdTLSFlags(t *testing.T) {
	srv := etcdtest.StartTLS(t)
	prefix := etcdtest.Prefix(t)
	dir := t.TempDir()
	kc := filepath.Join(dir, "k")
	startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", kc, "--etcd-servers", strings.Join(srv.Endpoints, ","),
		"--etcd-prefix", prefix, "--etcd-cafile", srv.TLS.CAFile, "--etcd-certfile", srv.TLS.CertFile, "--etcd-keyfile", srv.TLS.KeyFile)
	kubeconfig, err := os.ReadFile(kc)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := clientFor(t, kubeconfig).CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "over-tls"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	etcdHas(ctx, t, srv, prefix+"//configmaps/default/over-tls")

	code, stderr := runToExit(t, "--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "k2"), "--etcd-servers", strings.Join(srv.Endpoints, ","),
		"--etcd-certfile", srv.TLS.CertFile)
	want := "fakeplane: open store: error creating storage factory: KeyFile and CertFile must both be present[key: , cert: " + srv.TLS.CertFile + "]\n"
	if code != 1 || stderr != want {
		t.Errorf("--etcd-certfile alone: exit %d, %q; want 1, %q", code, stderr, want)
	}
}

// etcdHas fails t unless srv (over TLS) holds key.
func etcdHas(ctx context.Context, t *testing.T, srv *etcdtest.Server, key string) {
	t.Helper()
	tlsConfig, err := srv.TLS.ClientConfig()
	if err != nil {
		t.Fatal(err)
	}
	cli, err := clientv3.New(clientv3.Config{Endpoints: srv.Endpoints, TLS: tlsConfig, DialTimeout: 10 * time.Second, Logger: zap.NewNop()})
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	if resp, err := cli.Get(ctx, key); err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("etcd get of %s: %v, %v; want it there", key, resp, err)
	}
}

// TestStorageBackendFlag takes kube-apiserver's one storage backend,
// etcd3, and refuses the others with its error, exit status 1.
func TestStorageBackendFlag(t *testing.T) {
	dir := t.TempDir()
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "k1"), "--storage-backend", "etcd3",
		"--etcd-healthcheck-timeout", "1s", "--etcd-readycheck-timeout", "1s")
	if p.url == "" {
		t.Fatal("not serving")
	}
	for _, backend := range []string{"etcd2", "bbolt"} {
		code, stderr := runToExit(t, "--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "k2"), "--storage-backend", backend)
		if want := "fakeplane: --storage-backend invalid, allowed values: etcd3. If not specified, it will default to 'etcd3'\n"; code != 1 || stderr != want {
			t.Errorf("--storage-backend %s: exit %d, %q; want 1, %q", backend, code, stderr, want)
		}
	}
}

// TestLoggingAndLivezFlags checks --logging-format (json writes JSON
// lines), and kube-apiserver's errors (recorded from its binary) for the
// logging flags (all at once, the alpha ones forbidden while
// LoggingAlphaOptions is off), --livez-grace-period and
// --storage-initialization-timeout, exit status 1.
func TestLoggingAndLivezFlags(t *testing.T) {
	dir := t.TempDir()
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "k1"), "-v", "--logging-format", "json",
		"--log-flush-frequency", "1s", "--livez-grace-period", "10s", "--log-text-split-stream=false", "--log-json-info-buffer-size", "0",
		"--storage-initialization-timeout", "30s", "--storage-media-type", "application/json", "--peer-ca-file", filepath.Join(dir, "missing.crt"), "--peer-advertise-ip", "192.0.2.1")
	lines := strings.Split(strings.TrimSpace(p.stderr.String()), "\n")
	var first map[string]any
	if err := json.Unmarshal([]byte(lines[0]), &first); err != nil || first["msg"] == nil || first["level"] == nil {
		t.Fatalf("--logging-format json: the first log line %q is not a JSON record with msg and level (%v)", lines[0], err)
	}
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--logging-format", "foo"}, `format: Invalid value: "foo": Unsupported log format`},
		{[]string{"--log-flush-frequency", "0"}, `flushFrequency: Invalid value: "0s": Must be greater than zero`},
		{[]string{"--livez-grace-period", "-1s"}, "--livez-grace-period can not be a negative value"},
		{[]string{"--storage-initialization-timeout", "-1s"}, "--storage-initialization-timeout can not be negative value"},
		{[]string{"--coordinated-leadership-lease-duration", "-1s"}, "--coordinated-leadership-lease-duration must be greater than --coordinated-leadership-renew-deadline"},
		{[]string{"--coordinated-leadership-renew-deadline", "1s", "--coordinated-leadership-retry-period", "1s"},
			"--coordinated-leadership-renew-deadline must be greater than --coordinated-leadership-retry-period"},
		{[]string{"--storage-media-type", "application/foo"}, `--storage-media-type "application/foo" invalid, allowed values: application/json, application/vnd.kubernetes.protobuf, application/yaml`},
		{[]string{"--log-json-split-stream"}, "options.json.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled"},
		{[]string{"--log-text-split-stream", "--log-text-info-buffer-size", "1Ki"},
			"[options.text.splitStream: Forbidden: Feature LoggingAlphaOptions is disabled, options.text.infoBufferSize: Forbidden: Feature LoggingAlphaOptions is disabled]"},
		{[]string{"--log-flush-frequency", "0", "--logging-format", "x"},
			`[flushFrequency: Invalid value: "0s": Must be greater than zero, format: Invalid value: "x": Unsupported log format]`},
	} {
		code, stderr := runToExit(t, append([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "k2")}, tc.args...)...)
		if want := "fakeplane: " + tc.want + "\n"; code != 1 || stderr != want {
			t.Errorf("%v: exit %d, %q; want 1, %q", tc.args, code, stderr, want)
		}
	}
}
