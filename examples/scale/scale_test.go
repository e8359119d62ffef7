// Package scale is the status and scale subresources walkthrough of "Extend
// the Kubernetes API with CustomResourceDefinitions", run with kubectl
// against fakeplane.
package scale

import (
	"testing"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/examples/internal/walkthrough"
)

func TestScaleWalkthrough(t *testing.T) {
	cp := fakeplane.Start(t)
	walkthrough.Run(t, cp, []walkthrough.Step{
		{Args: []string{"apply", "-f", "resourcedefinition.yaml"}, Stdout: `customresourcedefinition.apiextensions.k8s.io/crontabs.stable.example.com created`},
		{Args: []string{"apply", "-f", "my-crontab.yaml"}, Stdout: `crontab.stable.example.com/my-new-cron-object created`},
		{Args: []string{"scale", "--replicas=5", "crontabs/my-new-cron-object"}, Stdout: `crontab.stable.example.com/my-new-cron-object scaled`},
		{Args: []string{"get", "crontabs", "my-new-cron-object", "-o", "jsonpath={.spec.replicas}"}, Stdout: `^5$`},
		// The main resource ignores status; /status takes only status.
		{Args: []string{"patch", "crontab", "my-new-cron-object", "--type=merge", "-p", `{"status":{"replicas":2}}`}, Stdout: `patched \(no change\)`},
		{Args: []string{"patch", "crontab", "my-new-cron-object", "--subresource=status", "--type=merge", "-p", `{"status":{"replicas":2},"spec":{"replicas":9}}`}, Stdout: `patched`},
		{Args: []string{"get", "crontab", "my-new-cron-object", "-o", "jsonpath={.spec.replicas} {.status.replicas} {.metadata.generation}"}, Stdout: `^5 2 2$`},
	})
}
