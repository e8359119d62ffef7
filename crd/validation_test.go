package crd

import (
	"context"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
)

func TestValidate(t *testing.T) {
	valid := func() *apiextensionsv1.CustomResourceDefinition {
		def := widgets(apiextensionsv1.CustomResourceDefinitionNames{})
		for i := range def.Spec.Versions {
			def.Spec.Versions[i].Schema = &apiextensionsv1.CustomResourceValidation{
				OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object", XPreserveUnknownFields: new(true)},
			}
		}
		Default(def)
		return def
	}
	if def := valid(); def.Spec.Conversion == nil || def.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Fatalf("Default left spec.conversion %+v", def.Spec.Conversion)
	}
	for _, tc := range []struct {
		name   string
		change func(def *apiextensionsv1.CustomResourceDefinition)
		update bool   // validate as an update from valid()
		want   string // a field error, "" for none
	}{
		{name: "valid create", change: func(*apiextensionsv1.CustomResourceDefinition) {}},
		{name: "valid update", change: func(def *apiextensionsv1.CustomResourceDefinition) { def.Spec.Names.ShortNames = []string{"w"} }, update: true},
		{name: "no storage version", change: func(def *apiextensionsv1.CustomResourceDefinition) { def.Spec.Versions[1].Storage = false },
			want: "spec.versions: Invalid value:"},
		{name: "name is not plural.group", change: func(def *apiextensionsv1.CustomResourceDefinition) { def.Name = "gadgets.example.com" },
			want: `metadata.name: Invalid value: "gadgets.example.com": must be spec.names.plural+"."+spec.group`},
		{name: "group changed", change: func(def *apiextensionsv1.CustomResourceDefinition) {
			def.Spec.Group, def.Name = "other.example.com", "widgets.other.example.com"
		}, update: true, want: "spec.group: Invalid value: \"other.example.com\": field is immutable"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			def := valid()
			tc.change(def)
			var old *apiextensionsv1.CustomResourceDefinition
			if tc.update {
				old = valid()
				def.ResourceVersion, old.ResourceVersion = "1", "1"
			}
			fe, err := Validate(context.Background(), def, old)
			if err != nil {
				t.Fatal(err)
			}
			got := fe.ToAggregate()
			switch {
			case tc.want == "" && got != nil:
				t.Errorf("Validate: %v", got)
			case tc.want != "" && (got == nil || !strings.Contains(got.Error(), tc.want)):
				t.Errorf("Validate = %v, want %q", got, tc.want)
			}
		})
	}
}
