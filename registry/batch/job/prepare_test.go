package job

import (
	"context"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestPrepareForCreateGeneratesSelector(t *testing.T) {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi", UID: "u1"}}
	Strategy.PrepareForCreate(context.Background(), j)
	for _, k := range []string{"job-name", batchv1.JobNameLabel} {
		if j.Spec.Template.Labels[k] != "pi" {
			t.Errorf("template label %s = %q, want pi", k, j.Spec.Template.Labels[k])
		}
	}
	for _, k := range []string{"controller-uid", batchv1.ControllerUidLabel} {
		if j.Spec.Template.Labels[k] != "u1" {
			t.Errorf("template label %s = %q, want u1", k, j.Spec.Template.Labels[k])
		}
	}
	if j.Spec.Selector == nil || len(j.Spec.Selector.MatchLabels) != 1 || j.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] != "u1" {
		t.Errorf("selector %v", j.Spec.Selector)
	}
	if len(j.Labels) != 4 {
		t.Errorf("a job without labels gets its template's: %v", j.Labels)
	}

	manual := true
	j = &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi", UID: "u1"}, Spec: batchv1.JobSpec{ManualSelector: &manual}}
	Strategy.PrepareForCreate(context.Background(), j)
	if j.Spec.Selector != nil || j.Spec.Template.Labels != nil || j.Labels != nil {
		t.Errorf("a manual selector was changed: %+v", j)
	}
}
