package job

import (
	"context"
	"fmt"

	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// The sizes of an Indexed Job past which upstream warns that its completed
// indexes may not be tracked.
const (
	completionsSoftLimit                        = 100_000
	parallelismSoftLimitForUnlimitedCompletions = 10_000
)

// WarningsOnCreate is upstream's: a name that is not a DNS label, then the
// warnings of the spec (WarningsForJobSpec).
func (jobStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	j := obj.(*batchv1.Job)
	warnings := pod.WorkloadNameWarnings(j.Name)
	return append(warnings, WarningsForJobSpec(field.NewPath("spec"), &j.Spec, nil)...)
}

// WarningsOnUpdate is upstream's: the warnings of the spec when the update
// changes it (when upstream increments the generation).
func (jobStrategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	j, prev := obj.(*batchv1.Job), old.(*batchv1.Job)
	if apiequality.Semantic.DeepEqual(j.Spec, prev.Spec) {
		return nil
	}
	return WarningsForJobSpec(field.NewPath("spec"), &j.Spec, &prev.Spec)
}

// WarningsForJobSpec are upstream's warnings for a job spec found at fld
// (pkg/api/job's WarningsForJobSpec): an Indexed Job too big for its
// completed indexes to be tracked, then the warnings of the pod template.
// old is the stored spec, nil on create.
func WarningsForJobSpec(fld *field.Path, spec, old *batchv1.JobSpec) []string {
	var warnings []string
	if spec.CompletionMode != nil && *spec.CompletionMode == batchv1.IndexedCompletion &&
		ptr.Deref(spec.Completions, 0) > completionsSoftLimit && ptr.Deref(spec.Parallelism, 0) > parallelismSoftLimitForUnlimitedCompletions {
		warnings = append(warnings, fmt.Sprintf("%s: In Indexed Jobs with a number of completions higher than 10^5 and a parallelism higher than 10^4, Kubernetes might not be able to track completedIndexes when a big number of indexes fail", fld))
	}
	var oldTemplate *corev1.PodTemplateSpec
	if old != nil {
		oldTemplate = &old.Template
	}
	return append(warnings, pod.WarningsForPodTemplate(fld.Child("template"), &spec.Template, oldTemplate)...)
}
