package crd

import (
	"encoding/json"
	"fmt"
	"reflect"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/yaml"
)

// fakeWebhook converts by setting apiVersion, and counts its calls and the
// objects it was sent.
type fakeWebhook struct {
	calls, objects int
}

func (f *fakeWebhook) Convert(in, out, context any) error { return fmt.Errorf("not supported") }

func (f *fakeWebhook) ConvertFieldLabel(gvk schema.GroupVersionKind, label, value string) (string, string, error) {
	return label, value, nil
}

func (f *fakeWebhook) ConvertToVersion(in runtime.Object, target runtime.GroupVersioner) (runtime.Object, error) {
	f.calls++
	gv := target.(schema.GroupVersion)
	switch o := in.(type) {
	case *unstructured.Unstructured:
		f.objects++
		out := o.DeepCopy()
		out.SetAPIVersion(gv.String())
		out.Object["converted"] = true
		return out, nil
	case *unstructured.UnstructuredList:
		out := o.DeepCopy()
		for i := range out.Items {
			f.objects++
			out.Items[i].SetAPIVersion(gv.String())
			out.Items[i].Object["converted"] = true
		}
		return out, nil
	}
	return nil, fmt.Errorf("unexpected %T", in)
}

// twoVersions is a CRD serving v1beta1 and v1, stored as v1.
func twoVersions() *apiextensionsv1.CustomResourceDefinition {
	return widgets(apiextensionsv1.CustomResourceDefinitionNames{})
}

// decode returns the JSON object of data.
func decode(t *testing.T, data []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(data, &m); err != nil {
		t.Fatal(err)
	}
	return m
}

func TestNewConverterNoneRewritesAPIVersion(t *testing.T) {
	def := twoVersions()
	atV1 := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","spec":{"n":1}}`)
	// The storage version reads objects stored at it as they are.
	c := NewConverter(def, "v1", nil, nil)
	if b, err := c.FromStorage(atV1); err != nil || string(b) != string(atV1) {
		t.Errorf("v1 FromStorage of a v1 object = %s, %v", b, err)
	}
	if b, err := c.ToStorage(atV1); err != nil || string(b) != string(atV1) {
		t.Errorf("v1 ToStorage = %s, %v", b, err)
	}
	// An object stored at v1beta1 before v1 was the storage version.
	b, err := c.FromStorage([]byte(`{"apiVersion":"example.com/v1beta1","kind":"Widget","spec":{"n":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m := decode(t, b); m["apiVersion"] != "example.com/v1" || m["spec"].(map[string]any)["n"] != 1.0 {
		t.Errorf("v1 FromStorage of a v1beta1 object = %s", b)
	}

	c = NewConverter(def, "v1beta1", nil, nil)
	stored, err := c.ToStorage([]byte(`{"apiVersion":"example.com/v1beta1","kind":"Widget","spec":{"n":1}}`))
	if err != nil {
		t.Fatal(err)
	}
	if m := decode(t, stored); m["apiVersion"] != "example.com/v1" || m["spec"].(map[string]any)["n"] != 1.0 {
		t.Errorf("ToStorage = %s", stored)
	}
	served, err := c.FromStorage(stored)
	if err != nil {
		t.Fatal(err)
	}
	if m := decode(t, served); m["apiVersion"] != "example.com/v1beta1" {
		t.Errorf("FromStorage = %s", served)
	}
	if _, err := c.FromStorage([]byte(`{`)); err == nil {
		t.Error("bad JSON converted")
	}
}

func TestNewConverterRefusesVersionsNoLongerDefined(t *testing.T) {
	def := twoVersions()
	for _, version := range []string{"v1", "v1beta1"} {
		for _, webhook := range []*fakeWebhook{nil, {}} {
			var wh runtime.ObjectConvertor
			if webhook != nil {
				wh = webhook
			}
			c := NewConverter(def, version, wh, nil)
			_, err := c.FromStorage([]byte(`{"apiVersion":"example.com/v1alpha1","kind":"Widget"}`))
			if want := "request to convert CR from an invalid group/version: example.com/v1alpha1"; err == nil || err.Error() != want {
				t.Errorf("%s, webhook %v: FromStorage = %v, want %s", version, webhook != nil, err, want)
			}
			_, err = c.(BatchConverter).FromStorageMany([][]byte{[]byte(`{"apiVersion":"example.com/v1","kind":"Widget"}`), []byte(`{"apiVersion":"other.com/v1","kind":"Widget"}`)})
			if want := "request to convert CR from an invalid group/version: other.com/v1"; err == nil || err.Error() != want {
				t.Errorf("%s, webhook %v: FromStorageMany = %v, want %s", version, webhook != nil, err, want)
			}
			if webhook != nil && webhook.calls != 0 {
				t.Errorf("%s: the webhook was called for an invalid version", version)
			}
		}
	}
}

func TestNewConverterDefaultsWithTheStoredVersionsSchema(t *testing.T) {
	def := twoVersions()
	// v1 defaults spec.replicas, v1beta1 knows it but defaults nothing.
	schemas := map[string]*Schema{
		"v1":      newTestSchema(t, widgetSchema),
		"v1beta1": newTestSchema(t, "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      replicas: {type: integer}\n"),
	}
	atV1 := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","spec":{}}`)
	atV1beta1 := []byte(`{"apiVersion":"example.com/v1beta1","kind":"Widget","spec":{}}`)
	for _, version := range []string{"v1", "v1beta1"} {
		c := NewConverter(def, version, nil, schemas)
		// What is stored does not get defaults.
		in, err := c.ToStorage([]byte(`{"apiVersion":"example.com/` + version + `","kind":"Widget","spec":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		if m := decode(t, in); m["apiVersion"] != "example.com/v1" || len(m["spec"].(map[string]any)) != 0 {
			t.Errorf("%s: ToStorage = %s", version, in)
		}
		out, err := c.(BatchConverter).FromStorageMany([][]byte{atV1, atV1beta1})
		if err != nil || len(out) != 2 {
			t.Fatalf("%s: FromStorageMany = %d, %v", version, len(out), err)
		}
		for i, want := range []any{1.0, nil} {
			m := decode(t, out[i])
			if m["apiVersion"] != "example.com/"+version || m["spec"].(map[string]any)["replicas"] != want {
				t.Errorf("%s: object %d read as %s, want replicas %v", version, i, out[i], want)
			}
		}
	}
}

// withSchemas gives the versions of def the schemas (YAML) by name.
func withSchemas(t *testing.T, def *apiextensionsv1.CustomResourceDefinition, schemas map[string]string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	for i, v := range def.Spec.Versions {
		y, ok := schemas[v.Name]
		if !ok {
			continue
		}
		props := &apiextensionsv1.JSONSchemaProps{}
		if err := yaml.Unmarshal([]byte(y), props); err != nil {
			t.Fatal(err)
		}
		def.Spec.Versions[i].Schema = &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props}
	}
	return def
}

// schemasOf returns the schemas of def's versions by name, as NewConverter
// takes them.
func schemasOf(t *testing.T, def *apiextensionsv1.CustomResourceDefinition) map[string]*Schema {
	t.Helper()
	out := map[string]*Schema{}
	for _, v := range def.Spec.Versions {
		s, err := NewSchema(v.Schema)
		if err != nil {
			t.Fatal(err)
		}
		out[v.Name] = s
	}
	return out
}

// TestNewConverterDefaultsOfTheStoredVersion: objects read from storage get
// the defaults of the version they are stored in, whichever version serves
// them, as kube-apiserver's storage decoder applies them; what is stored is
// not defaulted.
func TestNewConverterDefaultsOfTheStoredVersion(t *testing.T) {
	def := withSchemas(t, twoVersions(), map[string]string{
		"v1":      widgetSchema,
		"v1beta1": "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      replicas: {type: integer, default: 5}\n",
	})
	for _, version := range []string{"v1", "v1beta1"} {
		c := NewConverter(def, version, nil, schemasOf(t, def))
		bc, ok := c.(BatchConverter)
		if !ok {
			t.Fatalf("%s: converter %T with defaults does not batch", version, c)
		}
		stored := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","spec":{}}`)
		in, err := c.ToStorage([]byte(`{"apiVersion":"example.com/` + version + `","kind":"Widget","spec":{}}`))
		if err != nil {
			t.Fatal(err)
		}
		if m := decode(t, in); m["apiVersion"] != "example.com/v1" || len(m["spec"].(map[string]any)) != 0 {
			t.Errorf("%s: ToStorage = %s", version, in)
		}
		out, err := bc.FromStorageMany([][]byte{stored, stored})
		if err != nil || len(out) != 2 {
			t.Fatalf("%s: FromStorageMany = %d, %v", version, len(out), err)
		}
		for _, b := range out {
			if m := decode(t, b); m["apiVersion"] != "example.com/"+version || m["spec"].(map[string]any)["replicas"] != 1.0 {
				t.Errorf("%s: FromStorageMany gave %s, want v1's default replicas 1", version, b)
			}
		}
	}
	// Schemas without defaults, and an object that conforms to the storage
	// version's: it is read as the very bytes stored.
	plain := withSchemas(t, twoVersions(), map[string]string{"v1": "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      replicas: {type: integer}\n", "v1beta1": "type: object\n"})
	stored := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","spec":{"replicas":2}}`)
	c := NewConverter(plain, "v1", nil, schemasOf(t, plain))
	if b, err := c.FromStorage(stored); err != nil || len(b) == 0 || &b[0] != &stored[0] {
		t.Errorf("an object served as stored was copied: %s, %v", b, err)
	}
	// One that does not conform is pruned on read, as upstream's decoder does.
	b, err := c.FromStorage([]byte(`{"apiVersion":"example.com/v1","kind":"Widget","spec":{"replicas":2,"gone":true}}`))
	if err != nil || !reflect.DeepEqual(decode(t, b), decode(t, stored)) {
		t.Errorf("an object with a field its schema lacks read as %s, %v", b, err)
	}
}

// TestNewConverterNonePrunesToEachVersionsSchema: "None" conversion prunes
// what is read to the served version's schema and what is written to the
// storage version's, as kube-apiserver's storage codec does.
func TestNewConverterNonePrunesToEachVersionsSchema(t *testing.T) {
	def := withSchemas(t, twoVersions(), map[string]string{
		"v1":      "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      a: {type: string}\n      onlyV1: {type: string}\n",
		"v1beta1": "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      a: {type: string}\n      onlyV1beta1: {type: string}\n",
	})
	c := NewConverter(def, "v1beta1", nil, schemasOf(t, def))
	for _, tc := range []struct {
		name string
		conv func([]byte) ([]byte, error)
		in   string
		want string
	}{
		{"read drops fields the served version lacks", c.FromStorage,
			`{"apiVersion":"example.com/v1","kind":"Widget","spec":{"a":"x","onlyV1":"y"}}`,
			`{"apiVersion":"example.com/v1beta1","kind":"Widget","spec":{"a":"x"}}`},
		{"write drops fields the storage version lacks", c.ToStorage,
			`{"apiVersion":"example.com/v1beta1","kind":"Widget","spec":{"a":"x","onlyV1beta1":"y"}}`,
			`{"apiVersion":"example.com/v1","kind":"Widget","spec":{"a":"x"}}`},
		{"read drops unknown metadata and malformed metadata fields", c.FromStorage,
			`{"apiVersion":"example.com/v1","kind":"Widget","metadata":{"name":"w","generation":1,"unknown":1,"labels":{"a":1}},"spec":{}}`,
			`{"apiVersion":"example.com/v1beta1","kind":"Widget","metadata":{"name":"w","generation":1},"spec":{}}`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.conv([]byte(tc.in))
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(decode(t, got), decode(t, []byte(tc.want))) {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestNewConverterWebhook(t *testing.T) {
	// converted is known to v1beta1; v1, the storage version, defaults replicas.
	def := withSchemas(t, twoVersions(), map[string]string{
		"v1":      widgetSchema,
		"v1beta1": "type: object\nproperties:\n  converted: {type: boolean}\n  spec:\n    type: object\n    properties:\n      replicas: {type: integer}\n",
	})
	wh := &fakeWebhook{}
	c := NewConverter(def, "v1beta1", wh, schemasOf(t, def))
	bc, ok := c.(BatchConverter)
	if !ok {
		t.Fatalf("webhook converter %T does not batch", c)
	}
	v1 := []byte(`{"apiVersion":"example.com/v1","kind":"Widget","spec":{}}`)
	v1beta1 := []byte(`{"apiVersion":"example.com/v1beta1","kind":"Widget","spec":{"replicas":3}}`)
	out, err := bc.FromStorageMany([][]byte{v1, v1beta1, v1})
	if err != nil {
		t.Fatal(err)
	}
	if wh.calls != 1 || wh.objects != 2 {
		t.Errorf("webhook called %d times with %d objects, want once with 2", wh.calls, wh.objects)
	}
	for i, want := range []struct {
		converted bool
		replicas  float64
	}{{true, 1}, {false, 3}, {true, 1}} {
		m := decode(t, out[i])
		if m["apiVersion"] != "example.com/v1beta1" || (m["converted"] == true) != want.converted || m["spec"].(map[string]any)["replicas"] != want.replicas {
			t.Errorf("object %d = %s", i, out[i])
		}
	}
	// One object in the target version already is not sent.
	wh.calls = 0
	if b, err := c.ToStorage(v1); err != nil || string(b) != string(v1) || wh.calls != 0 {
		t.Errorf("ToStorage of a v1 object = %s, %v after %d calls", b, err, wh.calls)
	}
	if b, err := c.ToStorage(v1beta1); err != nil || decode(t, b)["apiVersion"] != "example.com/v1" || wh.calls != 1 {
		t.Errorf("ToStorage of a v1beta1 object = %s, %v after %d calls", b, err, wh.calls)
	}
}
