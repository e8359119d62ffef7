package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// runCommand runs the command as a child process to its end and returns its
// exit code, stdout and stderr.
func runCommand(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	cmd := exec.Command(os.Args[0], args...)
	cmd.Env = append(os.Environ(), runMainEnv+"=1")
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		t.Fatalf("run %v: %v", args, err)
	}
	return cmd.ProcessState.ExitCode(), stdout.String(), stderr.String()
}

// TestCommandLineExitCodes checks the command's conventions: --help prints
// the usage (subcommand included) on stdout and exits 0; a usage mistake
// exits 2 and a failure 1, each with one line on stderr that has one
// "fakeplane:" prefix.
func TestCommandLineExitCodes(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "kc")
	for _, tc := range []struct {
		name       string
		args       []string
		code       int
		stdout     string // a substring stdout must have
		stderrLine string // the one line stderr must be ("" for none)
	}{
		{name: "help", args: []string{"--help"}, code: 0, stdout: "fakeplane kubeconfig [flags]"},
		{name: "help lists flags", args: []string{"-h"}, code: 0, stdout: "-service-cluster-ip-range"},
		{name: "subcommand help", args: []string{"kubeconfig", "--help"}, code: 0, stdout: "-data-dir"},
		{name: "unknown flag", args: []string{"--no-such-flag"}, code: 2, stderrLine: "fakeplane: flag provided but not defined: -no-such-flag (see --help)"},
		{name: "extra argument", args: []string{"--kubeconfig", kc, "serve"}, code: 2, stderrLine: `fakeplane: unexpected argument "serve" (see --help)`},
		{name: "subcommand without its flags", args: []string{"kubeconfig"}, code: 2, stderrLine: "fakeplane: kubeconfig: --data-dir and --user are required (see --help)"},
		// kube-apiserver v1.37.2's --version and --version=raw, as it
		// printed them (its BuildDate, GoVersion and Platform its own).
		{name: "version", args: []string{"--version"}, code: 0, stdout: "Kubernetes v1.37.2\n"},
		{name: "raw version", args: []string{"--version=raw"}, code: 0,
			stdout: `version.Info{Major:"1", Minor:"37", EmulationMajor:"", EmulationMinor:"", MinCompatibilityMajor:"", MinCompatibilityMinor:"", GitVersion:"v1.37.2", GitCommit:"$Format:%H$", GitTreeState:"clean", BuildDate:`},
		{name: "a version to report", args: []string{"--version=v1.2.3"}, code: 2, stderrLine: `fakeplane: invalid boolean value "v1.2.3" for -version: want true, false or raw`},
		{name: "an origin not pinned", args: []string{"--listen", "127.0.0.1:0", "--kubeconfig", kc, "--cors-allowed-origins", `^a\.com$,example.com`}, code: 1,
			stderrLine: "fakeplane: --cors-allowed-origins has an invalid regular expression: regular expression does not pin to start/end of host in the origin header, help: "},
		{name: "a negative minimum request timeout", args: []string{"--listen", "127.0.0.1:0", "--kubeconfig", kc, "--min-request-timeout", "-1"}, code: 1,
			stderrLine: "fakeplane: --min-request-timeout can not be negative value"},
		{name: "too great a GOAWAY chance", args: []string{"--listen", "127.0.0.1:0", "--kubeconfig", kc, "--goaway-chance", "0.5"}, code: 1,
			stderrLine: "fakeplane: --goaway-chance can not be less than 0 or greater than 0.02"},
		{name: "bad value", args: []string{"--listen", "127.0.0.1:0", "--kubeconfig", kc, "--service-cluster-ip-range", "banana"}, code: 1,
			stderrLine: "fakeplane: service-cluster-ip-range[0] is not a valid cidr"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, stdout, stderr := runCommand(t, tc.args...)
			if code != tc.code {
				t.Errorf("exit code %d, want %d (stderr %q)", code, tc.code, stderr)
			}
			if !strings.Contains(stdout, tc.stdout) {
				t.Errorf("stdout %q, want it to contain %q", stdout, tc.stdout)
			}
			// The flag package reports a flag value whose zero value
			// cannot print its default this way, in the usage.
			if strings.Contains(stdout+stderr, "panic") {
				t.Errorf("output tells of a panic: %q", stdout+stderr)
			}
			if got := strings.TrimSuffix(stderr, "\n"); !strings.HasPrefix(got, tc.stderrLine) || strings.Contains(got, "\n") || strings.Count(got, "fakeplane:") > 1 {
				t.Errorf("stderr %q, want the one line %q", stderr, tc.stderrLine)
			}
		})
	}
}

// TestSecondInstanceOnOneKubeconfigIsRefused checks that a second fakeplane
// told to write the kubeconfig a running one wrote is refused, naming the
// file, and that the first one's kubeconfig is left alone.
func TestSecondInstanceOnOneKubeconfigIsRefused(t *testing.T) {
	kc := filepath.Join(t.TempDir(), "fakeplane.kubeconfig")
	startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", kc)
	before := readFile(t, kc)
	code, _, stderr := runCommand(t, "--listen", "127.0.0.1:0", "--kubeconfig", kc)
	if code != 1 || !strings.Contains(stderr, "is writing fakeplane.kubeconfig; stop it, or pass --kubeconfig to write another file") {
		t.Fatalf("second instance: exit %d, stderr %q; want 1 and a refusal naming the kubeconfig", code, stderr)
	}
	if after := readFile(t, kc); !bytes.Equal(before, after) {
		t.Errorf("the first instance's kubeconfig changed")
	}
}

// TestStopIsAnnounced checks that the command says when it stops.
func TestStopIsAnnounced(t *testing.T) {
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "kc"))
	if err := p.signal(t, syscall.SIGTERM, 30*time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
	if want := "fakeplane stopped serving " + p.url; !strings.Contains(p.stdout.String(), want) {
		t.Errorf("stdout %q, want %q", p.stdout, want)
	}
}
