package fakeplane_test

import (
	"fmt"
	"strings"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"sigs.k8s.io/yaml"

	"github.com/fakeplane/fakeplane"
)

// celCRDYAML is a namespaced CRD "<plural>.cel.example.com" whose spec has
// the given properties (YAML, indented for that spot) and rules.
func celCRDYAML(plural, specProps string, rules ...string) string {
	var b strings.Builder
	for _, r := range rules {
		fmt.Fprintf(&b, "            - rule: %q\n", r)
	}
	return fmt.Sprintf(`apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata:
  name: %[1]s.cel.example.com
spec:
  group: cel.example.com
  scope: Namespaced
  names: {plural: %[1]s, kind: K%[1]s}
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
            x-kubernetes-validations:
%[2]s            properties:
%[3]s`, plural, b.String(), specProps)
}

// TestCELRuleExamples runs the rule examples of the CRD page (checklist 3.3):
// each compiles, accepts a conforming object and rejects another. Rules over
// lists get maxItems/maxLength bounds: without them the cost estimate
// refuses them, as on a real server (see TestCELCostExamples).
func TestCELRuleExamples(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	dyn := dynamic.NewForConfigOrDie(cp.RESTConfig())
	crds := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	for i, tc := range []struct {
		rule       string
		props      string
		good, bad  string // spec YAML
		badMessage string
		// refused is set when kube-apiserver v1.37 refuses the CRD itself
		// (checked against a real server): the cost estimate of this seed
		// example exceeds the budget even with small bounds.
		refused string
	}{
		{rule: "self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas",
			props: "              minReplicas: {type: integer}\n              replicas: {type: integer}\n              maxReplicas: {type: integer}\n",
			good:  "{minReplicas: 1, replicas: 2, maxReplicas: 3}", bad: "{minReplicas: 1, replicas: 5, maxReplicas: 3}",
			// v1.37 no longer prints the seed's `"object"` value.
			badMessage: `spec: Invalid value: failed rule: self.minReplicas <= self.replicas && self.replicas <= self.maxReplicas`},
		{rule: "'Available' in self.stateCounts",
			props: "              stateCounts: {type: object, additionalProperties: {type: integer}}\n",
			good:  "{stateCounts: {Available: 1}}", bad: "{stateCounts: {Pending: 1}}"},
		{rule: "(size(self.list1) == 0) != (size(self.list2) == 0)",
			props: "              list1: {type: array, items: {type: string}}\n              list2: {type: array, items: {type: string}}\n",
			good:  "{list1: [a], list2: []}", bad: "{list1: [a], list2: [b]}"},
		{rule: "!('MY_KEY' in self.map1) || self.map1['MY_KEY'].matches('^[a-zA-Z]*$')",
			props: "              map1: {type: object, additionalProperties: {type: string}}\n",
			good:  "{map1: {MY_KEY: abc}}", bad: "{map1: {MY_KEY: a1}}"},
		{rule: "self.envars.filter(e, e.name == 'MY_ENV').all(e, e.value.matches('^[a-zA-Z]*$'))",
			props:   "              envars: {type: array, maxItems: 10, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, required: [name], properties: {name: {type: string, maxLength: 64}, value: {type: string, maxLength: 64}}}}\n",
			refused: "Forbidden: estimated rule cost exceeds budget by factor of more than 100x"},
		{rule: "has(self.expired) && self.created + self.ttl < self.expired",
			props: "              created: {type: string, format: date-time}\n              ttl: {type: string, format: duration}\n              expired: {type: string, format: date-time}\n",
			good:  "{created: '2026-01-01T00:00:00Z', ttl: 1h, expired: '2026-01-02T00:00:00Z'}", bad: "{created: '2026-01-01T00:00:00Z', ttl: 48h, expired: '2026-01-02T00:00:00Z'}"},
		{rule: "self.health.startsWith('ok')",
			props: "              health: {type: string}\n", good: "{health: okay}", bad: "{health: bad}"},
		{rule: "self.widgets.exists(w, w.key == 'x' && w.foo < 10)",
			props: "              widgets: {type: array, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [key], items: {type: object, required: [key], properties: {key: {type: string}, foo: {type: integer}}}}\n",
			good:  "{widgets: [{key: x, foo: 5}]}", bad: "{widgets: [{key: x, foo: 50}]}"},
		{rule: "self.set1.all(e, !(e in self.set2))",
			props: "              set1: {type: array, maxItems: 10, x-kubernetes-list-type: set, items: {type: string, maxLength: 10}}\n              set2: {type: array, maxItems: 10, x-kubernetes-list-type: set, items: {type: string, maxLength: 10}}\n",
			good:  "{set1: [a], set2: [b]}", bad: "{set1: [a], set2: [a]}"},
		{rule: "size(self.names) == size(self.details) && self.names.all(n, n in self.details)",
			props: "              names: {type: array, x-kubernetes-list-type: set, items: {type: string}}\n              details: {type: object, additionalProperties: {type: string}}\n",
			good:  "{names: [a], details: {a: x}}", bad: "{names: [a], details: {b: x}}"},
		{rule: "size(self.clusters.filter(c, c.name == self.primary)) == 1",
			props: "              primary: {type: string, maxLength: 10}\n              clusters: {type: array, maxItems: 10, x-kubernetes-list-type: map, x-kubernetes-list-map-keys: [name], items: {type: object, required: [name], properties: {name: {type: string, maxLength: 10}}}}\n",
			good:  "{primary: a, clusters: [{name: a}, {name: b}]}", bad: "{primary: c, clusters: [{name: a}]}"},
	} {
		plural := fmt.Sprintf("rule%ds", i)
		t.Run(tc.rule, func(t *testing.T) {
			crd := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(celCRDYAML(plural, tc.props, tc.rule)), &crd.Object); err != nil {
				t.Fatal(err)
			}
			_, err := crds.Create(ctx, crd, metav1.CreateOptions{})
			if tc.refused != "" {
				if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.refused) {
					t.Errorf("want the CRD refused with %q, got %v", tc.refused, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("CRD refused: %v", err)
			}
			res := dyn.Resource(schema.GroupVersionResource{Group: "cel.example.com", Version: "v1", Resource: plural}).Namespace("default")
			mk := func(name, spec string) *unstructured.Unstructured {
				u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "cel.example.com/v1", "kind": "K" + plural, "metadata": map[string]any{"name": name}}}
				var s map[string]any
				if err := yaml.Unmarshal([]byte(spec), &s); err != nil {
					t.Fatal(err)
				}
				u.Object["spec"] = s
				return u
			}
			if _, err := res.Create(ctx, mk("good", tc.good), metav1.CreateOptions{}); err != nil {
				t.Errorf("conforming object refused: %v", err)
			}
			_, err = res.Create(ctx, mk("bad", tc.bad), metav1.CreateOptions{})
			if !apierrors.IsInvalid(err) {
				t.Fatalf("non-conforming object: want 422, got %v", err)
			}
			if tc.badMessage != "" && !strings.Contains(err.Error(), tc.badMessage) {
				t.Errorf("message %q lacks %q", err.Error(), tc.badMessage)
			}
		})
	}
}

// TestCELCostExamples runs the cost estimation examples of the CRD page
// (checklist 3.9): rules over unbounded data are refused when the CRD is
// written, bounded ones are accepted.
func TestCELCostExamples(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	crds := dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	for i, tc := range []struct {
		name  string
		foo   string // the foo property, YAML at its spot
		error string // "" when accepted
	}{
		{"(a) unbounded list of strings", "{type: array, items: {type: string}, x-kubernetes-validations: [{rule: \"self.all(x, x.contains('a string'))\"}]}",
			`spec.validation.openAPIV3Schema.properties[spec].properties[foo].x-kubernetes-validations[0].rule: Forbidden: estimated rule cost exceeds budget by factor of more than 100x (try simplifying the rule, or adding maxItems, maxProperties, and maxLength where arrays, maps, and strings are declared)`},
		{"(b) bounded list of strings", "{type: array, maxItems: 25, items: {type: string, maxLength: 10}, x-kubernetes-validations: [{rule: \"self.all(x, x.contains('a string'))\"}]}", ""},
		{"(c) the rule on the items", "{type: array, maxItems: 25, items: {type: string, maxLength: 10, x-kubernetes-validations: [{rule: \"self.contains('a string')\"}]}}", ""},
		{"(d) unbounded list of integers", "{type: array, items: {type: integer}, x-kubernetes-validations: [{rule: \"self.all(x, x == 5)\"}]}", ""},
		{"(e) unbounded list of lists of integers", "{type: array, items: {type: array, items: {type: integer}, x-kubernetes-validations: [{rule: \"self.all(x, x == 5)\"}]}}", "Forbidden: estimated rule cost exceeds budget"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			plural := fmt.Sprintf("cost%ds", i)
			doc := strings.Replace(celCRDYAML(plural, "              foo: "+tc.foo+"\n"), "            x-kubernetes-validations:\n", "", 1)
			crd := &unstructured.Unstructured{}
			if err := yaml.Unmarshal([]byte(doc), &crd.Object); err != nil {
				t.Fatal(err)
			}
			_, err := crds.Create(ctx, crd, metav1.CreateOptions{})
			switch {
			case tc.error == "" && err != nil:
				t.Errorf("refused: %v", err)
			case tc.error != "" && (!apierrors.IsInvalid(err) || !strings.Contains(err.Error(), tc.error)):
				t.Errorf("want 422 with %q, got %v", tc.error, err)
			}
		})
	}
}
