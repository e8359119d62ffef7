package scheduler

import (
	"encoding/json"
	"testing"

	"k8s.io/apimachinery/pkg/api/equality"
)

// FuzzLoadConfig loads fuzzed KubeSchedulerConfiguration files (the CLI's
// --scheduler-config). Any input either loads or returns an error, never
// panics; what loads has at least one profile, and loading it again, as
// JSON, gives the same configuration (defaulting and validation are
// idempotent).
func FuzzLoadConfig(f *testing.F) {
	for _, s := range []string{
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\n",
		// Two profiles, as in the Kubernetes documentation's "Multiple profiles".
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n  - schedulerName: default-scheduler\n  - schedulerName: no-scoring-scheduler\n    plugins:\n      preScore:\n        disabled:\n        - name: '*'\n      score:\n        disabled:\n        - name: '*'\n",
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nleaderElection:\n  leaderElect: false\nclientConnection:\n  qps: 50\nprofiles:\n- schedulerName: spread\n  pluginConfig:\n  - name: PodTopologySpread\n    args:\n      defaultingType: List\n      defaultConstraints:\n      - maxSkew: 1\n        topologyKey: topology.kubernetes.io/zone\n        whenUnsatisfiable: ScheduleAnyway\n  - name: NodeResourcesFit\n    args:\n      scoringStrategy:\n        type: MostAllocated\n        resources:\n        - name: cpu\n          weight: 1\n",
		`{"apiVersion":"kubescheduler.config.k8s.io/v1","kind":"KubeSchedulerConfiguration","percentageOfNodesToScore":50,"profiles":[{"schedulerName":"a"},{"schedulerName":"a"}]}`,
		"apiVersion: kubescheduler.config.k8s.io/v1beta3\nkind: KubeSchedulerConfiguration\n",
		"apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nunknownField: 1\n",
		"kind: [\n",
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		cfg, err := LoadConfig(data)
		if err != nil {
			return
		}
		if cfg == nil || len(cfg.Profiles) == 0 {
			t.Fatalf("LoadConfig gave %+v and no error, want at least one profile", cfg)
		}
		js, err := json.Marshal(cfg)
		if err != nil {
			t.Fatalf("encode the configuration: %v", err)
		}
		again, err := LoadConfig(js)
		if err != nil {
			t.Fatalf("the configuration LoadConfig gave does not load again: %v\n%s", err, js)
		}
		if !equality.Semantic.DeepEqual(cfg, again) {
			t.Fatalf("loading a loaded configuration changed it:\n%s", js)
		}
	})
}
