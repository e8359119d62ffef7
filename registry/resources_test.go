package registry

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/utils/ptr"
)

// TestForKind checks that ForKind finds the resource that stores a kind,
// a CRD's once it is served and no longer once it is removed, and nothing
// for a kind no stored resource has.
func TestForKind(t *testing.T) {
	g, err := newServedResources()
	if err != nil {
		t.Fatal(err)
	}
	widget := schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}
	crd := widgetCRD(apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: ptr.To(true)})
	crd.Status.Conditions = []apiextensionsv1.CustomResourceDefinitionCondition{{Type: apiextensionsv1.Established, Status: apiextensionsv1.ConditionTrue}}
	tests := []struct {
		name   string
		change func()
		gvk    schema.GroupVersionKind
		want   string // the resource's name, "" for none
	}{
		{name: "a core kind", gvk: schema.GroupVersionKind{Version: "v1", Kind: "ConfigMap"}, want: "configmaps"},
		{name: "a grouped kind", gvk: schema.GroupVersionKind{Group: "apps", Version: "v1", Kind: "Deployment"}, want: "deployments"},
		{name: "a kind in a version not served", gvk: schema.GroupVersionKind{Group: "apps", Version: "v1beta9", Kind: "Deployment"}},
		{name: "a kind only a virtual resource has", gvk: schema.GroupVersionKind{Group: "authorization.k8s.io", Version: "v1", Kind: "SubjectAccessReview"}},
		{name: "a CRD's kind before it is served", gvk: widget},
		{name: "a CRD's kind once served", change: func() { g.setCRD(crd) }, gvk: widget, want: "widgets"},
		{name: "a CRD's kind once removed", change: func() { g.mu.Lock(); g.removeCRDLocked(crd.Name); g.mu.Unlock() }, gvk: widget},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if tt.change != nil {
				tt.change()
			}
			r, ok := g.ForKind(tt.gvk)
			got := ""
			if ok {
				got = r.Resource.Resource
			}
			if got != tt.want {
				t.Errorf("ForKind(%v) = %q, want %q", tt.gvk, got, tt.want)
			}
		})
	}
	// Every stored resource is found by its kind, unless another of the
	// same kind in its group/version is (there is none).
	for _, r := range g.All() {
		if r.Virtual {
			continue
		}
		gvk := schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		if got, ok := g.ForKind(gvk); !ok || got != r {
			t.Errorf("ForKind(%v) = %v, want %s", gvk, got, r.Resource.Resource)
		}
	}
}
