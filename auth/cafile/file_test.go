package cafile

import (
	"context"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane/internal/pki"
)

// newCAPEM returns the PEM of a new CA named cn.
func newCAPEM(t *testing.T, cn string) []byte {
	t.Helper()
	ca, err := pki.NewCA(cn)
	if err != nil {
		t.Fatal(err)
	}
	return ca.CertPEM
}

// names are the common names of b's certificates.
func names(b *Bundle) string {
	var n []string
	for _, c := range b.Certs {
		n = append(n, c.Subject.CommonName)
	}
	return strings.Join(n, ",")
}

// failures is a slog handler that sends each error it is given.
type failures chan string

func (f failures) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelError }
func (f failures) Handle(_ context.Context, r slog.Record) error {
	var msg string
	r.Attrs(func(a slog.Attr) bool {
		if a.Key == "err" {
			msg = a.Value.String()
		}
		return true
	})
	select {
	case f <- msg:
	default:
	}
	return nil
}
func (f failures) WithAttrs([]slog.Attr) slog.Handler { return f }
func (f failures) WithGroup(string) slog.Handler      { return f }

func TestOpenFailsAsKubeAPIServer(t *testing.T) {
	dir := t.TempDir()
	empty := filepath.Join(dir, "empty.pem")
	garbage := filepath.Join(dir, "garbage.pem")
	for path, data := range map[string]string{empty: "", garbage: "not a certificate\n"} {
		if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	missing := filepath.Join(dir, "missing.pem")
	for _, tt := range []struct {
		name, path, want string
	}{
		{"a missing file", missing, "open " + missing + ": no such file or directory"},
		{"an empty file", empty, `missing content for CA bundle "client-ca-bundle::` + empty + `"`},
		{"a file without certificates", garbage, `error loading CA bundle for "client-ca-bundle::` + garbage + `": data does not contain any valid RSA or ECDSA certificates`},
		{"no file name", "", "missing filename for ca bundle"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Open("client-ca-bundle", tt.path, nil)
			if err == nil || err.Error() != tt.want {
				t.Fatalf("Open: %v, want %q", err, tt.want)
			}
		})
	}
}

// running opens path and follows it until the test ends; changes receives
// a value at each change that loaded, errs each failed read's error.
func running(t *testing.T, path string) (f *File, changes chan struct{}, errs failures) {
	t.Helper()
	errs = make(failures, 100)
	f, err := Open("client-ca-bundle", path, slog.New(errs))
	if err != nil {
		t.Fatal(err)
	}
	changes = make(chan struct{}, 100)
	f.OnChange(func() { changes <- struct{}{} })
	ctx, cancel := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() { f.Run(ctx) })
	t.Cleanup(func() {
		cancel()
		wg.Wait()
	})
	return f, changes, errs
}

// await waits for a value of c, failing the test after a long while.
func await[T any](t *testing.T, c <-chan T, what string) T {
	t.Helper()
	select {
	case v := <-c:
		return v
	case <-time.After(30 * time.Second):
		t.Fatalf("no %s", what)
		panic("unreachable")
	}
}

func TestFileFollowsChanges(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ca.pem")
	one, two := newCAPEM(t, "one"), newCAPEM(t, "two")
	if err := os.WriteFile(path, one, 0o600); err != nil {
		t.Fatal(err)
	}
	f, changes, errs := running(t, path)
	if got := names(f.Bundle()); got != "one" {
		t.Fatalf("at start: %s, want one", got)
	}
	first := f.Bundle()

	// Written again with another CA added: the pool has both.
	if err := os.WriteFile(path, append(append([]byte{}, one...), two...), 0o600); err != nil {
		t.Fatal(err)
	}
	await(t, changes, "change after a write")
	if got := names(f.Bundle()); got != "one,two" {
		t.Fatalf("after the write: %s, want one,two", got)
	}
	if f.Bundle() == first {
		t.Fatal("a changed bundle is the same Bundle value")
	}

	// Garbage: an error logged, the last good bundle kept; read again
	// until it loads.
	if err := os.WriteFile(path, []byte("garbage"), 0o600); err != nil {
		t.Fatal(err)
	}
	// (The write truncates the file first: that read fails too.)
	want := `error loading CA bundle for "client-ca-bundle::` + path + `": data does not contain any valid RSA or ECDSA certificates`
	for msg := ""; msg != want; {
		msg = await(t, errs, "error for garbage")
		if msg != want && msg != `missing content for CA bundle "client-ca-bundle::`+path+`"` {
			t.Fatalf("error %q, want %q", msg, want)
		}
	}
	if got := names(f.Bundle()); got != "one,two" {
		t.Fatalf("after garbage: %s, want the last good one,two", got)
	}

	// Replaced by a rename, as a tool writing atomically does: the new
	// file is followed.
	tmp := filepath.Join(dir, "new.pem")
	if err := os.WriteFile(tmp, two, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.Rename(tmp, path); err != nil {
		t.Fatal(err)
	}
	for names(f.Bundle()) != "two" {
		await(t, changes, "change after the rename")
	}
	if err := os.WriteFile(path, one, 0o600); err != nil {
		t.Fatal(err)
	}
	for names(f.Bundle()) != "one" {
		await(t, changes, "change after a write to the renamed file")
	}

	// Removed, then written again: read once it is back.
	if err := os.Remove(path); err != nil {
		t.Fatal(err)
	}
	// (Errors of the garbage's reads may come first.)
	for msg := ""; !strings.Contains(msg, "no such file or directory"); {
		msg = await(t, errs, "error for the removed file")
	}
	if got := names(f.Bundle()); got != "one" {
		t.Fatalf("while removed: %s, want the last good one", got)
	}
	if err := os.WriteFile(path, two, 0o600); err != nil {
		t.Fatal(err)
	}
	for names(f.Bundle()) != "two" {
		await(t, changes, "change after the file came back")
	}
}

func TestUnionOfSources(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "ca.pem")
	one, two, three := newCAPEM(t, "one"), newCAPEM(t, "two"), newCAPEM(t, "three")
	if err := os.WriteFile(path, two, 0o600); err != nil {
		t.Fatal(err)
	}
	f, changes, _ := running(t, path)
	static, err := Parse("static", append(append([]byte{}, one...), two...))
	if err != nil {
		t.Fatal(err)
	}
	u := Union(Static(static), f)
	b := u.Bundle()
	if got := names(b); got != "one,two" {
		t.Fatalf("union: %s, want one,two (two once)", got)
	}
	if u.Bundle() != b {
		t.Fatal("an unchanged union is computed again")
	}
	if err := os.WriteFile(path, three, 0o600); err != nil {
		t.Fatal(err)
	}
	await(t, changes, "change")
	if got := names(u.Bundle()); got != "one,two,three" {
		t.Fatalf("union after the change: %s, want one,two,three", got)
	}
	if !strings.HasSuffix(string(u.Bundle().PEM), string(three)) || !strings.HasPrefix(string(u.Bundle().PEM), string(one)) {
		t.Fatalf("union PEM is not the sources' PEM in order:\n%s", u.Bundle().PEM)
	}
}
