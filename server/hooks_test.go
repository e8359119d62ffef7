package server

import (
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"

	"github.com/fakeplane/fakeplane/registry"
)

func TestFieldValue(t *testing.T) {
	obj := map[string]any{
		"spec":   map[string]any{"nodeName": "n1", "hostNetwork": true},
		"status": map[string]any{"podIPs": []any{map[string]any{"ip": "10.0.0.5"}}},
		"source": map[string]any{"component": "kubelet"},
	}
	for label, want := range map[string]string{
		"spec.nodeName":      "n1",
		"spec.hostNetwork":   "true",
		"spec.unschedulable": "false",
		"status.replicas":    "0",
		"status.phase":       "",
		"status.podIPs":      "10.0.0.5",
		"source":             "kubelet",
	} {
		if got := fieldValue(obj, label); got != want {
			t.Errorf("fieldValue(%s) = %q, want %q", label, got, want)
		}
	}
}

// TestFlagSetsLeaveStrategiesAlone checks that the server's sets of
// resources that keep metadata.generation, answer a delete with the object,
// refuse unconditional updates or create on update name no resource with a
// strategy: the strategy says it.
func TestFlagSetsLeaveStrategiesAlone(t *testing.T) {
	for _, set := range []sets.Set[string]{generationResources, returnDeletedResources, conditionalUpdateResources, createOnUpdateResources} {
		for key := range set {
			group, res, _ := strings.Cut(key, "/")
			if _, ok := registry.For(schema.GroupResource{Group: group, Resource: res}); ok {
				t.Errorf("%s has a strategy, which says it", key)
			}
		}
	}
}
