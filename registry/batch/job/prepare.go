package job

import (
	"context"

	batchv1 "k8s.io/api/batch/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// PrepareForCreate clears the status and generates a new Job's selector,
// as upstream's PrepareForCreate does (see generateSelector).
func (s jobStrategy) PrepareForCreate(ctx context.Context, obj runtime.Object) {
	s.Base.PrepareForCreate(ctx, obj)
	generateSelector(obj.(*batchv1.Job))
}

// generateSelector is what upstream's Job strategy does at create
// unless the selector is manual: the template gets the job-name and
// controller-uid labels and the selector matches the controller uid.
func generateSelector(o *batchv1.Job) {
	if o.Spec.ManualSelector != nil && *o.Spec.ManualSelector {
		return
	}
	if o.Spec.Template.Labels == nil {
		o.Spec.Template.Labels = map[string]string{}
	}
	for _, k := range []string{"job-name", batchv1.JobNameLabel} {
		if _, ok := o.Spec.Template.Labels[k]; !ok {
			o.Spec.Template.Labels[k] = o.Name
		}
	}
	for _, k := range []string{"controller-uid", batchv1.ControllerUidLabel} {
		if _, ok := o.Spec.Template.Labels[k]; !ok {
			o.Spec.Template.Labels[k] = string(o.UID)
		}
	}
	if o.Spec.Selector == nil {
		o.Spec.Selector = &metav1.LabelSelector{}
	}
	if o.Spec.Selector.MatchLabels == nil {
		o.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, ok := o.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !ok {
		o.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(o.UID)
	}
	// Upstream's defaulting, run again when the stored Job is read back,
	// gives a Job without labels those of its template.
	if len(o.Labels) == 0 {
		o.Labels = map[string]string{}
		for k, v := range o.Spec.Template.Labels {
			o.Labels[k] = v
		}
	}
}
