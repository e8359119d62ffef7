package fakeplane_test

import (
	"encoding/json"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// runMergePatchCases is runWriteCases with PATCH bodies sent as JSON merge
// patches (other methods as JSON).
func runMergePatchCases(t *testing.T, cp *fakeplane.ControlPlane, cases []writeCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ct := "application/json"
			if tc.method == "PATCH" {
				ct = "application/merge-patch+json"
			}
			code, _, out := rawRequest(t, cp, tc.method, tc.path, ct, []byte(tc.body), nil)
			if code != tc.code {
				t.Fatalf("code %d, want %d: %s", code, tc.code, out)
			}
			var st metav1.Status
			_ = json.Unmarshal(out, &st)
			if tc.message != "" && st.Message != tc.message {
				t.Errorf("message\n got %s\nwant %s", st.Message, tc.message)
			}
		})
	}
}

// TestUpdateImmutabilityMatchesKubeAPIServer checks updates of claims,
// pods, storage classes and quotas; every expected code and message was
// recorded from a real v1.37 kube-apiserver (refplane).
func TestUpdateImmutabilityMatchesKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	waitForDefaultServiceAccount(t, cp, "default")
	pvcs := "/api/v1/namespaces/default/persistentvolumeclaims"
	pods := "/api/v1/namespaces/default/pods"
	scs := "/apis/storage.k8s.io/v1/storageclasses"
	quotas := "/api/v1/namespaces/default/resourcequotas"
	claim := `"spec":{"accessModes":["ReadWriteOnce"],"resources":{"requests":{"storage":"1Gi"}}}}`
	immutableClaim := func(name, from, to string) string {
		return `PersistentVolumeClaim "` + name + `" is invalid: spec: Forbidden: spec is immutable after creation except resources.requests and volumeAttributesClassName for bound claims` + "\n" +
			"@@ -10,7 +10,7 @@\n   }\n  },\n  \"VolumeName\": \"\",\n- \"StorageClassName\": " + from + ",\n+ \"StorageClassName\": " + to + ",\n  \"VolumeMode\": \"Filesystem\",\n  \"DataSource\": null,\n  \"DataSourceRef\": null,\n"
	}
	runMergePatchCases(t, cp, []writeCase{
		{"a claim without a class", "POST", pvcs, `{"metadata":{"name":"c"},` + claim, 201, ""},
		{"an unset class may be set", "PATCH", pvcs + "/c", `{"spec":{"storageClassName":"x"}}`, 200, ""},
		{"a set class may not change", "PATCH", pvcs + "/c", `{"spec":{"storageClassName":"y"}}`, 422, immutableClaim("c", `"x"`, `"y"`)},
		{"a claim with the beta class annotation", "POST", pvcs, `{"metadata":{"name":"c2","annotations":{"volume.beta.kubernetes.io/storage-class":"a"}},` + claim, 201, ""},
		{"the class may not differ from the annotation", "PATCH", pvcs + "/c2", `{"spec":{"storageClassName":"b"}}`, 422, immutableClaim("c2", "null", `"b"`)},
		{"the annotation is immutable", "PATCH", pvcs + "/c2", `{"metadata":{"annotations":{"volume.beta.kubernetes.io/storage-class":"b"}}}`, 422,
			`PersistentVolumeClaim "c2" is invalid: metadata.annotations.volume.beta.kubernetes.io/storage-class: Invalid value: "b": field is immutable`},
		{"the annotation's class may move to the field", "PATCH", pvcs + "/c2", `{"spec":{"storageClassName":"a"}}`, 200, ""},

		{"a pod", "POST", pods, `{"metadata":{"name":"p"},"spec":{"containers":[{"name":"c","image":"i"}]}}`, 201, ""},
		{"replaced tolerations get the default ones back", "PATCH", pods + "/p", `{"spec":{"tolerations":[{"key":"k","operator":"Exists"}]}}`, 200, ""},
		{"an existing toleration may not change", "PATCH", pods + "/p", `{"spec":{"tolerations":[{"key":"k","operator":"Exists","effect":"NoSchedule"}]}}`, 422,
			`Pod "p" is invalid: spec.tolerations: Forbidden: existing toleration can not be modified except its tolerationSeconds`},
		{"scheduling gates may not be added", "PATCH", pods + "/p", `{"spec":{"schedulingGates":[{"name":"g"},{"name":"h"}]}}`, 422,
			`Pod "p" is invalid: [spec.schedulingGates[0].name: Forbidden: only deletion is allowed, but found new scheduling gate 'g', spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'h']`},
		{"a gated pod", "POST", pods, `{"metadata":{"name":"g"},"spec":{"schedulingGates":[{"name":"a"}],"nodeSelector":{"x":"y"},"containers":[{"name":"c","image":"i"}]}}`, 201, ""},
		{"a gated pod may not gain a gate", "PATCH", pods + "/g", `{"spec":{"nodeSelector":{"x":"y","z":"w"},"schedulingGates":[{"name":"a"},{"name":"b"}]}}`, 422,
			`Pod "g" is invalid: spec.schedulingGates[1].name: Forbidden: only deletion is allowed, but found new scheduling gate 'b'`},
		{"a gated pod's node selector only grows", "PATCH", pods + "/g", `{"spec":{"nodeSelector":{"x":"z"}}}`, 422,
			`Pod "g" is invalid: spec.nodeSelector: Invalid value: {"x":"z"}: only additions to spec.nodeSelector are allowed (no mutations or deletions)`},
		{"a gated pod may set a node affinity", "PATCH", pods + "/g", `{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"a","operator":"Exists"}]}]}}}}}`, 200, ""},
		{"but not replace its requirements", "PATCH", pods + "/g", `{"spec":{"affinity":{"nodeAffinity":{"requiredDuringSchedulingIgnoredDuringExecution":{"nodeSelectorTerms":[{"matchExpressions":[{"key":"b","operator":"Exists"}]}]}}}}}`, 422,
			`Pod "g" is invalid: spec.affinity.nodeAffinity.requiredDuringSchedulingIgnoredDuringExecution.nodeSelectorTerms[0]: Invalid value: {"MatchExpressions":[{"Key":"b","Operator":"Exists","Values":null}],"MatchFields":null}: only additions are allowed (no mutations or deletions)`},

		{"a storage class", "POST", scs, `{"metadata":{"name":"upsc"},"provisioner":"a.b/c"}`, 201, ""},
		{"its provisioner, parameters and policies are immutable", "PATCH", scs + "/upsc", `{"provisioner":"a.b/d","parameters":{"x":"y"},"reclaimPolicy":"Retain","volumeBindingMode":"WaitForFirstConsumer"}`, 422,
			`StorageClass.storage.k8s.io "upsc" is invalid: [provisioner: Invalid value: null: field is immutable, parameters: Invalid value: null: field is immutable, reclaimPolicy: Invalid value: null: field is immutable, volumeBindingMode: Invalid value: null: field is immutable]`},
		{"an update is validated as new first", "PATCH", scs + "/upsc", `{"provisioner":"a b","volumeBindingMode":"Bad"}`, 422,
			`StorageClass.storage.k8s.io "upsc" is invalid: [provisioner: Invalid value: "a b": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), volumeBindingMode: Unsupported value: "Bad": supported values: "Immediate", "WaitForFirstConsumer", provisioner: Invalid value: null: field is immutable, volumeBindingMode: Invalid value: null: field is immutable]`},
		{"a new class: the required provisioner last", "POST", scs, `{"metadata":{"name":"upsc2"},"parameters":{"":"x"}}`, 422,
			`StorageClass.storage.k8s.io "upsc2" is invalid: [parameters: Invalid value: "": field can not be empty., provisioner: Required value]`},

		{"a quota with scopes", "POST", quotas, `{"metadata":{"name":"q"},"spec":{"hard":{"pods":"5"},"scopes":["BestEffort"]}}`, 201, ""},
		{"its scopes are immutable", "PATCH", quotas + "/q", `{"spec":{"scopes":["NotBestEffort"]}}`, 422, `ResourceQuota "q" is invalid: spec.scopes: Invalid value: ["NotBestEffort"]: field is immutable`},
		{"and may not be dropped", "PATCH", quotas + "/q", `{"spec":{"scopes":null}}`, 422, `ResourceQuota "q" is invalid: spec.scopes: Invalid value: null: field is immutable`},
		{"a quota with a scope selector", "POST", quotas, `{"metadata":{"name":"q2"},"spec":{"hard":{"pods":"5"},"scopeSelector":{"matchExpressions":[{"scopeName":"BestEffort","operator":"Exists"}]}}}`, 201, ""},
		{"its scope selector may change", "PATCH", quotas + "/q2", `{"spec":{"scopeSelector":{"matchExpressions":[{"scopeName":"NotBestEffort","operator":"Exists"}]}}}`, 200, ""},
		{"but scopes may not be added", "PATCH", quotas + "/q2", `{"spec":{"scopeSelector":null,"scopes":["BestEffort"]}}`, 422, `ResourceQuota "q2" is invalid: spec.scopes: Invalid value: ["BestEffort"]: field is immutable`},
	})
	// The tolerations the pod ended with: the added one and the defaults.
	code, _, out := rawRequest(t, cp, "GET", pods+"/p", "", nil, nil)
	if code != 200 || !strings.Contains(string(out), `"tolerations":[{"key":"k","operator":"Exists"},{"key":"node.kubernetes.io/not-ready","operator":"Exists","effect":"NoExecute","tolerationSeconds":300},{"key":"node.kubernetes.io/unreachable","operator":"Exists","effect":"NoExecute","tolerationSeconds":300}]`) {
		t.Errorf("pod: %d %s", code, out)
	}
}
