package crd

import (
	"context"
	"encoding/json"
	"errors"
	"slices"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// widgetSchema has a default, bounds, a CEL rule and a list set.
const widgetSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      replicas: {type: integer, minimum: 1, default: 1}
      image: {type: string}
      min: {type: integer}
      max: {type: integer}
      tags:
        type: array
        items: {type: string}
        x-kubernetes-list-type: set
    x-kubernetes-validations:
    - rule: "!has(self.min) || !has(self.max) || self.min <= self.max"
      message: min must not exceed max
`

// newTestSchema builds a Schema from the YAML of an openAPIV3Schema.
func newTestSchema(t *testing.T, y string) *Schema {
	t.Helper()
	props := &apiextensionsv1.JSONSchemaProps{}
	if err := yaml.Unmarshal([]byte(y), props); err != nil {
		t.Fatal(err)
	}
	s, err := NewSchema(&apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// widget is a custom resource with the given spec.
func widget(spec map[string]any) *unstructured.Unstructured {
	return &unstructured.Unstructured{Object: map[string]any{
		"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w", "namespace": "default"},
		"spec":     spec,
	}}
}

func TestNewSchemaWithoutSchema(t *testing.T) {
	s, err := NewSchema(nil)
	if s != nil || err != nil {
		t.Fatalf("NewSchema(nil) = %v, %v", s, err)
	}
	// A nil Schema prunes, defaults and rejects nothing.
	u := widget(map[string]any{"anything": true})
	if unknown := s.Admit(u); unknown != nil || len(u.Object["spec"].(map[string]any)) != 1 {
		t.Errorf("nil schema admitted %v: %v", u.Object, unknown)
	}
	if err := s.Validate(context.Background(), schema.GroupKind{}, u, nil); err != nil {
		t.Errorf("nil schema: %v", err)
	}
}

func TestNewSchemaRefusesNonStructural(t *testing.T) {
	props := &apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"list": {Type: "array", Items: &apiextensionsv1.JSONSchemaPropsOrArray{JSONSchemas: []apiextensionsv1.JSONSchemaProps{{Type: "string"}}}},
	}}
	if _, err := NewSchema(&apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props}); err == nil {
		t.Fatal("items given as an array of schemas are accepted")
	}
}

func TestSchemaAdmit(t *testing.T) {
	s := newTestSchema(t, widgetSchema)
	u := widget(map[string]any{"image": "nginx", "color": "blue"})
	u.Object["extra"] = 1
	unknown := s.Admit(u)
	slices.Sort(unknown)
	if want := []string{"extra", "spec.color"}; !slices.Equal(unknown, want) {
		t.Errorf("unknown fields = %q, want %q", unknown, want)
	}
	if _, ok := u.Object["extra"]; ok {
		t.Error("extra not pruned")
	}
	if got, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); got != 1 {
		t.Errorf("spec.replicas = %d, want the default 1", got)
	}

	// A root that preserves unknown fields prunes nothing but defaults.
	s = newTestSchema(t, widgetSchema+"x-kubernetes-preserve-unknown-fields: true\n")
	u = widget(map[string]any{"image": "nginx"})
	u.Object["extra"] = 1
	if unknown := s.Prune(u); unknown != nil || u.Object["extra"] != 1 {
		t.Errorf("preserving schema pruned %q", unknown)
	}
	s.Default(u)
	if got, _, _ := unstructured.NestedInt64(u.Object, "spec", "replicas"); got != 1 {
		t.Errorf("spec.replicas = %d, want the default 1", got)
	}
}

func TestSchemaValidate(t *testing.T) {
	s := newTestSchema(t, widgetSchema)
	gk := schema.GroupKind{Group: "example.com", Kind: "Widget"}
	for _, tc := range []struct {
		name      string
		spec, old map[string]any // old nil: a create
		want      []string       // substrings of the 422's causes, in order
	}{
		{name: "valid", spec: map[string]any{"replicas": int64(2), "min": int64(1), "max": int64(2)}},
		{name: "below the minimum", spec: map[string]any{"replicas": int64(0)}, want: []string{"spec.replicas: Invalid value: 0: spec.replicas in body should be greater than or equal to 1"}},
		{name: "a CEL rule", spec: map[string]any{"min": int64(3), "max": int64(2)}, want: []string{"spec: Invalid value: min must not exceed max"}},
		{name: "a wrong type stops CEL", spec: map[string]any{"replicas": "two", "min": int64(3), "max": int64(2)}, want: []string{
			"spec.replicas: Invalid value: \"string\": spec.replicas in body must be of type integer",
			"some validation rules were not checked because the object was invalid",
		}},
		{name: "a duplicate in a set", spec: map[string]any{"tags": []any{"a", "a"}}, want: []string{"spec.tags[1]: Duplicate value: \"a\""}},
		{name: "an unchanged invalid field ratchets", spec: map[string]any{"replicas": int64(0), "image": "new"}, old: map[string]any{"replicas": int64(0), "image": "old"}},
		{name: "a changed invalid field does not", spec: map[string]any{"replicas": int64(0)}, old: map[string]any{"replicas": int64(2)}, want: []string{"spec.replicas: Invalid value: 0"}},
		{name: "an unchanged broken rule ratchets", spec: map[string]any{"min": int64(3), "max": int64(2)}, old: map[string]any{"min": int64(3), "max": int64(2)}},
		{name: "a rule of a changed object is checked again", spec: map[string]any{"min": int64(3), "max": int64(2), "image": "new"}, old: map[string]any{"min": int64(3), "max": int64(2)}, want: []string{"min must not exceed max"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var old *unstructured.Unstructured
			if tc.old != nil {
				old = widget(tc.old)
			}
			err := s.Validate(context.Background(), gk, widget(tc.spec), old)
			if len(tc.want) == 0 {
				if err != nil {
					t.Fatalf("Validate: %v", err)
				}
				return
			}
			var se *apierrors.StatusError
			if !errors.As(err, &se) || !apierrors.IsInvalid(err) || se.ErrStatus.Details.Kind != "Widget" || se.ErrStatus.Details.Name != "w" {
				t.Fatalf("Validate = %v, want a 422 for Widget w", err)
			}
			msg := err.Error()
			for _, w := range tc.want {
				i := strings.Index(msg, w)
				if i < 0 {
					t.Fatalf("error %q does not say %q", err, w)
				}
				msg = msg[i+len(w):]
			}
		})
	}
}

// coerceSchema has a defaulted, a plain and a nullable field, an object
// that preserves unknown fields around specified properties, and an
// embedded resource.
const coerceSchema = `
type: object
properties:
  spec:
    type: object
    properties:
      defaulted: {type: string, default: d}
      plain: {type: string}
      nullable: {type: string, nullable: true}
  preserving:
    type: object
    x-kubernetes-preserve-unknown-fields: true
    properties:
      pruning: {type: object}
  embedded:
    type: object
    x-kubernetes-embedded-resource: true
    properties:
      specified: {type: string}
`

// TestSchemaDecode covers the steps of upstream's custom-resource decoder
// that Decode runs: pruning, dropping nulls, defaulting nulls, coercing the
// metadata of the object and of embedded resources.
func TestSchemaDecode(t *testing.T) {
	s := newTestSchema(t, coerceSchema)
	for _, tc := range []struct {
		name    string
		in      string // YAML of the object, besides apiVersion and kind
		want    string // YAML of the result, besides apiVersion and kind
		unknown []string
		err     string
	}{
		{name: "a null without default is dropped, with a default defaulted, nullable kept",
			in:   "spec: {defaulted: null, plain: null, nullable: null}",
			want: "spec: {defaulted: d, nullable: null}"},
		{name: "a root preserving unknown fields still prunes inside specified properties",
			in:      "preserving: {kept: 1, pruning: {dropped: 1}}",
			want:    "preserving: {kept: 1, pruning: {}}",
			unknown: []string{"preserving.pruning.dropped"}},
		{name: "unknown metadata fields are dropped, at the root and in embedded resources",
			in:      "metadata: {name: foo, unknown: 1}\nembedded: {apiVersion: v1, kind: K, metadata: {name: bar, unknown: 2}, specified: x, unspecified: y}",
			want:    "metadata: {name: foo}\nembedded: {apiVersion: v1, kind: K, metadata: {name: bar}, specified: x}",
			unknown: []string{"embedded.metadata.unknown", "embedded.unspecified", "metadata.unknown"}},
		{name: "mistyped metadata is refused",
			in:  "metadata: {name: foo, labels: {a: 1}}",
			err: "cannot unmarshal number"},
		{name: "mistyped embedded metadata is refused with its path",
			in:  "embedded: {apiVersion: v1, kind: K, metadata: {namespace: 42}}",
			err: "embedded.metadata: Invalid value"},
		{name: "a non-string embedded kind is refused",
			in:  "embedded: {apiVersion: v1, kind: 1}",
			err: "embedded.kind: Invalid value: 1: must be a string"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			u := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(tc.in), &u.Object); err != nil {
				t.Fatal(err)
			}
			u.SetAPIVersion("example.com/v1")
			u.SetKind("Widget")
			unknown, err := s.Decode(u, true)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			want := map[string]any{}
			if err := yaml.Unmarshal([]byte(tc.want), &want); err != nil {
				t.Fatal(err)
			}
			want["apiVersion"], want["kind"] = "example.com/v1", "Widget"
			gotJSON, _ := json.Marshal(u.Object)
			wantJSON, _ := json.Marshal(want)
			if string(gotJSON) != string(wantJSON) {
				t.Errorf("got %s, want %s", gotJSON, wantJSON)
			}
			slices.Sort(unknown)
			if !slices.Equal(unknown, tc.unknown) {
				t.Errorf("unknown = %q, want %q", unknown, tc.unknown)
			}
		})
	}
}
