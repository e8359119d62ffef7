package resourcequota

import (
	"context"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestResourceQuotaWarnings(t *testing.T) {
	hard := func(kv ...string) corev1.ResourceList {
		l := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	for _, tc := range []struct {
		name string
		hard corev1.ResourceList
		want []string
	}{
		{name: "requests within limits", hard: hard("requests.cpu", "1", "limits.cpu", "2", "requests.memory", "1Gi", "limits.memory", "1Gi")},
		{name: "request without a limit", hard: hard("requests.cpu", "4", "limits.memory", "1Gi")},
		{name: "every resource over its limit, in upstream's order", hard: hard(
			"requests.ephemeral-storage", "2Gi", "limits.ephemeral-storage", "1Gi",
			"requests.storage", "10Gi", "limits.storage", "5Gi",
			"requests.memory", "2Gi", "limits.memory", "1024Mi",
			"requests.cpu", "2000m", "limits.cpu", "1"),
			want: []string{
				"ResourceQuota requests.cpu (2) should be less than limits.cpu (1)",
				"ResourceQuota requests.memory (2Gi) should be less than limits.memory (1Gi)",
				"ResourceQuota requests.storage (10Gi) should be less than limits.storage (5Gi)",
				"ResourceQuota requests.ephemeral-storage (2Gi) should be less than limits.ephemeral-storage (1Gi)",
			}},
		{name: "bare cpu and memory count as requests", hard: hard("cpu", "3", "limits.cpu", "500m", "memory", "1Gi", "limits.memory", "2Gi"),
			want: []string{"ResourceQuota cpu (3) should be less than limits.cpu (500m)"}},
		{name: "prefixed request wins over the bare name", hard: hard("cpu", "3", "requests.cpu", "1", "limits.cpu", "2")},
		{name: "bare storage is not a request", hard: hard("storage", "3Gi", "limits.storage", "1Gi")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &corev1.ResourceQuota{Spec: corev1.ResourceQuotaSpec{Hard: tc.hard}}
			if got := Strategy.WarningsOnCreate(context.Background(), q); !slices.Equal(got, tc.want) {
				t.Errorf("create warnings:\n got %q\nwant %q", got, tc.want)
			}
			if got := Strategy.WarningsOnUpdate(context.Background(), q, q.DeepCopy()); len(got) != 0 {
				t.Errorf("update warnings: %q", got)
			}
		})
	}
}
