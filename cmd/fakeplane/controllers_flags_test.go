package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestControllersAndPresetFlagsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		name string
		args []string
		want string
	}{
		{"an unknown controller", []string{"--controllers", "*,-deploymnet"}, `--controllers: "-deploymnet" is not in the list of known controllers`},
		{"an unknown preset", []string{"--preset", "kind"}, `--preset must be cluster or envtest, not "kind"`},
		{"envtest with nodes", []string{"--preset", "envtest", "--nodes", "1"}, "--preset envtest runs no controllers, nodes or scheduler"},
		{"envtest with controllers", []string{"--preset", "envtest", "--controllers", "*"}, "--preset envtest runs no controllers, nodes or scheduler"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "k")}, tc.args...)
			err := run(args)
			var ue usageError
			if err == nil || !strings.Contains(err.Error(), tc.want) || !errors.As(err, &ue) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v, want a one-line usage error with %q", err, tc.want)
			}
		})
	}
}

// --pod-stages reads the kwok Stages at start: a stage fakeplane cannot
// run stops it with one line naming why.
func TestPodStagesFlagIsRead(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "node-stage.yaml")
	if err := os.WriteFile(bad, []byte("apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata: {name: n}\nspec:\n  resourceRef: {apiGroup: v1, kind: Node}\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	err := run([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(dir, "k"), "--nodes", "1", "--pod-stages", bad})
	var ue usageError
	if err == nil || !strings.Contains(err.Error(), "only v1 Pod stages") || errors.As(err, &ue) || strings.Contains(err.Error(), "\n") {
		t.Errorf("%v, want a one-line error saying only v1 Pod stages run", err)
	}
}
