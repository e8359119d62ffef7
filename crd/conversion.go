package crd

import (
	"bytes"
	"encoding/json"
	"fmt"

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

// NewConverter returns the converter between version of def and the
// objects def's storage holds, which may be at any version that has been
// the storage version (see RecordStorageVersion). It is a BatchConverter.
//
// Reading an object, it does what kube-apiserver's storage codec does:
//   - an object at a version no longer in def's spec.versions cannot be
//     read (upstream's "request to convert CR from an invalid
//     group/version");
//   - the object is coerced to the schema of the version it is stored at
//     (metadata read as ObjectMeta with malformed fields dropped and a
//     missing generation repaired, unknown fields pruned, non-nullable
//     nulls dropped) and gets that version's defaults (the stored object
//     is not rewritten);
//   - stored at another version than version, it is converted: by its
//     conversion webhook (from WebhookConverters.For; batched for lists by
//     FromStorageMany), or with webhook nil by "None" conversion, which
//     rewrites only apiVersion; then it is pruned to version's schema, so
//     fields only the stored version knows do not show.
//
// An object that reads back exactly as stored is returned as the very
// bytes given. Writing, an object of version is converted to the storage
// version and pruned to its schema.
//
// schemas are the schemas of def's versions by name (nil or missing: no
// schema).
func NewConverter(def *apiextensionsv1.CustomResourceDefinition, version string, webhook runtime.ObjectConvertor, schemas map[string]*Schema) Converter {
	group := def.Spec.Group
	kind := def.Status.AcceptedNames.Kind
	if kind == "" {
		kind = def.Spec.Names.Kind
	}
	c := &storageConverter{
		gk:      schema.GroupKind{Group: group, Kind: kind},
		served:  gv(group, version),
		storage: gv(group, storageVersion(def.Spec)),
		valid:   map[string]bool{},
		schemas: map[string]*structuralschema.Structural{},
	}
	for _, v := range def.Spec.Versions {
		c.valid[v.Name] = true
		if s := schemas[v.Name]; s != nil && s.structural != nil {
			c.schemas[v.Name] = s.structural
		}
	}
	if webhook != nil {
		c.webhook = &webhookConverter{conv: webhook, served: c.served, storage: c.storage}
	}
	return c
}

func gv(group, version string) schema.GroupVersion {
	return schema.GroupVersion{Group: group, Version: version}
}

// jsonUnmarshal decodes JSON as kube-apiserver decodes objects: field names
// case-sensitively, integers as int64.
func jsonUnmarshal(data []byte, v any) error {
	return kjson.UnmarshalCaseSensitivePreserveInts(data, v)
}

// storageConverter is the converter NewConverter returns.
type storageConverter struct {
	gk              schema.GroupKind
	served, storage schema.GroupVersion
	// valid are the names of the CRD's versions: objects stored at another
	// cannot be read.
	valid map[string]bool
	// schemas are the structural schemas of the CRD's versions, by name;
	// versions without one are absent.
	schemas map[string]*structuralschema.Structural
	// webhook converts; nil for "None" conversion.
	webhook *webhookConverter
}

var _ BatchConverter = (*storageConverter)(nil)

// schemaOf returns the structural schema of an object's version, nil for
// objects of another group or kind (and versions without a schema), as
// upstream's coercer looks it up.
func (c *storageConverter) schemaOf(m map[string]any) *structuralschema.Structural {
	apiVersion, _, _ := unstructured.NestedString(m, "apiVersion")
	kind, _, _ := unstructured.NestedString(m, "kind")
	v, err := schema.ParseGroupVersion(apiVersion)
	if err != nil || v.Group != c.gk.Group || kind != c.gk.Kind {
		return nil
	}
	return c.schemas[v.Version]
}

// ToStorage implements Converter: the object is converted to the storage
// version and pruned to its schema, as upstream's storage codec encodes.
func (c *storageConverter) ToStorage(served []byte) ([]byte, error) {
	var m map[string]any
	if err := jsonUnmarshal(served, &m); err != nil {
		return nil, err
	}
	if c.served != c.storage {
		if c.webhook != nil {
			var err error
			if m, err = c.webhook.convertMap(m, c.storage); err != nil {
				return nil, err
			}
		} else {
			m["apiVersion"] = c.storage.String()
		}
	}
	if _, err := coerce(m, c.schemaOf(m), coerceOptions{}); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// FromStorage implements Converter.
func (c *storageConverter) FromStorage(stored []byte) ([]byte, error) {
	m, from, err := c.decode(stored)
	if err != nil {
		return nil, err
	}
	if from == c.served {
		// Coerced to the served version's schema already.
		return c.encode(m, stored)
	}
	if c.webhook != nil {
		if m, err = c.webhook.convertMap(m, c.served); err != nil {
			return nil, err
		}
	}
	return c.finish(m)
}

// decode parses a stored object, checks that its version is one of the
// CRD's, coerces it to that version's schema and applies its defaults, as
// upstream's storage decoder and defaulter do.
func (c *storageConverter) decode(stored []byte) (map[string]any, schema.GroupVersion, error) {
	var m map[string]any
	if err := jsonUnmarshal(stored, &m); err != nil {
		return nil, schema.GroupVersion{}, err
	}
	apiVersion, _ := m["apiVersion"].(string)
	from, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return nil, schema.GroupVersion{}, err
	}
	if from.Group != c.gk.Group || !c.valid[from.Version] {
		return nil, from, fmt.Errorf("request to convert CR from an invalid group/version: %s", from)
	}
	st := c.schemaOf(m)
	if _, err := coerce(m, st, coerceOptions{dropInvalidMeta: true, repairGeneration: true}); err != nil {
		return nil, from, err
	}
	if st != nil {
		structuraldefaulting.Default(m, st)
	}
	return m, from, nil
}

// finish ends a conversion to the served version: apiVersion is the served
// version's ("None" conversion rewrites only that) and the object is pruned
// to its schema.
func (c *storageConverter) finish(m map[string]any) ([]byte, error) {
	m["apiVersion"] = c.served.String()
	if _, err := coerce(m, c.schemaOf(m), coerceOptions{}); err != nil {
		return nil, err
	}
	return json.Marshal(m)
}

// encode returns the JSON of m, or stored itself when that is what m
// encodes to (an object served exactly as stored).
func (c *storageConverter) encode(m map[string]any, stored []byte) ([]byte, error) {
	b, err := json.Marshal(m)
	if err != nil {
		return nil, err
	}
	if bytes.Equal(b, stored) {
		return stored, nil
	}
	return b, nil
}

// FromStorageMany implements BatchConverter: the objects that need the
// webhook are sent to it in one ConversionReview.
func (c *storageConverter) FromStorageMany(stored [][]byte) ([][]byte, error) {
	out := make([][]byte, len(stored))
	if c.webhook == nil {
		for i, b := range stored {
			var err error
			if out[i], err = c.FromStorage(b); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": c.storage.String(), "kind": "List"}}
	var at []int
	for i, b := range stored {
		m, from, err := c.decode(b)
		if err != nil {
			return nil, err
		}
		if from == c.served {
			if out[i], err = c.encode(m, b); err != nil {
				return nil, err
			}
			continue
		}
		list.Items = append(list.Items, unstructured.Unstructured{Object: m})
		at = append(at, i)
	}
	if len(at) == 0 {
		return out, nil
	}
	converted, err := c.webhook.conv.ConvertToVersion(list, c.served)
	if err != nil {
		return nil, err
	}
	cl, ok := converted.(*unstructured.UnstructuredList)
	if !ok || len(cl.Items) != len(at) {
		return nil, fmt.Errorf("conversion of %d objects returned %T", len(at), converted)
	}
	for j, i := range at {
		if out[i], err = c.finish(cl.Items[j].Object); err != nil {
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

// convertMap returns the object m in version to, calling the webhook when
// it is in another version.
func (w webhookConverter) convertMap(m map[string]any, to schema.GroupVersion) (map[string]any, error) {
	u := &unstructured.Unstructured{Object: m}
	if u.GroupVersionKind().GroupVersion() == to {
		return m, nil
	}
	out, err := w.conv.ConvertToVersion(u, to)
	if err != nil {
		return nil, err
	}
	ou, ok := out.(*unstructured.Unstructured)
	if !ok {
		return nil, fmt.Errorf("conversion returned %T", out)
	}
	return ou.Object, nil
}
