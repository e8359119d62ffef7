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
	// Settle runs the command again, for a few seconds, until it
	// succeeds: for what kubectl reads from its cache. kubectl revalidates
	// its cached /openapi/v3 index with the time it fetched it, and
	// kube-apiserver answers 304 Not Modified within that second, so a
	// `kubectl explain` of a CRD just applied fails for up to a second
	// (on a real cluster too).
	Settle bool
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
	// kubectl's cache of discovery and OpenAPI documents, the walkthrough's
	// own: not shared with other tests or runs.
	cacheDir := t.TempDir()
	for _, step := range steps {
		var out, errOut strings.Builder
		var err error
		for deadline := time.Now().Add(5 * time.Second); ; {
			out.Reset()
			errOut.Reset()
			cmd := exec.CommandContext(ctx, "kubectl", append([]string{"--kubeconfig", cp.KubeconfigPath(), "--cache-dir", cacheDir}, step.Args...)...)
			cmd.Stdout, cmd.Stderr = &out, &errOut
			err = cmd.Run()
			if err == nil || !step.Settle || time.Now().After(deadline) {
				break
			}
			time.Sleep(200 * time.Millisecond)
		}
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
