package main

import (
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane"
)

// TestSecurityCLIDefaultListenIsLoopback checks that the command, told no
// --listen, serves on fakeplane.DefaultListenAddress, a loopback address
// (the flag's default as --help prints it: starting the command on the
// fixed port 6443 would depend on the port being free).
func TestSecurityCLIDefaultListenIsLoopback(t *testing.T) {
	host, _, err := net.SplitHostPort(fakeplane.DefaultListenAddress)
	if err != nil {
		t.Fatal(err)
	}
	if ip := net.ParseIP(host); ip == nil || !ip.IsLoopback() {
		t.Errorf("DefaultListenAddress %q is not a loopback address", fakeplane.DefaultListenAddress)
	}
	code, stdout, stderr := runCommand(t, "--help")
	if code != 0 {
		t.Fatalf("--help: exit %d, stderr %q", code, stderr)
	}
	m := regexp.MustCompile(`(?m)^  -listen string\n.*\(default "([^"]*)"\)$`).FindStringSubmatch(stdout)
	if m == nil {
		t.Fatalf("--help has no -listen with a default:\n%s", stdout)
	}
	if m[1] != fakeplane.DefaultListenAddress {
		t.Errorf("--listen defaults to %q, want %q", m[1], fakeplane.DefaultListenAddress)
	}
}

// TestSecurityCLIWritesPrivateFiles checks the modes of what the command
// writes: a new --data-dir and its subdirectories 0700, the keys, database
// and server URL in it 0600 (CA certificates at most 0644), the --kubeconfig
// and its lock 0600, and the kubeconfig the kubeconfig subcommand writes
// 0600, even over an existing 0644 file.
func TestSecurityCLIWritesPrivateFiles(t *testing.T) {
	dataDir := filepath.Join(t.TempDir(), "state", "data")
	kc := filepath.Join(t.TempDir(), "admin.kubeconfig")
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", kc, "--data-dir", dataDir)

	mode := func(path string) fs.FileMode {
		t.Helper()
		fi, err := os.Stat(path)
		if err != nil {
			t.Fatal(err)
		}
		return fi.Mode().Perm()
	}
	for _, f := range []string{kc, kc + ".lock"} {
		if m := mode(f); m != 0o600 {
			t.Errorf("%s is %v, want 0600", f, m)
		}
	}
	for _, d := range []string{filepath.Dir(dataDir), dataDir} {
		if m := mode(d); m != 0o700 {
			t.Errorf("new directory %s is %v, want 0700", d, m)
		}
	}
	var files []string
	err := filepath.WalkDir(dataDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || path == dataDir {
			return err
		}
		m := mode(path)
		switch {
		case d.IsDir():
			if m != 0o700 {
				t.Errorf("directory %s is %v, want 0700", path, m)
			}
		case strings.HasSuffix(path, ".crt"):
			if m&^0o644 != 0 {
				t.Errorf("certificate %s is %v, want at most 0644", path, m)
			}
		default:
			if m != 0o600 {
				t.Errorf("%s is %v, want 0600", path, m)
			}
		}
		rel, _ := filepath.Rel(dataDir, path)
		files = append(files, rel)
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"pki/ca.key", "pki/front-proxy-ca.key", "pki/sa.key", "pki/sa.pub", "fakeplane.db", "server-url"} {
		found := false
		for _, f := range files {
			found = found || f == want
		}
		if !found {
			t.Errorf("%s was not written (the data directory has %v)", want, files)
		}
	}

	out := filepath.Join(t.TempDir(), "alice.kubeconfig")
	if err := os.WriteFile(out, []byte("old\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(out, 0o644); err != nil {
		t.Fatal(err)
	}
	if code, _, stderr := runCommand(t, "kubeconfig", "--data-dir", dataDir, "--user", "alice", "--out", out); code != 0 {
		t.Fatalf("kubeconfig subcommand: exit %d, stderr %q", code, stderr)
	}
	if m := mode(out); m != 0o600 {
		t.Errorf("the subcommand's kubeconfig, 0644 before, is %v, want 0600", m)
	}
	if err := p.signal(t, syscall.SIGTERM, 30*time.Second); err != nil {
		t.Fatalf("exit after SIGTERM: %v", err)
	}
}
