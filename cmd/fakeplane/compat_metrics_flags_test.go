package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// TestVersionMetricsAndCacheFlags runs the command with kube-apiserver's
// version, metrics, watch cache and deprecated flags at values
// kube-apiserver takes: it prints kube-apiserver's notice for each
// deprecated flag, /version reports the minimum compatibility version,
// /metrics leaves out the disabled metric and the object gauges, and
// /flagz lists the values as refplane's did.
func TestVersionMetricsAndCacheFlags(t *testing.T) {
	dir := t.TempDir()
	kc := filepath.Join(dir, "admin.kubeconfig")
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", kc,
		"--emulated-version", "kube=1.37", "--min-compatibility-version", "1.35",
		"--disabled-metrics", "apiserver_request_total", "--allow-metric-labels", "apiserver_request_duration_seconds,verb=GET,LIST",
		"--show-hidden-metrics-for-version", "1.36", "--etcd-count-metric-poll-period", "0", "--etcd-db-metric-poll-interval", "0",
		"--vmodule", "foo=2", "--watch-cache-sizes", "configmaps#100,events#0", "--enable-aggregator-routing",
		"--apiserver-count", "3", "--default-watch-cache-size", "0", "--kubelet-read-only-port", "1", "--audit-webhook-batch-initial-backoff", "5s")
	for _, notice := range []string{
		"Flag --apiserver-count has been deprecated, apiserver-count is deprecated and will be removed in a future version.\n",
		"Flag --audit-webhook-batch-initial-backoff has been deprecated, Deprecated, use --audit-webhook-initial-backoff instead.\n",
		"Flag --default-watch-cache-size has been deprecated, Watch caches are sized automatically. This flag is no-op and it will be removed in a future version.\n",
		"Flag --kubelet-read-only-port has been deprecated, kubelet-read-only-port is deprecated and will be removed.\n",
	} {
		if !strings.Contains(p.stderr.String(), notice) {
			t.Errorf("stderr lacks %q:\n%s", notice, p.stderr.String())
		}
	}
	cs := clientForFile(t, kc)
	v, err := cs.Discovery().ServerVersion()
	if err != nil || v.MinCompatibilityMinor != "35" || v.EmulationMinor != "37" {
		t.Errorf("/version: %+v, %v; want minimum compatibility 1.35, emulation 1.37", v, err)
	}
	ctx := context.Background()
	if _, err := cs.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	metrics, err := cs.Discovery().RESTClient().Get().AbsPath("/metrics").DoRaw(ctx)
	if err != nil {
		t.Fatal(err)
	}
	for _, absent := range []string{"apiserver_request_total", "apiserver_storage_objects", "apiserver_resource_objects"} {
		if strings.Contains(string(metrics), absent) {
			t.Errorf("/metrics has %s", absent)
		}
	}
	if want := `apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="namespaces",scope="resource",subresource="",verb="GET",version="v1"}`; !strings.Contains(string(metrics), want) {
		t.Errorf("/metrics lacks %s", want)
	}
	checkFlagz(t, cs, map[string]string{
		"allow-metric-labels":                 `["apiserver_request_duration_seconds,verb=GET,LIST"]`,
		"disabled-metrics":                    "[apiserver_request_total]",
		"emulated-version":                    "[kube=1.37]",
		"min-compatibility-version":           "[1.35]",
		"watch-cache-sizes":                   "[configmaps#100,events#0]",
		"watch-cache":                         "true",
		"vmodule":                             "foo=2",
		"apiserver-count":                     "3",
		"audit-webhook-batch-initial-backoff": "5s",
		"audit-webhook-initial-backoff":       "5s",
		"enable-aggregator-routing":           "true",
	})
}

// TestVersionMetricsAndCacheFlagsAreChecked checks that the command
// refuses what kube-apiserver refuses of these flags with its errors
// (recorded from its binary), exit status 1, and what fakeplane does not
// build (an earlier emulated version, the watch cache turned off) with a
// clear line; a value a flag cannot parse is a usage error, exit status 2.
func TestVersionMetricsAndCacheFlagsAreChecked(t *testing.T) {
	dir := t.TempDir()
	for _, tc := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"--emulated-version", "1.30"}, 1, "[emulation version 1.30 is not between [1.34, 1.37.0], minCompatibilityVersion version 1.34 is not between [1.34, 1.30]]"},
		{[]string{"--emulated-version", "1.38"}, 1, "emulation version 1.38 is not between [1.34, 1.37.0]"},
		{[]string{"--emulated-version", "x"}, 1, `could not parse "x" as version`},
		{[]string{"--emulated-version", "kube-apiserver=1.36"}, 1, "component not registered: kube-apiserver"},
		{[]string{"--emulated-version", "1.36"}, 1, "--emulated-version=1.36 is not built: fakeplane emulates kube-apiserver v1.37.2 alone, not an earlier version's APIs and feature gates"},
		{[]string{"--min-compatibility-version", "1.33"}, 1, "minCompatibilityVersion version 1.33 is not between [1.34, 1.37]"},
		{[]string{"--emulation-forward-compatible"}, 1, "ServerRunOptions.EmulationForwardCompatible cannot be set to true if the emulation version is the same as the binary version"},
		{[]string{"--runtime-config-emulation-forward-compatible"}, 1, "ServerRunOptions.RuntimeConfigEmulationForwardCompatible cannot be set to true if the emulation version is the same as the binary version"},
		{[]string{"--show-hidden-metrics-for-version", "1.37"}, 1, `metrics.showHiddenMetricsForVersion: Invalid value: "1.37": must be omitted or have the value '1.36'; only the previous minor version is allowed`},
		{[]string{"--allow-metric-labels", "bad"}, 2, `invalid value "bad" for flag -allow-metric-labels: bad must be formatted as key=value (see --help)`},
		{[]string{"--vmodule", "bad"}, 2, `invalid value "bad" for flag -vmodule: "bad" does not have the pattern=N format (see --help)`},
		{[]string{"--vmodule", "foo=1", "--logging-format", "json"}, 1, "vmodule: Forbidden: Only supported for text log format"},
		{[]string{"--watch-cache-sizes", "bad"}, 1, "invalid value of watch cache size: bad"},
		{[]string{"--watch-cache-sizes", "configmaps#x"}, 1, "invalid size of watch cache size: configmaps#x"},
		{[]string{"--watch-cache-sizes", "configmaps#-1"}, 1, "watch cache size cannot be negative: configmaps#-1"},
		{[]string{"--watch-cache-sizes", "pods#0"}, 1, "--watch-cache-sizes=pods#0 is not built: a size of 0 turns kube-apiserver's watch cache off for pods, and fakeplane serves lists and watches as kube-apiserver does with it on"},
		{[]string{"--watch-cache=false"}, 1, "--watch-cache=false is not built: fakeplane serves lists and watches as kube-apiserver does with its watch cache on"},
		{[]string{"--apiserver-count", "0"}, 1, "--apiserver-count should be a positive number, but value '0' provided"},
		{[]string{"--tracing-config-file", "/nonexistent/tracing.yaml"}, 1, "tracing-config-file /nonexistent/tracing.yaml does not exist"},
	} {
		code, stderr := runToExit(t, append([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "k")}, tc.args...)...)
		lines := strings.Split(strings.TrimSpace(stderr), "\n")
		if want := "fakeplane: " + tc.want; code != tc.code || lines[len(lines)-1] != want {
			t.Errorf("%v: exit %d, %q; want %d, %q", tc.args, code, stderr, tc.code, want)
		}
	}
}
