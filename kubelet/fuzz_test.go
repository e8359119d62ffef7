package kubelet

import (
	"os"
	"path/filepath"
	"reflect"
	"testing"
)

// FuzzParseStages parses fuzzed kwok Stage files (WithPodStages). Any
// input either parses or returns an error, never panics; what parses are
// pod Stages with names.
func FuzzParseStages(f *testing.F) {
	files, err := filepath.Glob(filepath.Join("testdata", "stages-*.yaml"))
	if err != nil || len(files) == 0 {
		f.Fatalf("no seed stages in testdata: %v", err)
	}
	for _, p := range files {
		b, err := os.ReadFile(p)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(b)
	}
	f.Add([]byte(`{"apiVersion":"kwok.x-k8s.io/v1alpha1","kind":"Stage","metadata":{"name":"x"},"spec":{"resourceRef":{"apiGroup":"v1","kind":"Node"}}}`))
	f.Add([]byte("apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Stage\nmetadata: {name: bad}\nspec:\n  resourceRef: {apiGroup: v1, kind: Pod}\n  selector:\n    matchExpressions:\n    - {key: '.metadata.deletionTimestamp', operator: Bogus}\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		stages, err := ParseStages(data)
		if err != nil {
			return
		}
		for i, s := range stages {
			if s.Kind != "Stage" || s.Spec.ResourceRef.Kind != "Pod" {
				t.Fatalf("stage %d is %s of %s, want a pod Stage", i, s.Kind, s.Spec.ResourceRef.Kind)
			}
		}
	})
}

// FuzzParseDebugConfig parses fuzzed kwok kubelet configurations
// (WithKubeletConfig). Any input either parses or returns an error, never
// panics, and parses the same way each time.
func FuzzParseDebugConfig(f *testing.F) {
	f.Add([]byte(kwokConfig))
	f.Add([]byte("apiVersion: kwok.x-k8s.io/v1alpha1\nkind: ClusterExec\nmetadata: {name: all}\nspec:\n  execs:\n  - containers: [app]\n    local:\n      workDir: /tmp\n"))
	f.Add([]byte("apiVersion: kwok.x-k8s.io/v1alpha1\nkind: PortForward\nmetadata: {name: p, namespace: default}\nspec:\n  forwards:\n  - ports: [8080]\n    target: {port: 80, address: 127.0.0.1}\n"))
	f.Add([]byte("apiVersion: kwok.x-k8s.io/v1alpha1\nkind: Logs\nmetadata: {name: p}\nspec:\n  logs: [{containers: [c], logsFile: /nonexistent, follow: true}]\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		c, err := ParseDebugConfig(data)
		again, errAgain := ParseDebugConfig(data)
		if (err == nil) != (errAgain == nil) || !reflect.DeepEqual(c, again) {
			t.Fatalf("ParseDebugConfig is not deterministic: %v then %v", err, errAgain)
		}
	})
}
