package runtimeclass

import (
	"context"
	"slices"
	"testing"

	nodev1 "k8s.io/api/node/v1"
)

func TestRuntimeClassWarnings(t *testing.T) {
	for _, tc := range []struct {
		name       string
		scheduling *nodev1.Scheduling
		want       []string
	}{
		{name: "no scheduling"},
		{name: "current node labels warn of nothing", scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{"kubernetes.io/arch": "amd64"}}},
		{name: "deprecated node labels, in sorted order", scheduling: &nodev1.Scheduling{NodeSelector: map[string]string{
			"kubernetes.io/os": "linux", "beta.kubernetes.io/os": "linux", "beta.kubernetes.io/arch": "amd64"}},
			want: []string{
				`scheduling.nodeSelector: deprecated since v1.14; use "kubernetes.io/arch" instead`,
				`scheduling.nodeSelector: deprecated since v1.14; use "kubernetes.io/os" instead`,
			}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			rc := &nodev1.RuntimeClass{Handler: "runc", Scheduling: tc.scheduling}
			if got := Strategy.WarningsOnCreate(context.Background(), rc); !slices.Equal(got, tc.want) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.want)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), rc, rc.DeepCopy()); !slices.Equal(got, tc.want) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
