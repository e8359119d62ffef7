package fakeplane_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane"
)

// TestCreateDefaultsAsKubeAPIServer creates objects whose stored form a
// real v1.37 kube-apiserver fills in (recorded with refplane) and compares
// the fields it filled: a headless Service without a selector takes both
// IP families, a PersistentVolume records when it became Pending, and a
// ResourceClaim's requests get their allocation mode and count.
func TestCreateDefaultsAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const svcs = "/api/v1/namespaces/default/services"
	for _, tc := range []struct {
		name, path, body string
		// fields are JSON paths (dot-separated) and the JSON each holds.
		fields map[string]string
	}{
		{"a headless service without a selector is dual-stack", svcs, `{"metadata":{"name":"h0"},"spec":{"clusterIP":"None","ports":[{"port":80}]}}`,
			map[string]string{"spec.ipFamilyPolicy": `"RequireDualStack"`, "spec.ipFamilies": `["IPv4","IPv6"]`, "spec.clusterIPs": `["None"]`}},
		{"with a selector it is single-stack", svcs, `{"metadata":{"name":"h1"},"spec":{"clusterIP":"None","selector":{"a":"b"},"ports":[{"port":80}]}}`,
			map[string]string{"spec.ipFamilyPolicy": `"SingleStack"`, "spec.ipFamilies": `["IPv4"]`}},
		{"single-stack when asked", svcs, `{"metadata":{"name":"h2"},"spec":{"clusterIP":"None","ipFamilyPolicy":"SingleStack","ports":[{"port":80}]}}`,
			map[string]string{"spec.ipFamilyPolicy": `"SingleStack"`, "spec.ipFamilies": `["IPv4"]`}},
		{"PreferDualStack adds the other family", svcs, `{"metadata":{"name":"h3"},"spec":{"clusterIP":"None","ipFamilyPolicy":"PreferDualStack","ports":[{"port":80}]}}`,
			map[string]string{"spec.ipFamilyPolicy": `"PreferDualStack"`, "spec.ipFamilies": `["IPv4","IPv6"]`}},
		{"an IPv6 first family gets IPv4 second", svcs, `{"metadata":{"name":"h4"},"spec":{"clusterIP":"None","ipFamilies":["IPv6"],"ports":[{"port":80}]}}`,
			map[string]string{"spec.ipFamilyPolicy": `"RequireDualStack"`, "spec.ipFamilies": `["IPv6","IPv4"]`}},
		{"a persistent volume is Pending since its create", "/api/v1/persistentvolumes", `{"metadata":{"name":"pv"},"spec":{"capacity":{"storage":"1Gi"},"accessModes":["ReadWriteOnce"],"hostPath":{"path":"/x"}}}`,
			map[string]string{"status.phase": `"Pending"`, "status.lastPhaseTransitionTime": "NOW"}},
		{"a claim's requests get ExactCount and 1, All stays without a count", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaims",
			`{"metadata":{"name":"rc2"},"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"dc","allocationMode":"All","tolerations":[{"key":"k","effect":"NoSchedule"}]}},{"name":"f","firstAvailable":[{"name":"a","deviceClassName":"dc"},{"name":"b","deviceClassName":"dc","allocationMode":"ExactCount","count":3}]}]}}}`,
			map[string]string{"spec.devices.requests": `[{"exactly":{"allocationMode":"All","deviceClassName":"dc","tolerations":[{"effect":"NoSchedule","key":"k","operator":"Equal"}]},"name":"r"},{"firstAvailable":[{"allocationMode":"ExactCount","count":1,"deviceClassName":"dc","name":"a"},{"allocationMode":"ExactCount","count":3,"deviceClassName":"dc","name":"b"}],"name":"f"}]`}},
		{"and so do a template's", "/apis/resource.k8s.io/v1/namespaces/default/resourceclaimtemplates",
			`{"metadata":{"name":"rct"},"spec":{"spec":{"devices":{"requests":[{"name":"r","exactly":{"deviceClassName":"dc"}}]}}}}`,
			map[string]string{"spec.spec.devices.requests": `[{"exactly":{"allocationMode":"ExactCount","count":1,"deviceClassName":"dc"},"name":"r"}]`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := time.Now().Add(-time.Second)
			code, _, out := rawExchange(t, cp, "POST", tc.path, "application/json", []byte(tc.body), nil)
			if code != 201 {
				t.Fatalf("code %d: %s", code, out)
			}
			var obj map[string]any
			if err := json.Unmarshal(out, &obj); err != nil {
				t.Fatal(err)
			}
			for path, want := range tc.fields {
				var v any = obj
				for _, k := range strings.Split(path, ".") {
					m, _ := v.(map[string]any)
					v = m[k]
				}
				if want == "NOW" {
					s, _ := v.(string)
					if at, err := time.Parse(time.RFC3339, s); err != nil || at.Before(before.Truncate(time.Second)) || at.After(time.Now().Add(time.Second)) {
						t.Errorf("%s: %q, want the time of the create", path, s)
					}
					continue
				}
				got, _ := json.Marshal(v)
				if string(got) != want {
					t.Errorf("%s: %s, want %s", path, got, want)
				}
			}
		})
	}
}
