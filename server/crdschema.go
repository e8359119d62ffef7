package server

import (
	"context"
	"encoding/json"

	"fmt"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel"
	"k8s.io/apiextensions-apiserver/pkg/apiserver/schema/cel/model"
	structurallisttype "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/listtype"
	schemaobjectmeta "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/objectmeta"
	celconfig "k8s.io/apiserver/pkg/apis/cel"
	"k8s.io/apiserver/pkg/cel/common"

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
	// cel evaluates x-kubernetes-validations; nil without rules.
	cel *cel.Validator
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
	return &crdSchema{
		structural: st, validator: validator, preserveUnknown: st.XPreserveUnknownFields,
		cel: cel.NewValidator(st, true, celconfig.PerCallLimit),
	}, nil
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

// validate runs what upstream's custom resource strategy runs: OpenAPI
// schema validation (ratcheting unchanged fields on update), embedded
// objects' metadata, list-type invariants, and the CEL rules, within the
// runtime cost budget.
func (cs *crdSchema) validate(ctx context.Context, gk schema.GroupKind, u *unstructured.Unstructured, old *unstructured.Unstructured) error {
	if cs == nil {
		return nil
	}
	var errs field.ErrorList
	var celOpts []cel.Option
	var oldObj any
	if old != nil {
		correlated := common.NewCorrelatedObject(u.Object, old.Object, &model.Structural{Structural: cs.structural})
		errs = apiservervalidation.ValidateCustomResourceUpdate(nil, u.UnstructuredContent(), old.UnstructuredContent(), cs.validator, apiservervalidation.WithRatcheting(correlated))
		celOpts = append(celOpts, cel.WithRatcheting(correlated))
		oldObj = old.Object
	} else {
		errs = apiservervalidation.ValidateCustomResource(nil, u.UnstructuredContent(), cs.validator)
	}
	errs = append(errs, schemaobjectmeta.Validate(ctx, nil, u.Object, cs.structural, false)...)
	if old == nil || len(structurallisttype.ValidateListSetsAndMaps(nil, cs.structural, old.Object)) == 0 {
		errs = append(errs, structurallisttype.ValidateListSetsAndMaps(nil, cs.structural, u.Object)...)
	}
	if cs.cel != nil {
		if blocked, e := hasBlockingErr(errs); blocked {
			errs = append(errs, e)
		} else {
			celErrs, _ := cs.cel.Validate(ctx, nil, cs.structural, u.Object, oldObj, celconfig.RuntimeCELCostBudget, celOpts...)
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

// defaultingConverter applies a CRD version's defaults to objects read from
// storage, as kube-apiserver does when it decodes them (the stored object is
// not rewritten).
type defaultingConverter struct {
	inner  converter // the version conversion, or nil
	schema *crdSchema
}

func (d defaultingConverter) toStorage(served []byte) ([]byte, error) {
	if d.inner == nil {
		return served, nil
	}
	return d.inner.toStorage(served)
}

// fromStorageMany converts in one batch when the version conversion can,
// then defaults each object.
func (d defaultingConverter) fromStorageMany(stored [][]byte) ([][]byte, error) {
	bc, ok := d.inner.(batchConverter)
	if !ok {
		out := make([][]byte, len(stored))
		for i, b := range stored {
			var err error
			if out[i], err = d.fromStorage(b); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	converted, err := bc.fromStorageMany(stored)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(converted))
	for i, b := range converted {
		if out[i], err = (defaultingConverter{schema: d.schema}).fromStorage(b); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d defaultingConverter) fromStorage(stored []byte) ([]byte, error) {
	data := stored
	if d.inner != nil {
		var err error
		if data, err = d.inner.fromStorage(stored); err != nil {
			return nil, err
		}
	}
	var m map[string]any
	if err := jsonUnmarshal(data, &m); err != nil {
		return nil, err
	}
	structuraldefaulting.Default(m, d.schema.structural)
	return json.Marshal(m)
}
