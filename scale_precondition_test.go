package fakeplane_test

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane"
)

// TestScaleNamingAnotherUIDConflicts writes the scale of a Deployment, a
// ReplicationController and a custom resource with a Scale naming another
// UID, as kube-apiserver v1.37.2 (refplane) answers: a PUT fails its
// parent's storage precondition (naming the parent, and etcd's key without
// /registry for a dry run), a patch of a built-in's scale fails its scale
// storage's own precondition, and a custom resource's scale has none.
func TestScaleNamingAnotherUIDConflicts(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const tmpl = `"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}}`
	mustStatus(t, cp, "POST", "/apis/apps/v1/namespaces/default/deployments", `{"metadata":{"name":"sc1"},"spec":{"selector":{"matchLabels":{"app":"x"}},`+tmpl+`}}`, 201)
	mustStatus(t, cp, "POST", "/api/v1/namespaces/default/replicationcontrollers", `{"metadata":{"name":"sc1"},"spec":{"selector":{"app":"x"},`+tmpl+`}}`, 201)
	mustStatus(t, cp, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions", `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"scalers.s.example.com"},"spec":{"group":"s.example.com","scope":"Namespaced","names":{"plural":"scalers","singular":"scaler","kind":"Scaler","listKind":"ScalerList"},"versions":[{"name":"v1","served":true,"storage":true,"subresources":{"scale":{"specReplicasPath":".spec.replicas","statusReplicasPath":".status.replicas"}},"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`, 201)
	crs := "/apis/s.example.com/v1/namespaces/default/scalers"
	deadline := time.Now().Add(10 * time.Second)
	for {
		code, _, _ := rawRequest(t, cp, "POST", crs, "application/json", []byte(`{"apiVersion":"s.example.com/v1","kind":"Scaler","metadata":{"name":"a"},"spec":{"replicas":1}}`), nil)
		if code == 201 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("custom resource not served: %d", code)
		}
		time.Sleep(20 * time.Millisecond)
	}
	uid := func(path string) string {
		var o struct{ Metadata struct{ UID string } }
		if err := json.Unmarshal(mustStatus(t, cp, "GET", path, "", 200), &o); err != nil {
			t.Fatal(err)
		}
		return o.Metadata.UID
	}
	const other = "00000000-0000-0000-0000-000000000000"
	for _, tc := range []struct {
		name, parent, method, query string
		wantCode                    int
		wantMessage                 func(uid string) string
	}{
		{"DeploymentPut", "/apis/apps/v1/namespaces/default/deployments/sc1", "PUT", "", 409, func(uid string) string {
			return `Operation cannot be fulfilled on deployments.apps "sc1": StorageError: invalid object, Code: 4, Key: /registry/deployments/default/sc1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ` + other + `, UID in object meta: ` + uid
		}},
		{"DeploymentPutDryRun", "/apis/apps/v1/namespaces/default/deployments/sc1", "PUT", "?dryRun=All", 409, func(uid string) string {
			return `Operation cannot be fulfilled on deployments.apps "sc1": StorageError: invalid object, Code: 4, Key: /deployments/default/sc1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ` + other + `, UID in object meta: ` + uid
		}},
		{"DeploymentPatch", "/apis/apps/v1/namespaces/default/deployments/sc1", "PATCH", "", 409, func(uid string) string {
			return `Operation cannot be fulfilled on deployments/scale.apps "sc1": Precondition failed: UID in precondition: ` + other + `, UID in object meta: ` + uid
		}},
		{"ReplicationControllerPutDryRun", "/api/v1/namespaces/default/replicationcontrollers/sc1", "PUT", "?dryRun=All", 409, func(uid string) string {
			return `Operation cannot be fulfilled on replicationcontrollers "sc1": StorageError: invalid object, Code: 4, Key: /controllers/default/sc1, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ` + other + `, UID in object meta: ` + uid
		}},
		{"ReplicationControllerPatch", "/api/v1/namespaces/default/replicationcontrollers/sc1", "PATCH", "?dryRun=All", 409, func(uid string) string {
			return `Operation cannot be fulfilled on replicationcontrollers/scale "sc1": Precondition failed: UID in precondition: ` + other + `, UID in object meta: ` + uid
		}},
		{"CustomResourcePutDryRun", crs + "/a", "PUT", "?dryRun=All", 409, func(uid string) string {
			return `Operation cannot be fulfilled on scalers.s.example.com "a": StorageError: invalid object, Code: 4, Key: /s.example.com/scalers/default/a, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: ` + other + `, UID in object meta: ` + uid
		}},
		{"CustomResourcePatch", crs + "/a", "PATCH", "?dryRun=All", 200, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := `{"metadata":{"uid":"` + other + `"},"spec":{"replicas":2}}`
			ct := "application/merge-patch+json"
			if tc.method == "PUT" {
				var sc map[string]any
				if err := json.Unmarshal(mustStatus(t, cp, "GET", tc.parent+"/scale", "", 200), &sc); err != nil {
					t.Fatal(err)
				}
				sc["metadata"].(map[string]any)["uid"] = other
				b, _ := json.Marshal(sc)
				body, ct = string(b), "application/json"
			}
			code, _, out := rawRequest(t, cp, tc.method, tc.parent+"/scale"+tc.query, ct, []byte(body), nil)
			if code != tc.wantCode {
				t.Fatalf("%d, want %d: %s", code, tc.wantCode, out)
			}
			if tc.wantMessage == nil {
				return
			}
			var st struct{ Message string }
			if err := json.Unmarshal(out, &st); err != nil {
				t.Fatal(err)
			}
			if want := tc.wantMessage(uid(tc.parent)); st.Message != want {
				t.Errorf("message\n%s\nwant\n%s", st.Message, want)
			}
		})
	}
}
