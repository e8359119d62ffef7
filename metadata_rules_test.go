package fakeplane_test

import (
	"encoding/json"
	"regexp"
	"slices"
	"testing"

	"github.com/fakeplane/fakeplane"
)

// The answers below are refplane's (kube-apiserver v1.37.2) to the same
// requests, sent as dry runs.

// TestMetadataRulesAsKubeAPIServer creates objects whose metadata shows
// where kube-apiserver v1.37 checks it: core/v1 Events and
// PodDisruptionBudgets have no metadata rules of their own (the generic
// rules check a name only as a path segment, and only when nothing else is
// wrong), a Service's name is an RFC 1123 label, a LimitRange without a
// name is given a UUID, a CRD's metadata errors come with the rest of the
// definition's, and the declarative rules (a ReplicationController's name,
// a RuntimeClass's handler) answer after the handwritten ones.
func TestMetadataRulesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cases := []recordedCreate{
		{
			name: "LimitRangeWithoutNameGetsUUID", path: "/api/v1/namespaces/default/limitranges",
			body:     `{"apiVersion":"v1","kind":"LimitRange"}`,
			wantCode: 201,
		},
		{
			name: "CRDWithoutNameReportsEverything", path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
			body:     `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition"}`,
			wantCode: 422, wantCauses: []string{"metadata.name FieldValueRequired", "spec.group FieldValueRequired", "spec.scope FieldValueRequired", "spec.versions FieldValueInvalid", "spec.names.plural FieldValueRequired", "spec.names.singular FieldValueRequired", "spec.names.kind FieldValueRequired", "spec.names.listKind FieldValueRequired", "status.storedVersions FieldValueInvalid"},
		},
		{
			name: "CRDBadNameReportsEverything", path: "/apis/apiextensions.k8s.io/v1/customresourcedefinitions",
			body:     `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"X_y"}}`,
			wantCode: 422, wantCauses: []string{"metadata.name FieldValueInvalid", "metadata.name FieldValueInvalid", "spec.group FieldValueRequired", "spec.scope FieldValueRequired", "spec.versions FieldValueInvalid", "spec.names.plural FieldValueRequired", "spec.names.singular FieldValueRequired", "spec.names.kind FieldValueRequired", "spec.names.listKind FieldValueRequired", "status.storedVersions FieldValueInvalid"},
		},
		{
			name: "CoreEventNameIsAPathSegment", path: "/api/v1/namespaces/default/events",
			body:     `{"apiVersion":"v1","kind":"Event","involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m","type":"Normal","metadata":{"name":"X_y"}}`,
			wantCode: 201,
		},
		{
			name: "CoreEventMetadataOnlyWithoutOtherErrors", path: "/api/v1/namespaces/default/events",
			body:     `{"apiVersion":"v1","kind":"Event","involvedObject":{"namespace":"o"},"reason":"R","message":"m","type":"Normal","metadata":{"name":"X_y","labels":{"a b":"c"}}}`,
			wantCode: 422, wantCauses: []string{"involvedObject.namespace FieldValueInvalid"},
			wantMessage: "Event \"X_y\" is invalid: involvedObject.namespace: Invalid value: \"o\": does not match event.namespace",
		},
		{
			name: "CoreEventMetadataWhenNothingElse", path: "/api/v1/namespaces/default/events",
			body:     `{"apiVersion":"v1","kind":"Event","involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m","type":"Normal","metadata":{"name":"X_y","labels":{"a b":"c"}}}`,
			wantCode: 422, wantCauses: []string{"metadata.labels FieldValueInvalid"},
			wantMessage: "Event \"X_y\" is invalid: metadata.labels: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')",
		},
		{
			name: "CoreEventFinalizerUnchecked", path: "/api/v1/namespaces/default/events",
			body:     `{"apiVersion":"v1","kind":"Event","involvedObject":{"kind":"Pod","name":"p","namespace":"default"},"reason":"R","message":"m","type":"Normal","metadata":{"name":"f1","finalizers":["foo"]}}`,
			wantCode: 201,
		},
		{
			name: "EventsV1NameIsASubdomain", path: "/apis/events.k8s.io/v1/namespaces/default/events",
			body:     `{"apiVersion":"events.k8s.io/v1","kind":"Event","metadata":{"name":"X_y"},"eventTime":"2026-01-01T00:00:00.000000Z","reportingController":"c","reportingInstance":"i","action":"a","reason":"r","type":"Normal","regarding":{"kind":"Pod","name":"p","namespace":"default"}}`,
			wantCode: 422, wantCauses: []string{"metadata.name FieldValueInvalid"},
		},
		{
			name: "PDBNameIsAPathSegment", path: "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
			body:     `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"X_y"},"spec":{"minAvailable":1}}`,
			wantCode: 201,
		},
		{
			name: "PDBNameWithPercent", path: "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
			body:     `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"a%b"},"spec":{"minAvailable":1}}`,
			wantCode: 422, wantCauses: []string{"metadata.name FieldValueInvalid"},
			wantMessage: "PodDisruptionBudget.policy \"a%b\" is invalid: metadata.name: Invalid value: \"a%b\": may not contain '%'",
		},
		{
			name: "PDBMetadataOnlyWithoutSpecErrors", path: "/apis/policy/v1/namespaces/default/poddisruptionbudgets",
			body:     `{"apiVersion":"policy/v1","kind":"PodDisruptionBudget","metadata":{"name":"X_y","labels":{"a b":"c"}},"spec":{"minAvailable":-1}}`,
			wantCode: 422, wantCauses: []string{"spec.minAvailable FieldValueInvalid"},
			wantMessage: "PodDisruptionBudget.policy \"X_y\" is invalid: spec.minAvailable: Invalid value: -1: must be greater than or equal to 0",
		},
		{
			name: "ServiceNameIsAnRFC1123Label", path: "/api/v1/namespaces/default/services",
			body:     `{"apiVersion":"v1","kind":"Service","metadata":{"name":"1abc"},"spec":{"ports":[{"port":80}]}}`,
			wantCode: 201,
		},
		{
			name: "ServiceBadName", path: "/api/v1/namespaces/default/services",
			body:     `{"apiVersion":"v1","kind":"Service","metadata":{"name":"X_y"},"spec":{"ports":[{"port":80}]}}`,
			wantCode: 422, wantCauses: []string{"metadata.name FieldValueInvalid"},
			wantMessage: "Service \"X_y\" is invalid: metadata.name: Invalid value: \"X_y\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
		},
		{
			name: "RCNameErrorAmongDeclarative", path: "/api/v1/namespaces/default/replicationcontrollers",
			body:     `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"X_y"},"spec":{"replicas":-1,"minReadySeconds":-2,"selector":{"a":"b"},"template":{"metadata":{"labels":{"a":"c"}},"spec":{"containers":[]}}}}`,
			wantCode: 422, wantCauses: []string{"spec.template.metadata.labels FieldValueInvalid", "spec.template.spec.containers FieldValueRequired", "metadata.name FieldValueInvalid", "spec.replicas FieldValueInvalid", "spec.minReadySeconds FieldValueInvalid"},
		},
		{
			name: "RuntimeClassHandlerLast", path: "/apis/node.k8s.io/v1/runtimeclasses",
			body:     `{"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass","metadata":{"name":"X_y"},"handler":"Bad Handler","overhead":{"podFixed":{"cpu":"-1"}}}`,
			wantCode: 422, wantCauses: []string{"metadata.name FieldValueInvalid", "overhead.limits[cpu] FieldValueInvalid", "handler FieldValueInvalid"},
		},
	}
	runRecordedCreates(t, cp, cases)

	// What was created is there, under the name kube-apiserver gives it,
	// and can be changed: an update checks a PodDisruptionBudget's or a
	// core Event's name as a path segment too.
	code, _, body := rawRequest(t, cp, "GET", "/api/v1/namespaces/default/limitranges", "", nil, nil)
	var list struct {
		Items []struct{ Metadata struct{ Name string } } `json:"items"`
	}
	if err := json.Unmarshal(body, &list); code != 200 || err != nil {
		t.Fatalf("list limitranges: %d %v: %s", code, err, body)
	}
	uuid := regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)
	if len(list.Items) != 1 || !uuid.MatchString(list.Items[0].Metadata.Name) {
		t.Errorf("LimitRanges created without a name: %+v, want one named by a UUID", list.Items)
	}
	for _, p := range []string{"/apis/policy/v1/namespaces/default/poddisruptionbudgets/X_y", "/api/v1/namespaces/default/events/X_y"} {
		code, _, body := rawRequest(t, cp, "PATCH", p, "application/merge-patch+json", []byte(`{"metadata":{"labels":{"changed":"yes"}}}`), nil)
		if code != 200 {
			t.Errorf("PATCH %s: %d, want 200: %s", p, code, body)
		}
	}
}

// TestDeploymentStatusWriteKeepsLabelsUnchecked patches a Deployment's
// /status with labels, one of them invalid: kube-apiserver's status
// strategy puts the stored labels back before it validates, so the write
// succeeds, with the labels unchanged and the annotation written.
func TestDeploymentStatusWriteKeepsLabelsUnchecked(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	mustStatus(t, cp, "POST", "/apis/apps/v1/namespaces/default/deployments",
		`{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"st1","labels":{"a":"b"}},"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`, 201)
	body := mustStatus(t, cp, "PATCH", "/apis/apps/v1/namespaces/default/deployments/st1/status",
		`{"metadata":{"labels":{"a b":"x","c":"d"},"annotations":{"n2":"v"}}}`, 200)
	var d struct {
		Metadata struct {
			Labels, Annotations map[string]string
		}
	}
	if err := json.Unmarshal(body, &d); err != nil {
		t.Fatal(err)
	}
	if len(d.Metadata.Labels) != 1 || d.Metadata.Labels["a"] != "b" || d.Metadata.Annotations["n2"] != "v" {
		t.Errorf("after the status patch: labels %v, annotations %v; want labels {a: b} and annotation n2", d.Metadata.Labels, d.Metadata.Annotations)
	}
}

// recordedCreate is a create kube-apiserver was sent, and its answer.
type recordedCreate struct {
	name, path, body string
	wantCode         int
	wantCauses       []string // field and reason of each cause, in order
	wantMessage      string
}

// runRecordedCreates sends each create, as a dry run and then for real,
// and checks the answers.
func runRecordedCreates(t *testing.T, cp *fakeplane.ControlPlane, cases []recordedCreate) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			for _, dryRun := range []bool{true, false} {
				path := tc.path
				if dryRun {
					path += "?dryRun=All"
				}
				code, _, body := rawRequest(t, cp, "POST", path, "application/json", []byte(tc.body), nil)
				if code != tc.wantCode {
					t.Fatalf("dry run %v: %d, want %d: %s", dryRun, code, tc.wantCode, body)
				}
				message, causes := statusFieldCauses(t, body)
				if code != 201 && !slices.Equal(causes, tc.wantCauses) {
					t.Errorf("dry run %v: causes\n%q\nwant\n%q", dryRun, causes, tc.wantCauses)
				}
				if tc.wantMessage != "" && message != tc.wantMessage {
					t.Errorf("dry run %v: message\n%s\nwant\n%s", dryRun, message, tc.wantMessage)
				}
			}
		})
	}
}

// statusFieldCauses decodes a Status body into its message and each of its
// causes' field and reason.
func statusFieldCauses(t *testing.T, body []byte) (string, []string) {
	t.Helper()
	var st struct {
		Message string `json:"message"`
		Details struct {
			Causes []struct{ Field, Reason string } `json:"causes"`
		} `json:"details"`
	}
	if err := json.Unmarshal(body, &st); err != nil {
		t.Fatal(err)
	}
	var causes []string
	for _, c := range st.Details.Causes {
		causes = append(causes, c.Field+" "+c.Reason)
	}
	return st.Message, causes
}

// TestEphemeralContainersWriteKeepsMetadataUnchecked patches a pod's
// /ephemeralcontainers with an invalid label beside a new ephemeral
// container: kube-apiserver's strategy keeps the stored pod but its
// ephemeral containers before it validates, so the write succeeds (here as
// a dry run, as refplane answered it) and the label is not written.
func TestEphemeralContainersWriteKeepsMetadataUnchecked(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	mustStatus(t, cp, "POST", "/api/v1/namespaces/default/pods", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"eph"},"spec":{"containers":[{"name":"c","image":"i"}]}}`, 201)
	code, _, body := rawRequest(t, cp, "PATCH", "/api/v1/namespaces/default/pods/eph/ephemeralcontainers?dryRun=All", "application/strategic-merge-patch+json",
		[]byte(`{"metadata":{"labels":{"a b":"c"}},"spec":{"ephemeralContainers":[{"name":"dbg","image":"busybox"}]}}`), nil)
	if code != 200 {
		t.Fatalf("%d, want 200: %s", code, body)
	}
	var pod struct {
		Metadata struct{ Labels map[string]string }
		Spec     struct {
			EphemeralContainers []struct{ Name string }
		}
	}
	if err := json.Unmarshal(body, &pod); err != nil {
		t.Fatal(err)
	}
	if len(pod.Metadata.Labels) != 0 || len(pod.Spec.EphemeralContainers) != 1 {
		t.Errorf("labels %v, ephemeral containers %v; want no labels and the new container", pod.Metadata.Labels, pod.Spec.EphemeralContainers)
	}
}
