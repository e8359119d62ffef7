package registry

import (
	"cmp"
	"encoding/json"
	"fmt"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/managedfields"
	"k8s.io/utils/ptr"
)

// fieldManagerStep is one write in a sequence run through two field
// managers.
type fieldManagerStep struct {
	manager string
	apply   map[string]any // an apply patch, or
	update  func(live runtime.Object) runtime.Object
	force   bool
	// fails: the apply fails (a conflict with another manager, a
	// duplicate in a list).
	fails bool
}

// TestConvertingWithoutManagedFieldsChangesNoWrite runs sequences of
// creates, updates and applies (conflicting, forced, no-op, pruning) through
// the field managers the registry builds, which convert objects without
// their managedFields, and through upstream's field manager with the same
// type converter unwrapped: every result and error must be the same.
func TestConvertingWithoutManagedFieldsChangesNoWrite(t *testing.T) {
	reg, err := newServedResources()
	if err != nil {
		t.Fatal(err)
	}
	cmRes, _ := reg.Lookup("", "v1", "configmaps")
	deployRes, _ := reg.Lookup("apps", "v1", "deployments")
	crd := widgetCRD(apiextensionsv1.JSONSchemaProps{Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
		"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
			"size": {Type: "integer"},
			"tags": {Type: "array", XListType: ptr.To("set"), Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{Type: "string"}}},
			"parts": {Type: "array", XListType: ptr.To("map"), XListMapKeys: []string{"name"}, Items: &apiextensionsv1.JSONSchemaPropsOrArray{Schema: &apiextensionsv1.JSONSchemaProps{
				Type: "object", Required: []string{"name"}, Properties: map[string]apiextensionsv1.JSONSchemaProps{"name": {Type: "string"}, "count": {Type: "integer"}}}}},
		}},
	}})
	widget := &Resource{GVK: schema.GroupVersionKind{Group: "example.com", Version: "v1", Kind: "Widget"}, CRD: crd.Name, managed: newCRDFieldManagers(crd)}
	widgetTC, err := crdTypeConverter(crd)
	if err != nil {
		t.Fatal(err)
	}

	cmApply := func(data map[string]any, labels map[string]any) map[string]any {
		md := map[string]any{"name": "cm", "namespace": "ns"}
		if labels != nil {
			md["labels"] = labels
		}
		return map[string]any{"apiVersion": "v1", "kind": "ConfigMap", "metadata": md, "data": data}
	}
	deployApply := func(replicas int64, containers ...map[string]any) map[string]any {
		cs := make([]any, len(containers))
		for i, c := range containers {
			cs[i] = c
		}
		return map[string]any{"apiVersion": "apps/v1", "kind": "Deployment", "metadata": map[string]any{"name": "d", "namespace": "ns"},
			"spec": map[string]any{"replicas": replicas, "selector": map[string]any{"matchLabels": map[string]any{"app": "d"}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"app": "d"}},
					"spec": map[string]any{"containers": cs}}}}
	}
	widgetApply := func(spec map[string]any) map[string]any {
		return map[string]any{"apiVersion": "example.com/v1", "kind": "Widget", "metadata": map[string]any{"name": "w", "namespace": "ns"}, "spec": spec}
	}

	for _, tc := range []struct {
		name  string
		res   *Resource
		plain managedfields.TypeConverter // nil: the built-in types' converter
		empty func() runtime.Object
		steps []fieldManagerStep
	}{
		{
			name: "ConfigMap",
			res:  cmRes,
			empty: func() runtime.Object {
				return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"}}
			},
			steps: []fieldManagerStep{
				{manager: "creator", update: func(runtime.Object) runtime.Object {
					return &corev1.ConfigMap{TypeMeta: metav1.TypeMeta{APIVersion: "v1", Kind: "ConfigMap"},
						ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "ns", Labels: map[string]string{"a": "1"}}, Data: map[string]string{"x": "1", "y": "2"}}
				}},
				{manager: "a1", apply: cmApply(map[string]any{"x": "1", "z": "3"}, map[string]any{"a": "1"})},
				{manager: "a2", apply: cmApply(map[string]any{"z": "4"}, nil), fails: true},
				{manager: "a2", apply: cmApply(map[string]any{"z": "4"}, nil), force: true},
				{manager: "updater", update: func(live runtime.Object) runtime.Object {
					cm := live.DeepCopyObject().(*corev1.ConfigMap)
					delete(cm.Data, "y")
					cm.Data["u"] = "5"
					return cm
				}},
				{manager: "a1", apply: cmApply(map[string]any{"x": "1", "z": "3"}, map[string]any{"a": "1"}), fails: true},
				{manager: "a1", apply: cmApply(map[string]any{"x": "1", "z": "3"}, map[string]any{"a": "1"}), force: true},
				{manager: "a1", apply: cmApply(map[string]any{"x": "1", "z": "3"}, map[string]any{"a": "1"}), force: true},
				{manager: "a1", apply: cmApply(map[string]any{"x": "2"}, nil), fails: true},
				{manager: "a1", apply: cmApply(map[string]any{"x": "2"}, nil), force: true},
				{manager: "resetter", update: func(live runtime.Object) runtime.Object {
					cm := live.DeepCopyObject().(*corev1.ConfigMap)
					cm.ManagedFields = []metav1.ManagedFieldsEntry{}
					return cm
				}},
				{manager: "a1", apply: cmApply(map[string]any{"x": "3"}, nil), fails: true},
				{manager: "a1", apply: cmApply(map[string]any{"x": "3"}, nil), force: true},
				{manager: "setter", update: func(live runtime.Object) runtime.Object {
					cm := live.DeepCopyObject().(*corev1.ConfigMap)
					cm.ManagedFields = []metav1.ManagedFieldsEntry{{Manager: "other", Operation: metav1.ManagedFieldsOperationApply, APIVersion: "v1",
						FieldsType: "FieldsV1", FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{"f:x":{}}}`)}}}
					cm.Data["x"] = "9"
					return cm
				}},
				{manager: "a1", apply: cmApply(map[string]any{"x": "3"}, nil), fails: true},
				{manager: "a1", apply: cmApply(map[string]any{"x": "3", "w": "1"}, nil), force: true},
			},
		},
		{
			name: "Deployment",
			res:  deployRes,
			empty: func() runtime.Object {
				return &appsv1.Deployment{TypeMeta: metav1.TypeMeta{APIVersion: "apps/v1", Kind: "Deployment"}}
			},
			steps: []fieldManagerStep{
				{manager: "a1", apply: deployApply(2, map[string]any{"name": "c1", "image": "i1"}, map[string]any{"name": "c2", "image": "i2"})},
				{manager: "a2", apply: deployApply(3, map[string]any{"name": "c2", "image": "other"}), fails: true},
				{manager: "a2", apply: deployApply(3, map[string]any{"name": "c3", "image": "i3"}), force: true},
				{manager: "scaler", update: func(live runtime.Object) runtime.Object {
					d := live.DeepCopyObject().(*appsv1.Deployment)
					n := int32(7)
					d.Spec.Replicas = &n
					d.Spec.Template.Spec.Containers = d.Spec.Template.Spec.Containers[1:]
					return d
				}},
				{manager: "a1", apply: deployApply(2, map[string]any{"name": "c1", "image": "i1"}), fails: true},
				{manager: "a1", apply: deployApply(2, map[string]any{"name": "c1", "image": "i1"}), force: true},
				{manager: "a1", apply: deployApply(2, map[string]any{"name": "c1", "image": "i1"}, map[string]any{"name": "c1", "image": "dup"}), fails: true},
			},
		},
		{
			name:  "custom resource",
			res:   widget,
			plain: widgetTC,
			empty: func() runtime.Object {
				u := &unstructured.Unstructured{Object: map[string]any{}}
				u.SetAPIVersion("example.com/v1")
				u.SetKind("Widget")
				return u
			},
			steps: []fieldManagerStep{
				{manager: "a1", apply: widgetApply(map[string]any{"size": int64(1), "tags": []any{"a", "b"},
					"parts": []any{map[string]any{"name": "p1", "count": int64(1)}, map[string]any{"name": "p2"}}})},
				{manager: "a2", apply: widgetApply(map[string]any{"size": int64(2), "tags": []any{"c"}}), fails: true},
				{manager: "a2", apply: widgetApply(map[string]any{"size": int64(2), "tags": []any{"c"}, "parts": []any{map[string]any{"name": "p3"}}}), force: true},
				{manager: "updater", update: func(live runtime.Object) runtime.Object {
					u := live.DeepCopyObject().(*unstructured.Unstructured)
					u.Object["spec"].(map[string]any)["tags"] = []any{"a", "d"}
					return u
				}},
				{manager: "a1", apply: widgetApply(map[string]any{"tags": []any{"a"}, "parts": []any{map[string]any{"name": "p1", "count": int64(2)}}})},
				{manager: "a1", apply: widgetApply(map[string]any{"tags": []any{"a"}, "parts": []any{map[string]any{"name": "p1", "count": int64(2)}}})},
				{manager: "a1", apply: widgetApply(map[string]any{"tags": []any{"x", "x"}}), fails: true},
			},
		},
	} {
		t.Run(tc.name, func(t *testing.T) {
			stripping, err := tc.res.FieldManager("")
			if err != nil {
				t.Fatal(err)
			}
			conv := &objectConvertor{res: tc.res}
			newFM := managedfields.NewDefaultFieldManager
			if tc.res.CRD != "" {
				newFM = managedfields.NewDefaultCRDFieldManager
			}
			plainTC := tc.plain
			if plainTC == nil {
				plainTC = builtinTypeConverter()
			}
			plain, err := newFM(plainTC, conv, conv, conv, tc.res.GVK, tc.res.GVK.GroupVersion(), "", nil)
			if err != nil {
				t.Fatal(err)
			}
			liveS, liveP := tc.empty(), tc.empty()
			for i, step := range tc.steps {
				var outS, outP runtime.Object
				var errS, errP error
				if step.apply != nil {
					outS, errS = stripping.Apply(liveS, &unstructured.Unstructured{Object: runtime.DeepCopyJSON(step.apply)}, step.manager, step.force)
					outP, errP = plain.Apply(liveP, &unstructured.Unstructured{Object: runtime.DeepCopyJSON(step.apply)}, step.manager, step.force)
				} else {
					outS = stripping.UpdateNoErrors(liveS, step.update(liveS), step.manager)
					outP = plain.UpdateNoErrors(liveP, step.update(liveP), step.manager)
				}
				if fmt.Sprint(errS) != fmt.Sprint(errP) {
					t.Fatalf("step %d (%s): error %v, upstream's converter gives %v", i, step.manager, errS, errP)
				}
				if (errS != nil) != step.fails {
					t.Fatalf("step %d (%s): error %v, want an error: %v", i, step.manager, errS, step.fails)
				}
				if errS != nil {
					continue
				}
				if gs, gp := timeless(t, outS), timeless(t, outP); gs != gp {
					t.Fatalf("step %d (%s):\n got %s\nwant %s", i, step.manager, gs, gp)
				}
				liveS, liveP = outS, outP
			}
			if len(mustAccessor(t, liveS).GetManagedFields()) == 0 {
				t.Fatal("the sequence recorded no managed fields")
			}
		})
	}
}

// timeless is obj's JSON with its managedFields' times cleared and the
// entries in an order that does not depend on them.
func timeless(t *testing.T, obj runtime.Object) string {
	t.Helper()
	obj = obj.DeepCopyObject()
	acc := mustAccessor(t, obj)
	mf := acc.GetManagedFields()
	for i := range mf {
		mf[i].Time = nil
	}
	// The field manager orders entries by time (to the second) before their
	// manager: two runs a moment apart can straddle a second and order them
	// differently, so the order is the manager's here.
	slices.SortStableFunc(mf, func(a, b metav1.ManagedFieldsEntry) int {
		return cmp.Or(cmp.Compare(a.Operation, b.Operation), cmp.Compare(a.Manager, b.Manager), cmp.Compare(a.Subresource, b.Subresource))
	})
	acc.SetManagedFields(mf)
	b, err := json.Marshal(obj)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustAccessor(t *testing.T, obj runtime.Object) metav1.Object {
	t.Helper()
	acc, err := meta.Accessor(obj)
	if err != nil {
		t.Fatal(err)
	}
	return acc
}

// TestWithoutManagedFieldsLeavesTheObject checks that the converted copy
// drops managedFields without touching the object it copies, and that an
// object whose fieldsV1 would not convert is left whole.
func TestWithoutManagedFieldsLeavesTheObject(t *testing.T) {
	entry := metav1.ManagedFieldsEntry{Manager: "m", Operation: metav1.ManagedFieldsOperationUpdate, APIVersion: "v1", FieldsType: "FieldsV1",
		FieldsV1: &metav1.FieldsV1{Raw: []byte(`{"f:data":{}}`)}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", ManagedFields: []metav1.ManagedFieldsEntry{entry}}, Data: map[string]string{"a": "b"}}
	out := withoutManagedFields(cm).(*corev1.ConfigMap)
	if out == cm || out.ManagedFields != nil || out.Name != "cm" || out.Data["a"] != "b" {
		t.Errorf("typed copy: %+v", out)
	}
	if len(cm.ManagedFields) != 1 {
		t.Errorf("the original lost its managedFields")
	}

	u := &unstructured.Unstructured{Object: map[string]any{"metadata": map[string]any{"name": "w",
		"managedFields": []any{map[string]any{"manager": "m", "fieldsV1": map[string]any{"f:spec": map[string]any{}}}}}}}
	uo := withoutManagedFields(u).(*unstructured.Unstructured)
	if _, has := uo.Object["metadata"].(map[string]any)["managedFields"]; has || uo.GetName() != "w" {
		t.Errorf("unstructured copy: %v", uo.Object)
	}
	if len(u.GetManagedFields()) != 1 {
		t.Errorf("the original unstructured object lost its managedFields")
	}

	for _, raw := range []string{`"x"`, `[1]`, ``} {
		bad := cm.DeepCopy()
		bad.ManagedFields[0].FieldsV1.Raw = []byte(raw)
		if got := withoutManagedFields(bad); got != runtime.Object(bad) {
			t.Errorf("fieldsV1 %q: converted a copy, want the object itself", raw)
		}
	}
	plain := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm"}}
	if got := withoutManagedFields(plain); got != runtime.Object(plain) {
		t.Errorf("an object without managedFields was copied")
	}
}
