// Package cel is the validation rules walkthrough of "Extend the Kubernetes
// API with CustomResourceDefinitions" (x-kubernetes-validations), run with
// kubectl against fakeplane: rules across fields, a transition rule, and a
// rule that does not compile.
package cel

import (
	"testing"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/examples/internal/walkthrough"
)

func TestCELWalkthrough(t *testing.T) {
	cp := fakeplane.Start(t)
	walkthrough.Run(t, cp, []walkthrough.Step{
		{Args: []string{"apply", "-f", "resourcedefinition.yaml"}, Stdout: `customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created`},
		// The seed shows `Invalid value: "object"`; kube-apiserver v1.37 prints no value.
		{Args: []string{"apply", "-f", "my-crontab.yaml"}, Fail: true,
			Stderr: `The CronTab "my-new-cron-object" is invalid: spec: Invalid value: replicas should be smaller than or equal to maxReplicas.`},
		{Args: []string{"apply", "-f", "valid-crontab.yaml"}, Stdout: `crontab.stable.example.com/my-new-cron-object created`},
		// A transition rule: immutable may not change.
		{Args: []string{"patch", "crontab", "my-new-cron-object", "--type=merge", "-p", `{"spec":{"immutable":"b"}}`}, Fail: true,
			Stderr: `The CronTab "my-new-cron-object" is invalid: spec.immutable: Invalid value: "b": Value is immutable`},
		{Args: []string{"apply", "-f", "bad-rule.yaml"}, Fail: true,
			Stderr: `The CustomResourceDefinition "bads.x.example.com" is invalid: spec.validation.openAPIV3Schema.x-kubernetes-validations\[0\].rule: Invalid value: .*compilation failed: ERROR: <input>:1:13: Syntax error`},
	})
}
