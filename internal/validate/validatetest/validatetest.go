// Package validatetest checks validation errors against the messages a
// test expects, for the strategies' unit tests.
package validatetest

import (
	"strings"
	"testing"
)

// ExpectErrors fails t unless errs, one message a line and in order, read
// as want.
func ExpectErrors[E error](t testing.TB, errs []E, want []string) {
	t.Helper()
	var got []string
	for _, e := range errs {
		got = append(got, e.Error())
	}
	if strings.Join(got, "\n") != strings.Join(want, "\n") {
		t.Errorf("errors:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
}
