package resourcequota

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
)

func TestResourceQuotaStrategy(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec corev1.ResourceQuotaSpec
		want []string
	}{
		{name: "valid", spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"pods": resource.MustParse("10"), "requests.cpu": resource.MustParse("1")}}},
		{name: "not a quota resource", spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"storage": resource.MustParse("1")}},
			want: []string{`spec.hard[storage]: Invalid value: "storage": must be a standard resource for quota`}},
		{name: "conflicting scopes", spec: corev1.ResourceQuotaSpec{Scopes: []corev1.ResourceQuotaScope{"BestEffort", "NotBestEffort"}},
			want: []string{`spec.scopes: Invalid value: ["BestEffort","NotBestEffort"]: conflicting scopes`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &corev1.ResourceQuota{Spec: tc.spec}
			var got []string
			for _, e := range Strategy.ValidateUpdate(context.Background(), q, q) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
