package registry

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/utils/ptr"
)

// TestStorageKeyIsKubeAPIServers checks the etcd keys storage errors name
// against the keys a real v1.37 kube-apiserver keeps objects under (listed
// with etcdctl on refplane): its own resources under their resource's name
// or an old name, the aggregator's and apiextensions' under their group,
// custom resources under their group.
func TestStorageKeyIsKubeAPIServers(t *testing.T) {
	g, err := newServedResources()
	if err != nil {
		t.Fatal(err)
	}
	crd := widgetCRD(apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)})
	crd.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
	g.setCRD(crd)
	for _, tc := range []struct{ group, version, resource, key, want string }{
		{"", "v1", "configmaps", "ns/a", "/configmaps/ns/a"},
		{"coordination.k8s.io", "v1", "leases", "ns/a", "/leases/ns/a"},
		{"apps", "v1", "deployments", "ns/a", "/deployments/ns/a"},
		{"", "v1", "services", "ns/a", "/services/specs/ns/a"},
		{"", "v1", "nodes", "a", "/minions/a"},
		{"events.k8s.io", "v1", "events", "ns/a", "/events/ns/a"},
		{"apiregistration.k8s.io", "v1", "apiservices", "v1.example.com", "/apiregistration.k8s.io/apiservices/v1.example.com"},
		{"apiextensions.k8s.io", "v1", "customresourcedefinitions", "widgets.example.com", "/apiextensions.k8s.io/customresourcedefinitions/widgets.example.com"},
		{"example.com", "v1", "widgets", "ns/a", "/example.com/widgets/ns/a"},
	} {
		t.Run(tc.resource, func(t *testing.T) {
			r, ok := g.Lookup(tc.group, tc.version, tc.resource)
			if !ok {
				t.Fatalf("%s/%s %s not served", tc.group, tc.version, tc.resource)
			}
			if got := storageKey(r, tc.key); got != tc.want {
				t.Errorf("storageKey = %q, want %q", got, tc.want)
			}
		})
	}
}
