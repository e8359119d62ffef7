package fakeplane_test

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"

	"github.com/fakeplane/fakeplane"
)

// widgetCRD returns the YAML of a small namespaced CRD named after i.
func widgetCRD(i int) string {
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: widgets%d.example.com
spec:
  group: example.com
  scope: Namespaced
  names: {plural: widgets%d, singular: widget%d, kind: Widget%d}
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec:
            type: object
            properties:
              size: {type: integer, default: 3}
`, i, i, i, i)
}

func TestFixturesLoadCRDsThenObjects(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	// Objects before their CRD and namespace in file order: loading orders them.
	files := map[string]string{
		"a-objects.yaml": "apiVersion: example.com/v1\nkind: Widget0\nmetadata: {name: w, namespace: team}\nspec: {}\n---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: settings, namespace: team}\ndata: {k: v}\n",
		"b-ns.yaml":      "apiVersion: v1\nkind: Namespace\nmetadata: {name: team}\n",
		"c-crd.yaml":     widgetCRD(0),
		"notes.txt":      "not loaded",
	}
	for name, content := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(content), 0o600); err != nil {
			t.Fatal(err)
		}
	}
	crdDir := t.TempDir()
	_ = os.WriteFile(filepath.Join(crdDir, "crd.yaml"), []byte(widgetCRD(1)+"---\napiVersion: v1\nkind: ConfigMap\nmetadata: {name: ignored}\n"), 0o600)
	cp := fakeplane.Start(t, fakeplane.WithFixtures(dir), fakeplane.WithCRDs(crdDir),
		fakeplane.WithObjects(&corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "from-go", Namespace: "team"}}))
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	w, err := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets0"}).Namespace("team").Get(ctx, "w", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if size, _, _ := unstructuredInt(w.Object, "spec", "size"); size != 3 {
		t.Errorf("fixture object not defaulted: %v", w.Object)
	}
	cs := clientset(t, cp)
	for _, name := range []string{"settings", "from-go"} {
		if _, err := cs.CoreV1().ConfigMaps("team").Get(ctx, name, metav1.GetOptions{}); err != nil {
			t.Errorf("configmap %s: %v", name, err)
		}
	}
	if _, err := cs.CoreV1().ConfigMaps("default").Get(ctx, "ignored", metav1.GetOptions{}); err == nil {
		t.Error("WithCRDs loaded a non-CRD object")
	}
	if _, err := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets1"}).List(ctx, metav1.ListOptions{}); err != nil {
		t.Errorf("CRD from WithCRDs not served: %v", err)
	}
}

func TestFixtureErrorsNameTheFile(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	_ = os.WriteFile(filepath.Join(dir, "bad.yaml"), []byte("apiVersion: v1\nkind: ConfigMap\nmetadata: {name: Bad_Name}\n"), 0o600)
	cp, err := fakeplane.New(fakeplane.WithFixtures(dir))
	if err != nil {
		t.Fatal(err)
	}
	err = cp.Start(ctxT(t))
	defer cp.Stop()
	if err == nil || !strings.Contains(err.Error(), "bad.yaml (document 1)") || !strings.Contains(err.Error(), "is invalid") {
		t.Errorf("error: %v", err)
	}
}

func unstructuredInt(m map[string]any, path ...string) (int64, bool, error) {
	var cur any = m
	for _, p := range path {
		mm, ok := cur.(map[string]any)
		if !ok {
			return 0, false, nil
		}
		cur = mm[p]
	}
	n, ok := cur.(int64)
	return n, ok, nil
}
