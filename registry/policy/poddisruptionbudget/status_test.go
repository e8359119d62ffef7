package poddisruptionbudget

import (
	"context"
	"testing"

	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

const labelName = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

func TestStatusUpdateValidation(t *testing.T) {
	set := metav1.Now()
	for _, tc := range []struct {
		name   string
		status policyv1.PodDisruptionBudgetStatus
		want   []string
	}{
		{name: "the disruption controller's status", status: policyv1.PodDisruptionBudgetStatus{ObservedGeneration: 1, DesiredHealthy: 1,
			Conditions: []metav1.Condition{{Type: policyv1.DisruptionAllowedCondition, Status: metav1.ConditionFalse, Reason: policyv1.InsufficientPodsReason,
				ObservedGeneration: 1, LastTransitionTime: set}}}},
		{name: "counts are not negative", status: policyv1.PodDisruptionBudgetStatus{DisruptionsAllowed: -1, CurrentHealthy: -1, DesiredHealthy: -1, ExpectedPods: -1},
			want: []string{"status.disruptionsAllowed: Invalid value: -1: must be greater than or equal to 0",
				"status.currentHealthy: Invalid value: -1: must be greater than or equal to 0",
				"status.desiredHealthy: Invalid value: -1: must be greater than or equal to 0",
				"status.expectedPods: Invalid value: -1: must be greater than or equal to 0"}},
		{name: "conditions are metav1 conditions", status: policyv1.PodDisruptionBudgetStatus{Conditions: []metav1.Condition{
			{Type: "bad type!", Status: "Maybe", ObservedGeneration: -1, Reason: "bad reason!", Message: "m"},
			{Type: "bad type!"},
		}}, want: []string{
			`status.conditions[0].type: Invalid value: "bad type!": ` + labelName,
			`status.conditions[0].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"`,
			"status.conditions[0].observedGeneration: Invalid value: -1: must be greater than or equal to zero",
			"status.conditions[0].lastTransitionTime: Required value",
			`status.conditions[0].reason: Invalid value: "bad reason!": a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')`,
			`status.conditions[1]: Duplicate value: "bad type!"`,
			`status.conditions[1].type: Invalid value: "bad type!": ` + labelName,
			"status.conditions[1].status: Required value",
			"status.conditions[1].lastTransitionTime: Required value",
			"status.conditions[1].reason: Required value",
		}},
		{name: "a condition has a type", status: policyv1.PodDisruptionBudgetStatus{Conditions: []metav1.Condition{
			{Status: metav1.ConditionTrue, Reason: "R", LastTransitionTime: set}}},
			want: []string{"status.conditions[0].type: Required value: is required"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pdb := &policyv1.PodDisruptionBudget{Status: tc.status}
			validatetest.ExpectErrors(t, Strategy.ValidateStatusUpdate(context.Background(), pdb, &policyv1.PodDisruptionBudget{}), tc.want)
		})
	}
}
