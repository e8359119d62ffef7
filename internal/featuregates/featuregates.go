package featuregates

import (
	_ "embed"
	"fmt"
	"strings"
	"sync"

	"k8s.io/component-base/featuregate"
)

//go:embed kube-apiserver-v1.37.txt
var table string

// Gate is one feature gate of kube-apiserver v1.37.
type Gate struct {
	// Name is the gate's name.
	Name string
	// Stage is ALPHA, BETA, GA or DEPRECATED.
	Stage string
	// Enabled is its default.
	Enabled bool
}

// MetricStage is the stage label kube-apiserver's kubernetes_feature_enabled
// metric gives the gate: its stage, empty for GA.
func (g Gate) MetricStage() string {
	if g.Stage == "GA" {
		return ""
	}
	return g.Stage
}

// All are the gates, by name, as the table has them (AllAlpha and AllBeta
// included, as kube-apiserver's /metrics lists them).
var All = sync.OnceValue(func() []Gate {
	var gates []Gate
	for line := range strings.Lines(table) {
		f := strings.Fields(line)
		if len(f) != 3 {
			continue
		}
		gates = append(gates, Gate{Name: f[0], Stage: f[1], Enabled: f[2] == "1"})
	}
	return gates
})

// kubeComponent is the component kube-apiserver's own gates are registered
// under ("kube:Name=true", or "Name=true").
const kubeComponent = "kube"

// Check parses --feature-gates values as kube-apiserver does (each a
// comma-separated list of [component:]Name=bool) and returns kube-apiserver's
// error for what it refuses: an unknown component or gate, a value that is
// not a bool, a gate locked to its default. A gate set away from its default
// is refused too: fakeplane serves v1.37 with its default gates.
func Check(values []string) error {
	if len(values) == 0 {
		return nil
	}
	gate := featuregate.NewFeatureGate()
	specs := map[featuregate.Feature]featuregate.FeatureSpec{}
	for _, g := range All() {
		if g.Name == "AllAlpha" || g.Name == "AllBeta" {
			continue // the gate set has them
		}
		spec := featuregate.FeatureSpec{Default: g.Enabled}
		switch g.Stage {
		case "ALPHA":
			spec.PreRelease = featuregate.Alpha
		case "BETA":
			spec.PreRelease = featuregate.Beta
		case "GA":
			spec.PreRelease, spec.LockToDefault = featuregate.GA, true
		case "DEPRECATED":
			spec.PreRelease = featuregate.Deprecated
		}
		specs[featuregate.Feature(g.Name)] = spec
	}
	if err := gate.Add(specs); err != nil {
		return fmt.Errorf("feature gates: %w", err)
	}
	for _, v := range values {
		for kv := range strings.SplitSeq(v, ",") {
			kv = strings.TrimSpace(kv)
			if kv == "" {
				continue
			}
			if comp, rest, ok := strings.Cut(kv, ":"); ok {
				if comp != kubeComponent {
					return fmt.Errorf("component not registered: %s", comp)
				}
				kv = rest
			}
			// Upstream's parser, one key at a time, for its messages.
			if err := gate.Set(kv); err != nil {
				return err
			}
		}
	}
	for _, g := range All() {
		if g.Name == "AllAlpha" || g.Name == "AllBeta" {
			continue
		}
		if on := gate.Enabled(featuregate.Feature(g.Name)); on != g.Enabled {
			return fmt.Errorf("feature gate %s=%v is not built: fakeplane serves kube-apiserver v1.37 with its default feature gates (%s is %v)", g.Name, on, g.Name, g.Enabled)
		}
	}
	return nil
}
