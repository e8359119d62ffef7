// Package devicetaintrule holds the DeviceTaintRule strategy: kube-apiserver's
// pkg/registry/resource/devicetaintrule flags, and the validation of
// resource.k8s.io/v1 DeviceTaintRules, and of its /status (package resource).
package devicetaintrule

import (
	"context"
	"time"

	resourcev1 "k8s.io/api/resource/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/registry/resource"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the DeviceTaintRule strategy. As upstream's v1 strategy, it
// refuses an update without metadata.resourceVersion (upstream allows one
// only in v1beta2 and v1alpha3, which fakeplane does not serve).
var Strategy = deviceTaintRuleStrategy{Base: strategy.Base{Generation: true, ResetStatusOnCreate: true, NameRuleOnCreateOnly: true}}

type deviceTaintRuleStrategy struct {
	strategy.Base
	resource.Validation
	resource.StatusValidation
}

// Default sets upstream's default: the taint's timeAdded.
func (deviceTaintRuleStrategy) Default(obj runtime.Object) { resource.ApplyDefaults(obj) }

// PrepareForUpdate moves the taint's timeAdded to now when its effect
// changes and the writer left timeAdded as it was, as upstream's strategy
// does, so that it says when the effect was added.
func (deviceTaintRuleStrategy) PrepareForUpdate(_ context.Context, obj, old runtime.Object) {
	taint, oldTaint := &obj.(*resourcev1.DeviceTaintRule).Spec.Taint, old.(*resourcev1.DeviceTaintRule).Spec.Taint
	if taint.Effect != oldTaint.Effect && taint.TimeAdded.Equal(oldTaint.TimeAdded) {
		taint.TimeAdded = &metav1.Time{Time: time.Now().Truncate(time.Second)}
	}
}
