package fakeplane_test

import (
	"slices"
	"testing"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/runtimeconfig"
)

// TestServedVersionsAreKubeAPIServersDefaults: the API versions discovery
// lists are those runtimeconfig takes for kube-apiserver v1.37's default,
// so that --runtime-config's values that keep them are the ones accepted.
func TestServedVersionsAreKubeAPIServersDefaults(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithRuntimeConfig("api/ga=true", "apiregistration.k8s.io/v1"))
	groups, err := clientset(t, cp).Discovery().ServerGroups()
	if err != nil {
		t.Fatal(err)
	}
	var served []string
	for _, g := range groups.Groups {
		for _, v := range g.Versions {
			served = append(served, v.GroupVersion)
		}
	}
	var want []string
	for _, gv := range runtimeconfig.DefaultVersions() {
		want = append(want, gv.String())
	}
	slices.Sort(served)
	slices.Sort(want)
	if !slices.Equal(served, want) {
		t.Errorf("discovery lists %q\nkube-apiserver v1.37 serves by default %q", served, want)
	}
}

func TestRuntimeConfigThatChangesWhatIsServedIsRefused(t *testing.T) {
	t.Parallel()
	_, err := fakeplane.New(fakeplane.WithRuntimeConfig("resource.k8s.io/v1beta1=true"))
	want := "fakeplane: --runtime-config: turning resource.k8s.io/v1beta1 on is not built: fakeplane serves the API versions and resources kube-apiserver v1.37 serves by default"
	if err == nil || err.Error() != want {
		t.Fatalf("New: %v, want %q", err, want)
	}
}
