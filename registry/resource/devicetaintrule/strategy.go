// Package devicetaintrule holds the DeviceTaintRule strategy: kube-apiserver's
// pkg/registry/resource/devicetaintrule flags, and the validation of
// resource.k8s.io/v1 DeviceTaintRules, and of its /status (package resource).
package devicetaintrule

import (
	"github.com/fakeplane/fakeplane/registry/resource"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the DeviceTaintRule strategy. As upstream's v1 strategy, it
// refuses an update without metadata.resourceVersion (upstream allows one
// only in v1beta2 and v1alpha3, which fakeplane does not serve).
var Strategy = deviceTaintRuleStrategy{Base: strategy.Base{Generation: true, ResetStatusOnCreate: true}}

type deviceTaintRuleStrategy struct {
	strategy.Base
	resource.Validation
	resource.StatusValidation
}
