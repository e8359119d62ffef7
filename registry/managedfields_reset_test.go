package registry

import (
	"sort"
	"strings"
	"testing"

	"sigs.k8s.io/structured-merge-diff/v6/fieldpath"
)

// TestResetFieldsAsUpstreamStrategies checks the fields each write path
// resets, which its field manager does not record, against the
// GetResetFields of kube-apiserver v1.37's strategies.
func TestResetFieldsAsUpstreamStrategies(t *testing.T) {
	reg, err := newServedResources()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		group, version, resource, sub string
		want                          string // the paths, sorted, "" for none
	}{
		{"apps", "v1", "deployments", "", ".status"},
		{"apps", "v1", "deployments", "status", ".metadata.labels .spec"},
		{"apps", "v1", "replicasets", "status", ".spec"},
		{"", "v1", "pods", "status", ".metadata.deletionTimestamp .metadata.ownerReferences .spec"},
		{"", "v1", "pods", "ephemeralcontainers", ""},
		{"", "v1", "pods", "resize", ""},
		{"", "v1", "nodes", "status", ".spec"},
		{"", "v1", "namespaces", "status", ".spec"},
		{"", "v1", "namespaces", "finalize", ".status"},
		{"", "v1", "persistentvolumeclaims", "status", ".spec"},
		{"", "v1", "configmaps", "", ""},
		{"batch", "v1", "jobs", "status", ".spec"},
		{"certificates.k8s.io", "v1", "certificatesigningrequests", "", ".spec .status"},
		{"certificates.k8s.io", "v1", "certificatesigningrequests", "status", ".spec .status.conditions"},
		{"certificates.k8s.io", "v1", "certificatesigningrequests", "approval", ".spec .status.certificate"},
		{"flowcontrol.apiserver.k8s.io", "v1", "flowschemas", "status", ".metadata .spec"},
		{"apiextensions.k8s.io", "v1", "customresourcedefinitions", "status", ".spec"},
	} {
		r, ok := reg.Lookup(tc.group, tc.version, tc.resource)
		if !ok {
			t.Errorf("%s/%s %s not served", tc.group, tc.version, tc.resource)
			continue
		}
		var got []string
		if paths := r.resetPaths(tc.sub); paths != nil {
			fieldpath.NewSet(paths...).Iterate(func(p fieldpath.Path) { got = append(got, p.String()) })
		}
		sort.Strings(got)
		if g := strings.Join(got, " "); g != tc.want {
			t.Errorf("%s %s: reset %q, want %q", tc.resource, tc.sub, g, tc.want)
		}
	}
}
