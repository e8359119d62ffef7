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
	// statusValidator validates status alone, for writes to /status; nil
	// when the schema has no status property.
	statusValidator apiservervalidation.SchemaValidator
	// cel evaluates x-kubernetes-validations; nil without rules.
	cel *cel.Validator
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
	var statusValidator apiservervalidation.SchemaValidator
	if status, ok := internal.Properties["status"]; ok {
		if statusValidator, _, err = apiservervalidation.NewSchemaValidator(&status); err != nil {
			return nil, fmt.Errorf("status schema validator: %w", err)
		}
	}
	return &Schema{
		structural: st, validator: validator, statusValidator: statusValidator,
		cel: cel.NewValidator(st, true, celconfig.PerCallLimit),
	}, nil
}

// Admit prunes unknown fields and applies defaults, for the field
// manager's defaulter after a merge. Unlike Decode it keeps nulls (but
// defaults them where a default is given) and leaves metadata alone, as
// upstream's defaulter does: a null an apply sets where the schema does
// not allow one is refused by validation, not dropped.
func (s *Schema) Admit(u *unstructured.Unstructured) (unknown []string) {
	unknown = s.Prune(u)
	s.Default(u)
	return unknown
}

// Decode does to a custom resource sent by a client what kube-apiserver's
// custom-resource decoder does before admission: metadata is read as an
// ObjectMeta (unknown fields dropped, mistyped ones refused), fields the
// schema does not know are pruned (also below properties with their own
// schema inside an object that preserves unknown fields), nulls in fields
// that are neither nullable nor defaulted are dropped, the metadata of
// embedded resources is coerced the same way, and then defaults are applied
// (to absent fields and to non-nullable nulls). With trackUnknown it returns
// the paths of the dropped unknown fields (fieldValidation Warn and Strict).
// An error is what upstream's decoder answers for such a body; callers word
// it as a 400 "cannot be handled".
func (s *Schema) Decode(u *unstructured.Unstructured, trackUnknown bool) (unknown []string, err error) {
	if s == nil {
		return nil, nil
	}
	unknown, err = s.coerce(u.Object, coerceOptions{trackUnknown: trackUnknown})
	if err != nil {
		return nil, err
	}
	s.Default(u)
	return unknown, nil
}

// Coerce does to a custom resource what upstream's storage encoding does
// (its schema-coercing converter), without defaulting: metadata is read as
// an ObjectMeta, unknown fields are pruned, nulls in fields that are
// neither nullable nor defaulted are dropped, and embedded resources'
// metadata is coerced the same way. A server-side apply's merge result,
// which no decoder read, is stored so once validated.
func (s *Schema) Coerce(u *unstructured.Unstructured) error {
	if s == nil {
		return nil
	}
	_, err := s.coerce(u.Object, coerceOptions{})
	return err
}

// Prune drops the fields the schema does not know and returns their paths.
// Unknown fields are kept only where the schema preserves them: an object
// with x-kubernetes-preserve-unknown-fields keeps the fields it does not
// specify, but the properties it specifies are pruned by their own schema.
func (s *Schema) Prune(u *unstructured.Unstructured) (unknown []string) {
	if s == nil {
		return nil
	}
	return pruning.PruneWithOptions(u.Object, s.structural, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: true})
}

// Default sets the schema's defaults on the fields that are absent or null
// where the schema does not allow null.
func (s *Schema) Default(u *unstructured.Unstructured) {
	if s == nil {
		return
	}
	structuraldefaulting.Default(u.Object, s.structural)
}

// coerceOptions are the variants of upstream's schema coercion: objects read
// from storage drop malformed metadata instead of failing and get a missing
// generation repaired, request bodies with fieldValidation Warn or Strict
// track the unknown fields dropped.
type coerceOptions struct {
	dropInvalidMeta  bool
	repairGeneration bool
	trackUnknown     bool
}

func (s *Schema) coerce(obj map[string]any, o coerceOptions) ([]string, error) {
	return coerce(obj, s.structural, o)
}

// coerce is what upstream's unstructured schema coercer does to a custom
// resource of the version whose structural schema is st, on every decode
// and conversion: metadata through ObjectMeta, pruning, dropping
// non-nullable nulls without a default, and the embedded resources'
// apiVersion, kind and metadata. apiVersion, kind and metadata survive
// pruning whatever the schema says. It does not default.
func coerce(obj map[string]any, st *structuralschema.Structural, o coerceOptions) ([]string, error) {
	kind, foundKind, err := unstructured.NestedString(obj, "kind")
	if err != nil {
		return nil, err
	}
	apiVersion, foundAPIVersion, err := unstructured.NestedString(obj, "apiVersion")
	if err != nil {
		return nil, err
	}
	meta, foundMeta, unknown, err := schemaobjectmeta.GetObjectMetaWithOptions(obj, schemaobjectmeta.ObjectMetaOptions{
		DropMalformedFields:     o.dropInvalidMeta,
		ReturnUnknownFieldPaths: o.trackUnknown,
	})
	if err != nil {
		return nil, err
	}
	if st != nil {
		unknown = append(unknown, pruning.PruneWithOptions(obj, st, true, structuralschema.UnknownFieldPathOptions{TrackUnknownFieldPaths: o.trackUnknown})...)
		structuraldefaulting.PruneNonNullableNullsWithoutDefaults(obj, st)
		ferr, paths := schemaobjectmeta.CoerceWithOptions(nil, obj, st, false, schemaobjectmeta.CoerceOptions{
			DropInvalidFields:       o.dropInvalidMeta,
			ReturnUnknownFieldPaths: o.trackUnknown,
		})
		if ferr != nil {
			return nil, ferr
		}
		unknown = append(unknown, paths...)
		// Objects stored without a generation read back with generation 1.
		if o.repairGeneration && meta != nil && meta.Generation == 0 {
			meta.Generation = 1
		}
	}
	if foundKind {
		obj["kind"] = kind
	}
	if foundAPIVersion {
		obj["apiVersion"] = apiVersion
	}
	if foundMeta {
		if err := schemaobjectmeta.SetObjectMeta(obj, meta); err != nil {
			return nil, err
		}
	}
	return unknown, nil
}

// Validate runs what upstream's custom resource strategy runs on a create
// (old nil) or an update from old: OpenAPI schema validation (ratcheting
// unchanged fields on update), embedded objects' metadata, list-type
// invariants, and the CEL rules, within the runtime cost budget. The error
// is the 422 kube-apiserver answers, naming gk and u's name.
func (s *Schema) Validate(ctx context.Context, gk schema.GroupKind, u *unstructured.Unstructured, old *unstructured.Unstructured) error {
	return s.ValidateWith(ctx, gk, u, old, nil, nil)
}

// ValidateWith is Validate with the errors metaErrs found in the object's
// metadata first, as upstream's strategy reports ObjectMeta errors and the
// schema's in one 422 (and counts them when it decides whether to run the
// CEL rules), and, when the version has a scale subresource, the bounds of
// the replicas it names (ValidateScale).
func (s *Schema) ValidateWith(ctx context.Context, gk schema.GroupKind, u *unstructured.Unstructured, old *unstructured.Unstructured, metaErrs field.ErrorList, scale *apiextensionsv1.CustomResourceSubresourceScale) error {
	if s == nil {
		if len(metaErrs) > 0 {
			return apierrors.NewInvalid(gk, u.GetName(), metaErrs)
		}
		return nil
	}
	errs := append(field.ErrorList(nil), metaErrs...)
	var celOpts []cel.Option
	var oldObj any
	if old != nil {
		correlated := common.NewCorrelatedObject(u.Object, old.Object, &model.Structural{Structural: s.structural})
		errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(nil, u.UnstructuredContent(), old.UnstructuredContent(), s.validator, apiservervalidation.WithRatcheting(correlated))...)
		celOpts = append(celOpts, cel.WithRatcheting(correlated))
		oldObj = old.Object
	} else {
		errs = append(errs, apiservervalidation.ValidateCustomResource(nil, u.UnstructuredContent(), s.validator)...)
	}
	errs = append(errs, ValidateScale(u.Object, scale, true)...)
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

// ValidateStatusWith runs what upstream's status strategy runs on a write
// to /status: the metadata errors metaErrs, then status alone against the
// status property's schema (so messages name fields from status down, under
// the path status; spec is not validated), the scale subresource's status
// paths, list-type invariants unless the old object broke them, and the CEL
// rules, ratcheting unchanged fields.
func (s *Schema) ValidateStatusWith(ctx context.Context, gk schema.GroupKind, u, old *unstructured.Unstructured, metaErrs field.ErrorList, scale *apiextensionsv1.CustomResourceSubresourceScale) error {
	if s == nil {
		if len(metaErrs) > 0 {
			return apierrors.NewInvalid(gk, u.GetName(), metaErrs)
		}
		return nil
	}
	errs := append(field.ErrorList(nil), metaErrs...)
	correlated := common.NewCorrelatedObject(u.Object, old.Object, &model.Structural{Structural: s.structural})
	if status, ok := u.Object["status"]; ok && s.statusValidator != nil {
		errs = append(errs, apiservervalidation.ValidateCustomResourceUpdate(field.NewPath("status"), status, old.Object["status"], s.statusValidator, apiservervalidation.WithRatcheting(correlated.Key("status")))...)
	}
	errs = append(errs, ValidateScale(u.Object, scale, false)...)
	if newErrs := structurallisttype.ValidateListSetsAndMaps(nil, s.structural, u.Object); len(newErrs) > 0 {
		if len(structurallisttype.ValidateListSetsAndMaps(nil, s.structural, old.Object)) == 0 {
			errs = append(errs, newErrs...)
		}
	}
	if s.cel != nil {
		if blocked, e := hasBlockingErr(errs); blocked {
			errs = append(errs, e)
		} else {
			celErrs, _ := s.cel.Validate(ctx, nil, s.structural, u.Object, old.Object, celconfig.RuntimeCELCostBudget, cel.WithRatcheting(correlated))
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
