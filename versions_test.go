package fakeplane_test

import (
	"strings"
	"testing"

	"github.com/fakeplane/fakeplane"
)

// TestMinCompatibilityVersionOnVersion checks kube-apiserver's
// --min-compatibility-version: /version reports it (refplane with
// --min-compatibility-version=1.35 answered minCompatibilityMinor "35"),
// kube-apiserver's default is 1.36, and what it refuses is refused with its
// errors; 1.37, which kube-apiserver takes, is not built.
func TestMinCompatibilityVersionOnVersion(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		opts  []fakeplane.Option
		minor string
	}{
		{nil, "36"},
		{[]fakeplane.Option{fakeplane.WithMinCompatibilityVersion("1.35")}, "35"},
		{[]fakeplane.Option{fakeplane.WithMinCompatibilityVersion("1.34")}, "34"},
	} {
		v, err := clientset(t, fakeplane.Start(t, tc.opts...)).Discovery().ServerVersion()
		if err != nil {
			t.Fatal(err)
		}
		if v.MinCompatibilityMajor != "1" || v.MinCompatibilityMinor != tc.minor || v.EmulationMinor != "37" || v.GitVersion != "v1.37.2" {
			t.Errorf("%d options: /version %+v, want minimum compatibility 1.%s", len(tc.opts), v, tc.minor)
		}
	}
	for v, want := range map[string]string{
		"1.33": "minCompatibilityVersion version 1.33 is not between [1.34, 1.37]",
		"1.38": "minCompatibilityVersion version 1.38 is not between [1.34, 1.37]",
		"x":    `could not parse "x" as version`,
		"1.37": "min compatibility version 1.37 is not built",
	} {
		_, err := fakeplane.New(fakeplane.WithMinCompatibilityVersion(v))
		if err == nil || !strings.HasPrefix(err.Error(), "fakeplane: "+want) {
			t.Errorf("WithMinCompatibilityVersion(%q): %v, want %s", v, err, want)
		}
	}
}
