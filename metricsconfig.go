package fakeplane

import (
	"fmt"
	"os"
	"path/filepath"
	"time"

	"k8s.io/apimachinery/pkg/util/validation/field"
	metricsv1 "k8s.io/component-base/metrics/api/v1"
	"sigs.k8s.io/yaml"

	"github.com/blang/semver/v4"

	"github.com/fakeplane/fakeplane/server"
)

// WithMetricsConfiguration is kube-apiserver's metrics flags, for this
// control plane's /metrics alone: --disabled-metrics (those metrics are not
// served), --allow-metric-labels or --allow-metric-labels-manifest (a label
// value outside its metric's allow list is reported as "unexpected") and
// --show-hidden-metrics-for-version (fakeplane serves no hidden metric, so
// it only checks it). New checks it as kube-apiserver does, with its
// errors.
func WithMetricsConfiguration(c metricsv1.MetricsConfiguration) Option {
	return func(o *options) { o.metrics = c }
}

// WithEtcdCountMetricPollPeriod is kube-apiserver's
// --etcd-count-metric-poll-period: 0 turns off the stored-object gauges
// (apiserver_storage_objects and apiserver_resource_objects are not
// served). Any other period keeps them; fakeplane counts the objects at
// each read of /metrics, where kube-apiserver counts them once a period
// (default a minute), so its figures may lag behind.
func WithEtcdCountMetricPollPeriod(d time.Duration) Option {
	return func(o *options) { o.noObjectCounts = d == 0 }
}

// serverMetricsConfig checks c as kube-apiserver v1.37 does and turns it
// into the server's: the allow lists come from the flag, else from the
// manifest file.
func serverMetricsConfig(c metricsv1.MetricsConfiguration, noObjectCounts bool) (server.MetricsConfig, error) {
	binary := server.KubeEffectiveVersion().BinaryVersion()
	current := semver.Version{Major: uint64(binary.Major()), Minor: uint64(binary.Minor()), Patch: uint64(binary.Patch())}
	if err := metricsv1.Validate(&c, current, field.NewPath("metrics")).ToAggregate(); err != nil {
		return server.MetricsConfig{}, err
	}
	cfg := server.MetricsConfig{Disabled: c.DisabledMetrics, LabelAllowLists: c.AllowListMapping, NoObjectCounts: noObjectCounts}
	if c.AllowListMapping == nil && c.AllowListMappingManifest != "" {
		// Validate read and parsed the manifest already.
		data, err := os.ReadFile(filepath.Clean(c.AllowListMappingManifest))
		if err != nil {
			return server.MetricsConfig{}, fmt.Errorf("failed to read allow list manifest: %w", err)
		}
		if err := yaml.Unmarshal(data, &cfg.LabelAllowLists); err != nil {
			return server.MetricsConfig{}, fmt.Errorf("failed to parse allow list manifest: %w", err)
		}
	}
	return cfg, nil
}
