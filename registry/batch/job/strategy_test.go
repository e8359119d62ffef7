package job

import (
	"context"
	"strings"
	"testing"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// valid returns a Job with a manual selector, as defaulting leaves it.
func valid() *batchv1.Job {
	j := &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "pi"}}
	j.Spec.ManualSelector = ptr.To(true)
	j.Spec.Selector = &metav1.LabelSelector{MatchLabels: map[string]string{"app": "pi"}}
	j.Spec.Template.Labels = map[string]string{"app": "pi"}
	j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyNever
	j.Spec.Template.Spec.Containers = []corev1.Container{{Name: "c", Image: "perl"}}
	Strategy.Default(j)
	return j
}

func TestJobStrategy(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name     string
		obj      func() *batchv1.Job
		update   bool
		status   bool
		wantErrs []string
	}{
		{name: "valid", obj: valid},
		{name: "valid update", obj: valid, update: true},
		{name: "restart policy Always", obj: func() *batchv1.Job {
			j := valid()
			j.Spec.Template.Spec.RestartPolicy = corev1.RestartPolicyAlways
			return j
		}, wantErrs: []string{`spec.template.spec.restartPolicy: Required value: valid values: "OnFailure", "Never"`}},
		{name: "indexed without completions", obj: func() *batchv1.Job {
			j := valid()
			j.Spec.CompletionMode = ptr.To(batchv1.IndexedCompletion)
			j.Spec.Completions = nil
			return j
		}, wantErrs: []string{"spec.completions: Required value: when completion mode is Indexed"}},
		{name: "template of a running job", update: true, obj: func() *batchv1.Job {
			j := valid()
			j.Spec.Template.Spec.Containers[0].Image = "perl:5"
			return j
		}, wantErrs: []string{"spec.template: Invalid value: {...}: field is immutable"}},
		{name: "status: complete without completion time", status: true, obj: func() *batchv1.Job {
			j := valid()
			j.Status.Conditions = []batchv1.JobCondition{
				{Type: batchv1.JobSuccessCriteriaMet, Status: corev1.ConditionTrue},
				{Type: batchv1.JobComplete, Status: corev1.ConditionTrue},
			}
			j.Status.Failed = -1
			return j
		}, wantErrs: []string{"status.failed: Invalid value: -1: must be greater than or equal to 0",
			"status.completionTime: Required value: completionTime is required for Complete jobs",
			"status.startTime: Required value: startTime is required for finished job",
			"status.failed: Invalid value: -1: cannot decrease the failed counter"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o := tc.obj()
			errs := Strategy.Validate(ctx, o)
			switch {
			case tc.status:
				errs = Strategy.ValidateStatusUpdate(ctx, o, valid())
			case tc.update:
				errs = Strategy.ValidateUpdate(ctx, o, valid())
			}
			var got []string
			for _, e := range errs {
				msg := strings.SplitN(e.Error(), "\n", 2)[0]
				// An immutable template's value is long: elided.
				if i, j := strings.Index(msg, ": Invalid value: {"), strings.LastIndex(msg, "}: "); i >= 0 && j > i {
					msg = msg[:i] + ": Invalid value: {...}" + msg[j+1:]
				}
				got = append(got, msg)
			}
			if strings.Join(got, "\n") != strings.Join(tc.wantErrs, "\n") {
				t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(tc.wantErrs, "\n"))
			}
		})
	}
}
