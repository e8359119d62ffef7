package main

import (
	"flag"
	"time"

	"github.com/spf13/pflag"

	metricsv1 "k8s.io/component-base/metrics/api/v1"

	"github.com/fakeplane/fakeplane"
)

// metricsFlagValues are kube-apiserver's metrics flags (component-base's
// MetricsConfiguration) and its etcd metric poll periods.
type metricsFlagValues struct {
	config      metricsv1.MetricsConfiguration
	countPeriod *time.Duration
}

// metricsFlags defines the metrics flags on fs. The list and map flags
// parse as kube-apiserver's pflag values do (comma-separated names;
// metric,label=value,value pairs).
func metricsFlags(fs *flag.FlagSet) *metricsFlagValues {
	m := &metricsFlagValues{}
	upstream := pflag.NewFlagSet("metrics", pflag.ContinueOnError)
	upstream.StringToStringVar(&m.config.AllowListMapping, "allow-metric-labels", nil, "")
	upstream.StringSliceVar(&m.config.DisabledMetrics, "disabled-metrics", nil, "")
	fs.StringVar(&m.config.ShowHiddenMetricsForVersion, "show-hidden-metrics-for-version", "", "The previous version for which you want to show hidden metrics. Only the previous minor version is meaningful, other values will not be allowed. The format is <major>.<minor>, e.g.: '1.16'. (fakeplane serves no hidden metric: the value is checked as kube-apiserver's.)")
	fs.Var(upstreamValue(upstream, "disabled-metrics"), "disabled-metrics", "This flag provides an escape hatch for misbehaving metrics. You must provide the fully qualified metric name in order to disable it. Disclaimer: disabling metrics is higher in precedence than showing hidden metrics.")
	fs.Var(upstreamValue(upstream, "allow-metric-labels"), "allow-metric-labels", "The map from metric-label to value allow-list of this label. The key's format is <MetricName>,<LabelName>. The value's format is <allowed_value>,<allowed_value>...e.g. metric1,label1='v1,v2,v3', metric1,label2='v1,v2,v3' metric2,label1='v1,v2,v3'.")
	fs.StringVar(&m.config.AllowListMappingManifest, "allow-metric-labels-manifest", "", "The path to the manifest file that contains the allow-list mapping. The format of the file is the same as the flag --allow-metric-labels. Note that the flag --allow-metric-labels will override the manifest file.")
	m.countPeriod = fs.Duration("etcd-count-metric-poll-period", time.Minute, "Frequency of polling etcd for number of resources per type. 0 disables the metric collection. (fakeplane counts at each read of /metrics.)")
	fs.Duration("etcd-db-metric-poll-interval", 30*time.Second, "The interval of requests to poll etcd and update metric. 0 disables the metric collection. (fakeplane serves no etcd database size metric: taken, not used.)")
	return m
}

// options returns the options the flags set.
func (m *metricsFlagValues) options() []fakeplane.Option {
	return []fakeplane.Option{fakeplane.WithMetricsConfiguration(m.config), fakeplane.WithEtcdCountMetricPollPeriod(*m.countPeriod)}
}
