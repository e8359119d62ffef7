package crd

import (
	"context"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/pruning"
	apiservervalidation "k8s.io/apiextensions-apiserver/pkg/apiserver/validation"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/validation/field"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"
)

// Schema is one CRD version's schema, ready for upstream's pruning,
// defaulting and validation of custom resources. It is read-only once
// built and safe for concurrent use. A nil *Schema (a version without a
// schema) prunes, defaults and rejects nothing.
type Schema struct {
	structural *structuralschema.Structural
	validator  apiservervalidation.SchemaValidator
	// cel evaluates x-kubernetes-validations; nil without rules.
	cel *cel.Validator
	// preserveUnknown is set when the root preserves unknown fields.
	preserveUnknown bool
}

// NewSchema builds the schema of a CRD version from its spec.versions[*].schema;
// it returns nil, nil when the version has none. An error means the schema
// is not structural or cannot be compiled, which upstream's CRD validation
// refuses.
func NewSchema(v *apiextensionsv1.CustomResourceValidation) (*Schema, error) {
	if v == nil || v.OpenAPIV3Schema == nil {
		return nil, nil
	}
	internal := &apiextensions.JSONSchemaProps{}
	if err := scheme().Convert(v.OpenAPIV3Schema, internal, nil); err != nil {
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
	return &Schema{
		structural: st, validator: validator, preserveUnknown: st.XPreserveUnknownFields,
		cel: cel.NewValidator(st, true, celconfig.PerCallLimit),
	}, nil
}

// Admit prunes unknown fields and applies defaults, as kube-apiserver does
// when it decodes a custom resource; it returns the paths of the pruned
// fields (for fieldValidation Warn and Strict).
func (s *Schema) Admit(u *unstructured.Unstructured) (unknown []string) {
	unknown = s.Prune(u)
	s.Default(u)
	return unknown
}

// Prune drops the fields the schema does not know, unless its root
// preserves unknown fields, and returns their paths.
func (s *Schema) Prune(u *unstructured.Unstructured) (unknown []string) {
	if s == nil || s.preserveUnknown {
		return nil
	}
	return pruning.PruneWithOptions(u.Object, s.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
}

// Default sets the schema's defaults on the fields that are absent.
func (s *Schema) Default(u *unstructured.Unstructured) {
	if s == nil {
		return
	}
	structuraldefaulting.Default(u.Object, s.structural)
}

// Validate runs what upstream's custom resource strategy runs on a create
// (old nil) or an update from old: OpenAPI schema validation (ratcheting
// unchanged fields on update), embedded objects' metadata, list-type
// invariants, and the CEL rules, within the runtime cost budget. The error
// is the 422 kube-apiserver answers, naming gk and u's name.
func (s *Schema) Validate(ctx context.Context, gk schema.GroupKind, u *unstructured.Unstructured, old *unstructured.Unstructured) error {
	if s == nil {
		return nil
	}
	var errs field.ErrorList
	var celOpts []cel.Option
	var oldObj any
	if old != nil {
		correlated := common.NewCorrelatedObject(u.Object, old.Object, &model.Structural{Structural: s.structural})
		errs = apiservervalidation.ValidateCustomResourceUpdate(nil, u.UnstructuredContent(), old.UnstructuredContent(), s.validator, apiservervalidation.WithRatcheting(correlated))
		celOpts = append(celOpts, cel.WithRatcheting(correlated))
		oldObj = old.Object
	} else {
		errs = apiservervalidation.ValidateCustomResource(nil, u.UnstructuredContent(), s.validator)
	}
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u.Object, s.structural, false)...)
	if old == nil || len(structurallisttype.ValidateListSetsAndMaps(nil, s.structural, old.Object)) == 0 {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, s.structural, u.Object)...)
	}
	if s.cel != nil {
		if blocked, e := hasBlockingErr(errs); blocked {
			errs = append(errs, e)
		} else {
			celErrs, _ := s.cel.Validate(ctx, nil, s.structural, u.Object, oldObj, celconfig.RuntimeCELCostBudget, celOpts...)
			errs = append(errs, celErrs...)
		}
	}
	if len(errs) > 0 {
		return apierrors.NewInvalid(gk, u.GetName(), errs)
	}
	return nil
}

// hasBlockingErr reports errors after which upstream does not run CEL rules.
func hasBlockingErr(errs field.ErrorList) (bool, *field.Error) {
	for _, err := range errs {
		switch err.Type {
		case field.ErrorTypeNotSupported, field.ErrorTypeRequired, field.ErrorTypeTooLong, field.ErrorTypeTooMany, field.ErrorTypeTypeInvalid:
			return true, field.Invalid(nil, nil, "some validation rules were not checked because the object was invalid; correct the existing errors to complete validation")
		}
	}
	return false, nil
}

// hasDefaults reports whether a structural schema defaults anything.
func hasDefaults(s *structuralschema.Structural) bool {
	if s == nil {
		return false
	}
	if s.Default.Object != nil {
		return true
	}
	for _, p := range s.Properties {
		if hasDefaults(&p) {
			return true
		}
	}
	if s.Items != nil && hasDefaults(s.Items) {
		return true
	}
	if s.AdditionalProperties != nil && s.AdditionalProperties.Structural != nil && hasDefaults(s.AdditionalProperties.Structural) {
		return true
	}
	return false
}
