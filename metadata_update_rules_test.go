package fakeplane_test

import (
	"bytes"
	"context"
	"slices"
	"testing"

	"k8s.io/client-go/dynamic"

	"github.com/fakeplane/fakeplane"
)

// recordedPatch is a dry-run merge patch and kube-apiserver v1.37.2's
// (refplane's) answer: its code and the field and reason of each cause,
// in order, repeats included.
type recordedPatch struct {
	name, path, patch string
	wantCode          int
	wantCauses        []string
}

func runRecordedPatches(t *testing.T, cp *fakeplane.ControlPlane, cases []recordedPatch) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, _, body := rawRequest(t, cp, "PATCH", tc.path+"?dryRun=All", "application/merge-patch+json", []byte(tc.patch), nil)
			if code != tc.wantCode {
				t.Fatalf("%d, want %d: %s", code, tc.wantCode, body)
			}
			if code == 200 {
				return
			}
			if _, causes := statusFieldCauses(t, body); !slices.Equal(causes, tc.wantCauses) {
				t.Errorf("causes\n%q\nwant\n%q", causes, tc.wantCauses)
			}
		})
	}
}

// TestUpdateMetadataRulesAsKubeAPIServer changes the metadata of objects
// of several kinds on update and on /status, as kube-apiserver checks
// them: its generic rules first (a generateName need only be a path
// segment), then the type's own, which for most built-ins check the name
// rule again but not for the workloads, Services or Leases; built-in
// types answer each error once, custom resources, CRDs and APIServices
// repeat the update rules' errors; a write to /status keeps the
// generateName and UID it sends, but for FlowSchemas and custom
// resources, which keep the stored metadata whole.
func TestUpdateMetadataRulesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	pod := `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`
	for _, o := range []struct{ path, body string }{
		{"/api/v1/namespaces/default/configmaps", `{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"c"}}`},
		{"/api/v1/namespaces/default/pods", pod},
		{"/apis/apps/v1/namespaces/default/deployments", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"d"},"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`},
		{"/api/v1/namespaces/default/replicationcontrollers", `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"r"},"spec":{"selector":{"app":"x"},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`},
		{"/apis/storage.k8s.io/v1/volumeattachments", `{"apiVersion":"storage.k8s.io/v1","kind":"VolumeAttachment","metadata":{"name":"v"},"spec":{"attacher":"a.com","nodeName":"n","source":{"persistentVolumeName":"p"}}}`},
		{"/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas", `{"apiVersion":"flowcontrol.apiserver.k8s.io/v1","kind":"FlowSchema","metadata":{"name":"f"},"spec":{"priorityLevelConfiguration":{"name":"global-default"}}}`},
		{"/apis/batch/v1/namespaces/default/cronjobs", `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"OnFailure","containers":[{"name":"c","image":"nginx"}]}}}}}}`},
		{"/apis/apiregistration.k8s.io/v1/apiservices", `{"apiVersion":"apiregistration.k8s.io/v1","kind":"APIService","metadata":{"name":"v1.g.example.com"},"spec":{"group":"g.example.com","version":"v1","groupPriorityMinimum":1,"versionPriority":1,"service":{"name":"s","namespace":"default"},"insecureSkipTLSVerify":true}}`},
	} {
		mustStatus(t, cp, "POST", o.path, o.body, 201)
	}
	createCRD(t, context.Background(), dynamic.NewForConfigOrDie(cp.RESTConfig()), foosCRD(t, "type: object\nproperties:\n  status: {type: object}"))
	const foos, crd = "/apis/tests.example.com/v1beta1/foos", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions/foos.tests.example.com"
	mustStatus(t, cp, "POST", foos, `{"apiVersion":"tests.example.com/v1beta1","kind":"Foo","metadata":{"name":"w"}}`, 201)

	const (
		labels     = "metadata.labels FieldValueInvalid"
		uid        = "metadata.uid FieldValueInvalid"
		genName    = "metadata.generateName FieldValueInvalid"
		badLabel   = `"labels":{"a b":"c"}`
		slashName  = `"generateName":"a/b"`
		spacedName = `"generateName":"a b"`
	)
	runRecordedPatches(t, cp, []recordedPatch{
		{"configmap generateName is its name rule's", "/api/v1/namespaces/default/configmaps/c", `{"metadata":{` + spacedName + `}}`, 422, []string{genName}},
		{"configmap generateName path segment then name rule", "/api/v1/namespaces/default/configmaps/c", `{"metadata":{` + slashName + `,` + badLabel + `}}`, 422, []string{genName, labels, genName}},
		{"deployment update checks no name rule", "/apis/apps/v1/namespaces/default/deployments/d", `{"metadata":{` + spacedName + `}}`, 200, nil},
		{"deployment generateName path segment", "/apis/apps/v1/namespaces/default/deployments/d", `{"metadata":{` + slashName + `}}`, 422, []string{genName}},
		{"replication controller generateName path segment", "/api/v1/namespaces/default/replicationcontrollers/r", `{"metadata":{` + slashName + `,` + badLabel + `}}`, 422, []string{genName, labels}},
		{"pod status keeps generateName", "/api/v1/namespaces/default/pods/p/status", `{"metadata":{` + slashName + `,` + badLabel + `}}`, 422, []string{genName, labels}},
		{"pod status keeps UID", "/api/v1/namespaces/default/pods/p/status", `{"metadata":{` + spacedName + `,"uid":"x"}}`, 422, []string{uid}},
		{"deployment status puts labels back, not UID", "/apis/apps/v1/namespaces/default/deployments/d/status", `{"metadata":{` + badLabel + `,"uid":"x"}}`, 422, []string{uid}},
		{"volume attachment status checks name rule", "/apis/storage.k8s.io/v1/volumeattachments/v/status", `{"metadata":{` + spacedName + `,"uid":"x"}}`, 422, []string{uid, genName}},
		{"flowschema status keeps stored metadata", "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas/f/status", `{"metadata":{` + slashName + `,"uid":"x"}}`, 200, nil},
		{"custom resource repeats update rules", foos + "/w", `{"metadata":{` + spacedName + `,` + badLabel + `,"uid":"x"}}`, 422, []string{labels, uid, labels, uid, labels}},
		{"custom resource generateName path segment", foos + "/w", `{"metadata":{` + slashName + `}}`, 422, []string{genName}},
		{"custom resource status keeps stored metadata", foos + "/w/status", `{"metadata":{` + slashName + `,"uid":"x"}}`, 200, nil},
		{"CRD repeats update rules", crd, `{"metadata":{` + slashName + `,` + badLabel + `}}`, 422, []string{genName, labels, labels, labels}},
		{"CRD status keeps new metadata", crd + "/status", `{"metadata":{` + badLabel + `,"uid":"x"}}`, 422, []string{labels, uid, labels, uid, labels}},
		{"APIService repeats update rules, then its name rule", "/apis/apiregistration.k8s.io/v1/apiservices/v1.g.example.com", `{"metadata":{` + spacedName + `,` + badLabel + `,"uid":"x"}}`, 422, []string{labels, uid, labels, uid, labels, genName, labels}},
		{"APIService status repeats update rules", "/apis/apiregistration.k8s.io/v1/apiservices/v1.g.example.com/status", `{"metadata":{` + badLabel + `,"uid":"x"}}`, 422, []string{uid, uid}},
		{"deployment status keeps a new deletion timestamp", "/apis/apps/v1/namespaces/default/deployments/d/status", `{"metadata":{"deletionTimestamp":"2020-01-01T00:00:00Z"}}`, 422, []string{"metadata.deletionTimestamp FieldValueInvalid"}},
		{"pod status drops a new deletion timestamp", "/api/v1/namespaces/default/pods/p/status", `{"metadata":{"deletionTimestamp":"2020-01-01T00:00:00Z"}}`, 200, nil},
		{"cronjob status checks no core finalizer rule", "/apis/batch/v1/namespaces/default/cronjobs/cj/status", `{"metadata":{"finalizers":["x"]}}`, 200, nil},
		{"cronjob checks the core finalizer rule", "/apis/batch/v1/namespaces/default/cronjobs/cj", `{"metadata":{"finalizers":["x"]}}`, 422, []string{"metadata.finalizers[0] FieldValueInvalid"}},
	})
	// A write to /status of another namespace is refused before the
	// status strategy puts the stored metadata back.
	for _, path := range []string{"/api/v1/namespaces/default/pods/p/status", "/apis/apps/v1/namespaces/default/deployments/d/status"} {
		code, _, body := rawRequest(t, cp, "PATCH", path+"?dryRun=All", "application/merge-patch+json", []byte(`{"metadata":{"namespace":"other"}}`), nil)
		if message, _ := statusFieldCauses(t, body); code != 400 || message != "the namespace of the provided object does not match the namespace sent on the request" {
			t.Errorf("%s in another namespace: %d %s", path, code, body)
		}
	}

	// A CRD's /status write sets its metadata, as upstream's CRD status
	// strategy resets the metadata from itself.
	mustStatus(t, cp, "PATCH", crd+"/status", `{"metadata":{"labels":{"via":"status"}}}`, 200)
	body := mustStatus(t, cp, "GET", crd, "", 200)
	if !bytes.Contains(body, []byte(`"via":"status"`)) {
		t.Errorf("the label written through /status is not on the CRD: %s", body)
	}
}

// TestReplicationControllerGenerateNameIsAPathSegmentPrefix creates a
// ReplicationController whose generateName has a slash: its declarative
// name rule does not check generateName, but the generic one does.
func TestReplicationControllerGenerateNameIsAPathSegmentPrefix(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	runRecordedCreates(t, cp, []recordedCreate{
		{"slash", "/api/v1/namespaces/default/replicationcontrollers", `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"r","generateName":"a/b"},"spec":{"selector":{"app":"x"},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`,
			422, []string{"metadata.generateName FieldValueInvalid"}, `ReplicationController "r" is invalid: metadata.generateName: Invalid value: "a/b": may not contain '/'`},
		{"space", "/api/v1/namespaces/default/replicationcontrollers", `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"r","generateName":"a b"},"spec":{"selector":{"app":"x"},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`,
			201, nil, ""},
	})
}
