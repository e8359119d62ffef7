package fakeplane_test

import (
	"testing"

	"github.com/fakeplane/fakeplane"
)

// TestKubectlAsAPersonTypesIt runs the kubectl commands of the API-fidelity
// issue that other tests do not, with the output a v1.37 cluster gives.
func TestKubectlAsAPersonTypesIt(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	dir := t.TempDir()

	mustKubectl(t, cp, "run", "wp", "--image=nginx")
	wantLines(t, "get pods -o wide", mustKubectl(t, cp, "get", "pods", "wp", "-o", "wide"),
		`NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE\s+IP\s+NODE\s+NOMINATED NODE\s+READINESS GATES`,
		`wp\s+0/1\s+Pending\s+0\s+\d+s\s+<none>\s+<none>\s+<none>\s+<none>`)

	// A server-side dry run shows the defaulted object and stores nothing.
	out := mustKubectl(t, cp, "create", "deployment", "dd", "--image=nginx", "--dry-run=server", "-o", "yaml")
	for _, want := range []string{`  progressDeadlineSeconds: 600`, `  revisionHistoryLimit: 10`, `      maxSurge: 25%`,
		`        terminationMessagePolicy: File`, `      schedulerName: default-scheduler`, `  generation: 1`} {
		wantLine(t, "create --dry-run=server", out, want)
	}
	_, stderr, err := kubectl(t, cp, "get", "deployment", "dd")
	if err == nil {
		t.Error("the dry run stored the deployment")
	}
	wantErrLine(t, "after dry run", stderr, `Error from server (NotFound): deployments.apps "dd" not found`)

	// kubectl sends fieldValidation=Strict: an unknown field fails as on a cluster.
	bad := writeFile(t, dir, "bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: bad\ndata:\n  a: \"1\"\nfoo: bar\n")
	stderr = failKubectl(t, cp, "apply", "-f", bad)
	wantErrLine(t, "apply of an unknown field", stderr,
		`Error from server (BadRequest): error when creating "`+bad+`": ConfigMap in version "v1" cannot be handled as a ConfigMap: strict decoding error: unknown field "foo"`)
	stderr = failKubectl(t, cp, "apply", "--server-side", "-f", bad)
	wantErrLine(t, "server-side apply of an unknown field", stderr,
		`Error from server: failed to create typed patch object (default/bad; /v1, Kind=ConfigMap): .foo: field not declared in schema`)
}
