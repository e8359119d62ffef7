package fakeplane_test

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metricsv1 "k8s.io/component-base/metrics/api/v1"

	"github.com/fakeplane/fakeplane"
)

// TestMetricsConfigurationAsKubeAPIServer checks kube-apiserver's metrics
// flags on /metrics, as refplane answered with them
// (--disabled-metrics=apiserver_request_total,...,
// --allow-metric-labels=apiserver_request_total,verb=GET,LIST,
// --etcd-count-metric-poll-period=0): a disabled metric is not served at
// all (no HELP either), a label value outside its allow list is reported
// as "unexpected", and a poll period of 0 leaves the object gauges out.
// The other control plane in the process serves all of them.
func TestMetricsConfigurationAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	manifest := filepath.Join(t.TempDir(), "allow.yaml")
	if err := os.WriteFile(manifest, []byte(`"apiserver_request_total,resource": "pods,secrets"`+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	configured := fakeplane.Start(t, fakeplane.WithMetricsConfiguration(metricsv1.MetricsConfiguration{
		DisabledMetrics:             []string{"apiserver_request_total"},
		AllowListMapping:            map[string]string{"apiserver_request_duration_seconds,verb": "GET,LIST"},
		ShowHiddenMetricsForVersion: "1.36",
	}), fakeplane.WithEtcdCountMetricPollPeriod(0))
	fromManifest := fakeplane.Start(t, fakeplane.WithMetricsConfiguration(metricsv1.MetricsConfiguration{AllowListMappingManifest: manifest}))
	plain := fakeplane.Start(t)
	ctx := context.Background()
	for _, cp := range []*fakeplane.ControlPlane{configured, fromManifest, plain} {
		cms := clientset(t, cp).CoreV1().ConfigMaps("default")
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "m"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := cms.List(ctx, metav1.ListOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	const (
		postLatency = `apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="configmaps",scope="resource",subresource="",verb="%s",version="v1"} 1`
		listLatency = `apiserver_request_duration_seconds_count{component="apiserver",dry_run="",group="",resource="configmaps",scope="namespace",subresource="",verb="LIST",version="v1"} 1`
		postCount   = `apiserver_request_total{code="201",component="apiserver",dry_run="",group="",resource="%s",scope="resource",subresource="",verb="POST",version="v1"} 1`
	)
	for _, tc := range []struct {
		name          string
		cp            *fakeplane.ControlPlane
		want, notWant []string
	}{
		{"disabled, allow-listed, no object counts", configured,
			[]string{strings.Replace(postLatency, "%s", "unexpected", 1), listLatency, `kubernetes_feature_enabled{name="APIResponseCompression",stage="BETA"} 1`},
			[]string{"apiserver_request_total", "apiserver_storage_objects", "apiserver_resource_objects", strings.Replace(postLatency, "%s", "POST", 1)}},
		{"allow list from a manifest", fromManifest,
			[]string{strings.Replace(postCount, "%s", "unexpected", 1), strings.Replace(postLatency, "%s", "POST", 1), `apiserver_storage_objects{resource="configmaps"}`},
			[]string{strings.Replace(postCount, "%s", "configmaps", 1)}},
		{"defaults", plain,
			[]string{strings.Replace(postCount, "%s", "configmaps", 1), strings.Replace(postLatency, "%s", "POST", 1), `apiserver_resource_objects{group="",resource="configmaps"}`},
			[]string{`"unexpected"`}},
	} {
		got := scrape(t, tc.cp)
		for _, w := range tc.want {
			if !strings.Contains(got, w) {
				t.Errorf("%s: /metrics lacks %s", tc.name, w)
			}
		}
		for _, w := range tc.notWant {
			if strings.Contains(got, w) {
				t.Errorf("%s: /metrics has %s", tc.name, w)
			}
		}
	}
}

// TestMetricsConfigurationIsChecked checks that New refuses what
// kube-apiserver v1.37 refuses of its metrics flags, with its errors
// (recorded from its binary).
func TestMetricsConfigurationIsChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		config metricsv1.MetricsConfiguration
		want   string
	}{
		{metricsv1.MetricsConfiguration{ShowHiddenMetricsForVersion: "1.35"},
			`metrics.showHiddenMetricsForVersion: Invalid value: "1.35": must be omitted or have the value '1.36'; only the previous minor version is allowed`},
		{metricsv1.MetricsConfiguration{DisabledMetrics: []string{"bad name"}},
			`metrics.disabledMetrics: Invalid value: ["bad name"]: must be fully qualified metric names matching "^[a-zA-Z_:][a-zA-Z0-9_:]*$", got "bad name"`},
		{metricsv1.MetricsConfiguration{AllowListMapping: map[string]string{"a": "c"}},
			"metrics.allowListMapping: Invalid value: {\"a\":\"c\"}: must have keys with format `metricName,labelName` where metricName matches \"[a-zA-Z_:][a-zA-Z0-9_:]*\" and labelName matches \"[a-zA-Z_][a-zA-Z0-9_]*\""},
		{metricsv1.MetricsConfiguration{AllowListMappingManifest: "/nonexistent"},
			`metrics.allowListMappingManifest: Invalid value: "/nonexistent": failed to read allow list manifest: open /nonexistent: no such file or directory`},
	} {
		_, err := fakeplane.New(fakeplane.WithMetricsConfiguration(tc.config))
		if want := "fakeplane: " + tc.want; err == nil || err.Error() != want {
			t.Errorf("%+v: %v, want %s", tc.config, err, want)
		}
	}
}
