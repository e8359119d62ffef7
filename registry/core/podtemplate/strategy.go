// Package podtemplate holds the PodTemplate strategy: kube-apiserver's
// pkg/registry/core/podtemplate rules.
package podtemplate

import (
	"context"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/core/pod"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the PodTemplate strategy.
var Strategy = podTemplateStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true, Generation: true, ReturnDeleted: true, NameRuleOnCreateOnly: true}}

type podTemplateStrategy struct{ strategy.Base }

// Validate checks the template as a pod template.
func (podTemplateStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	return pod.ValidatePodTemplateSpec(ctx, &obj.(*corev1.PodTemplate).Template, field.NewPath("template"))
}

// ValidateUpdate checks the new template as on create: a PodTemplate may
// change freely.
func (s podTemplateStrategy) ValidateUpdate(ctx context.Context, obj, _ runtime.Object) field.ErrorList {
	return s.Validate(ctx, obj)
}

// Default sets the defaults of the template's pod spec.
func (podTemplateStrategy) Default(obj runtime.Object) {
	pod.DefaultPodSpec(&obj.(*corev1.PodTemplate).Template.Spec)
}
