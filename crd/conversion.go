package crd

import (
	"bytes"
	"encoding/json"
	"fmt"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
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
// the storage version (see RecordStorageVersion).
//
// Reading an object, it does what kube-apiserver's storage codec does: an
// object at a version no longer in def's spec.versions cannot be read
// (upstream's "request to convert CR from an invalid group/version"); the
// defaults of the schema of the version the object is stored at are
// applied (the stored object is not rewritten); then the object is
// converted to version: by its conversion webhook (from
// WebhookConverters.For; batched for lists by FromStorageMany), or with
// webhook nil by "None" conversion, which rewrites only apiVersion.
// Writing, an object of version is converted to the storage version.
//
// schemas are the schemas of def's versions by name (nil or missing: no
// schema).
func NewConverter(def *apiextensionsv1.CustomResourceDefinition, version string, webhook runtime.ObjectConvertor, schemas map[string]*Schema) Converter {
	group := def.Spec.Group
	c := &storageConverter{
		group:   group,
		served:  gv(group, version),
		storage: gv(group, storageVersion(def.Spec)),
		valid:   map[string]bool{},
		schemas: map[string]*Schema{},
	}
	c.fastPrefix = []byte(`{"apiVersion":"` + c.served.String() + `"`)
	for _, v := range def.Spec.Versions {
		c.valid[v.Name] = true
		if s := schemas[v.Name]; s != nil && hasDefaults(s.structural) {
			c.schemas[v.Name] = s
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
	group           string
	served, storage schema.GroupVersion
	// valid are the names of the CRD's versions: objects stored at another
	// cannot be read.
	valid map[string]bool
	// schemas are the schemas with defaults, by version name.
	schemas map[string]*Schema
	// webhook converts; nil for "None" conversion.
	webhook *webhookConverter
	// fastPrefix starts the JSON of a stored object at the served version
	// (keys sorted, as the server encodes custom resources).
	fastPrefix []byte
}

var _ BatchConverter = (*storageConverter)(nil)

// ToStorage implements Converter.
func (c *storageConverter) ToStorage(served []byte) ([]byte, error) {
	switch {
	case c.served == c.storage:
		return served, nil
	case c.webhook != nil:
		return c.webhook.convert(served, c.storage)
	default:
		return setAPIVersion(served, c.storage.String())
	}
}

// FromStorage implements Converter.
func (c *storageConverter) FromStorage(stored []byte) ([]byte, error) {
	if bytes.HasPrefix(stored, c.fastPrefix) && c.schemas[c.served.Version] == nil {
		return stored, nil // served as stored
	}
	m, from, err := c.decode(stored)
	if err != nil {
		return nil, err
	}
	if from != c.served && c.webhook != nil {
		out, err := c.webhook.conv.ConvertToVersion(&unstructured.Unstructured{Object: m}, c.served)
		if err != nil {
			return nil, err
		}
		ou, ok := out.(*unstructured.Unstructured)
		if !ok {
			return nil, fmt.Errorf("conversion returned %T", out)
		}
		m = ou.Object
	}
	m["apiVersion"] = c.served.String()
	return json.Marshal(m)
}

// decode parses a stored object, checks that its version is one of the
// CRD's, and applies the defaults of that version's schema.
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
	if from.Group != c.group || !c.valid[from.Version] {
		return nil, from, fmt.Errorf("request to convert CR from an invalid group/version: %s", from)
	}
	if s := c.schemas[from.Version]; s != nil {
		structuraldefaulting.Default(m, s.structural)
	}
	return m, from, nil
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
			if out[i], err = json.Marshal(m); err != nil {
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
		b, err := json.Marshal(cl.Items[j].Object)
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

func setAPIVersion(data []byte, apiVersion string) ([]byte, error) {
	var m map[string]any
	if err := jsonUnmarshal(data, &m); err != nil {
		return nil, err
	}
	m["apiVersion"] = apiVersion
	return json.Marshal(m)
}

// webhookConverter converts one served version of a CRD to and from the
// storage version through the conversion webhook.
type webhookConverter struct {
	conv    runtime.ObjectConvertor
	served  schema.GroupVersion
	storage schema.GroupVersion
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
