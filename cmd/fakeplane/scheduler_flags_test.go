package main

import (
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestSchedulerFlagsAreChecked(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	// The seed's configuration names kubescheduler.config.k8s.io/v1beta2,
	// which kube-scheduler v1.28 and later no longer read.
	seed := write("seed.yaml", "apiVersion: kubescheduler.config.k8s.io/v1beta2\nkind: KubeSchedulerConfiguration\nprofiles:\n  - schedulerName: my-scheduler\nleaderElection:\n  leaderElect: false\n")
	badPct := write("pct.yaml", "apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\npercentageOfNodesToScore: 120\n")
	for _, tc := range []struct {
		name  string
		args  []string
		want  string
		usage bool
	}{
		{"negative nodes", []string{"--nodes", "-1"}, "--nodes must be 0 or more, not -1", true},
		{"nodes not a number", []string{"--nodes", "many"}, `invalid value "many" for flag -nodes`, true},
		{"a missing config", []string{"--scheduler-config", filepath.Join(dir, "absent.yaml")}, "no such file or directory", false},
		{"the seed's v1beta2 config", []string{"--scheduler-config", seed}, `no kind "KubeSchedulerConfiguration" is registered for version "kubescheduler.config.k8s.io/v1beta2"`, false},
		{"an invalid config", []string{"--scheduler-config", badPct}, "percentageOfNodesToScore: Invalid value: 120: not in valid range [0-100]", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "k")}, tc.args...)
			err := run(args)
			var ue usageError
			if err == nil || !strings.Contains(err.Error(), tc.want) || errors.As(err, &ue) != tc.usage || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v, want one line with %q (usage error: %v)", err, tc.want, tc.usage)
			}
		})
	}
}
