// Package crontab is the CronTab walkthrough of "Extend the Kubernetes API
// with CustomResourceDefinitions", run with kubectl against fakeplane: a CRD
// with validation, defaulting and printer columns, an object, an invalid
// object, pruning, categories and deleting the CRD.
package crontab

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane"
)

func TestCronTabWalkthrough(t *testing.T) {
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is not on PATH (%v): this walkthrough runs kubectl", err)
	}
	cp := fakeplane.Start(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	kubectl := func(args ...string) (string, string, error) {
		cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", cp.KubeconfigPath()}, args...)...)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		return out.String(), errOut.String(), err
	}
	for _, step := range []struct {
		args     []string
		stdout   string // regexp the output must match
		stderr   string // regexp stderr must match, when the command fails
		wantFail bool
	}{
		{args: []string{"apply", "-f", "crd.yaml"}, stdout: `customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created`},
		{args: []string{"apply", "-f", "my-crontab.yaml"}, stdout: `crontab.stable.example.com/my-new-cron-object created`},
		{args: []string{"get", "crontab"}, stdout: `(?m)^NAME\s+SPEC\s+REPLICAS\s+AGE\n^my-new-cron-object\s+\* \* \* \* \*/5\s+1\s+\d+s$`},
		{args: []string{"get", "ct", "-o", "jsonpath={.items[0].spec.replicas} {.items[0].metadata.generation}"}, stdout: `^1 1$`},
		{args: []string{"apply", "-f", "invalid-crontab.yaml"}, wantFail: true,
			stderr: `The CronTab "my-invalid-cron-object" is invalid: \n\* spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10\n\* spec.cronSpec: Invalid value: "\* \* \* \*": spec.cronSpec in body should match`},
		{args: []string{"create", "--validate=false", "-f", "pruned-crontab.yaml"}, stdout: `crontab.stable.example.com/my-pruned-cron-object created`},
		{args: []string{"get", "crontab", "my-pruned-cron-object", "-o", "jsonpath={.spec}"}, stdout: `^\{"cronSpec":"\* \* \* \* \*/5","image":"my-awesome-cron-image","replicas":1\}$`},
		{args: []string{"create", "-f", "pruned-crontab.yaml", "--dry-run=server"}, wantFail: true, stderr: `strict decoding error: unknown field "spec.someRandomField"`},
		{args: []string{"get", "all"}, stdout: `crontab.stable.example.com/my-new-cron-object`},
		{args: []string{"delete", "crd", "crontabs.stable.example.com"}, stdout: `customresourcedefinition.apiextensions.k8s.io "crontabs.stable.example.com" deleted`},
		{args: []string{"get", "crontabs"}, wantFail: true, stderr: `the server (could not find the requested resource|doesn't have a resource type "crontabs")`},
	} {
		out, errOut, err := kubectl(step.args...)
		name := "kubectl " + strings.Join(step.args, " ")
		if (err != nil) != step.wantFail {
			t.Fatalf("%s: err=%v\nstdout:\n%s\nstderr:\n%s", name, err, out, errOut)
		}
		if step.stdout != "" && !regexp.MustCompile(step.stdout).MatchString(strings.TrimSpace(out)) {
			t.Errorf("%s: stdout does not match %q:\n%s", name, step.stdout, out)
		}
		if step.stderr != "" && !regexp.MustCompile(step.stderr).MatchString(errOut) {
			t.Errorf("%s: stderr does not match %q:\n%s", name, step.stderr, errOut)
		}
	}
}
