package fakeplane

import (
	"context"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane/registry"
)

var (
	configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	crdsGVR       = schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"}
	gadgetsGVR    = schema.GroupVersionResource{Group: "goapi.example.com", Version: "v1", Resource: "gadgets"}
)

// goAPIContext is a context carrying the admin user, as the HTTP
// authentication would set it for the admin kubeconfig.
func goAPIContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	t.Cleanup(cancel)
	return apirequest.WithUser(ctx, &user.DefaultInfo{Name: AdminUser, Groups: []string{AdminGroup, user.AllAuthenticated}})
}

// gadgetCRD is a namespaced CRD with a schema that bounds spec.size.
func gadgetCRD() *apiextensionsv1.CustomResourceDefinition {
	minSize, maxSize := 1.0, 5.0
	return &apiextensionsv1.CustomResourceDefinition{
		ObjectMeta: metav1.ObjectMeta{Name: "gadgets.goapi.example.com"},
		Spec: apiextensionsv1.CustomResourceDefinitionSpec{
			Group: "goapi.example.com",
			Scope: apiextensionsv1.NamespaceScoped,
			Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "gadgets", Singular: "gadget", Kind: "Gadget"},
			Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{
				Name: "v1", Served: true, Storage: true,
				Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{
					Type: "object",
					Properties: map[string]apiextensionsv1.JSONSchemaProps{
						"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{
							"size": {Type: "integer", Minimum: &minSize, Maximum: &maxSize},
						}},
					},
				}},
			}},
		},
	}
}

// TestRegistryRoundTrip creates, reads, updates, lists and deletes a
// built-in object and a custom resource through the Go API, and checks that
// HTTP clients see the same objects.
func TestRegistryRoundTrip(t *testing.T) {
	t.Parallel()
	cp := Start(t)
	reg := cp.srv.API()
	ctx := goAPIContext(t)
	cs := kubernetes.NewForConfigOrDie(cp.RESTConfig())

	t.Run("built-in", func(t *testing.T) {
		obj, err := reg.Create(ctx, configMapsGVR, &corev1.ConfigMap{
			ObjectMeta: metav1.ObjectMeta{Name: "rt", Namespace: "default"},
			Data:       map[string]string{"a": "1"},
		})
		if err != nil {
			t.Fatal(err)
		}
		created := obj.(*corev1.ConfigMap)
		if created.UID == "" || created.ResourceVersion == "" || created.CreationTimestamp.IsZero() || created.Kind != "ConfigMap" {
			t.Errorf("created: %+v", created)
		}
		overHTTP, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "rt", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if overHTTP.UID != created.UID || overHTTP.ResourceVersion != created.ResourceVersion {
			t.Errorf("over HTTP: %+v, through Go: %+v", overHTTP, created)
		}

		got, err := reg.Get(ctx, configMapsGVR, "default", "rt")
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(got, created) {
			t.Errorf("get: %+v, want %+v", got, created)
		}

		obj, err = reg.Update(ctx, configMapsGVR, "default", "rt", func(cur runtime.Object) (runtime.Object, error) {
			cm := cur.(*corev1.ConfigMap)
			cm.Data["b"] = "2"
			return cm, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		updated := obj.(*corev1.ConfigMap)
		if updated.Data["b"] != "2" || updated.ResourceVersion == created.ResourceVersion {
			t.Errorf("updated: %+v", updated)
		}

		// An object built from scratch, without a resourceVersion, replaces
		// whatever is current.
		if _, err := reg.Update(ctx, configMapsGVR, "default", "rt", func(runtime.Object) (runtime.Object, error) {
			return &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "rt", Namespace: "default"}, Data: map[string]string{"c": "3"}}, nil
		}); err != nil {
			t.Fatal(err)
		}

		list, err := reg.List(ctx, configMapsGVR, "default", metav1.ListOptions{FieldSelector: "metadata.name=rt"})
		if err != nil {
			t.Fatal(err)
		}
		cms := list.(*corev1.ConfigMapList)
		if len(cms.Items) != 1 || !reflect.DeepEqual(cms.Items[0].Data, map[string]string{"c": "3"}) || cms.ResourceVersion == "" {
			t.Errorf("list: %+v", cms)
		}

		if _, err := reg.Delete(ctx, configMapsGVR, "default", "rt", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := reg.Get(ctx, configMapsGVR, "default", "rt"); !apierrors.IsNotFound(err) {
			t.Errorf("get after delete: %v", err)
		}
		if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "rt", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get over HTTP after delete: %v", err)
		}
		if _, err := reg.Delete(ctx, configMapsGVR, "default", "rt", metav1.DeleteOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("second delete: %v", err)
		}
	})

	t.Run("custom resource", func(t *testing.T) {
		obj, err := reg.Create(ctx, crdsGVR, gadgetCRD())
		if err != nil {
			t.Fatal(err)
		}
		if crd := obj.(*apiextensionsv1.CustomResourceDefinition); len(crd.Status.Conditions) == 0 && crd.Spec.Versions[0].Name != "v1" {
			t.Errorf("crd: %+v", crd)
		}
		gadget := &unstructured.Unstructured{Object: map[string]any{
			"apiVersion": "goapi.example.com/v1", "kind": "Gadget",
			"metadata": map[string]any{"name": "g", "namespace": "default"},
			"spec":     map[string]any{"size": int64(2), "unknown": "pruned"},
		}}
		obj, err = reg.Create(ctx, gadgetsGVR, gadget)
		if err != nil {
			t.Fatal(err)
		}
		created := obj.(*unstructured.Unstructured)
		if _, found, _ := unstructured.NestedFieldNoCopy(created.Object, "spec", "unknown"); found || created.GetResourceVersion() == "" {
			t.Errorf("created: %v", created.Object)
		}
		dyn := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(gadgetsGVR).Namespace("default")
		overHTTP, err := dyn.Get(ctx, "g", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if !reflect.DeepEqual(overHTTP.Object, created.Object) {
			t.Errorf("over HTTP: %v, through Go: %v", overHTTP.Object, created.Object)
		}
		obj, err = reg.Update(ctx, gadgetsGVR, "default", "g", func(cur runtime.Object) (runtime.Object, error) {
			u := cur.(*unstructured.Unstructured)
			return u, unstructured.SetNestedField(u.Object, int64(3), "spec", "size")
		})
		if err != nil {
			t.Fatal(err)
		}
		if size, _, _ := unstructured.NestedInt64(obj.(*unstructured.Unstructured).Object, "spec", "size"); size != 3 {
			t.Errorf("updated: %v", obj)
		}
		list, err := reg.List(ctx, gadgetsGVR, "", metav1.ListOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if ul := list.(*unstructured.UnstructuredList); len(ul.Items) != 1 || ul.GetKind() != "GadgetList" || ul.GetResourceVersion() == "" {
			t.Errorf("list: %+v", ul)
		}
		if _, err := reg.Delete(ctx, gadgetsGVR, "default", "g", metav1.DeleteOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := dyn.Get(ctx, "g", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
			t.Errorf("get over HTTP after delete: %v", err)
		}
	})
}

// TestRegistryErrorsAsOverHTTP checks that the Go API fails as the REST API
// does: the same Status, code, reason, message and causes.
func TestRegistryErrorsAsOverHTTP(t *testing.T) {
	t.Parallel()
	cp := Start(t)
	reg := cp.srv.API()
	ctx := goAPIContext(t)
	cs := kubernetes.NewForConfigOrDie(cp.RESTConfig())

	same := func(t *testing.T, what string, goErr, httpErr error) {
		t.Helper()
		g, ok1 := goErr.(apierrors.APIStatus)
		h, ok2 := httpErr.(apierrors.APIStatus)
		if !ok1 || !ok2 {
			t.Fatalf("%s: Go %v, HTTP %v", what, goErr, httpErr)
		}
		gs, hs := g.Status(), h.Status()
		gs.TypeMeta, hs.TypeMeta = metav1.TypeMeta{}, metav1.TypeMeta{}
		if !reflect.DeepEqual(gs, hs) {
			t.Errorf("%s:\nGo   %+v\nHTTP %+v", what, gs, hs)
		}
	}

	bad := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Not_A_Name", Namespace: "default"}, Data: map[string]string{"bad key!": "x"}}
	_, goErr := reg.Create(ctx, configMapsGVR, bad.DeepCopy())
	_, httpErr := cs.CoreV1().ConfigMaps("default").Create(ctx, bad.DeepCopy(), metav1.CreateOptions{})
	if !apierrors.IsInvalid(goErr) || apierrors.ReasonForError(goErr) != metav1.StatusReasonInvalid || goErr.(apierrors.APIStatus).Status().Code != 422 {
		t.Errorf("invalid create: %v", goErr)
	}
	same(t, "invalid create", goErr, httpErr)

	if _, err := reg.Create(ctx, configMapsGVR, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ok", Namespace: "default"}}); err != nil {
		t.Fatal(err)
	}
	_, goErr = reg.Create(ctx, configMapsGVR, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ok", Namespace: "default"}})
	_, httpErr = cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ok", Namespace: "default"}}, metav1.CreateOptions{})
	same(t, "already exists", goErr, httpErr)

	_, goErr = reg.Update(ctx, configMapsGVR, "default", "ok", func(cur runtime.Object) (runtime.Object, error) {
		cm := cur.(*corev1.ConfigMap)
		cm.Data = map[string]string{"bad key!": "x"}
		return cm, nil
	})
	cur, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "ok", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Data = map[string]string{"bad key!": "x"}
	_, httpErr = cs.CoreV1().ConfigMaps("default").Update(ctx, cur, metav1.UpdateOptions{})
	same(t, "invalid update", goErr, httpErr)

	_, goErr = reg.Update(ctx, configMapsGVR, "default", "ok", func(cur runtime.Object) (runtime.Object, error) {
		cm := cur.(*corev1.ConfigMap)
		cm.ResourceVersion = "1"
		return cm, nil
	})
	cur.Data, cur.ResourceVersion = nil, "1"
	_, httpErr = cs.CoreV1().ConfigMaps("default").Update(ctx, cur, metav1.UpdateOptions{})
	same(t, "stale resourceVersion", goErr, httpErr)

	_, goErr = reg.Get(ctx, configMapsGVR, "default", "missing")
	_, httpErr = cs.CoreV1().ConfigMaps("default").Get(ctx, "missing", metav1.GetOptions{})
	same(t, "not found", goErr, httpErr)

	_, goErr = reg.Update(ctx, configMapsGVR, "default", "missing", func(cur runtime.Object) (runtime.Object, error) { return cur, nil })
	if !apierrors.IsNotFound(goErr) {
		t.Errorf("update of a missing object: %v", goErr)
	}

	if _, err := reg.Get(context.Background(), configMapsGVR, "default", "ok"); !apierrors.IsInternalError(err) {
		t.Errorf("a call without a user: %v", err)
	}
	if _, err := reg.Get(ctx, schema.GroupVersionResource{Group: "nowhere.example.com", Version: "v1", Resource: "things"}, "", "x"); !apierrors.IsNotFound(err) {
		t.Errorf("an unknown resource: %v", err)
	}
	if _, err := reg.Create(ctx, configMapsGVR, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "s", Namespace: "default"}}); !apierrors.IsBadRequest(err) {
		t.Errorf("a Secret given for configmaps: %v", err)
	}
}

// TestRegistryUpdateRetriesStale checks Update's GuaranteedUpdate contract:
// when the object changes between the read that fed tryUpdate and the
// commit, tryUpdate runs again on the newer object and nothing is lost.
func TestRegistryUpdateRetriesStale(t *testing.T) {
	t.Parallel()
	cp := Start(t)
	reg := cp.srv.API()
	ctx := goAPIContext(t)
	cms := kubernetes.NewForConfigOrDie(cp.RESTConfig()).CoreV1().ConfigMaps("default")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "race"}, Data: map[string]string{"start": "1"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var seen []string
	obj, err := reg.Update(ctx, configMapsGVR, "default", "race", func(cur runtime.Object) (runtime.Object, error) {
		cm := cur.(*corev1.ConfigMap)
		seen = append(seen, cm.ResourceVersion)
		if len(seen) == 1 {
			// Another client writes first: this attempt is now stale.
			other := cm.DeepCopy()
			other.Data["theirs"] = "1"
			if _, err := cms.Update(ctx, other, metav1.UpdateOptions{}); err != nil {
				t.Errorf("concurrent update: %v", err)
			}
		}
		cm.Data["ours"] = "1"
		return cm, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if len(seen) != 2 || seen[0] == seen[1] {
		t.Errorf("tryUpdate saw resourceVersions %v, want two different ones", seen)
	}
	if got := obj.(*corev1.ConfigMap).Data; !reflect.DeepEqual(got, map[string]string{"start": "1", "theirs": "1", "ours": "1"}) {
		t.Errorf("data after the retried update: %v", got)
	}
}

// TestRegistryFieldManager checks that a write with a field manager in its
// context records it in managedFields, as a write over HTTP does.
func TestRegistryFieldManager(t *testing.T) {
	t.Parallel()
	cp := Start(t)
	reg := cp.srv.API()
	ctx := registry.WithFieldManager(goAPIContext(t), "goapi-test")
	obj, err := reg.Create(ctx, configMapsGVR, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "fm", Namespace: "default"}, Data: map[string]string{"a": "1"}})
	if err != nil {
		t.Fatal(err)
	}
	mf := obj.(*corev1.ConfigMap).ManagedFields
	if len(mf) != 1 || mf[0].Manager != "goapi-test" || mf[0].Operation != metav1.ManagedFieldsOperationUpdate {
		t.Errorf("managedFields: %+v", mf)
	}
}

// TestRegistryUpdateSubresource checks writes through subresources: a
// namespace's spec.finalizers change through finalize only, its status
// through status only, and a subresource the resource lacks is refused.
func TestRegistryUpdateSubresource(t *testing.T) {
	t.Parallel()
	cp := Start(t)
	reg := cp.srv.API()
	ctx := goAPIContext(t)
	nsGVR := schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
	if _, err := reg.Create(ctx, nsGVR, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "goapi-sub"}}); err != nil {
		t.Fatal(err)
	}
	finalizers := func(want ...corev1.FinalizerName) registry.UpdateFunc {
		return func(cur runtime.Object) (runtime.Object, error) {
			ns := cur.(*corev1.Namespace)
			ns.Spec.Finalizers = want
			ns.Status.Conditions = append(ns.Status.Conditions, corev1.NamespaceCondition{Type: "Example", Status: corev1.ConditionTrue})
			return ns, nil
		}
	}
	obj, err := reg.Update(ctx, nsGVR, "", "goapi-sub", finalizers())
	if err != nil {
		t.Fatal(err)
	}
	if ns := obj.(*corev1.Namespace); len(ns.Spec.Finalizers) != 1 || len(ns.Status.Conditions) != 0 {
		t.Fatalf("an update changed spec.finalizers or status: %+v, %+v", ns.Spec, ns.Status)
	}
	obj, err = reg.UpdateSubresource(ctx, nsGVR, "finalize", "", "goapi-sub", finalizers("example.com/x"))
	if err != nil {
		t.Fatal(err)
	}
	if ns := obj.(*corev1.Namespace); !reflect.DeepEqual(ns.Spec.Finalizers, []corev1.FinalizerName{"example.com/x"}) || len(ns.Status.Conditions) != 0 {
		t.Fatalf("finalize: %+v, %+v", ns.Spec, ns.Status)
	}
	obj, err = reg.UpdateSubresource(ctx, nsGVR, "status", "", "goapi-sub", finalizers())
	if err != nil {
		t.Fatal(err)
	}
	if ns := obj.(*corev1.Namespace); len(ns.Spec.Finalizers) != 1 || len(ns.Status.Conditions) != 1 {
		t.Fatalf("status: %+v, %+v", ns.Spec, ns.Status)
	}
	if _, err := reg.UpdateSubresource(ctx, configMapsGVR, "status", "default", "kube-root-ca.crt", finalizers()); !apierrors.IsMethodNotSupported(err) && !apierrors.IsNotFound(err) {
		t.Fatalf("configmaps/status: %v, want MethodNotSupported or NotFound", err)
	}
	if _, err := reg.UpdateSubresource(ctx, nsGVR, "", "", "goapi-sub", finalizers()); !apierrors.IsBadRequest(err) {
		t.Fatalf("no subresource: %v, want BadRequest", err)
	}

	// Deleted, the namespace waits for example.com/x; finalized, it goes.
	if _, err := reg.Delete(ctx, nsGVR, "", "goapi-sub", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.UpdateSubresource(ctx, nsGVR, "finalize", "", "goapi-sub", finalizers()); err != nil {
		t.Fatal(err)
	}
	if _, err := reg.Get(ctx, nsGVR, "", "goapi-sub"); !apierrors.IsNotFound(err) {
		t.Fatalf("Get after finalize: %v, want NotFound", err)
	}
}
