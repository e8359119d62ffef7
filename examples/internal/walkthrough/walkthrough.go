// Package walkthrough runs a sequence of kubectl commands against a
// fakeplane control plane and checks what each prints, for the examples.
package walkthrough

import (
	"context"
	"os/exec"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane"
)

// Step is one kubectl command and what it must print.
type Step struct {
	Args   []string
	Stdout string // regexp the trimmed stdout must match ("" to skip)
	Stderr string // regexp stderr must match ("" to skip)
	Fail   bool   // the command must fail
}

// Run runs the steps in order with the control plane's admin kubeconfig.
// It fails the test if kubectl is not on PATH.
func Run(t *testing.T, cp *fakeplane.ControlPlane, steps []Step) {
	t.Helper()
	if _, err := exec.LookPath("kubectl"); err != nil {
		t.Fatalf("kubectl is not on PATH (%v): this walkthrough runs kubectl", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	for _, step := range steps {
		cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", cp.KubeconfigPath()}, step.Args...)...)
		var out, errOut strings.Builder
		cmd.Stdout, cmd.Stderr = &out, &errOut
		err := cmd.Run()
		name := "kubectl " + strings.Join(step.Args, " ")
		if (err != nil) != step.Fail {
			t.Fatalf("%s: err=%v\nstdout:\n%s\nstderr:\n%s", name, err, out.String(), errOut.String())
		}
		if step.Stdout != "" && !regexp.MustCompile(step.Stdout).MatchString(strings.TrimSpace(out.String())) {
			t.Errorf("%s: stdout does not match %q:\n%s", name, step.Stdout, out.String())
		}
		if step.Stderr != "" && !regexp.MustCompile(step.Stderr).MatchString(errOut.String()) {
			t.Errorf("%s: stderr does not match %q:\n%s", name, step.Stderr, errOut.String())
		}
	}
}
