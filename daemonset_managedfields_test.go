package fakeplane_test

import (
	"encoding/json"
	"maps"
	"testing"

	appsv1 "k8s.io/api/apps/v1"

	"github.com/fakeplane/fakeplane"
)

// TestDaemonSetTemplateGenerationAnnotationIsTheWritersField checks a
// DaemonSet's managedFields as kube-apiserver v1.37 records them (recorded
// with refplane): its field manager sees the object converted from the
// internal version, which writes the deprecated.daemonset.template.generation
// annotation, so the creator and an updater that left it out own it; a
// merge patch and an apply that do not touch it do not.
func TestDaemonSetTemplateGenerationAnnotationIsTheWritersField(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	path := "/apis/apps/v1/namespaces/default/daemonsets"
	ds := func(image string) string {
		return `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"` + image + `"}]}}}}`
	}
	// owners maps a manager to its managedFields' metadata.annotations
	// (JSON, "null" for none), as refplane recorded them.
	for _, tc := range []struct {
		name, method, path, ctype, body string
		owners                          map[string]string
		generation                      string
	}{
		{"create", "POST", path + "?fieldManager=creator", "application/json", ds("x"),
			map[string]string{"creator": `{".":{},"f:deprecated.daemonset.template.generation":{}}`}, "1"},
		{"update without the annotation", "PUT", path + "/ds?fieldManager=putter", "application/json", ds("y"),
			map[string]string{"creator": `{}`, "putter": `{"f:deprecated.daemonset.template.generation":{}}`}, "2"},
		{"merge patch", "PATCH", path + "/ds?fieldManager=patcher", "application/merge-patch+json", `{"metadata":{"labels":{"x":"y"}}}`,
			map[string]string{"creator": `{}`, "putter": `{"f:deprecated.daemonset.template.generation":{}}`, "patcher": "null"}, "2"},
		{"apply", "PATCH", path + "/ds?fieldManager=applier&force=true", "application/apply-patch+yaml", `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ds"},"spec":{"template":{"spec":{"containers":[{"name":"c","image":"z"}]}}}}`,
			map[string]string{"creator": `{}`, "putter": `{"f:deprecated.daemonset.template.generation":{}}`, "patcher": "null", "applier": "null"}, "3"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, out := rawRequest(t, cp, tc.method, tc.path, tc.ctype, []byte(tc.body), nil)
			var got appsv1.DaemonSet
			if err := json.Unmarshal(out, &got); code >= 300 || err != nil {
				t.Fatalf("%d %v: %s", code, err, out)
			}
			if g := got.Annotations["deprecated.daemonset.template.generation"]; g != tc.generation {
				t.Errorf("template generation %q, want %q", g, tc.generation)
			}
			owners := map[string]string{}
			for _, e := range got.ManagedFields {
				if _, want := tc.owners[e.Manager]; !want {
					continue
				}
				var fields struct {
					Metadata struct {
						Annotations json.RawMessage `json:"f:annotations"`
					} `json:"f:metadata"`
				}
				if err := json.Unmarshal(e.FieldsV1.Raw, &fields); err != nil {
					t.Fatal(err)
				}
				owners[e.Manager] = string(fields.Metadata.Annotations)
				if owners[e.Manager] == "" {
					owners[e.Manager] = "null"
				}
			}
			if !maps.Equal(owners, tc.owners) {
				t.Errorf("managedFields' annotations %v, want %v", owners, tc.owners)
			}
		})
	}
}
