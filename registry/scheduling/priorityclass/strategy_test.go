package priorityclass

import (
	"context"
	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

func TestPriorityClassStrategy(t *testing.T) {
	for _, tc := range []struct {
		name    string
		pc, old *schedulingv1.PriorityClass
		want    []string
	}{
		{name: "valid", pc: &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}},
		{name: "too high", pc: &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 2000000000},
			want: []string{"value: Forbidden: maximum allowed value of a user defined priority is 1000000000"}},
		{name: "reserved", pc: &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "system-x"}},
			want: []string{"metadata.name: Forbidden: priority class names with 'system-' prefix are reserved for system use only. error: system-x is not a known system priority class"}},
		{name: "bad policy", pc: &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "p"}, PreemptionPolicy: ptr.To[corev1.PreemptionPolicy]("Always")},
			want: []string{`preemptionPolicy: Unsupported value: "Always": supported values: "PreemptLowerPriority", "Never"`}},
		{name: "value changed", old: &schedulingv1.PriorityClass{Value: 1}, pc: &schedulingv1.PriorityClass{Value: 2},
			want: []string{"value: Forbidden: may not be changed in an update."}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			errs := Strategy.Validate(context.Background(), tc.pc)
			if tc.old != nil {
				Strategy.Default(tc.old)
				Strategy.Default(tc.pc)
				errs = Strategy.ValidateUpdate(context.Background(), tc.pc, tc.old)
			}
			validatetest.ExpectErrors(t, errs, tc.want)
		})
	}
}
