package crd

import (
	"encoding/json"
	"fmt"

	"k8s.io/apiextensions-apiserver/pkg/apis/apiextensions"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	structuralschema "k8s.io/apiextensions-apiserver/pkg/apiserver/schema"
	structuraldefaulting "k8s.io/apiextensions-apiserver/pkg/apiserver/schema/defaulting"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	kjson "sigs.k8s.io/json"
)

// Converter translates the JSON of a custom resource between one served
// version of its CRD and the storage version, as the CRD's
// spec.conversion says. Objects are stored as the JSON of the storage
// version.
type Converter interface {
	// ToStorage returns an object of the served version in the storage
	// version.
	ToStorage(served []byte) ([]byte, error)
	// FromStorage returns a stored object in the served version.
	FromStorage(stored []byte) ([]byte, error)
}

// BatchConverter is a Converter that converts many stored objects in one
// go: one ConversionReview for a list, as kube-apiserver sends.
type BatchConverter interface {
	Converter
	// FromStorageMany returns the stored objects in the served version, in
	// their order.
	FromStorageMany(stored [][]byte) ([][]byte, error)
}

// NewConverter returns the converter between version of def and def's
// storage version, or nil when objects are served exactly as stored (the
// storage version itself, with "None" conversion and no defaults in any
// version's schema).
//
// webhook is def's conversion webhook (from WebhookConverters.For), or nil
// for "None" conversion, which rewrites only apiVersion. s is the served
// version's schema (nil without one); the other versions' schemas are read
// from def. The converter does what kube-apiserver's storage codec does
// around the conversion proper:
//   - an object read from storage is coerced to the schema of the version
//     it is stored in (unknown fields pruned, malformed metadata dropped)
//     and gets that version's defaults (the stored object is not
//     rewritten); after the conversion it is pruned to the served version's
//     schema, so fields only the storage version knows do not show;
//   - an object written is pruned to the storage version's schema after the
//     conversion.
//
// A converter that calls a webhook or applies defaults is a BatchConverter.
func NewConverter(def *apiextensionsv1.CustomResourceDefinition, version string, webhook runtime.ObjectConvertor, s *Schema) Converter {
	group, storage := def.Spec.Group, storageVersion(def.Spec)
	kind := def.Status.AcceptedNames.Kind
	if kind == "" {
		kind = def.Spec.Names.Kind
	}
	sc := schemaConverter{gk: schema.GroupKind{Group: group, Kind: kind}, served: version, storage: storage, schemas: versionSchemas(def, version, s)}
	switch {
	case webhook != nil:
		sc.inner = webhookConverter{conv: webhook, served: gv(group, version), storage: gv(group, storage)}
	case version != storage:
		sc.none = true
	}
	defaults := anyDefaults(sc.schemas)
	switch {
	case sc.inner == nil && !sc.none && !defaults:
		return nil
	case sc.inner != nil || defaults:
		return batchSchemaConverter{sc}
	}
	return sc
}

// versionSchemas returns the structural schemas of def's versions, with s
// standing for version's. Versions without a (structural) schema are
// absent.
func versionSchemas(def *apiextensionsv1.CustomResourceDefinition, version string, s *Schema) map[string]*structuralschema.Structural {
	out := map[string]*structuralschema.Structural{}
	for _, v := range def.Spec.Versions {
		if v.Name == version {
			continue
		}
		if st, err := structuralOf(v.Schema); err == nil && st != nil {
			out[v.Name] = st
		}
	}
	if s != nil {
		out[version] = s.structural
	} else if st, err := structuralOf(versionSchema(def, version)); err == nil && st != nil {
		out[version] = st
	}
	return out
}

// versionSchema returns the schema def gives version, if any.
func versionSchema(def *apiextensionsv1.CustomResourceDefinition, version string) *apiextensionsv1.CustomResourceValidation {
	for _, v := range def.Spec.Versions {
		if v.Name == version {
			return v.Schema
		}
	}
	return nil
}

// structuralOf returns the structural schema of a version's schema, nil
// without one.
func structuralOf(v *apiextensionsv1.CustomResourceValidation) (*structuralschema.Structural, error) {
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
	return st, nil
}

// anyDefaults reports whether one of the schemas defaults anything.
func anyDefaults(schemas map[string]*structuralschema.Structural) bool {
	for _, st := range schemas {
		if hasDefaults(st) {
			return true
		}
	}
	return false
}

func gv(group, version string) schema.GroupVersion {
	return schema.GroupVersion{Group: group, Version: version}
}

// jsonUnmarshal decodes JSON as kube-apiserver decodes objects: field names
// case-sensitively, integers as int64.
func jsonUnmarshal(data []byte, v any) error {
	return kjson.UnmarshalCaseSensitivePreserveInts(data, v)
}

// schemaConverter is the conversion between a served version and the
// storage version ("None": apiVersion only, or a webhook) with the schema
// steps of kube-apiserver's storage codec around it.
type schemaConverter struct {
	inner           Converter // the webhook conversion, or nil
	none            bool      // "None" conversion between different versions
	gk              schema.GroupKind
	served, storage string
	schemas         map[string]*structuralschema.Structural // by version
}

// schemaOf returns the structural schema of an object's version, nil for
// objects of another group or kind (and versions without a schema).
func (c schemaConverter) schemaOf(m map[string]any) *structuralschema.Structural {
	apiVersion, _, _ := unstructured.NestedString(m, "apiVersion")
	kind, _, _ := unstructured.NestedString(m, "kind")
	v, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || v.Group != c.gk.Group || kind != c.gk.Kind {
		return nil
	}
	return c.schemas[v.Version]
}

// ToStorage converts a served object to the storage version and prunes it
// to that version's schema.
func (c schemaConverter) ToStorage(served []byte) ([]byte, error) {
	if c.inner == nil && !c.none {
		return served, nil
	}
	data := served
	if c.inner != nil {
		var err error
		if data, err = c.inner.ToStorage(served); err != nil {
			return nil, err
		}
	}
	var m map[string]any
	if err := jsonUnmarshal(data, &m); err != nil {
		return nil, err
	}
	if c.none {
		m["apiVersion"] = c.gk.Group + "/" + c.storage
	}
	if _, err := coerce(m, c.schemaOf(m), coerceOptions{}); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// decodeStored parses a stored object, coerces it to the schema of its
// version and applies that version's defaults, as upstream's storage
// decoder does.
func (c schemaConverter) decodeStored(stored []byte) (map[string]any, error) {
	var m map[string]any
	if err := jsonUnmarshal(stored, &m); err != nil {
		return nil, err
	}
	st := c.schemaOf(m)
	if _, err := coerce(m, st, coerceOptions{dropInvalidMeta: true, repairGeneration: true}); err != nil {
		return nil, err
	}
	if st != nil {
		structuraldefaulting.Default(m, st)
	}
	return m, nil
}

// finish ends a conversion to the served version: the object is pruned
// to the served version's schema.
func (c schemaConverter) finish(m map[string]any) ([]byte, error) {
	if _, err := coerce(m, c.schemaOf(m), coerceOptions{}); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// FromStorage returns a stored object in the served version.
func (c schemaConverter) FromStorage(stored []byte) ([]byte, error) {
	m, err := c.decodeStored(stored)
	if err != nil {
		return nil, err
	}
	switch {
	case c.inner == nil && !c.none:
		// The storage version itself: coerced to its schema already.
		return json.Marshal(m)
	case c.none:
		m["apiVersion"] = c.gk.Group + "/" + c.served
	case c.inner != nil:
		b, err := json.Marshal(m)
		if err != nil {
			return nil, err
		}
		if b, err = c.inner.FromStorage(b); err != nil {
			return nil, err
		}
		m = nil
		if err := jsonUnmarshal(b, &m); err != nil {
			return nil, err
		}
	}
	return c.finish(m)
}

// batchSchemaConverter is a schemaConverter that converts lists in one go:
// one webhook call, or defaulting as the objects are read.
type batchSchemaConverter struct{ schemaConverter }

// FromStorageMany converts in one batch when the version conversion can
// (a webhook: one ConversionReview), else one by one.
func (c batchSchemaConverter) FromStorageMany(stored [][]byte) ([][]byte, error) {
	bc, ok := c.inner.(BatchConverter)
	out := make([][]byte, len(stored))
	if !ok {
		for i, b := range stored {
			var err error
			if out[i], err = c.FromStorage(b); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	decoded := make([][]byte, len(stored))
	for i, b := range stored {
		m, err := c.decodeStored(b)
		if err != nil {
			return nil, err
		}
		if decoded[i], err = json.Marshal(m); err != nil {
			return nil, err
		}
	}
	converted, err := bc.FromStorageMany(decoded)
	if err != nil {
		return nil, err
	}
	for i, b := range converted {
		var m map[string]any
		if err := jsonUnmarshal(b, &m); err != nil {
			return nil, err
		}
		if out[i], err = c.finish(m); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// webhookConverter converts one served version of a CRD to and from the
// storage version through the conversion webhook.
type webhookConverter struct {
	conv    runtime.ObjectConvertor
	served  schema.GroupVersion
	storage schema.GroupVersion
}

func (w webhookConverter) ToStorage(served []byte) ([]byte, error) {
	return w.convert(served, w.storage)
}

func (w webhookConverter) FromStorage(stored []byte) ([]byte, error) {
	return w.convert(stored, w.served)
}

// convert returns data in version to, calling the webhook when the object
// is in another version.
func (w webhookConverter) convert(data []byte, to schema.GroupVersion) ([]byte, error) {
	var m map[string]any
	if err := jsonUnmarshal(data, &m); err != nil {
		return nil, err
	}
	u := &unstructured.Unstructured{Object: m}
	if u.GroupVersionKind().GroupVersion() == to {
		return data, nil
	}
	out, err := w.conv.ConvertToVersion(u, to)
	if err != nil {
		return nil, err
	}
	ou, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("conversion returned %T", out)
	}
	return json.Marshal(ou.Object)
}

// FromStorageMany converts stored objects to the served version with one
// webhook call for all those in another version.
func (w webhookConverter) FromStorageMany(stored [][]byte) ([][]byte, error) {
	out := make([][]byte, len(stored))
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": w.storage.String(), "kind": "List"}}
	var at []int
	for i, data := range stored {
		var m map[string]any
		if err := jsonUnmarshal(data, &m); err != nil {
			return nil, err
		}
		u := unstructured.Unstructured{Object: m}
		if u.GroupVersionKind().GroupVersion() == w.served {
			out[i] = data
			continue
		}
		list.Items = append(list.Items, u)
		at = append(at, i)
	}
	if len(at) == 0 {
		return out, nil
	}
	converted, err := w.conv.ConvertToVersion(list, w.served)
	if err != nil {
		return nil, err
	}
	cl, ok := converted.(*unstructured.UnstructuredList)
	if !ok || len(cl.Items) != len(at) {
		return nil, fmt.Errorf("conversion of %d objects returned %T", len(at), converted)
	}
	for j, i := range at {
		b, err := json.Marshal(cl.Items[j].Object)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}
