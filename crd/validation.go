package crd

import (
	"context"
	"fmt"
	"sync"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsinstall "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/install"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsvalidation "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// scheme converts CRDs and their schemas between v1 and the internal
// version that upstream's validation and schema packages take. Built once,
// read afterwards.
var scheme = sync.OnceValue(func() *runtime.Scheme {
	s := runtime.NewScheme()
	apiextensionsinstall.Install(s)
	return s
})

// Default applies to def the defaults kube-apiserver applies to a
// CustomResourceDefinition it decodes (upstream's generated
// SetObjectDefaults).
func Default(def *apiextensionsv1.CustomResourceDefinition) {
	apiextensionsv1.SetObjectDefaults_CustomResourceDefinition(def)
	for i := range def.Spec.Versions {
		if v := def.Spec.Versions[i].Schema; v != nil {
			allowSchemas(v.OpenAPIV3Schema)
		}
	}
}

// allowSchemas gives every additionalProperties and additionalItems of s
// that holds a schema Allows=true, as decoding them from JSON does: a
// definition sent in protobuf carries the flag as the client's Go value
// had it (often false), and a false flag beside a schema would forbid the
// properties the schema allows.
func allowSchemas(s *apiextensionsv1.JSONSchemaProps) {
	if s == nil {
		return
	}
	for _, b := range []*apiextensionsv1.JSONSchemaPropsOrBool{s.AdditionalProperties, s.AdditionalItems} {
		if b != nil && b.Schema != nil {
			b.Allows = true
			allowSchemas(b.Schema)
		}
	}
	for _, m := range []map[string]apiextensionsv1.JSONSchemaProps{s.Properties, s.PatternProperties, s.Definitions} {
		for k, p := range m {
			allowSchemas(&p)
			m[k] = p
		}
	}
	for k, d := range s.Dependencies {
		if d.Schema != nil {
			allowSchemas(d.Schema)
			s.Dependencies[k] = d
		}
	}
	if s.Items != nil {
		allowSchemas(s.Items.Schema)
		for i := range s.Items.JSONSchemas {
			allowSchemas(&s.Items.JSONSchemas[i])
		}
	}
	for _, l := range [][]apiextensionsv1.JSONSchemaProps{s.AllOf, s.OneOf, s.AnyOf} {
		for i := range l {
			allowSchemas(&l[i])
		}
	}
	allowSchemas(s.Not)
}

// Validate runs upstream's validation of a CustomResourceDefinition: of a
// create when old is nil, of an update from old otherwise. def should be
// defaulted first (see Default). The field errors are those of the 422
// kube-apiserver answers; the error reports a CRD that cannot be converted
// to the internal version upstream's validation takes.
func Validate(ctx context.Context, def, old *apiextensionsv1.CustomResourceDefinition) (field.ErrorList, error) {
	internal := &apiextensions.CustomResourceDefinition{}
	if err := scheme().Convert(def, internal, nil); err != nil {
		return nil, fmt.Errorf("convert CustomResourceDefinition %q to the internal version: %w", def.Name, err)
	}
	if old == nil {
		return apiextensionsvalidation.ValidateCustomResourceDefinition(ctx, internal), nil
	}
	oldInternal := &apiextensions.CustomResourceDefinition{}
	if err := scheme().Convert(old, oldInternal, nil); err != nil {
		return nil, fmt.Errorf("convert CustomResourceDefinition %q to the internal version: %w", old.Name, err)
	}
	return apiextensionsvalidation.ValidateCustomResourceDefinitionUpdate(ctx, internal, oldInternal), nil
}
