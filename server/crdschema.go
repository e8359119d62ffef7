package server

import (
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// crdSchema is one CRD version's schema, ready for upstream's pruning,
// defaulting and OpenAPI validation.
type crdSchema struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	// preserveUnknown is set when the root preserves unknown fields.
	preserveUnknown bool
}

// newCRDSchema builds the schema of a CRD version; nil when it has none.
func newCRDSchema(v *apiextensionsv1.CustomResourceValidation) (*crdSchema, error) {
	if v == nil || v.OpenAPIV3Schema == nil {
		return nil, nil
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := crdScheme().Convert(v.OpenAPIV3Schema, internal, nil); err != nil {
		return nil, fmt.Errorf("convert schema: %w", err)
	}
	st, err := structuralschema.NewStructural(internal)
	if err != nil {
		return nil, fmt.Errorf("structural schema: %w", err)
	}
	validator, _, err := apiservervalidation.NewSchemaValidator(internal)
	if err != nil {
		return nil, fmt.Errorf("schema validator: %w", err)
	}
	return &crdSchema{structural: st, validator: validator, preserveUnknown: st.XPreserveUnknownFields}, nil
}

// admitCustomResource prunes unknown fields (reporting them for
// fieldValidation) and applies defaults, as kube-apiserver does when it
// decodes a custom resource.
func (cs *crdSchema) admit(u *unstructured.Unstructured) (unknown []string) {
	if cs == nil {
		return nil
	}
	if !cs.preserveUnknown {
		unknown = pruning.PruneWithOptions(u.Object, cs.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
	}
	structuraldefaulting.Default(u.Object, cs.structural)
	return unknown
}

// validate runs the version's OpenAPI schema validation.
func (cs *crdSchema) validate(gk schema.GroupKind, u *unstructured.Unstructured, old *unstructured.Unstructured) error {
	if cs == nil {
		return nil
	}
	var errs field.ErrorList
	if old != nil {
		errs = apiservervalidation.ValidateCustomResourceUpdate(nil, u.UnstructuredContent(), old.UnstructuredContent(), cs.validator)
	} else {
		errs = apiservervalidation.ValidateCustomResource(nil, u.UnstructuredContent(), cs.validator)
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(gk, u.GetName(), errs)
	}
	return nil
}
