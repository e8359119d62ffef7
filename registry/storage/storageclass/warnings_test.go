package storageclass

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
)

func TestStorageClassWarnings(t *testing.T) {
	expr := func(key string) corev1.TopologySelectorLabelRequirement {
		return corev1.TopologySelectorLabelRequirement{Key: key, Values: []string{"v"}}
	}
	for _, tc := range []struct {
		name       string
		topologies []corev1.TopologySelectorTerm
		want       []string
	}{
		{name: "no allowed topologies"},
		{name: "current node labels warn of nothing", topologies: []corev1.TopologySelectorTerm{{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{expr("topology.kubernetes.io/zone")}}}},
		{name: "deprecated node labels", topologies: []corev1.TopologySelectorTerm{
			{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{expr("topology.kubernetes.io/zone"), expr("failure-domain.beta.kubernetes.io/zone")}},
			{MatchLabelExpressions: []corev1.TopologySelectorLabelRequirement{expr("beta.kubernetes.io/instance-type")}},
		}, want: []string{
			`allowedTopologies[0].matchLabelExpressions[1].key: deprecated since v1.17; use "topology.kubernetes.io/zone" instead`,
			`allowedTopologies[1].matchLabelExpressions[0].key: deprecated since v1.17; use "node.kubernetes.io/instance-type" instead`,
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sc := &storagev1.StorageClass{Provisioner: "example.com/p", AllowedTopologies: tc.topologies}
			if got := Strategy.WarningsOnCreate(context.Background(), sc); !slices.Equal(got, tc.want) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.want)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), sc, sc.DeepCopy()); !slices.Equal(got, tc.want) {
				t.Errorf("update warnings:\n got %q\nwant %q", got, tc.want)
			}
		})
	}
}
