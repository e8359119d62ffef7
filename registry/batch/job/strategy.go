// Package job holds the Job strategy: kube-apiserver's pkg/registry/batch/job
// rules, with the job spec validation CronJobs' job templates reuse.
package job

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/core/pod"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the Job strategy.
var Strategy = jobStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true, StatusWritesMetadata: true, NameRuleOnCreateOnly: true}}

type jobStrategy struct{ strategy.Base }

// Validate is upstream's ValidateJobCreate less the metadata.
func (jobStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validateJob(ctx, obj.(*batchv1.Job))
}

// ValidateUpdate is upstream's ValidateJobUpdate less the metadata.
func (jobStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return validateJobUpdate(ctx, obj.(*batchv1.Job), old.(*batchv1.Job))
}

// ValidateStatusUpdate is upstream's ValidateJobStatusUpdate less the
// metadata.
func (jobStrategy) ValidateStatusUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	return validateJobStatusUpdate(obj.(*batchv1.Job), old.(*batchv1.Job))
}

// Default is upstream's SetDefaults_Job with those of the pod template.
func (jobStrategy) Default(obj runtime.Object) {
	j := obj.(*batchv1.Job)
	defaultJob(j)
	pod.DefaultPodSpec(&j.Spec.Template.Spec)
}
