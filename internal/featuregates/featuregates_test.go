package featuregates_test

import (
	"testing"

	"github.com/fakeplane/fakeplane/internal/featuregates"
)

// TestCheckAsKubeAPIServer checks --feature-gates values: kube-apiserver
// v1.37's errors (recorded from the real binary started with each), the
// defaults accepted with or without the kube component, and a gate set
// away from its default refused.
func TestCheckAsKubeAPIServer(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []string
		want   string // "" for accepted
	}{
		{"none", nil, ""},
		{"defaults, with and without the component", []string{"kube:APIResponseCompression=true", "CustomResourceFieldSelectors=true,APIServerIdentity=true"}, ""},
		{"an alpha gate left off", []string{"APIServerWebhookAuthenticationToken=false"}, ""},
		{"an unknown gate", []string{"Foo=true"}, "unrecognized feature gate: Foo"},
		{"not a bool", []string{"APIResponseCompression=maybe"}, `invalid value of APIResponseCompression=maybe, err: strconv.ParseBool: parsing "maybe": invalid syntax`},
		{"no value", []string{"APIResponseCompression"}, "missing bool value for APIResponseCompression"},
		{"another component", []string{"wardle:X=true"}, "component not registered: wardle"},
		{"a GA gate turned off", []string{"CustomResourceFieldSelectors=false"}, "cannot set feature gate CustomResourceFieldSelectors to false, feature is locked to true"},
		{"a beta gate turned off", []string{"APIResponseCompression=false"}, "feature gate APIResponseCompression=false is not built: fakeplane serves kube-apiserver v1.37 with its default feature gates (APIResponseCompression is true)"},
		{"every alpha gate on", []string{"AllAlpha=true"}, "feature gate APIServerWebhookAuthenticationToken=true is not built: fakeplane serves kube-apiserver v1.37 with its default feature gates (APIServerWebhookAuthenticationToken is false)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := featuregates.Check(tc.values)
			switch {
			case tc.want == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.want != "" && (err == nil || err.Error() != tc.want):
				t.Errorf("%v, want %q", err, tc.want)
			}
		})
	}
}

// TestAllGates checks the recorded table: kube-apiserver v1.37's 254 gates
// (AllAlpha and AllBeta among them), each in one of the four stages.
func TestAllGates(t *testing.T) {
	gates := featuregates.All()
	if len(gates) != 254 {
		t.Fatalf("%d gates, want 254", len(gates))
	}
	stages := map[string]int{}
	for _, g := range gates {
		stages[g.Stage]++
	}
	if len(stages) != 4 || stages["ALPHA"] != 57 || stages["BETA"] != 109 || stages["GA"] != 71 || stages["DEPRECATED"] != 17 {
		t.Errorf("stages %v", stages)
	}
}
