package crd

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestDeprecationWarning(t *testing.T) {
	custom := "use v2, please"
	spec := apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com",
		Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
			{Name: "v1alpha1", Served: true, Deprecated: true},
			{Name: "v1beta1", Served: true, Deprecated: true, DeprecationWarning: &custom},
			{Name: "v1", Served: true},
			{Name: "v2beta1", Served: true},
			{Name: "v2", Served: false},
			{Name: "v3alpha1", Served: true, Deprecated: true},
		},
	}
	onlyDeprecated := apiextensionsv1.CustomResourceDefinitionSpec{
		Group: "example.com",
		Names: apiextensionsv1.CustomResourceDefinitionNames{Kind: "Widget"},
		Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
			{Name: "v1alpha1", Served: true, Deprecated: true},
			{Name: "v1", Served: false},
		},
	}
	if got, deprecated := DeprecationWarning(onlyDeprecated, onlyDeprecated.Versions[0]); got != "example.com/v1alpha1 Widget is deprecated" || !deprecated {
		t.Errorf("DeprecationWarning without a newer served version = %q, %v", got, deprecated)
	}
	for _, tc := range []struct {
		version    int
		want       string
		deprecated bool
	}{
		// The suggestion is the version of highest priority: GA before beta.
		{0, "example.com/v1alpha1 Widget is deprecated; use example.com/v1 Widget", true},
		{1, custom, true},
		{2, "", false},
		{5, "example.com/v3alpha1 Widget is deprecated; use example.com/v1 Widget", true},
	} {
		v := spec.Versions[tc.version]
		got, deprecated := DeprecationWarning(spec, v)
		if got != tc.want || deprecated != tc.deprecated {
			t.Errorf("DeprecationWarning(%s) = %q, %v; want %q, %v", v.Name, got, deprecated, tc.want, tc.deprecated)
		}
	}
}
