package fakeplane_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"k8s.io/client-go/dynamic"

	"github.com/fakeplane/fakeplane"
)

// The answers below are refplane's (kube-apiserver v1.37.2) to the same
// requests.

// recordedUpdate is an object created, a change kube-apiserver was sent
// as a dry-run merge patch (or, without one, a PUT of the stored object
// with its template's labels emptied), and its answer.
type recordedUpdate struct {
	name, coll, body, patch string
	wantCode                int
	wantCauses              []string // field and reason of each cause, in order
	wantMessage             string
}

// TestUpdateRulesAsKubeAPIServer changes objects in ways upstream's update
// validation judges differently from its create validation: a
// StatefulSet's service name and claim templates are only immutable, a
// RuntimeClass's handler and an EndpointSlice's address type answer with
// their declarative immutability (naming no value) where upstream puts it,
// a ServiceCIDR's emptied list is null, a headless Service's changed
// clusterIP carries clusterIPs with it, an emptied map is shown as {}, and
// a CSIStorageCapacity's update is checked as its create too.
func TestUpdateRulesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	for _, tc := range []recordedUpdate{
		{
			name: "DeploymentTemplateLabelsEmptied", coll: "/apis/apps/v1/namespaces/default/deployments",
			body:     `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"up1"},"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
			patch:    `{"spec":{"template":{"metadata":{"labels":null}}}}`,
			wantCode: 422, wantCauses: []string{"spec.template.metadata.labels FieldValueInvalid"},
			wantMessage: "Deployment.apps \"up1\" is invalid: spec.template.metadata.labels: Invalid value: null: `selector` does not match template `labels`",
		},
		{
			name: "DeploymentTemplateLabelsEmptyMap", coll: "/apis/apps/v1/namespaces/default/deployments",
			body:     `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"up2"},"spec":{"selector":{"matchLabels":{"app":"x"}},"template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
			wantCode: 422, wantCauses: []string{"spec.template.metadata.labels FieldValueInvalid"},
			wantMessage: "Deployment.apps \"up2\" is invalid: spec.template.metadata.labels: Invalid value: {}: `selector` does not match template `labels`",
		},
		{
			name: "StatefulSetServiceNameChangedToInvalid", coll: "/apis/apps/v1/namespaces/default/statefulsets",
			body:     `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"up3"},"spec":{"selector":{"matchLabels":{"app":"x"}},"serviceName":"s","template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}},"volumeClaimTemplates":[{"metadata":{"name":"v"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}`,
			patch:    `{"spec":{"serviceName":"BAD VALUE!"}}`,
			wantCode: 422, wantCauses: []string{"spec.serviceName FieldValueInvalid"},
			wantMessage: "StatefulSet.apps \"up3\" is invalid: spec.serviceName: Invalid value: \"BAD VALUE!\": field is immutable",
		},
		{
			name: "StatefulSetClaimTemplateChangedToInvalid", coll: "/apis/apps/v1/namespaces/default/statefulsets",
			body:     `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"up4"},"spec":{"selector":{"matchLabels":{"app":"x"}},"serviceName":"s","template":{"metadata":{"labels":{"app":"x"}},"spec":{"containers":[{"name":"c","image":"i"}]}},"volumeClaimTemplates":[{"metadata":{"name":"v"},"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}]}}`,
			patch:    `{"spec":{"volumeClaimTemplates":[{"metadata":{"name":"v"},"spec":{"accessModes":["Bad"],"resources":{"requests":{"storage":"1Gi"}}}}]}}`,
			wantCode: 422, wantCauses: []string{"spec.volumeClaimTemplates FieldValueInvalid"},
			wantMessage: "StatefulSet.apps \"up4\" is invalid: spec.volumeClaimTemplates: Invalid value: [{\"name\":\"v\",\"Spec\":{\"AccessModes\":[\"Bad\"],\"Selector\":null,\"Resources\":{\"Limits\":null,\"Requests\":{\"storage\":\"1Gi\"}},\"VolumeName\":\"\",\"StorageClassName\":null,\"VolumeMode\":\"Filesystem\",\"DataSource\":null,\"DataSourceRef\":null,\"VolumeAttributesClassName\":null},\"Status\":{\"Phase\":\"Pending\",\"AccessModes\":null,\"Capacity\":null,\"Conditions\":null,\"AllocatedResources\":null,\"AllocatedResourceStatuses\":null,\"CurrentVolumeAttributesClassName\":null,\"ModifyVolumeStatus\":null,\"HealthStatus\":null}}]: field is immutable",
		},
		{
			name: "RuntimeClassHandlerEmptied", coll: "/apis/node.k8s.io/v1/runtimeclasses",
			body:     `{"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass","metadata":{"name":"up5"},"handler":"h"}`,
			patch:    `{"handler":""}`,
			wantCode: 422, wantCauses: []string{"handler FieldValueInvalid", "handler FieldValueRequired"},
			wantMessage: "RuntimeClass.node.k8s.io \"up5\" is invalid: [handler: Invalid value: null: field is immutable, handler: Required value]",
		},
		{
			name: "RuntimeClassHandlerChangedToInvalid", coll: "/apis/node.k8s.io/v1/runtimeclasses",
			body:     `{"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass","metadata":{"name":"up6"},"handler":"h","overhead":{"podFixed":{"cpu":"1"}}}`,
			patch:    `{"handler":"HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH","overhead":{"podFixed":{"cpu":"-1"}}}`,
			wantCode: 422, wantCauses: []string{"handler FieldValueInvalid", "handler FieldValueInvalid", "overhead.limits[cpu] FieldValueInvalid", "handler FieldValueInvalid"},
			wantMessage: "RuntimeClass.node.k8s.io \"up6\" is invalid: [handler: Invalid value: \"HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH\": must be no more than 63 characters, handler: Invalid value: \"HHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHHH\": a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?'), overhead.limits[cpu]: Invalid value: \"-1\": must be greater than or equal to 0, handler: Invalid value: null: field is immutable]",
		},
		{
			name: "EndpointSliceAddressTypeChanged", coll: "/apis/discovery.k8s.io/v1/namespaces/default/endpointslices",
			body:     `{"apiVersion":"discovery.k8s.io/v1","kind":"EndpointSlice","metadata":{"name":"up7"},"addressType":"IPv4","endpoints":[{"addresses":["10.1.1.1"]}]}`,
			patch:    `{"addressType":"Bad","endpoints":[{"addresses":["::1"]}]}`,
			wantCode: 422, wantCauses: []string{"addressType FieldValueNotSupported", "addressType FieldValueInvalid"},
			wantMessage: "EndpointSlice.discovery.k8s.io \"up7\" is invalid: [addressType: Unsupported value: \"Bad\": supported values: \"FQDN\", \"IPv4\", \"IPv6\", addressType: Invalid value: null: field is immutable]",
		},
		{
			name: "ServiceCIDRSpecRemoved", coll: "/apis/networking.k8s.io/v1/servicecidrs",
			body:     `{"apiVersion":"networking.k8s.io/v1","kind":"ServiceCIDR","metadata":{"name":"up8"},"spec":{"cidrs":["10.11.0.0/24"]}}`,
			patch:    `{"spec":null}`,
			wantCode: 422, wantCauses: []string{"spec.cidrs FieldValueInvalid"},
			wantMessage: "ServiceCIDR.networking.k8s.io \"up8\" is invalid: spec.cidrs: Invalid value: null: field is immutable",
		},
		{
			name: "HeadlessServiceClusterIPChanged", coll: "/api/v1/namespaces/default/services",
			body:     `{"apiVersion":"v1","kind":"Service","metadata":{"name":"up9"},"spec":{"clusterIP":"None","ports":[{"port":80}]}}`,
			patch:    `{"spec":{"clusterIP":"BAD VALUE!"}}`,
			wantCode: 422, wantCauses: []string{"spec.clusterIPs[0] FieldValueInvalid"},
			wantMessage: "Service \"up9\" is invalid: spec.clusterIPs[0]: Invalid value: \"BAD VALUE!\": must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)",
		},
		{
			name: "CSIStorageCapacityClassNameChangedToInvalid", coll: "/apis/storage.k8s.io/v1/namespaces/default/csistoragecapacities",
			body:     `{"apiVersion":"storage.k8s.io/v1","kind":"CSIStorageCapacity","metadata":{"name":"up10"},"storageClassName":"s","capacity":"1Gi"}`,
			patch:    `{"storageClassName":"BAD VALUE!"}`,
			wantCode: 422, wantCauses: []string{"storageClassName FieldValueInvalid", "storageClassName FieldValueInvalid"},
			wantMessage: "CSIStorageCapacity.storage.k8s.io \"up10\" is invalid: [storageClassName: Invalid value: \"BAD VALUE!\": a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*'), storageClassName: Invalid value: \"BAD VALUE!\": field is immutable]",
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			mustStatus(t, cp, "POST", tc.coll, tc.body, 201)
			var name struct {
				Metadata struct{ Name string }
			}
			if err := json.Unmarshal([]byte(tc.body), &name); err != nil {
				t.Fatal(err)
			}
			path := tc.coll + "/" + name.Metadata.Name
			var code int
			var body []byte
			if tc.patch != "" {
				code, _, body = rawRequest(t, cp, "PATCH", path+"?dryRun=All", "application/merge-patch+json", []byte(tc.patch), nil)
			} else {
				// A controller may write the object meanwhile: a PUT
				// that conflicts is tried again.
				for attempt := 0; attempt < 5; attempt++ {
					var obj map[string]any
					if err := json.Unmarshal(mustStatus(t, cp, "GET", path, "", 200), &obj); err != nil {
						t.Fatal(err)
					}
					obj["spec"].(map[string]any)["template"].(map[string]any)["metadata"].(map[string]any)["labels"] = map[string]any{}
					b, _ := json.Marshal(obj)
					if code, _, body = rawRequest(t, cp, "PUT", path+"?dryRun=All", "application/json", b, nil); code != 409 {
						break
					}
				}
			}
			if code != tc.wantCode {
				t.Fatalf("%d, want %d: %s", code, tc.wantCode, body)
			}
			message, causes := statusFieldCauses(t, body)
			if !slices.Equal(causes, tc.wantCauses) {
				t.Errorf("causes\n%q\nwant\n%q", causes, tc.wantCauses)
			}
			if message != tc.wantMessage {
				t.Errorf("message\n%s\nwant\n%s", message, tc.wantMessage)
			}
		})
	}
}

// TestControllerRevisionDataComparedAsJSON updates a ControllerRevision
// whose data was created with insignificant space, sending it back
// unchanged (as kube-apiserver, which compares the bytes it stored with the
// bytes sent again, accepts from a client that sends both alike) and then
// changed (refused, the data being immutable).
func TestControllerRevisionDataComparedAsJSON(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	coll := "/apis/apps/v1/namespaces/default/controllerrevisions"
	mustStatus(t, cp, "POST", coll, `{"metadata":{"name":"cr"},"revision":1,"data":{"a": "b"}}`, 201)
	mustStatus(t, cp, "PUT", coll+"/cr", `{"metadata":{"name":"cr"},"revision":2,"data":{"a": "b"}}`, 200)
	body := mustStatus(t, cp, "PUT", coll+"/cr", `{"metadata":{"name":"cr"},"revision":3,"data":{"a": "c"}}`, 422)
	const want = `ControllerRevision.apps "cr" is invalid: data: Invalid value: {"a":"c"}: field is immutable`
	if message, _ := statusFieldCauses(t, body); message != want {
		t.Errorf("message\n%s\nwant\n%s", message, want)
	}
}

// TestStrategicMergePatchWrapsAnOverflowingInt32 patches int32 fields with
// 2147483648: kube-apiserver converts a strategic merge patch's result from
// a map, which wraps the number to -2147483648 for validation to judge,
// where a merge patch's result fails to decode (refplane's answers).
func TestStrategicMergePatchWrapsAnOverflowingInt32(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	mustStatus(t, cp, "POST", "/apis/scheduling.k8s.io/v1/priorityclasses", `{"apiVersion":"scheduling.k8s.io/v1","kind":"PriorityClass","metadata":{"name":"pc"},"value":10}`, 201)
	mustStatus(t, cp, "POST", "/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers", `{"apiVersion":"autoscaling/v2","kind":"HorizontalPodAutoscaler","metadata":{"name":"h"},"spec":{"maxReplicas":3,"scaleTargetRef":{"apiVersion":"apps/v1","kind":"Deployment","name":"d"}}}`, 201)
	for _, tc := range []struct {
		path, patchType, patch string
		wantMessage            string // its start for a merge patch, which quotes the patched object
	}{
		{"/apis/autoscaling/v2/namespaces/default/horizontalpodautoscalers/h", "strategic-merge-patch", `{"spec":{"maxReplicas":2147483648}}`,
			"HorizontalPodAutoscaler.autoscaling \"h\" is invalid: [spec.maxReplicas: Invalid value: -2147483648: must be greater than or equal to `minReplicas`, spec.maxReplicas: Invalid value: -2147483648: must be greater than or equal to 1]"},
		{"/apis/scheduling.k8s.io/v1/priorityclasses/pc", "strategic-merge-patch", `{"value":2147483648}`,
			`PriorityClass.scheduling.k8s.io "pc" is invalid: value: Forbidden: may not be changed in an update.`},
		{"/apis/scheduling.k8s.io/v1/priorityclasses/pc", "merge-patch", `{"value":2147483648}`,
			` "" is invalid: patch: Invalid value: "{`},
	} {
		code, _, body := rawRequest(t, cp, "PATCH", tc.path+"?dryRun=All", "application/"+tc.patchType+"+json", []byte(tc.patch), nil)
		message, _ := statusFieldCauses(t, body)
		if code != 422 || !strings.HasPrefix(message, tc.wantMessage) {
			t.Errorf("%s %s: %d %s\nwant 422 %s", tc.patchType, tc.patch, code, message, tc.wantMessage)
		}
		if tc.patchType == "merge-patch" && !strings.HasSuffix(message, ": json: cannot unmarshal number 2147483648 into Go struct field PriorityClass.value of type int32") {
			t.Errorf("merge patch: %s", message)
		}
	}
}

// TestCustomResourcePatchThatDoesNotDecodeIsInvalid patches a custom
// resource's embedded resource so that it no longer decodes (its apiVersion
// a number): apiextensions' patcher answers a 422 on the field "patch"
// with the decoding error, for a JSON patch and a merge patch alike, where
// a create or update with the same body is a 400 (refplane's answers).
func TestCustomResourcePatchThatDoesNotDecodeIsInvalid(t *testing.T) {
	t.Parallel()
	cp := startWithEmbeddingFoos(t)
	const foo = "/apis/tests.example.com/v1beta1/foos/f"
	mustStatus(t, cp, "POST", "/apis/tests.example.com/v1beta1/foos", `{"apiVersion":"tests.example.com/v1beta1","kind":"Foo","metadata":{"name":"f"},"spec":{"embedded":{"apiVersion":"v1","kind":"ConfigMap"}}}`, 201)
	for _, tc := range []struct{ contentType, patch string }{
		{"application/json-patch+json", `[{"op":"replace","path":"/spec/embedded/apiVersion","value":5}]`},
		{"application/merge-patch+json", `{"spec":{"embedded":{"apiVersion":5}}}`},
	} {
		code, _, body := rawRequest(t, cp, "PATCH", foo+"?dryRun=All", tc.contentType, []byte(tc.patch), nil)
		message, causes := statusFieldCauses(t, body)
		if code != 422 || !strings.HasPrefix(message, ` "" is invalid: patch: Invalid value: "{`) ||
			!strings.HasSuffix(message, `: spec.embedded.apiVersion: Invalid value: 5: must be a string`) || !slices.Equal(causes, []string{"patch FieldValueInvalid"}) {
			t.Errorf("%s: %d %s", tc.contentType, code, body)
		}
	}
	code, _, body := rawRequest(t, cp, "PUT", foo+"?dryRun=All", "application/json", []byte(`{"apiVersion":"tests.example.com/v1beta1","kind":"Foo","metadata":{"name":"f"},"spec":{"embedded":{"apiVersion":5}}}`), nil)
	if message, _ := statusFieldCauses(t, body); code != 400 || message != `Foo in version "v1beta1" cannot be handled as a Foo: spec.embedded.apiVersion: Invalid value: 5: must be a string` {
		t.Errorf("PUT: %d %s", code, body)
	}
}

// TestAppliedCustomResourceIsCoercedAsStored applies a custom resource
// whose embedded resource's metadata has an empty name over the stored
// object: kube-apiserver stores the merge result through its schema's
// coercion, which drops the empty name, as a decoded body's would be:
// a dry run's answer too (refplane's answers).
func TestAppliedCustomResourceIsCoercedAsStored(t *testing.T) {
	t.Parallel()
	cp := startWithEmbeddingFoos(t)
	const foos = "/apis/tests.example.com/v1beta1/foos"
	mustStatus(t, cp, "POST", foos, `{"apiVersion":"tests.example.com/v1beta1","kind":"Foo","metadata":{"name":"f"},"spec":{"embedded":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"e"}}}}`, 201)
	for _, query := range []string{"?dryRun=All&", "?"} {
		code, _, body := rawRequest(t, cp, "PATCH", foos+"/f"+query+"fieldManager=m&force=true", "application/apply-patch+yaml",
			[]byte(`{"apiVersion":"tests.example.com/v1beta1","kind":"Foo","metadata":{"name":"f"},"spec":{"embedded":{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":""}}}}`), nil)
		if code != 200 {
			t.Fatalf("apply%s: %d %s", query, code, body)
		}
		var got struct {
			Spec struct {
				Embedded struct {
					Metadata map[string]any `json:"metadata"`
				} `json:"embedded"`
			} `json:"spec"`
		}
		if err := json.Unmarshal(body, &got); err != nil {
			t.Fatal(err)
		}
		if _, has := got.Spec.Embedded.Metadata["name"]; has || got.Spec.Embedded.Metadata == nil {
			t.Errorf("apply%s: embedded metadata %v, want {} (the empty name dropped)", query, got.Spec.Embedded.Metadata)
		}
	}
}

// startWithEmbeddingFoos starts a control plane with the CRD foosCRD whose
// spec.embedded is an embedded resource.
func startWithEmbeddingFoos(t *testing.T) *fakeplane.ControlPlane {
	t.Helper()
	cp := fakeplane.Start(t)
	createCRD(t, context.Background(), dynamic.NewForConfigOrDie(cp.RESTConfig()), foosCRD(t, `type: object
properties:
  spec:
    type: object
    properties:
      embedded: {type: object, x-kubernetes-embedded-resource: true, x-kubernetes-preserve-unknown-fields: true}`))
	return cp
}
