package fakeplane_test

import (
	"context"
	"reflect"
	"strings"
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/fakeplane/fakeplane"
)

// The schema steps of kube-apiserver's custom-resource decoder and storage
// codec (issue 10 section 3), mirroring upstream's integration tests
// TestPruningCreate, TestPruningPatch,
// TestPruningCreatePreservingUnknownFields, TestPruningEmbeddedResources,
// TestEmbeddedResources, TestPostInvalidObjectMeta and
// TestCustomResourceDefaulting.

// foosCRD is a cluster-scoped CRD foos.tests.example.com with one version
// per schema (YAML of openAPIV3Schema), named v1beta1, v1beta2, ...; the
// last one is stored. Every version is served.
func foosCRD(t *testing.T, schemas ...string) *apiextensionsv1.CustomResourceDefinition {
	t.Helper()
	def := &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "foos.tests.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "tests.example.com",
			Scope: apiextensionsv1.ClusterScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "foos", Singular: "foo", Kind: "Foo", ListKind: "FooList"},
		},
	}
	for i, y := range schemas {
		props := &apiextensionsv1.JSONSchemaProps{}
		if err := yaml.Unmarshal([]byte(y), props); err != nil {
			t.Fatal(err)
		}
		def.Spec.Versions = append(def.Spec.Versions, apiextensionsv1.CustomResourceDefinitionVersion{
			Name: "v1beta" + string(rune('1'+i)), Served: true, Storage: i == len(schemas)-1,
			Subresources: &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}},
			Schema:       &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: props},
		})
	}
	return def
}

// createCRD creates def and returns the dynamic client of each version.
func createCRD(t *testing.T, ctx context.Context, dyn dynamic.Interface, def *apiextensionsv1.CustomResourceDefinition) map[string]dynamic.ResourceInterface {
	t.Helper()
	u, err := runtimeToUnstructured(def)
	if err != nil {
		t.Fatal(err)
	}
	u.SetAPIVersion("apiextensions.k8s.io/v1")
	u.SetKind("CustomResourceDefinition")
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crds.Create(ctx, u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	out := map[string]dynamic.ResourceInterface{}
	for _, v := range def.Spec.Versions {
		out[v.Name] = dyn.Resource(schema.GroupVersionResource{Group: def.Spec.Group, Version: v.Name, Resource: def.Spec.Names.Plural})
	}
	return out
}

// foo is a Foo of apiVersion tests.example.com/version named name, with the
// fields of y (YAML) besides.
func foo(t *testing.T, version, name, y string) *unstructured.Unstructured {
	t.Helper()
	u := &unstructured.Unstructured{Object: map[string]any{}}
	if err := yaml.Unmarshal([]byte(y), &u.Object); err != nil {
		t.Fatal(err)
	}
	if u.Object == nil {
		u.Object = map[string]any{}
	}
	u.SetAPIVersion("tests.example.com/" + version)
	u.SetKind("Foo")
	if name != "" {
		_ = unstructured.SetNestedField(u.Object, name, "metadata", "name")
	}
	return u
}

// checkFields fails for each path of present that obj lacks and each path
// of absent that it has.
func checkFields(t *testing.T, obj map[string]any, present, absent []string) {
	t.Helper()
	for _, p := range present {
		if _, found, _ := unstructured.NestedFieldNoCopy(obj, strings.Split(p, ".")...); !found {
			t.Errorf("%s was pruned, want it kept", p)
		}
	}
	for _, p := range absent {
		if v, found, _ := unstructured.NestedFieldNoCopy(obj, strings.Split(p, ".")...); found {
			t.Errorf("%s = %v, want it pruned", p, v)
		}
	}
}

// TestCRDNullsArePrunedOrDefaulted: a null in a field that is neither
// nullable nor defaulted is dropped, a null where a default is given takes
// the default, a null in a nullable field stays; none of them is refused.
func TestCRDNullsArePrunedOrDefaulted(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	foos := createCRD(t, ctx, dyn, foosCRD(t, `
type: object
properties:
  spec:
    type: object
    properties:
      defaulted: {type: string, default: d}
      plain: {type: string}
      object: {type: object, properties: {a: {type: string}}}
      nullable: {type: string, nullable: true}
      list: {type: array, items: {type: string, default: item}}
`))["v1beta1"]
	for _, tc := range []struct {
		name string
		spec string
		want map[string]any
	}{
		{"a null without a default is dropped", "{plain: null, object: null}", map[string]any{"defaulted": "d"}},
		{"a null with a default is defaulted", "{defaulted: null, plain: x}", map[string]any{"defaulted": "d", "plain": "x"}},
		{"a null of a nullable field stays", "{nullable: null}", map[string]any{"defaulted": "d", "nullable": nil}},
		{"a null list item takes the items' default", "{list: [a, null]}", map[string]any{"defaulted": "d", "list": []any{"a", "item"}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			name := strings.ReplaceAll(strings.ToLower(tc.name), " ", "-")
			name = strings.ReplaceAll(name, "'", "")
			created, err := foos.Create(ctx, foo(t, "v1beta1", name, "spec: "+tc.spec), metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := created.Object["spec"]; !reflect.DeepEqual(got, tc.want) {
				t.Errorf("created spec = %v, want %v", got, tc.want)
			}
			got, err := foos.Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(got.Object["spec"], tc.want) {
				t.Errorf("stored spec = %v, want %v", got.Object["spec"], tc.want)
			}
		})
	}
}

// preservingSchema is upstream's fooSchemaPreservingUnknownFields: a root
// that preserves unknown fields around properties that specify their own
// schema.
const preservingSchema = `
type: object
properties:
  alpha: {type: string}
  beta: {type: number}
  preserving:
    type: object
    x-kubernetes-preserve-unknown-fields: true
    properties:
      preserving: {type: object, x-kubernetes-preserve-unknown-fields: true}
      pruning: {type: object}
  pruning:
    type: object
    properties:
      preserving: {type: object, x-kubernetes-preserve-unknown-fields: true}
      pruning: {type: object}
x-kubernetes-preserve-unknown-fields: true
`

// TestCRDPruningBelowAPreservingRoot: x-kubernetes-preserve-unknown-fields
// at the root keeps unknown root fields but pruning goes on inside the
// properties that specify their schema (and in metadata).
func TestCRDPruningBelowAPreservingRoot(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	foos := createCRD(t, ctx, dyn, foosCRD(t, preservingSchema))["v1beta1"]
	inner := "{unspecified: bar, unspecifiedObject: {unspecified: bar}, pruning: {unspecified: bar}, preserving: {unspecified: bar}}"
	obj := foo(t, "v1beta1", "foo", "unspecified: bar\nalpha: abc\nbeta: 42.0\nmetadata: {unspecified: bar, labels: {foo: bar}}\npruning: "+inner+"\npreserving: "+inner)
	created, err := foos.Create(ctx, obj, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkFields(t, created.Object, []string{
		"unspecified", "alpha", "beta", "metadata.labels.foo",
		"pruning.pruning", "pruning.preserving", "pruning.preserving.unspecified",
		"preserving.unspecified", "preserving.unspecifiedObject", "preserving.unspecifiedObject.unspecified",
		"preserving.pruning", "preserving.preserving", "preserving.preserving.unspecified",
	}, []string{
		"metadata.unspecified",
		"pruning.unspecified", "pruning.unspecifiedObject", "pruning.pruning.unspecified",
		"preserving.pruning.unspecified",
	})
}

// TestCRDObjectMetaIsCoerced: metadata is read as an ObjectMeta, at the
// root and in embedded resources: unknown fields are dropped on create and
// patch, mistyped ones are a 400 naming where, invalid values a 422.
func TestCRDObjectMetaIsCoerced(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	foos := createCRD(t, ctx, dyn, foosCRD(t, `
type: object
properties:
  alpha: {type: string}
  embeddedPruning:
    type: object
    x-kubernetes-embedded-resource: true
    properties:
      specified: {type: string}
  embedded:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
  noEmbeddedObject:
    type: object
    x-kubernetes-preserve-unknown-fields: true
  embeddedNested:
    type: object
    x-kubernetes-embedded-resource: true
    x-kubernetes-preserve-unknown-fields: true
    properties:
      embedded:
        type: object
        x-kubernetes-embedded-resource: true
        x-kubernetes-preserve-unknown-fields: true
`))["v1beta1"]

	t.Run("unknown root metadata is dropped and a null generation set", func(t *testing.T) {
		obj := foo(t, "v1beta1", "root", "metadata: {unknown: 42, generation: null, labels: {bar: abc}}")
		created, err := foos.Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkFields(t, created.Object, []string{"metadata.labels.bar"}, []string{"metadata.unknown"})
		if created.GetGeneration() != 1 {
			t.Errorf("generation = %d, want 1", created.GetGeneration())
		}
		// A merge patch with unknown fields: pruned too (TestPruningPatch).
		patched, err := foos.Patch(ctx, "root", types.MergePatchType, []byte(`{"alpha":"abc","unspecified":"bar","metadata":{"unspecified":"bar","labels":{"foo":"bar"}}}`), metav1.PatchOptions{})
		if err != nil {
			t.Fatal(err)
		}
		checkFields(t, patched.Object, []string{"alpha", "metadata.labels.foo"}, []string{"unspecified", "metadata.unspecified"})
	})

	t.Run("fieldValidation Strict names unknown metadata fields", func(t *testing.T) {
		obj := foo(t, "v1beta1", "strict", "metadata: {unknown: 42}")
		_, err := foos.Create(ctx, obj, metav1.CreateOptions{FieldValidation: "Strict"})
		if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `unknown field "metadata.unknown"`) {
			t.Errorf("err = %v, want a 400 naming metadata.unknown", err)
		}
	})

	t.Run("mistyped labels are a 400 cannot be handled", func(t *testing.T) {
		obj := foo(t, "v1beta1", "labels", "metadata: {labels: {foo: 42, bar: abc}}")
		_, err := foos.Create(ctx, obj, metav1.CreateOptions{})
		if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `Foo in version "v1beta1" cannot be handled as a Foo: `) {
			t.Errorf("err = %v, want a 400 cannot be handled", err)
		}
	})

	t.Run("embedded resources' metadata is pruned", func(t *testing.T) {
		embedded := "{apiVersion: foo/v1, kind: Foo, metadata: {name: foo, unspecified: bar}, unspecified: bar}"
		obj := foo(t, "v1beta1", "embedded",
			"embeddedPruning: {apiVersion: foo/v1, kind: Foo, metadata: {name: foo, unspecified: bar}, unspecified: bar, specified: bar}\n"+
				"embedded: "+embedded+"\nnoEmbeddedObject: "+embedded+"\n"+
				"embeddedNested: {apiVersion: foo/v1, kind: Foo, metadata: {name: foo, unspecified: bar}, unspecified: bar, embedded: "+embedded+"}")
		created, err := foos.Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		delete(created.Object, "metadata")
		delete(created.Object, "apiVersion")
		delete(created.Object, "kind")
		want := map[string]any{}
		if err := yaml.Unmarshal([]byte(`
embeddedPruning: {apiVersion: foo/v1, kind: Foo, metadata: {name: foo}, specified: bar}
embedded: {apiVersion: foo/v1, kind: Foo, metadata: {name: foo}, unspecified: bar}
noEmbeddedObject: {apiVersion: foo/v1, kind: Foo, metadata: {name: foo, unspecified: bar}, unspecified: bar}
embeddedNested:
  apiVersion: foo/v1
  kind: Foo
  metadata: {name: foo}
  unspecified: bar
  embedded: {apiVersion: foo/v1, kind: Foo, metadata: {name: foo}, unspecified: bar}
`), &want); err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(created.Object, want) {
			t.Errorf("created %v,\nwant %v", created.Object, want)
		}
	})

	t.Run("mistyped embedded metadata is a 400 naming it", func(t *testing.T) {
		obj := foo(t, "v1beta1", "wrongly-typed", "embedded: {apiVersion: foo/v1, kind: Foo, metadata: {name: instance, namespace: 42}}")
		_, err := foos.Create(ctx, obj, metav1.CreateOptions{})
		if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "embedded.metadata: Invalid value") {
			t.Errorf("err = %v, want a 400 with embedded.metadata: Invalid value", err)
		}
	})

	t.Run("invalid embedded metadata is a 422", func(t *testing.T) {
		bad := `{apiVersion: foo/v1, kind: "%", metadata: {name: ".."}}`
		obj := foo(t, "v1beta1", "invalid", "metadata: {labels: {foo: x y}}\nembedded: "+bad+"\nembeddedNested: {apiVersion: foo/v1, kind: \"%\", metadata: {name: \"..\"}, embedded: "+bad+"}")
		_, createErr := foos.Create(ctx, obj, metav1.CreateOptions{})
		// An update to the same values gets the same errors.
		valid, err := foos.Create(ctx, foo(t, "v1beta1", "valid", "embedded: {apiVersion: foo/v1, kind: Foo}"), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for k, v := range obj.Object {
			if k != "metadata" {
				valid.Object[k] = v
			}
		}
		valid.SetLabels(map[string]string{"foo": "x y"})
		_, updateErr := foos.Update(ctx, valid, metav1.UpdateOptions{})
		for _, err := range []error{createErr, updateErr} {
			if !apierrors.IsInvalid(err) {
				t.Fatalf("err = %v, want a 422", err)
			}
			for _, s := range []string{
				`[metadata.labels: Invalid value: "x y"`,
				` embedded.kind: Invalid value: "%"`,
				` embedded.metadata.name: Invalid value: ".."`,
				` embeddedNested.kind: Invalid value: "%"`,
				` embeddedNested.metadata.name: Invalid value: ".."`,
				` embeddedNested.embedded.kind: Invalid value: "%"`,
				` embeddedNested.embedded.metadata.name: Invalid value: ".."`,
			} {
				if !strings.Contains(err.Error(), s) {
					t.Errorf("error lacks %q: %v", s, err)
				}
			}
		}
	})
}

// TestCRDReadsArePrunedToTheRequestedVersion: with "None" conversion, an
// object read through a version whose schema lacks some of its fields does
// not show them; through the version that has them it does.
func TestCRDReadsArePrunedToTheRequestedVersion(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	foos := createCRD(t, ctx, dyn, foosCRD(t,
		"type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      shared: {type: string}\n",
		"type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      shared: {type: string}\n      onlyStored: {type: string}\n",
	))
	if _, err := foos["v1beta2"].Create(ctx, foo(t, "v1beta2", "foo", "spec: {shared: a, onlyStored: b}"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	old, err := foos["v1beta1"].Get(ctx, "foo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkFields(t, old.Object, []string{"spec.shared"}, []string{"spec.onlyStored"})
	list, err := foos["v1beta1"].List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 {
		t.Fatalf("list = %v, %v", list, err)
	}
	checkFields(t, list.Items[0].Object, []string{"spec.shared"}, []string{"spec.onlyStored"})
	cur, err := foos["v1beta2"].Get(ctx, "foo", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	checkFields(t, cur.Object, []string{"spec.shared", "spec.onlyStored"}, nil)
	// A write through the old version drops what it does not know, as upstream.
	old.Object["spec"].(map[string]any)["shared"] = "c"
	if _, err := foos["v1beta1"].Update(ctx, old, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	if cur, err = foos["v1beta2"].Get(ctx, "foo", metav1.GetOptions{}); err != nil {
		t.Fatal(err)
	}
	checkFields(t, cur.Object, []string{"spec.shared"}, []string{"spec.onlyStored"})
}

// TestCRDDefaultsOnReadComeFromTheStoredVersion mirrors upstream's
// TestCustomResourceDefaulting: a request is defaulted with the schema of
// its version, an object read back with the schema of the version it is
// stored in, whatever version it is read through; a default added to or
// removed from a schema shows on the next read.
func TestCRDDefaultsOnReadComeFromTheStoredVersion(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	// Both versions know a, c, v1beta1 and v1beta2; each defaults a and
	// the field named after it.
	schemaOf := func(defaulted string) string {
		y := "type: object\nproperties:\n  spec:\n    type: object\n    properties:\n      a: {type: string, default: A}\n      c: {type: string}\n"
		for _, f := range []string{"v1beta1", "v1beta2"} {
			if f == defaulted {
				y += "      " + f + ": {type: string, default: " + f + "}\n"
			} else {
				y += "      " + f + ": {type: string}\n"
			}
		}
		return y
	}
	def := foosCRD(t, schemaOf("v1beta1"), schemaOf("v1beta2"))
	def.Spec.Versions[1].Served = false
	foos := createCRD(t, ctx, dyn, def)["v1beta1"]
	created, err := foos.Create(ctx, foo(t, "v1beta1", "foo", "spec: {}"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// spec.v1beta1 is defaulted when the request is read, spec.v1beta2 when
	// the stored object is.
	checkFields(t, created.Object, []string{"spec.a", "spec.v1beta1", "spec.v1beta2"}, nil)

	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	setDefaultC := func(version string, value any) {
		t.Helper()
		u, err := crds.Get(ctx, def.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		versions, _, _ := unstructured.NestedSlice(u.Object, "spec", "versions")
		for _, v := range versions {
			vm := v.(map[string]any)
			if vm["name"] != version {
				continue
			}
			c := map[string]any{"type": "string"}
			if value != nil {
				c["default"] = value
			}
			_ = unstructured.SetNestedField(vm, c, "schema", "openAPIV3Schema", "properties", "spec", "properties", "c")
		}
		_ = unstructured.SetNestedSlice(u.Object, versions, "spec", "versions")
		if _, err := crds.Update(ctx, u, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	readC := func() (string, bool) {
		t.Helper()
		got, err := foos.Get(ctx, "foo", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		c, found, _ := unstructured.NestedString(got.Object, "spec", "c")
		return c, found
	}
	setDefaultC("v1beta2", "C")
	if c, found := readC(); c != "C" {
		t.Errorf("after a default in the storage version spec.c = %q (%v), want C", c, found)
	}
	setDefaultC("v1beta1", "C")
	setDefaultC("v1beta2", nil)
	if c, found := readC(); found {
		t.Errorf("with a default only in the version read through spec.c = %q, want none", c)
	}
}

// TestCRDApplyOfNullIsValidatedNotDropped: a server-side apply that sets a
// non-nullable field to null is refused by validation (upstream's field
// manager only defaults the merged object; dropping nulls is the request
// decoder's step), and a nullable field keeps its null.
func TestCRDApplyOfNullIsValidatedNotDropped(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	foos := createCRD(t, ctx, dyn, foosCRD(t, `
type: object
properties:
  spec:
    type: object
    properties:
      plain: {type: object, properties: {inner: {type: object, x-kubernetes-preserve-unknown-fields: true}}}
      nullable: {type: object, properties: {inner: {type: object, nullable: true, x-kubernetes-preserve-unknown-fields: true}}}
`))["v1beta1"]
	for _, tc := range []struct {
		field   string
		wantErr string
	}{
		{"plain", "must be of type object"},
		{"nullable", ""},
	} {
		t.Run(tc.field, func(t *testing.T) {
			apply := func(inner any) (*unstructured.Unstructured, error) {
				obj := foo(t, "v1beta1", tc.field, "")
				_ = unstructured.SetNestedField(obj.Object, map[string]any{tc.field: map[string]any{"inner": inner}}, "spec")
				return foos.Apply(ctx, tc.field, obj, metav1.ApplyOptions{FieldManager: "test"})
			}
			if _, err := apply(map[string]any{"a": "1"}); err != nil {
				t.Fatal(err)
			}
			got, err := apply(nil)
			if tc.wantErr != "" {
				if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.wantErr) {
					t.Fatalf("err = %v, want a 422 with %q", err, tc.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if inner, found, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", tc.field, "inner"); !found || inner != nil {
				t.Errorf("spec.%s.inner = %v (found %v), want null", tc.field, inner, found)
			}
		})
	}
}

// TestCRDBodyOfAnotherKindIsInvalid mirrors upstream's
// TestForProperValidationErrors: a body of the right group/version naming
// another kind is a 422 from the type check naming the body's kind; another
// version is a 400.
func TestCRDBodyOfAnotherKindIsInvalid(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	foos := createCRD(t, ctx, dyn, foosCRD(t, "type: object\n"))["v1beta1"]
	for _, tc := range []struct {
		name       string
		apiVersion string
		kind       string
		is         func(error) bool
		want       string
	}{
		{"another kind", "tests.example.com/v1beta1", "SomethingElse", apierrors.IsInvalid,
			`SomethingElse.tests.example.com "foo" is invalid: kind: Invalid value: "SomethingElse": must be Foo`},
		{"another version", "tests.example.com/v2", "Foo", apierrors.IsBadRequest,
			"the API version in the data (tests.example.com/v2) does not match the expected API version (tests.example.com/v1beta1)"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			obj := foo(t, "v1beta1", "foo", "")
			obj.SetAPIVersion(tc.apiVersion)
			obj.SetKind(tc.kind)
			_, err := foos.Create(ctx, obj, metav1.CreateOptions{})
			if !tc.is(err) || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("err = %v, want %q", err, tc.want)
			}
		})
	}
}

// TestCRDStatusWritesValidateStatusAlone mirrors upstream's
// TestValidateOnlyStatus: a write to /status is validated against the
// status property's schema alone, so messages name the field from status
// down, and a spec that no longer validates does not block it.
func TestCRDStatusWritesValidateStatusAlone(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	foos := createCRD(t, ctx, dyn, foosCRD(t, `
type: object
properties:
  spec:
    type: object
    properties:
      num: {type: integer, maximum: 10}
  status:
    type: object
    properties:
      num: {type: integer, maximum: 10}
`))["v1beta1"]
	created, err := foos.Create(ctx, foo(t, "v1beta1", "foo", "spec: {num: 5}"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	_ = unstructured.SetNestedField(created.Object, int64(15), "status", "num")
	_, err = foos.UpdateStatus(ctx, created, metav1.UpdateOptions{})
	want := `Foo.tests.example.com "foo" is invalid: status.num: Invalid value: 15: num in body should be less than or equal to 10`
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), want) {
		t.Fatalf("err = %v, want %q", err, want)
	}
	// An invalid spec sent to /status is ignored, not validated.
	_ = unstructured.SetNestedField(created.Object, int64(5), "status", "num")
	_ = unstructured.SetNestedField(created.Object, int64(15), "spec", "num")
	if _, err := foos.UpdateStatus(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
}
