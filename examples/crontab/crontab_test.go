// Package crontab is the CronTab walkthrough of "Extend the Kubernetes API
// with CustomResourceDefinitions", run with kubectl against fakeplane: a CRD
// with validation, defaulting and printer columns, an object, an invalid
// object, pruning, categories and deleting the CRD.
package crontab

import (
	"testing"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/examples/internal/walkthrough"
)

func TestCronTabWalkthrough(t *testing.T) {
	cp := fakeplane.Start(t)
	walkthrough.Run(t, cp, []walkthrough.Step{
		{Args: []string{"apply", "-f", "crd.yaml"}, Stdout: `customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created`},
		{Args: []string{"explain", "crontab.spec"}, Settle: true, Stdout: `(?s)KIND:\s+CronTab.*FIELD: spec <Object>.*cronSpec\s+<string>.*replicas\s+<integer>`},
		{Args: []string{"apply", "-f", "my-crontab.yaml"}, Stdout: `crontab.stable.example.com/my-new-cron-object created`},
		{Args: []string{"get", "crontab"}, Stdout: `(?m)^NAME\s+SPEC\s+REPLICAS\s+AGE\n^my-new-cron-object\s+\* \* \* \* \*/5\s+1\s+\d+s$`},
		{Args: []string{"get", "ct", "-o", "jsonpath={.items[0].spec.replicas} {.items[0].metadata.generation}"}, Stdout: `^1 1$`},
		// The schema validator walks properties in map order, so the two
		// errors come in either order (on kube-apiserver too).
		{Args: []string{"apply", "-f", "invalid-crontab.yaml"}, Fail: true,
			Stderr: `The CronTab "my-invalid-cron-object" is invalid: \n(\* spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10\n\* spec.cronSpec: Invalid value: "\* \* \* \*": spec.cronSpec in body should match|\* spec.cronSpec: Invalid value: "\* \* \* \*": spec.cronSpec in body should match '.*'\n\* spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10)`},
		{Args: []string{"create", "--validate=false", "-f", "pruned-crontab.yaml"}, Stdout: `crontab.stable.example.com/my-pruned-cron-object created`},
		{Args: []string{"get", "crontab", "my-pruned-cron-object", "-o", "jsonpath={.spec}"}, Stdout: `^\{"cronSpec":"\* \* \* \* \*/5","image":"my-awesome-cron-image","replicas":1\}$`},
		{Args: []string{"create", "-f", "pruned-crontab.yaml", "--dry-run=server"}, Fail: true, Stderr: `strict decoding error: unknown field "spec.someRandomField"`},
		{Args: []string{"get", "all"}, Stdout: `crontab.stable.example.com/my-new-cron-object`},
		{Args: []string{"delete", "crd", "crontabs.stable.example.com"}, Stdout: `customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted`},
		{Args: []string{"get", "crontabs"}, Fail: true, Stderr: `the server (could not find the requested resource|doesn't have a resource type "crontabs")`},
	})
}
