package statefulset

import (
	"context"

	appsv1 "k8s.io/api/apps/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/core/pod"
)

// negativeRevisionHistoryLimit is upstream's warning for a negative
// spec.revisionHistoryLimit, which validation lets through.
const negativeRevisionHistoryLimit = "spec.revisionHistoryLimit: a negative value retains all historical revisions; a value >= 0 is recommended"

// WarningsOnCreate is upstream's: the warnings of the template, of the
// volume claim templates' specs (at spec.volumeClaimTemplates[i], without
// the spec's name) and of a negative revisionHistoryLimit. Unlike the
// other workloads', the name is not checked.
func (statefulSetStrategy) WarningsOnCreate(_ context.Context, obj runtime.Object) []string {
	ss := obj.(*appsv1.StatefulSet)
	warnings := pod.WarningsForPodTemplate(field.NewPath("spec", "template"), &ss.Spec.Template, nil)
	for i, c := range ss.Spec.VolumeClaimTemplates {
		warnings = append(warnings, validate.PVCSpecWarnings(field.NewPath("spec", "volumeClaimTemplates").Index(i), c.Spec)...)
	}
	return append(warnings, revisionHistoryWarnings(ss)...)
}

// WarningsOnUpdate is upstream's: the warnings of the template when the
// update changes the spec (when upstream increments the generation), then,
// whatever changed, those of the volume claim templates' specs (at
// spec.volumeClaimTemplates[i].Spec, as upstream spells it on update) and
// of a negative revisionHistoryLimit.
func (statefulSetStrategy) WarningsOnUpdate(_ context.Context, obj, old runtime.Object) []string {
	ss, prev := obj.(*appsv1.StatefulSet), old.(*appsv1.StatefulSet)
	var warnings []string
	if !apiequality.Semantic.DeepEqual(ss.Spec, prev.Spec) {
		warnings = pod.WarningsForPodTemplate(field.NewPath("spec", "template"), &ss.Spec.Template, &prev.Spec.Template)
	}
	for i, c := range ss.Spec.VolumeClaimTemplates {
		warnings = append(warnings, validate.PVCSpecWarnings(field.NewPath("spec", "volumeClaimTemplates").Index(i).Child("Spec"), c.Spec)...)
	}
	return append(warnings, revisionHistoryWarnings(ss)...)
}

// revisionHistoryWarnings is the warning for a negative
// revisionHistoryLimit, or nil.
func revisionHistoryWarnings(ss *appsv1.StatefulSet) []string {
	if l := ss.Spec.RevisionHistoryLimit; l != nil && *l < 0 {
		return []string{negativeRevisionHistoryLimit}
	}
	return nil
}
