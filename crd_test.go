package fakeplane_test

import (
	"cmp"
	"context"
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/dynamic"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// crontabCRD is the CronTab CRD of "Extend the Kubernetes API with
// CustomResourceDefinitions", with its validation and defaulting.
func crontabCRD() *unstructured.Unstructured {
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "crontabs.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "crontabs", Singular: "crontab", Kind: "CronTab", ShortNames: []string{"ct"}},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"cronSpec": {Type: "string", Pattern: `^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$`},
							"image":    {Type: "string"},
							"replicas": {Type: "integer", Minimum: ptr.To(1.0), Maximum: ptr.To(10.0), Default: &apiextensionsv1.JSON{Raw: []byte("1")}},
						}},
					},
				}},
			}},
		},
	}
	m, err := runtimeToUnstructured(crd)
	if err != nil {
		panic(err)
	}
	return m
}

func TestCustomResourceDefinitionLifecycle(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	crontabs := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")

	if _, err := crds.Create(ctx, crontabCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, _ := crds.Get(ctx, "crontabs.stable.example.com", metav1.GetOptions{})
	conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
	var types []string
	for _, c := range conds {
		m := c.(map[string]any)
		types = append(types, m["type"].(string)+"="+m["status"].(string))
	}
	if strings.Join(types, ",") != "NamesAccepted=True,Established=True" {
		t.Errorf("conditions: %v", types)
	}
	// Served at once, in discovery too.
	rl, err := clientset(t, cp).Discovery().ServerResourcesForGroupVersion("stable.example.com/v1")
	if err != nil || len(rl.APIResources) != 1 || rl.APIResources[0].Name != "crontabs" || rl.APIResources[0].ShortNames[0] != "ct" {
		t.Fatalf("discovery: %v %+v", err, rl)
	}

	ct := func(name, cron string, replicas any, extra map[string]any) *unstructured.Unstructured {
		spec := map[string]any{"cronSpec": cron, "image": "my-awesome-cron-image"}
		if replicas != nil {
			spec["replicas"] = replicas
		}
		for k, v := range extra {
			spec[k] = v
		}
		return &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": map[string]any{"name": name}, "spec": spec}}
	}
	// Defaulting and pruning.
	out, err := crontabs.Create(ctx, ct("a", "* * * * */5", nil, map[string]any{"someRandomField": 42}), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if r, _, _ := unstructured.NestedInt64(out.Object, "spec", "replicas"); r != 1 {
		t.Errorf("default replicas: %d", r)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(out.Object, "spec", "someRandomField"); found {
		t.Error("unknown field not pruned")
	}
	if out.GetGeneration() != 1 {
		t.Errorf("generation %d", out.GetGeneration())
	}
	// Strict field validation reports the unknown field.
	_, err = crontabs.Create(ctx, ct("b", "* * * * */5", nil, map[string]any{"someRandomField": 42}), metav1.CreateOptions{FieldValidation: "Strict"})
	if !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), `strict decoding error: unknown field "spec.someRandomField"`) {
		t.Errorf("strict: %v", err)
	}
	// OpenAPI validation, with upstream's messages.
	_, err = crontabs.Create(ctx, ct("c", "* * * *", int64(15), nil), metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) {
		t.Fatalf("invalid CronTab: %v", err)
	}
	for _, want := range []string{
		`CronTab.stable.example.com "c" is invalid`,
		`spec.replicas: Invalid value: 15: spec.replicas in body should be less than or equal to 10`,
		`spec.cronSpec: Invalid value: "* * * *": spec.cronSpec in body should match '^(\d+|\*)(/\d+)?(\s+(\d+|\*)(/\d+)?){4}$'`,
	} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("validation message lacks %q:\n%v", want, err)
		}
	}
	// Strategic merge patch is refused for custom resources.
	_, err = crontabs.Patch(ctx, "a", "application/strategic-merge-patch+json", []byte(`{"spec":{"image":"x"}}`), metav1.PatchOptions{})
	if !apierrors.IsUnsupportedMediaType(err) {
		t.Errorf("strategic merge patch: %v", err)
	}

	// Deleting the CRD deletes its objects and stops serving it.
	if err := crds.Delete(ctx, "crontabs.stable.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		_, err := crds.Get(ctx, "crontabs.stable.example.com", metav1.GetOptions{})
		return apierrors.IsNotFound(err)
	})
	if _, err := crontabs.List(ctx, metav1.ListOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("list after CRD deletion: %v", err)
	}
	// Recreated, it starts empty.
	if _, err := crds.Create(ctx, crontabCRD(), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	l, err := crontabs.List(ctx, metav1.ListOptions{})
	if err != nil || len(l.Items) != 0 {
		t.Errorf("recreated CRD: %v %d items", err, len(l.Items))
	}
}

func TestInvalidCRDIsRejected(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	bad := crontabCRD()
	bad.SetName("wrong.stable.example.com")
	_, err := crds.Create(ctx, bad, metav1.CreateOptions{})
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), `metadata.name: Invalid value: "wrong.stable.example.com": must be spec.names.plural+"."+spec.group`) {
		t.Errorf("bad name: %v", err)
	}
}

func runtimeToUnstructured(obj any) (*unstructured.Unstructured, error) {
	m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(obj)
	if err != nil {
		return nil, err
	}
	return &unstructured.Unstructured{Object: m}, nil
}

// TestCustomResourceSelectableFieldsStatusAndScale follows the seed's shirts
// (selectableFields) and crontabs with status and scale subresources.
func TestCustomResourceSelectableFieldsStatusAndScale(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	labelPath := ".status.labelSelector"
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "shirts.stable.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "stable.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "shirts", Singular: "shirt", Kind: "Shirt"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"color": {Type: "string"}, "size": {Type: "string"}, "replicas": {Type: "integer"},
						}},
						"status": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"replicas": {Type: "integer"}, "labelSelector": {Type: "string"},
						}},
					},
				}},
				SelectableFields: []apiextensionsv1.SelectableField{{JSONPath: ".spec.color"}, {JSONPath: ".spec.size"}},
				Subresources: &apiextensionsv1.CustomResourceSubresources{
					Status: &apiextensionsv1.CustomResourceSubresourceStatus{},
					Scale:  &apiextensionsv1.CustomResourceSubresourceScale{SpecReplicasPath: ".spec.replicas", StatusReplicasPath: ".status.replicas", LabelSelectorPath: &labelPath},
				},
			}},
		},
	}
	u, _ := runtimeToUnstructured(crd)
	if _, err := crds.Create(ctx, u, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	shirts := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "shirts"}).Namespace("default")
	for _, s := range []struct{ name, color, size string }{{"example1", "blue", "S"}, {"example2", "blue", "M"}, {"example3", "green", "M"}} {
		obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "Shirt",
			"metadata": map[string]any{"name": s.name}, "spec": map[string]any{"color": s.color, "size": s.size, "replicas": int64(1)},
			"status": map[string]any{"replicas": int64(99)}}}
		created, err := shirts.Create(ctx, obj, metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if _, found := created.Object["status"]; found {
			t.Errorf("status was kept on create although /status is a subresource")
		}
	}
	for sel, want := range map[string]string{"spec.color=blue": "example1,example2", "spec.color=blue,spec.size=M": "example2", "spec.size!=M": "example1"} {
		l, err := shirts.List(ctx, metav1.ListOptions{FieldSelector: sel})
		if err != nil {
			t.Fatalf("%s: %v", sel, err)
		}
		var names []string
		for _, it := range l.Items {
			names = append(names, it.GetName())
		}
		if strings.Join(names, ",") != want {
			t.Errorf("%s: %v, want %s", sel, names, want)
		}
	}
	if _, err := shirts.List(ctx, metav1.ListOptions{FieldSelector: "spec.replicas=1"}); !apierrors.IsBadRequest(err) || !strings.Contains(err.Error(), "field label not supported: spec.replicas") {
		t.Errorf("non-selectable field: %v", err)
	}
	// /status writes only status.
	cur, _ := shirts.Get(ctx, "example1", metav1.GetOptions{})
	_ = unstructured.SetNestedField(cur.Object, int64(3), "status", "replicas")
	_ = unstructured.SetNestedField(cur.Object, "app=shirt", "status", "labelSelector")
	_ = unstructured.SetNestedField(cur.Object, "red", "spec", "color")
	st, err := shirts.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _, _ := unstructured.NestedString(st.Object, "spec", "color"); c != "blue" {
		t.Errorf("a /status write changed spec.color to %q", c)
	}
	// The scale subresource follows the CRD's paths.
	sc, err := clientset(t, cp).RESTClient().Get().AbsPath("/apis/stable.example.com/v1/namespaces/default/shirts/example1/scale").DoRaw(ctx)
	if err != nil || !strings.Contains(string(sc), `"replicas":1`) || !strings.Contains(string(sc), `"selector":"app=shirt"`) {
		t.Fatalf("scale: %v %s", err, sc)
	}
	_, err = shirts.Patch(ctx, "example1", "application/merge-patch+json", []byte(`{"spec":{"replicas":5}}`), metav1.PatchOptions{}, "scale")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := shirts.Get(ctx, "example1", metav1.GetOptions{})
	if r, _, _ := unstructured.NestedInt64(got.Object, "spec", "replicas"); r != 5 || got.GetGeneration() != 2 {
		t.Errorf("after scaling: replicas %d generation %d", r, got.GetGeneration())
	}
	// A custom resource's scale takes no strategic merge patch (415, as its
	// main resource).
	_, err = shirts.Patch(ctx, "example1", types.StrategicMergePatchType, []byte(`{"spec":{"replicas":6}}`), metav1.PatchOptions{}, "scale")
	if !apierrors.IsUnsupportedMediaType(err) || !strings.Contains(err.Error(), "application/json-patch+json, application/merge-patch+json, application/apply-patch+yaml") {
		t.Errorf("strategic merge patch of a custom resource's scale: %v", err)
	}
	// The replicas the scale paths name are bounded on every write, with
	// the messages of upstream's custom resource validator.
	for _, tc := range []struct {
		path    []string
		value   any
		status  bool
		wantMsg string
	}{
		{[]string{"spec", "replicas"}, int64(math.MaxInt64), false, ".spec.replicas: Invalid value: 9223372036854775807: should be less than or equal to 2147483647"},
		{[]string{"spec", "replicas"}, int64(-1), false, ".spec.replicas: Invalid value: -1: should be a non-negative integer"},
		{[]string{"status", "replicas"}, int64(-2), true, ".status.replicas: Invalid value: -2: should be a non-negative integer"},
		{[]string{"status", "labelSelector"}, int64(3), true, "must be of type string"},
	} {
		cur, err := shirts.Get(ctx, "example1", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		_ = unstructured.SetNestedField(cur.Object, tc.value, tc.path...)
		if tc.status {
			_, err = shirts.UpdateStatus(ctx, cur, metav1.UpdateOptions{})
		} else {
			_, err = shirts.Update(ctx, cur, metav1.UpdateOptions{})
		}
		if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.wantMsg) {
			t.Errorf("%s = %v: %v, want a 422 with %q", strings.Join(tc.path, "."), tc.value, err, tc.wantMsg)
		}
	}
}

// TestCRDDefaultsOnReadAndNamespaceDeletion adds a default to a CRD with
// objects already stored (they read back defaulted) and deletes a namespace
// holding custom objects.
func TestCRDDefaultsOnReadAndNamespaceDeletion(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	crd := crontabCRD()
	versions, _, _ := unstructured.NestedSlice(crd.Object, "spec", "versions")
	props := []string{"schema", "openAPIV3Schema", "properties", "spec", "properties"}
	v0 := versions[0].(map[string]any)
	_ = unstructured.SetNestedField(v0, map[string]any{"type": "string"}, append(props, "image")...)
	_ = unstructured.SetNestedField(crd.Object, versions, "spec", "versions")
	created, err := createEstablishedCRD(ctx, crds, crd)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := clientset(t, cp).CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	crontabs := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"})
	obj := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "stable.example.com/v1", "kind": "CronTab", "metadata": map[string]any{"name": "old"}, "spec": map[string]any{"cronSpec": "* * * * */5"}}}
	if _, err := crontabs.Namespace("team").Create(ctx, obj, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A later version of the CRD defaults image.
	versions, _, _ = unstructured.NestedSlice(created.Object, "spec", "versions")
	v0 = versions[0].(map[string]any)
	_ = unstructured.SetNestedField(v0, map[string]any{"type": "string", "default": "busybox"}, append(props, "image")...)
	_ = unstructured.SetNestedField(created.Object, versions, "spec", "versions")
	if _, err := crds.Update(ctx, created, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	got, err := crontabs.Namespace("team").Get(ctx, "old", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if img, _, _ := unstructured.NestedString(got.Object, "spec", "image"); img != "busybox" {
		t.Errorf("default not applied on read: %v", got.Object["spec"])
	}
	// Deleting the namespace deletes its custom objects.
	if err := clientset(t, cp).CoreV1().Namespaces().Delete(ctx, "team", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool {
		l, err := crontabs.List(ctx, metav1.ListOptions{})
		return err == nil && len(l.Items) == 0
	})
}

func TestCRDNameConflictsWaitForTheirNames(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	crd := func(plural, kind string, shortNames ...string) *unstructured.Unstructured {
		c := &apiextensionsv1.CustomResourceDefinition{
			TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
			ObjectMeta: metav1.ObjectMeta{Name: plural + ".names.example.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "names.example.com", Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: plural, Singular: strings.TrimSuffix(plural, "s"), Kind: kind, ShortNames: shortNames},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}}},
			},
		}
		u, err := runtimeToUnstructured(c)
		if err != nil {
			t.Fatal(err)
		}
		return u
	}
	conditions := func(name string) string {
		got, err := crds.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		conds, _, _ := unstructured.NestedSlice(got.Object, "status", "conditions")
		var out []string
		for _, c := range conds {
			m := c.(map[string]any)
			out = append(out, m["type"].(string)+"="+m["status"].(string)+"/"+m["reason"].(string)+": "+m["message"].(string))
		}
		return strings.Join(out, "; ")
	}
	if _, err := crds.Create(ctx, crd("alphas", "Alpha", "al", "x"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name string
		obj  *unstructured.Unstructured
		want string
	}{
		{"short name taken", crd("betas", "Beta", "x"), `NamesAccepted=False/ShortNamesConflict: "x" is already in use; Established=False/NotAccepted: not all names are accepted`},
		{"kind taken", crd("gammas", "Alpha"), `NamesAccepted=False/ListKindConflict: "AlphaList" is already in use; Established=False/NotAccepted: not all names are accepted`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if _, err := crds.Create(ctx, tc.obj, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			if got := conditions(tc.obj.GetName()); got != tc.want {
				t.Errorf("conditions:\n%s\nwant\n%s", got, tc.want)
			}
			// Not served while its names are not accepted.
			_, err := dyn.Resource(schema.GroupVersionResource{Group: "names.example.com", Version: "v1", Resource: strings.TrimSuffix(tc.obj.GetName(), ".names.example.com")}).
				Namespace("default").List(ctx, metav1.ListOptions{})
			if !apierrors.IsNotFound(err) {
				t.Errorf("list of an unestablished CRD: %v", err)
			}
		})
	}
	// Once the holder of the names goes, the waiting CRDs take them.
	if err := crds.Delete(ctx, "alphas.names.example.com", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"betas.names.example.com", "gammas.names.example.com"} {
		waitFor(t, func() bool {
			return conditions(name) == "NamesAccepted=True/NoConflicts: no conflicts found; Established=True/InitialNamesAccepted: the initial names have been accepted"
		})
	}
	if _, err := dyn.Resource(schema.GroupVersionResource{Group: "names.example.com", Version: "v1", Resource: "betas"}).Namespace("default").List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("list after names accepted: %v", err)
	}
}

func TestDeprecatedCRDVersionsWarn(t *testing.T) {
	t.Parallel()
	crd := &apiextensionsv1.CustomResourceDefinition{
		TypeMeta:   metav1.TypeMeta{APIVersion: "apiextensions.k8s.io/v1", Kind: "CustomResourceDefinition"},
		ObjectMeta: metav1.ObjectMeta{Name: "olds.dep.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "dep.example.com", Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "olds", Singular: "old", Kind: "Old", ListKind: "OldList"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{
				{Name: "v1alpha1", Served: true, Deprecated: true, Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}},
				{Name: "v1beta1", Served: true, Deprecated: true, DeprecationWarning: ptr.To("custom warning here"), Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}},
				{Name: "v1", Served: true, Storage: true, Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object"}}},
			},
		},
	}
	cp := fakeplane.Start(t, fakeplane.WithObjects(crd))
	rc := clientset(t, cp).CoreV1().RESTClient()
	for _, tc := range []struct{ path, want string }{
		{"/apis/dep.example.com/v1alpha1/namespaces/default/olds", "dep.example.com/v1alpha1 Old is deprecated; use dep.example.com/v1 Old"},
		{"/apis/dep.example.com/v1alpha1/namespaces/default/olds/missing", "dep.example.com/v1alpha1 Old is deprecated; use dep.example.com/v1 Old"},
		{"/apis/dep.example.com/v1beta1/namespaces/default/olds", "custom warning here"},
		{"/apis/dep.example.com/v1/namespaces/default/olds", ""},
	} {
		res := rc.Get().AbsPath(tc.path).Do(ctxT(t))
		var got []string
		for _, w := range res.Warnings() {
			got = append(got, w.Text)
		}
		if strings.Join(got, "|") != tc.want {
			t.Errorf("%s: warnings %q, want %q", tc.path, got, tc.want)
		}
	}
}

// TestCRDDecodingDefaultsAreTheWritersFields: kube-apiserver defaults a
// CustomResourceDefinition as it decodes it, before it records the
// writer's managedFields, so the writer owns spec.conversion's default
// (recorded from refplane: f:conversion {".", f:strategy}).
func TestCRDDecodingDefaultsAreTheWritersFields(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	body := `{"apiVersion":"apiextensions.k8s.io/v1","kind":"CustomResourceDefinition","metadata":{"name":"widgets.d.example.com"},"spec":{"group":"d.example.com","names":{"plural":"widgets","singular":"widget","kind":"Widget","listKind":"WidgetList"},"scope":"Namespaced","versions":[{"name":"v1","served":true,"storage":true,"schema":{"openAPIV3Schema":{"type":"object","x-kubernetes-preserve-unknown-fields":true}}}]}}`
	code, _, out := rawRequest(t, cp, "POST", "/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldManager=me", "application/json", []byte(body), nil)
	var def apiextensionsv1.CustomResourceDefinition
	if err := json.Unmarshal(out, &def); code != 201 || err != nil {
		t.Fatalf("create: %d %v %s", code, err, out)
	}
	if def.Spec.Conversion == nil || def.Spec.Conversion.Strategy != apiextensionsv1.NoneConverter {
		t.Errorf("conversion %+v, want the None default", def.Spec.Conversion)
	}
	for _, e := range def.ManagedFields {
		if e.Manager == "me" {
			if !strings.Contains(string(e.FieldsV1.Raw), `"f:conversion":{".":{},"f:strategy":{}}`) {
				t.Errorf("the writer's fields lack the conversion default: %s", e.FieldsV1.Raw)
			}
			return
		}
	}
	t.Errorf("no entry of the writer in %+v", def.ManagedFields)
}

// createEstablishedCRD creates a CRD and reads it back: the create answers
// it as created, before the naming and establishing controllers' status
// writes, whose resourceVersion an update must name.
func createEstablishedCRD(ctx context.Context, crds dynamic.NamespaceableResourceInterface, def *unstructured.Unstructured) (*unstructured.Unstructured, error) {
	if _, err := crds.Create(ctx, def, metav1.CreateOptions{}); err != nil {
		return nil, err
	}
	return crds.Get(ctx, def.GetName(), metav1.GetOptions{})
}

// TestCRDCreateThenEstablishedAsKubeAPIServer checks a CRD's create as
// kube-apiserver answers it (recorded from v1.37 with a watch): the create
// answers the CRD as the strategy left it (no conditions, empty accepted
// names, its stored version), and a watch then sees the naming
// controller's write (NamesAccepted, Established=False "Installing") and
// the establishing controller's (Established=True), each with
// kube-apiserver's status entry in managedFields. fakeplane makes both
// writes before the create answers, so a client finds it established.
func TestCRDCreateThenEstablishedAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	crds := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	w, err := crds.Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=crontabs.stable.example.com"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	// state is a CRD's status in short: its conditions, accepted plural,
	// stored versions and the managers of its managedFields, by name. The
	// entries' own order is upstream's sort, by the second of their time
	// first, so it depends on whether the create and the controllers'
	// writes fell in one second; state checks that order apart.
	state := func(u *unstructured.Unstructured) string {
		var def apiextensionsv1.CustomResourceDefinition
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(u.Object, &def); err != nil {
			t.Fatal(err)
		}
		var parts []string
		for _, c := range def.Status.Conditions {
			parts = append(parts, string(c.Type)+"="+string(c.Status)+"/"+c.Reason)
		}
		parts = append(parts, "plural="+def.Status.AcceptedNames.Plural, "stored="+strings.Join(def.Status.StoredVersions, ","))
		if !slices.IsSortedFunc(def.ManagedFields, compareManagedFieldsEntries) {
			t.Errorf("managedFields not in upstream's order: %+v", def.ManagedFields)
		}
		var managers []string
		for _, m := range def.ManagedFields {
			managers = append(managers, "manager="+m.Manager+"/"+m.Subresource)
		}
		slices.Sort(managers)
		return strings.Join(append(parts, managers...), " ")
	}
	created, err := crds.Create(ctx, crontabCRD(), metav1.CreateOptions{FieldManager: "test"})
	if err != nil {
		t.Fatal(err)
	}
	if got, want := state(created), "plural= stored=v1 manager=test/"; got != want {
		t.Errorf("create answered %q, want %q", got, want)
	}
	got, err := crds.Get(ctx, "crontabs.stable.example.com", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	established := "NamesAccepted=True/NoConflicts Established=True/InitialNamesAccepted plural=crontabs stored=v1 manager=kube-apiserver/status manager=test/"
	if s := state(got); s != established {
		t.Errorf("after the create: %q, want %q", s, established)
	}
	want := []string{
		"ADDED plural= stored=v1 manager=test/",
		"MODIFIED NamesAccepted=True/NoConflicts Established=False/Installing plural=crontabs stored=v1 manager=kube-apiserver/status manager=test/",
		"MODIFIED " + established,
	}
	for i, w1 := range want {
		select {
		case ev := <-w.ResultChan():
			if s := string(ev.Type) + " " + state(ev.Object.(*unstructured.Unstructured)); s != w1 {
				t.Fatalf("event %d: %q, want %q", i, s, w1)
			}
		case <-ctx.Done():
			t.Fatalf("no event %d (%s)", i, w1)
		}
	}
}

// compareManagedFieldsEntries orders managedFields entries as upstream's
// field manager sorts them when it encodes them: by operation, then by the
// second of their time, then by manager, API version and subresource.
func compareManagedFieldsEntries(p, q metav1.ManagedFieldsEntry) int {
	second := func(e metav1.ManagedFieldsEntry) int64 {
		if e.Time == nil {
			return 0
		}
		return e.Time.Unix()
	}
	return cmp.Or(
		cmp.Compare(p.Operation, q.Operation),
		cmp.Compare(second(p), second(q)),
		cmp.Compare(p.Manager, q.Manager),
		cmp.Compare(p.APIVersion, q.APIVersion),
		cmp.Compare(p.Subresource, q.Subresource),
	)
}
