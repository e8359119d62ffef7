// Package shirts is the selectableFields walkthrough of "Extend the
// Kubernetes API with CustomResourceDefinitions", run with kubectl against
// fakeplane.
package shirts

import (
	"testing"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/examples/internal/walkthrough"
)

func TestShirtsWalkthrough(t *testing.T) {
	cp := fakeplane.Start(t)
	walkthrough.Run(t, cp, []walkthrough.Step{
		{Args: []string{"apply", "-f", "shirt-resource-definition.yaml"}, Stdout: `customresourcedefinition.apiextensions.k8s.io/shirts.stable.example.com created`},
		{Args: []string{"apply", "-f", "shirt-resources.yaml"}, Stdout: `(?s)shirt.stable.example.com/example1 created.*example2 created.*example3 created`},
		{Args: []string{"get", "shirts.stable.example.com"}, Stdout: `(?m)^NAME\s+COLOR\s+SIZE\n^example1\s+blue\s+S\n^example2\s+blue\s+M\n^example3\s+green\s+M$`},
		{Args: []string{"get", "shirts.stable.example.com", "--field-selector", "spec.color=blue"}, Stdout: `(?m)^NAME\s+COLOR\s+SIZE\n^example1\s+blue\s+S\n^example2\s+blue\s+M$`},
		// The seed prints example2 here; the correct (and kube-apiserver's) answer is example3.
		{Args: []string{"get", "shirts.stable.example.com", "--field-selector", "spec.color=green,spec.size=M"}, Stdout: `(?m)^NAME\s+COLOR\s+SIZE\n^example3\s+green\s+M$`},
		{Args: []string{"get", "shirts.stable.example.com", "--field-selector", "spec.weight=1"}, Fail: true, Stderr: `field label not supported: spec.weight`},
	})
}
