package crd

import (
	"encoding/json"
	"fmt"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
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
	// v1 defaults spec.replicas, v1beta1 defaults nothing.
	schemas := map[string]*Schema{"v1": newTestSchema(t, widgetSchema), "v1beta1": newTestSchema(t, "type: object\n")}
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

func TestNewConverterWebhook(t *testing.T) {
	def := twoVersions()
	wh := &fakeWebhook{}
	c := NewConverter(def, "v1beta1", wh, map[string]*Schema{"v1": newTestSchema(t, widgetSchema), "v1beta1": newTestSchema(t, widgetSchema)})
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
