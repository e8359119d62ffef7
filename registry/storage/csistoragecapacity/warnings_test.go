package csistoragecapacity

import (
	"context"
	"slices"
	"testing"

	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestCSIStorageCapacityWarnings(t *testing.T) {
	for _, tc := range []struct {
		name     string
		topology *metav1.LabelSelector
		want     []string
	}{
		{name: "no topology"},
		{name: "current node labels warn of nothing", topology: &metav1.LabelSelector{
			MatchLabels:      map[string]string{"topology.kubernetes.io/zone": "a"},
			MatchExpressions: []metav1.LabelSelectorRequirement{{Key: "kubernetes.io/hostname", Operator: metav1.LabelSelectorOpIn, Values: []string{"n"}}},
		}},
		{name: "deprecated node labels, expressions first and labels sorted", topology: &metav1.LabelSelector{
			MatchLabels: map[string]string{"node-role.kubernetes.io/master": "", "beta.kubernetes.io/os": "linux", "example.com/x": "y"},
			MatchExpressions: []metav1.LabelSelectorRequirement{
				{Key: "kubernetes.io/hostname", Operator: metav1.LabelSelectorOpExists},
				{Key: "failure-domain.beta.kubernetes.io/region", Operator: metav1.LabelSelectorOpIn, Values: []string{"r"}},
			},
		}, want: []string{
			`nodeTopology.matchExpressions[1].key: failure-domain.beta.kubernetes.io/region is deprecated since v1.17; use "topology.kubernetes.io/region" instead`,
			`nodeTopology.matchLabels.beta.kubernetes.io/os: deprecated since v1.14; use "kubernetes.io/os" instead`,
			`nodeTopology.matchLabels.node-role.kubernetes.io/master: use "node-role.kubernetes.io/control-plane" instead`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := &storagev1.CSIStorageCapacity{StorageClassName: "sc", NodeTopology: tc.topology}
			if got := Strategy.WarningsOnCreate(context.Background(), c); !slices.Equal(got, tc.want) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.want)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), c, c.DeepCopy()); !slices.Equal(got, tc.want) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
