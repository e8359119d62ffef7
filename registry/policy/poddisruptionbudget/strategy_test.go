package poddisruptionbudget

import (
	"context"
	"strings"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/ptr"
)

func TestPodDisruptionBudgetStrategy(t *testing.T) {
	for _, tc := range []struct {
		name string
		spec policyv1.PodDisruptionBudgetSpec
		want []string
	}{
		{name: "min available", spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromString("50%"))}},
		{name: "over 100%", spec: policyv1.PodDisruptionBudgetSpec{MaxUnavailable: ptr.To(intstr.FromString("150%"))},
			want: []string{`spec.maxUnavailable: Invalid value: "150%": must not be greater than 100%`}},
		{name: "bad policy", spec: policyv1.PodDisruptionBudgetSpec{UnhealthyPodEvictionPolicy: ptr.To[policyv1.UnhealthyPodEvictionPolicyType]("Never")},
			want: []string{`spec.unhealthyPodEvictionPolicy: Unsupported value: "Never": supported values: "AlwaysAllow", "IfHealthyBudget"`}},
		{name: "negative", spec: policyv1.PodDisruptionBudgetSpec{MinAvailable: ptr.To(intstr.FromInt32(-1))},
			want: []string{"spec.minAvailable: Invalid value: -1: must be greater than or equal to 0"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pdb := &policyv1.PodDisruptionBudget{Spec: tc.spec}
			var got []string
			for _, e := range Strategy.ValidateUpdate(context.Background(), pdb, pdb) {
				got = append(got, e.Error())
			}
			if strings.Join(got, "\n") != strings.Join(tc.want, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.want, "\n"))
			}
		})
	}
}
