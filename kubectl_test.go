package fakeplane_test

// These tests drive the kubectl binary on PATH against a fakeplane control
// plane, command by command as a person types them, and check what kubectl
// prints against what it prints for a real kube-apiserver.
//
// Assertions marked FIXME(server) keep the answer a real cluster gives where
// fakeplane currently answers differently; they are not to be weakened.

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/version"
	"sigs.k8s.io/yaml"

	"github.com/fakeplane/fakeplane"

	"github.com/fakeplane/fakeplane/internal/syncbuf"
)

// kubectlTimeout bounds one kubectl invocation.
const kubectlTimeout = 60 * time.Second

// age matches a value of an AGE column, e.g. 0s, 45s, 3m2s, 5h.
const age = `[0-9]+[smhdy][0-9smhdy]*`

var kubectlPath = sync.OnceValues(func() (string, error) { return exec.LookPath("kubectl") })

// kubectlBinary returns kubectl's path and fails the test when it is missing:
// these tests exist to check fakeplane against the real client.
func kubectlBinary(t testing.TB) string {
	t.Helper()
	p, err := kubectlPath()
	if err != nil {
		t.Fatalf("kubectl is not on PATH (%v): the kubectl tests need a kubectl binary to drive fakeplane with", err)
	}
	return p
}

// kubectlArgs prefixes args with the control plane's kubeconfig and a cache
// directory of the test's own.
func kubectlArgs(cp *fakeplane.ControlPlane, args []string) []string {
	cache := filepath.Join(filepath.Dir(cp.KubeconfigPath()), "kube-cache")
	return append([]string{"--kubeconfig", cp.KubeconfigPath(), "--cache-dir", cache}, args...)
}

// kubectlEnv is the environment without a KUBECONFIG that could point
// kubectl elsewhere.
func kubectlEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "KUBECONFIG=") {
			continue
		}
		env = append(env, kv)
	}
	return env
}

// kubectl runs kubectl against cp and returns what it printed.
func kubectl(t *testing.T, cp *fakeplane.ControlPlane, args ...string) (stdout, stderr string, err error) {
	t.Helper()
	bin := kubectlBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), kubectlTimeout)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, kubectlArgs(cp, args)...)
	cmd.Env = kubectlEnv()
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	if ctx.Err() != nil {
		err = fmt.Errorf("timed out after %v: %w", kubectlTimeout, err)
	}
	return out.String(), errOut.String(), err
}

// mustKubectl runs kubectl and fails the test unless it succeeds; it returns stdout.
func mustKubectl(t *testing.T, cp *fakeplane.ControlPlane, args ...string) string {
	t.Helper()
	out, errOut, err := kubectl(t, cp, args...)
	if err != nil {
		t.Fatalf("kubectl %s: %v\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), err, out, errOut)
	}
	return out
}

// failKubectl runs kubectl, reports an error unless it fails, and returns stderr.
func failKubectl(t *testing.T, cp *fakeplane.ControlPlane, args ...string) string {
	t.Helper()
	out, errOut, err := kubectl(t, cp, args...)
	if err == nil {
		t.Errorf("kubectl %s succeeded, want an error\nstdout:\n%s\nstderr:\n%s", strings.Join(args, " "), out, errOut)
	}
	return errOut
}

// outputLines splits output into lines without trailing blanks.
func outputLines(s string) []string {
	var out []string
	for _, l := range strings.Split(s, "\n") {
		l = strings.TrimRight(l, " \t\r")
		if l != "" {
			out = append(out, l)
		}
	}
	return out
}

// wantLines checks that output has exactly one line per pattern, each
// matching its (anchored) regular expression.
func wantLines(t *testing.T, what, output string, patterns ...string) {
	t.Helper()
	got := outputLines(output)
	ok := len(got) == len(patterns)
	for i := 0; ok && i < len(got); i++ {
		ok = regexp.MustCompile("^(?:" + patterns[i] + ")$").MatchString(got[i])
	}
	if !ok {
		t.Errorf("%s: output\n%s\nwant lines matching\n%s", what, strings.Join(got, "\n"), strings.Join(patterns, "\n"))
	}
}

// hasLine reports whether output has a line matching the anchored pattern.
func hasLine(output, pattern string) bool {
	re := regexp.MustCompile("^(?:" + pattern + ")$")
	for _, l := range outputLines(output) {
		if re.MatchString(l) {
			return true
		}
	}
	return false
}

// wantLine checks that output has a line matching the anchored pattern.
func wantLine(t *testing.T, what, output, pattern string) {
	t.Helper()
	if !hasLine(output, pattern) {
		t.Errorf("%s: output\n%s\nhas no line matching\n%s", what, output, pattern)
	}
}

// wantErrLine checks that stderr has exactly the line want (other lines,
// such as client warnings, may surround it).
func wantErrLine(t *testing.T, what, stderr, want string) {
	t.Helper()
	for _, l := range outputLines(stderr) {
		if l == want {
			return
		}
	}
	t.Errorf("%s: stderr\n%s\nwant the line\n%s", what, stderr, want)
}

// writeFile writes a manifest into dir and returns its path.
func writeFile(t *testing.T, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// jsonpath reads one field with kubectl get -o jsonpath.
func jsonpath(t *testing.T, cp *fakeplane.ControlPlane, expr string, args ...string) string {
	t.Helper()
	return mustKubectl(t, cp, append(append([]string{"get"}, args...), "-o", "jsonpath="+expr)...)
}

// kubectlStream is a running kubectl whose stdout is read line by line.
type kubectlStream struct {
	cancel context.CancelFunc
	lines  chan string
	done   chan error
	stderr *syncbuf.Buffer
	seen   []string
}

// startKubectl starts a long-running kubectl (a watch) bounded by timeout.
func startKubectl(t *testing.T, cp *fakeplane.ControlPlane, timeout time.Duration, args ...string) *kubectlStream {
	t.Helper()
	bin := kubectlBinary(t)
	ctx, cancel := context.WithTimeout(context.Background(), timeout)
	cmd := exec.CommandContext(ctx, bin, kubectlArgs(cp, args)...)
	cmd.Env = kubectlEnv()
	s := &kubectlStream{cancel: cancel, lines: make(chan string, 1000), done: make(chan error, 1), stderr: &syncbuf.Buffer{}}
	cmd.Stderr = s.stderr
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatalf("starting kubectl %s: %v", strings.Join(args, " "), err)
	}
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			s.lines <- strings.TrimRight(sc.Text(), " \t\r")
		}
		_, _ = io.Copy(io.Discard, stdout)
		close(s.lines)
		s.done <- cmd.Wait()
	}()
	t.Cleanup(s.stop)
	return s
}

// waitFor reads lines until one matches the anchored pattern, and fails the
// test if the stream ends or d passes first.
func (s *kubectlStream) waitFor(t *testing.T, pattern string, d time.Duration) {
	t.Helper()
	re := regexp.MustCompile("^(?:" + pattern + ")$")
	timer := time.NewTimer(d)
	defer timer.Stop()
	for {
		select {
		case l, ok := <-s.lines:
			if !ok {
				t.Fatalf("kubectl ended before printing a line matching %q; it printed\n%s\nstderr:\n%s", pattern, strings.Join(s.seen, "\n"), s.stderr.String())
			}
			s.seen = append(s.seen, l)
			if re.MatchString(l) {
				return
			}
		case <-timer.C:
			t.Fatalf("no line matching %q within %v; kubectl printed\n%s\nstderr:\n%s", pattern, d, strings.Join(s.seen, "\n"), s.stderr.String())
		}
	}
}

// stop ends kubectl and returns every line it printed.
func (s *kubectlStream) stop() {
	s.cancel()
	for l := range s.lines {
		s.seen = append(s.seen, l)
	}
}

func TestKubectlDiscoveryAndFreshCluster(t *testing.T) {
	kubectlBinary(t)
	t.Parallel()
	cp := fakeplane.Start(t)

	t.Run("get_ns_lists_system_namespaces_active", func(t *testing.T) {
		wantLines(t, "kubectl get ns", mustKubectl(t, cp, "get", "ns"),
			`NAME\s+STATUS\s+AGE`,
			`default\s+Active\s+`+age,
			`kube-node-lease\s+Active\s+`+age,
			`kube-public\s+Active\s+`+age,
			`kube-system\s+Active\s+`+age,
		)
	})

	t.Run("api_resources_lists_71_resources", func(t *testing.T) {
		out := mustKubectl(t, cp, "api-resources")
		lines := outputLines(out)
		if len(lines) != 72 {
			t.Errorf("kubectl api-resources printed %d lines, want a header and 71 rows:\n%s", len(lines), out)
		}
		if len(lines) > 0 && !regexp.MustCompile(`^NAME\s+SHORTNAMES\s+APIVERSION\s+NAMESPACED\s+KIND$`).MatchString(lines[0]) {
			t.Errorf("header = %q", lines[0])
		}
		for _, row := range []string{
			`pods\s+po\s+v1\s+true\s+Pod`,
			`deployments\s+deploy\s+apps/v1\s+true\s+Deployment`,
			`namespaces\s+ns\s+v1\s+false\s+Namespace`,
			`configmaps\s+cm\s+v1\s+true\s+ConfigMap`,
			`customresourcedefinitions\s+crd,crds\s+apiextensions.k8s.io/v1\s+false\s+CustomResourceDefinition`,
		} {
			wantLine(t, "kubectl api-resources", out, row)
		}
	})

	t.Run("api_resources_cluster_scoped_only", func(t *testing.T) {
		out := mustKubectl(t, cp, "api-resources", "--namespaced=false")
		wantLine(t, "kubectl api-resources --namespaced=false", out, `namespaces\s+ns\s+v1\s+false\s+Namespace`)
		wantLine(t, "kubectl api-resources --namespaced=false", out, `nodes\s+no\s+v1\s+false\s+Node`)
		for _, l := range outputLines(out)[1:] {
			if !regexp.MustCompile(`\sfalse\s+\S+$`).MatchString(l) {
				t.Errorf("kubectl api-resources --namespaced=false lists a namespaced resource: %q", l)
			}
		}
		if hasLine(out, `pods\s.*`) {
			t.Errorf("kubectl api-resources --namespaced=false lists pods:\n%s", out)
		}
	})

	t.Run("get_all_shows_kubernetes_service", func(t *testing.T) {
		wantLines(t, "kubectl get all", mustKubectl(t, cp, "get", "all"),
			`NAME\s+TYPE\s+CLUSTER-IP\s+EXTERNAL-IP\s+PORT\(S\)\s+AGE`,
			`service/kubernetes\s+ClusterIP\s+\d+\.\d+\.\d+\.\d+\s+<none>\s+443/TCP\s+`+age,
		)
	})

	t.Run("get_sa_shows_default", func(t *testing.T) {
		wantLines(t, "kubectl get sa", mustKubectl(t, cp, "get", "sa"),
			`NAME\s+AGE`,
			`default\s+`+age,
		)
	})

	t.Run("get_cm_kube_root_ca", func(t *testing.T) {
		wantLines(t, "kubectl get cm kube-root-ca.crt", mustKubectl(t, cp, "get", "cm", "kube-root-ca.crt"),
			`NAME\s+DATA\s+AGE`,
			`kube-root-ca\.crt\s+1\s+`+age,
		)
		if got := jsonpath(t, cp, `{.data.ca\.crt}`, "cm", "kube-root-ca.crt"); !strings.HasPrefix(got, "-----BEGIN CERTIFICATE-----") {
			t.Errorf("kube-root-ca.crt ca.crt = %q, want a PEM certificate", got)
		}
	})

	t.Run("raw_version", func(t *testing.T) {
		out := mustKubectl(t, cp, "get", "--raw", "/version")
		var v version.Info
		if err := json.Unmarshal([]byte(out), &v); err != nil {
			t.Fatalf("kubectl get --raw /version: %v\n%s", err, out)
		}
		if v.Major != "1" || v.Minor != "37" || !strings.HasPrefix(v.GitVersion, "v1.37.") {
			t.Errorf("/version = %+v, want 1.37", v)
		}
		// kube-apiserver indents /version.
		if lines := strings.Split(out, "\n"); len(lines) < 2 || lines[0] != "{" || lines[1] != `  "major": "1",` {
			t.Errorf("kubectl get --raw /version is not indented as kube-apiserver's:\n%s", out)
		}
	})

	t.Run("raw_readyz_verbose", func(t *testing.T) {
		out := mustKubectl(t, cp, "get", "--raw", "/readyz?verbose")
		lines := outputLines(out)
		if len(lines) < 3 || lines[0] != "[+]ping ok" || lines[len(lines)-1] != "readyz check passed" {
			t.Errorf("kubectl get --raw /readyz?verbose:\n%s", out)
		}
		for _, l := range lines[:max(len(lines)-1, 0)] {
			if !regexp.MustCompile(`^\[\+\][a-z0-9/-]+ ok$`).MatchString(l) {
				t.Errorf("readyz check line %q", l)
			}
		}
		for _, want := range []string{"[+]log ok", "[+]etcd ok", "[+]informer-sync ok", "[+]shutdown ok"} {
			wantLine(t, "kubectl get --raw /readyz?verbose", out, regexp.QuoteMeta(want))
		}
	})

	t.Run("raw_api", func(t *testing.T) {
		out := mustKubectl(t, cp, "get", "--raw", "/api")
		wantLines(t, "kubectl get --raw /api", out,
			`\{"kind":"APIVersions","versions":\["v1"\],"serverAddressByClientCIDRs":\[\{"clientCIDR":"0\.0\.0\.0/0","serverAddress":"[0-9.]+:[0-9]+"\}\]\}`)
	})
}

func TestKubectlConfigMaps(t *testing.T) {
	kubectlBinary(t)
	t.Parallel()
	cp := fakeplane.Start(t)
	dir := t.TempDir()

	fromFile := writeFile(t, dir, "fromfile.yaml", `apiVersion: v1
kind: ConfigMap
metadata:
  name: fromfile
  labels:
    source: file
data:
  greeting: hello
`)

	t.Run("create_configmap", func(t *testing.T) {
		wantLines(t, "kubectl create configmap", mustKubectl(t, cp, "create", "configmap", "x", "--from-literal=a=b"), `configmap/x created`)
		wantLines(t, "kubectl get cm x", mustKubectl(t, cp, "get", "cm", "x"),
			`NAME\s+DATA\s+AGE`,
			`x\s+1\s+`+age,
		)
	})

	t.Run("create_from_file", func(t *testing.T) {
		wantLines(t, "kubectl create -f", mustKubectl(t, cp, "create", "-f", fromFile), `configmap/fromfile created`)
		if got := jsonpath(t, cp, "{.data.greeting}", "cm", "fromfile"); got != "hello" {
			t.Errorf("data.greeting = %q, want hello", got)
		}
	})

	t.Run("get_object_json", func(t *testing.T) {
		out := mustKubectl(t, cp, "get", "cm", "fromfile", "-o", "json")
		var cm corev1.ConfigMap
		if err := json.Unmarshal([]byte(out), &cm); err != nil {
			t.Fatalf("kubectl get cm fromfile -o json: %v\n%s", err, out)
		}
		if cm.Kind != "ConfigMap" || cm.APIVersion != "v1" || cm.Name != "fromfile" || cm.Namespace != "default" ||
			cm.UID == "" || cm.ResourceVersion == "" || cm.CreationTimestamp.IsZero() ||
			cm.Labels["source"] != "file" || cm.Data["greeting"] != "hello" {
			t.Errorf("kubectl get cm fromfile -o json:\n%s", out)
		}
		if !strings.HasPrefix(out, "{\n    \"apiVersion\": \"v1\",") {
			t.Errorf("kubectl -o json output is not kubectl's 4-space indented JSON:\n%s", out)
		}
	})

	t.Run("get_list_json", func(t *testing.T) {
		out := mustKubectl(t, cp, "get", "cm", "-o", "json")
		var list struct {
			Kind  string             `json:"kind"`
			Items []corev1.ConfigMap `json:"items"`
		}
		if err := json.Unmarshal([]byte(out), &list); err != nil {
			t.Fatalf("kubectl get cm -o json: %v\n%s", err, out)
		}
		var names []string
		for _, it := range list.Items {
			names = append(names, it.Name)
		}
		if list.Kind != "List" || strings.Join(names, ",") != "fromfile,kube-root-ca.crt,x" {
			t.Errorf("kubectl get cm -o json: kind %q, items %v; want List of fromfile, kube-root-ca.crt, x", list.Kind, names)
		}
	})

	t.Run("label", func(t *testing.T) {
		wantLines(t, "kubectl label", mustKubectl(t, cp, "label", "cm", "x", "env=prod"), `configmap/x labeled`)
		if got := jsonpath(t, cp, "{.metadata.labels.env}", "cm", "x"); got != "prod" {
			t.Errorf("label env = %q, want prod", got)
		}
		wantLines(t, "kubectl get cm x --show-labels", mustKubectl(t, cp, "get", "cm", "x", "--show-labels"),
			`NAME\s+DATA\s+AGE\s+LABELS`,
			`x\s+1\s+`+age+`\s+env=prod`,
		)
		wantErrLine(t, "kubectl label without --overwrite", failKubectl(t, cp, "label", "cm", "x", "env=dev"),
			`error: 'env' already has a value (prod), and --overwrite is false`)
		wantLines(t, "kubectl label --overwrite", mustKubectl(t, cp, "label", "cm", "x", "env=dev", "--overwrite"), `configmap/x labeled`)
		if got := jsonpath(t, cp, "{.metadata.labels.env}", "cm", "x"); got != "dev" {
			t.Errorf("label env = %q, want dev", got)
		}
		wantLines(t, "kubectl label env-", mustKubectl(t, cp, "label", "cm", "x", "env-"), `configmap/x unlabeled`)
		if got := jsonpath(t, cp, "{.metadata.labels}", "cm", "x"); got != "" {
			t.Errorf("labels after removal = %q, want none", got)
		}
		wantLines(t, "kubectl get cm -l source=file", mustKubectl(t, cp, "get", "cm", "-l", "source=file", "-o", "name"), `configmap/fromfile`)
	})

	t.Run("annotate", func(t *testing.T) {
		wantLines(t, "kubectl annotate", mustKubectl(t, cp, "annotate", "cm", "x", "note=hello world"), `configmap/x annotated`)
		if got := jsonpath(t, cp, "{.metadata.annotations.note}", "cm", "x"); got != "hello world" {
			t.Errorf("annotation note = %q, want %q", got, "hello world")
		}
		wantLines(t, "kubectl annotate note-", mustKubectl(t, cp, "annotate", "cm", "x", "note-"), `configmap/x annotated`)
		if got := jsonpath(t, cp, "{.metadata.annotations}", "cm", "x"); got != "" {
			t.Errorf("annotations after removal = %q, want none", got)
		}
	})

	t.Run("patch", func(t *testing.T) {
		for _, tc := range []struct {
			name, typ, patch, field, want string
		}{
			{"merge_adds_key", "merge", `{"data":{"m":"merged"}}`, "{.data.m}", "merged"},
			{"merge_null_removes_key", "merge", `{"data":{"m":null}}`, "{.data.m}", ""},
			{"strategic_adds_key", "strategic", `{"data":{"s":"strategic"}}`, "{.data.s}", "strategic"},
			{"json_add", "json", `[{"op":"add","path":"/data/j","value":"json"}]`, "{.data.j}", "json"},
			{"json_replace", "json", `[{"op":"replace","path":"/data/a","value":"replaced"}]`, "{.data.a}", "replaced"},
			{"json_test_and_remove", "json", `[{"op":"test","path":"/data/j","value":"json"},{"op":"remove","path":"/data/j"}]`, "{.data.j}", ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				wantLines(t, "kubectl patch --type="+tc.typ, mustKubectl(t, cp, "patch", "cm", "x", "--type="+tc.typ, "-p", tc.patch), `configmap/x patched`)
				if got := jsonpath(t, cp, tc.field, "cm", "x"); got != tc.want {
					t.Errorf("after patch %s, %s = %q, want %q", tc.patch, tc.field, got, tc.want)
				}
			})
		}
		t.Run("no_change", func(t *testing.T) {
			wantLines(t, "kubectl patch (no change)", mustKubectl(t, cp, "patch", "cm", "x", "--type=merge", "-p", `{"data":{"s":"strategic"}}`), `configmap/x patched \(no change\)`)
		})
		if got := jsonpath(t, cp, "{.data}", "cm", "x"); got != `{"a":"replaced","s":"strategic"}` {
			t.Errorf("data after the patches = %s", got)
		}
	})

	t.Run("patch_json_not_a_list_is_bad_request", func(t *testing.T) {
		stderr := failKubectl(t, cp, "patch", "cm", "x", "--type=json", "-p", `{"op":"add","path":"/data/k","value":"v"}`)
		// kube-apiserver decodes a JSON patch strictly first (fieldValidation
		// defaults to Warn for PATCH) and answers
		// errors.NewBadRequest("error decoding patch: " + err) with the
		// handler's own []jsonPatchOp type in the message
		// (k8s.io/apiserver/pkg/endpoints/handlers/patch.go, applyJSPatch).
		wantErrLine(t, "kubectl patch --type=json with an object", stderr,
			`Error from server (BadRequest): error decoding patch: json: cannot unmarshal object into Go value of type []handlers.jsonPatchOp`)
	})

	t.Run("patch_json_failing_op_is_invalid", func(t *testing.T) {
		stderr := failKubectl(t, cp, "patch", "cm", "x", "--type=json", "-p", `[{"op":"remove","path":"/data/missing"}]`)
		// kube-apiserver answers a JSON patch that does not apply with
		// NewGenericServerResponse(422, "", schema.GroupResource{}, "", ...):
		// reason Invalid, empty details, and the generic message, which
		// kubectl prints as "The request is invalid: <message>"
		// (apiserver handlers/patch.go applyJSPatch; kubectl cmd/util checkErr).
		wantErrLine(t, "kubectl patch --type=json with a failing op", stderr,
			`The request is invalid: the server rejected our request due to an error in our request`)
		if got := jsonpath(t, cp, "{.data}", "cm", "x"); got != `{"a":"replaced","s":"strategic"}` {
			t.Errorf("a failed patch changed the object: data = %s", got)
		}
	})

	t.Run("patch_missing_object_not_found", func(t *testing.T) {
		for _, typ := range []string{"merge", "strategic", "json"} {
			patch := `{"data":{"a":"b"}}`
			if typ == "json" {
				patch = `[{"op":"add","path":"/data/a","value":"b"}]`
			}
			wantErrLine(t, "kubectl patch --type="+typ+" of a missing object", failKubectl(t, cp, "patch", "cm", "nope", "--type="+typ, "-p", patch),
				`Error from server (NotFound): configmaps "nope" not found`)
		}
	})

	t.Run("create_existing_already_exists", func(t *testing.T) {
		// kubectl create -f names the file in the message (cmdutil.AddSourceToErr).
		wantErrLine(t, "kubectl create -f of an existing object", failKubectl(t, cp, "create", "-f", fromFile),
			fmt.Sprintf(`Error from server (AlreadyExists): error when creating %q: configmaps "fromfile" already exists`, fromFile))
		// kubectl create configmap wraps it as "failed to create configmap: ...".
		wantErrLine(t, "kubectl create configmap of an existing object", failKubectl(t, cp, "create", "configmap", "x"),
			`error: failed to create configmap: configmaps "x" already exists`)
	})

	t.Run("create_invalid_name", func(t *testing.T) {
		const detail = `metadata.name: Invalid value: "Bad_Name": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
		wantErrLine(t, "kubectl create cm Bad_Name", failKubectl(t, cp, "create", "cm", "Bad_Name"),
			`error: failed to create configmap: ConfigMap "Bad_Name" is invalid: `+detail)
		bad := writeFile(t, dir, "bad.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: Bad_Name\n")
		wantErrLine(t, "kubectl create -f with name Bad_Name", failKubectl(t, cp, "create", "-f", bad),
			`The ConfigMap "Bad_Name" is invalid: `+detail)
	})

	t.Run("delete", func(t *testing.T) {
		wantLines(t, "kubectl delete cm x", mustKubectl(t, cp, "delete", "cm", "x"), `configmap "x" deleted`)
		wantErrLine(t, "kubectl get cm x after delete", failKubectl(t, cp, "get", "cm", "x"),
			`Error from server (NotFound): configmaps "x" not found`)
		wantErrLine(t, "kubectl delete cm x again", failKubectl(t, cp, "delete", "cm", "x"),
			`Error from server (NotFound): configmaps "x" not found`)
	})

	t.Run("delete_from_file", func(t *testing.T) {
		two := writeFile(t, dir, "two.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: one\n---\napiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: two\n")
		wantLines(t, "kubectl create -f two.yaml", mustKubectl(t, cp, "create", "-f", two), `configmap/one created`, `configmap/two created`)
		wantLines(t, "kubectl delete -f two.yaml", mustKubectl(t, cp, "delete", "-f", two), `configmap "one" deleted`, `configmap "two" deleted`)
		wantLines(t, "kubectl delete -f fromfile.yaml", mustKubectl(t, cp, "delete", "-f", fromFile), `configmap "fromfile" deleted`)
		wantLines(t, "kubectl get cm -o name", mustKubectl(t, cp, "get", "cm", "-o", "name"), `configmap/kube-root-ca\.crt`)
	})
}

func TestKubectlDeployments(t *testing.T) {
	kubectlBinary(t)
	t.Parallel()
	cp := fakeplane.Start(t)
	dir := t.TempDir()
	manifest := func(replicas int) string {
		return writeFile(t, dir, "web.yaml", fmt.Sprintf(`apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels:
    app: web
spec:
  replicas: %d
  selector:
    matchLabels:
      app: web
  template:
    metadata:
      labels:
        app: web
    spec:
      containers:
      - name: nginx
        image: nginx:1.27
`, replicas))
	}

	t.Run("apply_creates_configures_and_is_unchanged", func(t *testing.T) {
		wantLines(t, "first kubectl apply", mustKubectl(t, cp, "apply", "-f", manifest(1)), `deployment\.apps/web created`)
		wantLines(t, "kubectl apply with replicas 2", mustKubectl(t, cp, "apply", "-f", manifest(2)), `deployment\.apps/web configured`)
		wantLines(t, "kubectl apply again", mustKubectl(t, cp, "apply", "-f", manifest(2)), `deployment\.apps/web unchanged`)
	})

	t.Run("get_yaml_has_fields_and_generation_2", func(t *testing.T) {
		out := mustKubectl(t, cp, "get", "deploy", "web", "-o", "yaml")
		var d appsv1.Deployment
		if err := yaml.UnmarshalStrict([]byte(out), &d); err != nil {
			t.Fatalf("kubectl get deploy web -o yaml: %v\n%s", err, out)
		}
		if d.APIVersion != "apps/v1" || d.Kind != "Deployment" || d.Name != "web" || d.Namespace != "default" {
			t.Errorf("type/object meta: %+v %s/%s", d.TypeMeta, d.Namespace, d.Name)
		}
		if d.Generation != 2 {
			t.Errorf("metadata.generation = %d, want 2", d.Generation)
		}
		if d.UID == "" || d.ResourceVersion == "" || d.CreationTimestamp.IsZero() {
			t.Errorf("server metadata missing: uid %q resourceVersion %q creationTimestamp %v", d.UID, d.ResourceVersion, d.CreationTimestamp)
		}
		if d.Labels["app"] != "web" || !strings.Contains(d.Annotations["kubectl.kubernetes.io/last-applied-configuration"], `"replicas":2`) {
			t.Errorf("labels %v, annotations %v", d.Labels, d.Annotations)
		}
		if d.Spec.Replicas == nil || *d.Spec.Replicas != 2 || d.Spec.Selector == nil || d.Spec.Selector.MatchLabels["app"] != "web" ||
			len(d.Spec.Template.Spec.Containers) != 1 || d.Spec.Template.Spec.Containers[0].Image != "nginx:1.27" {
			t.Errorf("spec:\n%s", out)
		}
		for _, line := range []string{"  generation: 2", "  name: web", "  replicas: 2", "      - image: nginx:1.27"} {
			wantLine(t, "kubectl get deploy web -o yaml", out, regexp.QuoteMeta(line))
		}
	})

	t.Run("patch_strategic_merges_containers_by_name", func(t *testing.T) {
		wantLines(t, "kubectl patch deploy --type=strategic",
			mustKubectl(t, cp, "patch", "deploy", "web", "--type=strategic", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"sidecar","image":"busybox:1.36"}]}}}}`),
			`deployment\.apps/web patched`)
		if got := jsonpath(t, cp, "{.spec.template.spec.containers[*].name}", "deploy", "web"); got != "sidecar nginx" && got != "nginx sidecar" {
			t.Errorf("containers after a strategic merge patch = %q, want nginx and sidecar", got)
		}
		if got := jsonpath(t, cp, "{.metadata.generation}", "deploy", "web"); got != "3" {
			t.Errorf("generation after a template change = %s, want 3", got)
		}
	})

	t.Run("patch_merge_replaces_containers", func(t *testing.T) {
		wantLines(t, "kubectl patch deploy --type=merge",
			mustKubectl(t, cp, "patch", "deploy", "web", "--type=merge", "-p", `{"spec":{"template":{"spec":{"containers":[{"name":"nginx","image":"nginx:1.28"}]}}}}`),
			`deployment\.apps/web patched`)
		if got := jsonpath(t, cp, "{.spec.template.spec.containers[*].image}", "deploy", "web"); got != "nginx:1.28" {
			t.Errorf("container images after a merge patch = %q, want nginx:1.28", got)
		}
	})

	t.Run("scale", func(t *testing.T) {
		wantLines(t, "kubectl scale", mustKubectl(t, cp, "scale", "deploy", "web", "--replicas=3"), `deployment\.apps/web scaled`)
		if got := mustKubectl(t, cp, "get", "deploy", "web", "-o", "jsonpath={.spec.replicas}"); got != "3" {
			t.Errorf("kubectl get deploy web -o jsonpath={.spec.replicas} = %q, want 3", got)
		}
		wantLines(t, "kubectl get deploy web", mustKubectl(t, cp, "get", "deploy", "web"),
			`NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE`,
			`web\s+\d+/3\s+\d+\s+\d+\s+`+age,
		)
	})
}

func TestKubectlWatch(t *testing.T) {
	kubectlBinary(t)
	t.Parallel()
	cp := fakeplane.Start(t)
	const wait = 20 * time.Second

	t.Run("get_cm_watch_streams_new_object", func(t *testing.T) {
		w := startKubectl(t, cp, 45*time.Second, "get", "cm", "-w")
		w.waitFor(t, `kube-root-ca\.crt\s+1\s+`+age, wait)
		wantLines(t, "kubectl create cm watched", mustKubectl(t, cp, "create", "cm", "watched", "--from-literal=k=v"), `configmap/watched created`)
		w.waitFor(t, `watched\s+1\s+`+age, wait)
		wantLines(t, "kubectl delete cm watched", mustKubectl(t, cp, "delete", "cm", "watched"), `configmap "watched" deleted`)
		w.waitFor(t, `watched\s+1\s+`+age, wait)
		w.stop()
		wantLines(t, "kubectl get cm -w", strings.Join(w.seen, "\n"),
			`NAME\s+DATA\s+AGE`,
			`kube-root-ca\.crt\s+1\s+`+age,
			`watched\s+1\s+`+age,
			`watched\s+1\s+`+age,
		)
	})

	t.Run("get_cm_watch_output_watch_events", func(t *testing.T) {
		w := startKubectl(t, cp, 45*time.Second, "get", "cm", "-w", "--output-watch-events")
		w.waitFor(t, `ADDED\s+kube-root-ca\.crt\s+1\s+`+age, wait)
		mustKubectl(t, cp, "create", "cm", "evented")
		w.waitFor(t, `ADDED\s+evented\s+0\s+`+age, wait)
		mustKubectl(t, cp, "label", "cm", "evented", "x=y")
		w.waitFor(t, `MODIFIED\s+evented\s+0\s+`+age, wait)
		mustKubectl(t, cp, "delete", "cm", "evented")
		w.waitFor(t, `DELETED\s+evented\s+0\s+`+age, wait)
		w.stop()
		wantLines(t, "kubectl get cm -w --output-watch-events", strings.Join(w.seen, "\n"),
			`EVENT\s+NAME\s+DATA\s+AGE`,
			`ADDED\s+kube-root-ca\.crt\s+1\s+`+age,
			`ADDED\s+evented\s+0\s+`+age,
			`MODIFIED\s+evented\s+0\s+`+age,
			`DELETED\s+evented\s+0\s+`+age,
		)
	})

	t.Run("get_cm_watch_ends_at_request_timeout", func(t *testing.T) {
		start := time.Now()
		out, stderr, err := kubectl(t, cp, "get", "cm", "-w", "--request-timeout=2s")
		if took := time.Since(start); took > 30*time.Second {
			t.Errorf("kubectl get cm -w --request-timeout=2s ran for %v", took)
		}
		if err != nil {
			t.Logf("kubectl get cm -w --request-timeout=2s: %v (stderr %q)", err, stderr)
		}
		wantLines(t, "kubectl get cm -w --request-timeout=2s", out,
			`NAME\s+DATA\s+AGE`,
			`kube-root-ca\.crt\s+1\s+`+age,
		)
	})
}

func TestKubectlChunkedList(t *testing.T) {
	kubectlBinary(t)
	t.Parallel()
	cp := fakeplane.Start(t)
	for _, name := range []string{"cm-e", "cm-b", "cm-g", "cm-a", "cm-d", "cm-f", "cm-c"} {
		mustKubectl(t, cp, "create", "cm", name)
	}

	t.Run("chunk_size_2_lists_all_sorted_once", func(t *testing.T) {
		out, stderr, err := kubectl(t, cp, "get", "cm", "--chunk-size=2", "-v=6")
		if err != nil {
			t.Fatalf("kubectl get cm --chunk-size=2: %v\n%s", err, stderr)
		}
		wantLines(t, "kubectl get cm --chunk-size=2", out,
			`NAME\s+DATA\s+AGE`,
			`cm-a\s+0\s+`+age,
			`cm-b\s+0\s+`+age,
			`cm-c\s+0\s+`+age,
			`cm-d\s+0\s+`+age,
			`cm-e\s+0\s+`+age,
			`cm-f\s+0\s+`+age,
			`cm-g\s+0\s+`+age,
			`kube-root-ca\.crt\s+1\s+`+age,
		)
		// 8 objects in pages of 2: four requests, three carrying a continue token.
		pages, continued := 0, 0
		re := regexp.MustCompile(`GET https://\S+/api/v1/namespaces/default/configmaps\?(\S+) 200 OK`)
		for _, l := range outputLines(stderr) {
			if m := re.FindStringSubmatch(l); m != nil && strings.Contains(m[1], "limit=2") {
				pages++
				if strings.Contains(m[1], "continue=") {
					continued++
				}
			}
		}
		if pages != 4 || continued != 3 {
			t.Errorf("kubectl made %d list requests (%d with continue), want 4 (3)\n%s", pages, continued, stderr)
		}
	})

	t.Run("chunk_size_2_output_name", func(t *testing.T) {
		wantLines(t, "kubectl get cm --chunk-size=2 -o name", mustKubectl(t, cp, "get", "cm", "--chunk-size=2", "-o", "name"),
			`configmap/cm-a`, `configmap/cm-b`, `configmap/cm-c`, `configmap/cm-d`, `configmap/cm-e`, `configmap/cm-f`, `configmap/cm-g`, `configmap/kube-root-ca\.crt`)
	})
}

func TestKubectlPods(t *testing.T) {
	kubectlBinary(t)
	t.Parallel()
	cp := fakeplane.Start(t)

	t.Run("run", func(t *testing.T) {
		wantLines(t, "kubectl run", mustKubectl(t, cp, "run", "p", "--image=busybox"), `pod/p created`)
		if got := jsonpath(t, cp, "{.spec.containers[0].name} {.spec.containers[0].image} {.metadata.labels.run} {.status.phase}", "pod", "p"); got != "p busybox p Pending" {
			t.Errorf("pod p = %q, want container p, image busybox, label run=p, phase Pending", got)
		}
	})

	t.Run("run_existing_already_exists", func(t *testing.T) {
		wantErrLine(t, "kubectl run p again", failKubectl(t, cp, "run", "p", "--image=busybox"),
			`Error from server (AlreadyExists): pods "p" already exists`)
	})

	t.Run("field_selector_pending_lists_pod", func(t *testing.T) {
		wantLines(t, "kubectl get pods --field-selector status.phase=Pending", mustKubectl(t, cp, "get", "pods", "--field-selector", "status.phase=Pending"),
			`NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE`,
			`p\s+0/1\s+Pending\s+0\s+`+age,
		)
	})

	t.Run("field_selector_running_finds_nothing", func(t *testing.T) {
		out, stderr, err := kubectl(t, cp, "get", "pods", "--field-selector", "status.phase=Running")
		if err != nil {
			t.Fatalf("kubectl get pods --field-selector status.phase=Running: %v\n%s", err, stderr)
		}
		if out != "" {
			t.Errorf("stdout = %q, want nothing", out)
		}
		wantErrLine(t, "kubectl get pods --field-selector status.phase=Running", stderr, `No resources found in default namespace.`)
	})

	t.Run("field_selector_metadata_name", func(t *testing.T) {
		wantLines(t, "kubectl get pods --field-selector metadata.name=p", mustKubectl(t, cp, "get", "pods", "--field-selector", "metadata.name=p", "-o", "name"), `pod/p`)
	})

	t.Run("field_selector_unsupported_is_bad_request", func(t *testing.T) {
		wantErrLine(t, "kubectl get pods --field-selector spec.bogus=x", failKubectl(t, cp, "get", "pods", "--field-selector", "spec.bogus=x"),
			`Error from server (BadRequest): Unable to find "/v1, Resource=pods" that match label selector "", field selector "spec.bogus=x": field label not supported: spec.bogus`)
	})

	t.Run("delete_unscheduled_pod_goes_at_once", func(t *testing.T) {
		wantLines(t, "kubectl delete pod p", mustKubectl(t, cp, "delete", "pod", "p"), `pod "p" deleted`)
		wantErrLine(t, "kubectl get pod p after delete", failKubectl(t, cp, "get", "pod", "p"),
			`Error from server (NotFound): pods "p" not found`)
	})
}

func TestKubectlNamespaces(t *testing.T) {
	kubectlBinary(t)
	t.Parallel()
	cp := fakeplane.Start(t)
	dir := t.TempDir()

	t.Run("create_ns", func(t *testing.T) {
		wantLines(t, "kubectl create ns x", mustKubectl(t, cp, "create", "ns", "x"), `namespace/x created`)
		wantLines(t, "kubectl get ns x", mustKubectl(t, cp, "get", "ns", "x"),
			`NAME\s+STATUS\s+AGE`,
			`x\s+Active\s+`+age,
		)
		if got := jsonpath(t, cp, `{.metadata.labels.kubernetes\.io/metadata\.name} {.spec.finalizers}`, "ns", "x"); got != `x ["kubernetes"]` {
			t.Errorf("namespace x label and finalizers = %q", got)
		}
	})

	t.Run("get_sa_in_new_namespace_shows_default", func(t *testing.T) {
		wantLines(t, "kubectl get sa -n x", mustKubectl(t, cp, "get", "sa", "-n", "x"),
			`NAME\s+AGE`,
			`default\s+`+age,
		)
		wantLines(t, "kubectl get cm -n x", mustKubectl(t, cp, "get", "cm", "-n", "x"),
			`NAME\s+DATA\s+AGE`,
			`kube-root-ca\.crt\s+1\s+`+age,
		)
	})

	t.Run("objects_in_namespace", func(t *testing.T) {
		wantLines(t, "kubectl create cm -n x", mustKubectl(t, cp, "create", "cm", "a", "-n", "x", "--from-literal=k=v"), `configmap/a created`)
		wantLines(t, "kubectl run -n x", mustKubectl(t, cp, "run", "q", "-n", "x", "--image=busybox"), `pod/q created`)
		sec := writeFile(t, dir, "secret.yaml", "apiVersion: v1\nkind: Secret\nmetadata:\n  name: s\n  namespace: x\nstringData:\n  k: v\n")
		wantLines(t, "kubectl create -f secret.yaml", mustKubectl(t, cp, "create", "-f", sec), `secret/s created`)
		wantLines(t, "kubectl get cm,pods,secrets -n x -o name", mustKubectl(t, cp, "get", "cm,pods,secrets", "-n", "x", "-o", "name"),
			`configmap/a`, `configmap/kube-root-ca\.crt`, `pod/q`, `secret/s`)
	})

	t.Run("delete_ns_waits_until_gone", func(t *testing.T) {
		wantLines(t, "kubectl delete ns x", mustKubectl(t, cp, "delete", "ns", "x"), `namespace "x" deleted`)
		wantErrLine(t, "kubectl get ns x after delete", failKubectl(t, cp, "get", "ns", "x"),
			`Error from server (NotFound): namespaces "x" not found`)
		out, stderr, err := kubectl(t, cp, "get", "cm,pods,secrets,sa", "-n", "x")
		if err != nil || out != "" {
			t.Errorf("kubectl get cm,pods,secrets,sa -n x after delete: err %v, stdout %q", err, out)
		}
		wantErrLine(t, "kubectl get cm,pods,secrets,sa -n x after delete", stderr, `No resources found in x namespace.`)
	})

	t.Run("create_in_missing_namespace", func(t *testing.T) {
		wantErrLine(t, "kubectl run -n missing", failKubectl(t, cp, "run", "p", "-n", "missing", "--image=busybox"),
			`Error from server (NotFound): namespaces "missing" not found`)
		f := writeFile(t, dir, "missing.yaml", "apiVersion: v1\nkind: ConfigMap\nmetadata:\n  name: c\n  namespace: missing\n")
		wantErrLine(t, "kubectl create -f in namespace missing", failKubectl(t, cp, "create", "-f", f),
			fmt.Sprintf(`Error from server (NotFound): error when creating %q: namespaces "missing" not found`, f))
		wantErrLine(t, "kubectl create cm -n missing", failKubectl(t, cp, "create", "cm", "c", "-n", "missing"),
			`error: failed to create configmap: namespaces "missing" not found`)
	})
}
