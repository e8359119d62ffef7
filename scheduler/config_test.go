package scheduler

import (
	"strings"
	"testing"

	configv1 "k8s.io/kube-scheduler/config/v1"
	"k8s.io/utils/ptr"
)

func TestLoadConfigAppliesKubeSchedulerDefaults(t *testing.T) {
	cfg, err := LoadConfig([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"))
	if err != nil {
		t.Fatal(err)
	}
	if len(cfg.Profiles) != 1 || ptr.Deref(cfg.Profiles[0].SchedulerName, "") != "default-scheduler" {
		t.Fatalf("profiles %+v, want one default-scheduler", cfg.Profiles)
	}
	le := cfg.LeaderElection
	if !ptr.Deref(le.LeaderElect, false) || le.ResourceLock != "leases" || le.ResourceNamespace != "kube-system" || le.ResourceName != "kube-scheduler" ||
		le.LeaseDuration.Duration.Seconds() != 15 || le.RenewDeadline.Duration.Seconds() != 10 || le.RetryPeriod.Duration.Seconds() != 2 {
		t.Errorf("leaderElection %+v", le)
	}
	if *cfg.PodInitialBackoffSeconds != 1 || *cfg.PodMaxBackoffSeconds != 10 || *cfg.PercentageOfNodesToScore != 0 || *cfg.Parallelism != 16 {
		t.Errorf("backoff %d/%d, percentage %d, parallelism %d", *cfg.PodInitialBackoffSeconds, *cfg.PodMaxBackoffSeconds, *cfg.PercentageOfNodesToScore, *cfg.Parallelism)
	}
	var names []string
	for _, p := range cfg.Profiles[0].Plugins.MultiPoint.Enabled {
		names = append(names, p.Name)
	}
	if got := strings.Join(names, ","); got != "SchedulingGates,PrioritySort,NodeName,NodeUnschedulable,TaintToleration,NodeAffinity,NodePorts,NodeResourcesFit,VolumeRestrictions,NodeVolumeLimits,VolumeBinding,VolumeZone,PodTopologySpread,InterPodAffinity,DynamicResources,DefaultPreemption,NodeResourcesBalancedAllocation,ImageLocality,DefaultBinder" {
		t.Errorf("multiPoint plugins %s", got)
	}
	args := map[string]any{}
	for _, pc := range cfg.Profiles[0].PluginConfig {
		args[pc.Name] = pc.Args.Object
	}
	fit, ok := args[NodeResourcesFit].(*configv1.NodeResourcesFitArgs)
	if !ok || fit.ScoringStrategy.Type != configv1.LeastAllocated || len(fit.ScoringStrategy.Resources) != 2 {
		t.Errorf("NodeResourcesFit args %+v", args[NodeResourcesFit])
	}
	if spread, ok := args[PodTopologySpread].(*configv1.PodTopologySpreadArgs); !ok || spread.DefaultingType != configv1.SystemDefaulting {
		t.Errorf("PodTopologySpread args %+v", args[PodTopologySpread])
	}
}

func TestLoadConfigMergesPluginsAsKubeScheduler(t *testing.T) {
	cfg, err := LoadConfig([]byte(`apiVersion: kubescheduler.config.k8s.io/v1
kind: KubeSchedulerConfiguration
profiles:
- schedulerName: default-scheduler
- schedulerName: no-spread
  plugins:
    multiPoint:
      enabled:
      - name: TaintToleration
        weight: 10
      disabled:
      - name: PodTopologySpread
  pluginConfig:
  - name: NodeResourcesFit
    args:
      scoringStrategy:
        type: MostAllocated
`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(nil, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	p := s.profiles["no-spread"]
	for _, f := range p.filter {
		if f.Name() == PodTopologySpread {
			t.Errorf("PodTopologySpread is disabled but filters")
		}
	}
	for _, sc := range p.score {
		if sc.Name() == TaintToleration && sc.weight != 10 {
			t.Errorf("TaintToleration weight %d, want 10", sc.weight)
		}
		if fit, ok := sc.scorePlugin.(*nodeResourcesFit); ok && fit.strategy != configv1.MostAllocated {
			t.Errorf("fit strategy %s", fit.strategy)
		}
	}
	if got := s.ProfileNames(); strings.Join(got, ",") != "default-scheduler,no-spread" {
		t.Errorf("profiles %v", got)
	}
}

func TestConfigErrorsAreKubeSchedulers(t *testing.T) {
	const head = "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n"
	for _, tc := range []struct {
		name, yaml, want string
	}{
		{"removed version", "apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n", `no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta3"`},
		{"unknown field", head + "profile: []\n", `strict decoding error: unknown field "profile"`},
		{"unnamed profiles", head + "profiles:\n- {}\n- {}\n", "profiles[0].schedulerName: Required value"},
		{"duplicate names", head + "profiles:\n- schedulerName: a\n- schedulerName: a\n", "profiles[1].schedulerName: Duplicate value"},
		{"percentage", head + "percentageOfNodesToScore: 101\n", "percentageOfNodesToScore: Invalid value: 101: not in valid range [0-100]"},
		{"backoff", head + "podInitialBackoffSeconds: 5\npodMaxBackoffSeconds: 2\n", "podMaxBackoffSeconds: Invalid value: 2: must be greater than or equal to PodInitialBackoffSeconds"},
		{"scoring strategy", head + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: Fancy\n",
			`profiles[0].pluginConfig[0].args.scoringStrategy.type: Unsupported value: "Fancy": supported values: "LeastAllocated", "MostAllocated", "RequestedToCapacityRatio"`},
		{"ratio without shape", head + "profiles:\n- pluginConfig:\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: RequestedToCapacityRatio\n",
			"profiles[0].pluginConfig[0].args.scoringStrategy.requestedToCapacityRatio: Required value: must be specified when type is RequestedToCapacityRatio"},
		{"system defaulting with constraints", head + "profiles:\n- pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: System\n      defaultConstraints:\n      - maxSkew: 1\n        topologyKey: zone\n        whenUnsatisfiable: ScheduleAnyway\n",
			`profiles[0].pluginConfig[0].args.defaultingType: Invalid value: "System": when .defaultConstraints are not empty`},
		{"lease lock", head + "leaderElection:\n  leaderElect: true\n  resourceLock: endpoints\n", `leaderElection.resourceLock: Invalid value: "endpoints": resourceLock value must be "leases"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := LoadConfig([]byte(tc.yaml))
			if err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("error %v, want it to contain %q", err, tc.want)
			}
		})
	}
}

func TestUnknownPluginFailsAsKubeScheduler(t *testing.T) {
	cfg, err := LoadConfig([]byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: my-scheduler\n  plugins:\n    filter:\n      enabled:\n      - name: Coscheduling\n"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = New(nil, cfg, Options{})
	const want = `couldn't create scheduler: initializing profiles: creating profile for scheduler name my-scheduler: plugin "Coscheduling" does not exist`
	if err == nil || err.Error() != want {
		t.Errorf("error %v, want %q", err, want)
	}
}

func TestNewCompletesAConfigurationBuiltByHand(t *testing.T) {
	// Built by hand, without Complete: New completes a copy.
	cfg := &Configuration{Profiles: []configv1.KubeSchedulerProfile{{SchedulerName: ptr.To("hand-made")}}}
	s, err := New(nil, cfg, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if p := s.profiles["hand-made"]; p == nil || len(p.filter) == 0 || p.preemption == nil {
		t.Errorf("profile %+v, want kube-scheduler's default plugins", p)
	}
	if cfg.Parallelism != nil {
		t.Error("New changed the caller's configuration")
	}
	// A hand-made configuration that is invalid is refused as Complete
	// refuses it.
	if _, err := New(nil, &Configuration{Profiles: []configv1.KubeSchedulerProfile{{SchedulerName: ptr.To("")}}}, Options{}); err == nil || !strings.Contains(err.Error(), "profiles[0].schedulerName: Required value") {
		t.Errorf("error %v", err)
	}
}
