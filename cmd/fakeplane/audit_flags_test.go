package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestAuditFlagErrorsExit checks that bad --audit-* flags end the command
// with exit status 1 and kube-apiserver's error on one line.
func TestAuditFlagErrorsExit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, content string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	good := write("good.yaml", "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Metadata\n")
	noLevel := write("nolevel.yaml", "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- resources: [{group: \"\"}]\n")
	badLevel := write("badlevel.yaml", "apiVersion: audit.k8s.io/v1\nkind: Policy\nrules:\n- level: Everything\n")
	wrongKind := write("wrongkind.yaml", "apiVersion: audit.k8s.io/v1\nkind: Event\n")
	log := filepath.Join(dir, "audit.log")
	for _, tc := range []struct {
		name       string
		args       []string
		stderrLine string
	}{
		{"a missing policy file", []string{"--audit-policy-file", filepath.Join(dir, "missing.yaml")},
			`loading audit policy file: failed to read file path "` + filepath.Join(dir, "missing.yaml") + `": open ` + filepath.Join(dir, "missing.yaml") + `: no such file or directory`},
		{"a rule without a level", []string{"--audit-policy-file", noLevel}, "loading audit policy file: rules[0].level: Required value: from file " + noLevel},
		{"an unknown level", []string{"--audit-policy-file", badLevel},
			`loading audit policy file: rules[0].level: Unsupported value: "Everything": supported values: "None", "Metadata", "Request", "RequestResponse": from file ` + badLevel},
		{"not a Policy", []string{"--audit-policy-file", wrongKind},
			"loading audit policy file: failed decoding: converting (v1.Event) to (audit.Policy): unknown conversion: from file " + wrongKind},
		{"an unknown log format", []string{"--audit-policy-file", good, "--audit-log-path", log, "--audit-log-format", "xml"},
			`invalid audit log format xml, allowed formats are "legacy,json"`},
		{"an unknown log mode", []string{"--audit-policy-file", good, "--audit-log-path", log, "--audit-log-mode", "eventually"},
			`invalid audit log mode eventually, allowed modes are "batch,blocking,blocking-strict"`},
		{"a negative max age", []string{"--audit-log-path", log, "--audit-log-maxage", "-1"}, "--audit-log-maxage -1 can't be a negative number"},
		{"an unknown log version", []string{"--audit-log-path", log, "--audit-log-version", "audit.k8s.io/v1beta1"},
			`invalid group version, allowed versions are ["audit.k8s.io/v1"]`},
		{"several errors", []string{"--audit-log-path", log, "--audit-log-maxsize", "-2", "--audit-log-format", "xml"},
			`[invalid audit log format xml, allowed formats are "legacy,json", --audit-log-maxsize -2 can't be a negative number]`},
		{"a zero batch buffer", []string{"--audit-webhook-config-file", log, "--audit-webhook-batch-buffer-size", "0"},
			"invalid audit batch webhook buffer size 0, must be a positive number"},
		{"a truncated event larger than its batch", []string{"--audit-log-path", log, "--audit-log-truncate-enabled",
			"--audit-log-truncate-max-batch-size", "10", "--audit-log-truncate-max-event-size", "20"},
			"invalid audit truncate log max batch size 10, must be greater than max event size (20)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			args := append([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "kc")}, tc.args...)
			code, _, stderr := runCommand(t, args...)
			if code != 1 {
				t.Errorf("exit code %d, want 1 (stderr %q)", code, stderr)
			}
			got := strings.TrimSuffix(stderr, "\n")
			if want := "fakeplane: " + tc.stderrLine; got != want {
				t.Errorf("stderr %q, want the one line %q", stderr, want)
			}
		})
	}
}
