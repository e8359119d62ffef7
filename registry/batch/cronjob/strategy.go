// Package cronjob holds the CronJob strategy: kube-apiserver's
// pkg/registry/batch/cronjob rules.
package cronjob

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/core/pod"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the CronJob strategy.
var Strategy = cronJobStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, ResetStatusOnCreate: true, StatusWritesMetadata: true, NameRuleOnCreateOnly: true, StatusSkipsKubeFinalizerRules: true}}

type cronJobStrategy struct{ strategy.Base }

// Validate is upstream's ValidateCronJobCreate less the metadata.
func (cronJobStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return validateCronJob(ctx, obj.(*batchv1.CronJob), nil)
}

// ValidateUpdate is upstream's ValidateCronJobUpdate less the metadata.
func (cronJobStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	return validateCronJob(ctx, obj.(*batchv1.CronJob), old.(*batchv1.CronJob))
}

// Default is upstream's SetDefaults_CronJob with those of the job
// template's pod template.
func (cronJobStrategy) Default(obj runtime.Object) {
	cj := obj.(*batchv1.CronJob)
	defaultCronJob(cj)
	pod.DefaultPodSpec(&cj.Spec.JobTemplate.Spec.Template.Spec)
}
