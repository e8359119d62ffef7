package crd

import (
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

// NewConverter returns the converter between version of def and def's
// storage version, or nil when objects are served exactly as stored (the
// storage version itself, with "None" conversion and no defaults).
//
// webhook is def's conversion webhook (from WebhookConverters.For), or nil
// for "None" conversion, which rewrites only apiVersion. s is the served
// version's schema (nil without one): when it has defaults, they are
// applied to every object read from storage, as kube-apiserver applies them
// when it decodes one (the stored object is not rewritten). A converter
// that calls a webhook or applies defaults is a BatchConverter.
func NewConverter(def *apiextensionsv1.CustomResourceDefinition, version string, webhook runtime.ObjectConvertor, s *Schema) Converter {
	group, storage := def.Spec.Group, storageVersion(def.Spec)
	var conv Converter
	switch {
	case webhook != nil:
		conv = webhookConverter{conv: webhook, served: gv(group, version), storage: gv(group, storage)}
	case version != storage:
		conv = apiVersionConverter{stored: group + "/" + storage, served: group + "/" + version}
	}
	if s != nil && hasDefaults(s.structural) {
		conv = defaultingConverter{inner: conv, schema: s}
	}
	return conv
}

func gv(group, version string) schema.GroupVersion {
	return schema.GroupVersion{Group: group, Version: version}
}

// jsonUnmarshal decodes JSON as kube-apiserver decodes objects: field names
// case-sensitively, integers as int64.
func jsonUnmarshal(data []byte, v any) error {
	return kjson.UnmarshalCaseSensitivePreserveInts(data, v)
}

// apiVersionConverter is the "None" conversion of CRDs: only apiVersion changes.
type apiVersionConverter struct{ stored, served string }

func (a apiVersionConverter) ToStorage(served []byte) ([]byte, error) {
	return setAPIVersion(served, a.stored)
}

func (a apiVersionConverter) FromStorage(stored []byte) ([]byte, error) {
	return setAPIVersion(stored, a.served)
}

func setAPIVersion(data []byte, apiVersion string) ([]byte, error) {
	var m map[string]any
	if err := jsonUnmarshal(data, &m); err != nil {
		return nil, err
	}
	m["apiVersion"] = apiVersion
	return json.Marshal(m)
}

// defaultingConverter applies a CRD version's defaults to objects read from
// storage, after the version conversion.
type defaultingConverter struct {
	inner  Converter // the version conversion, or nil
	schema *Schema
}

func (d defaultingConverter) ToStorage(served []byte) ([]byte, error) {
	if d.inner == nil {
		return served, nil
	}
	return d.inner.ToStorage(served)
}

// FromStorageMany converts in one batch when the version conversion can,
// then defaults each object.
func (d defaultingConverter) FromStorageMany(stored [][]byte) ([][]byte, error) {
	bc, ok := d.inner.(BatchConverter)
	if !ok {
		out := make([][]byte, len(stored))
		for i, b := range stored {
			var err error
			if out[i], err = d.FromStorage(b); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
	converted, err := bc.FromStorageMany(stored)
	if err != nil {
		return nil, err
	}
	out := make([][]byte, len(converted))
	for i, b := range converted {
		if out[i], err = (defaultingConverter{schema: d.schema}).FromStorage(b); err != nil {
			return nil, err
		}
	}
	return out, nil
}

func (d defaultingConverter) FromStorage(stored []byte) ([]byte, error) {
	data := stored
	if d.inner != nil {
		var err error
		if data, err = d.inner.FromStorage(stored); err != nil {
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
