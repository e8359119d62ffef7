package registry

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// TestDeclarativeValidators checks which strategies merge their errors with
// declarative validation (the resource.k8s.io/v1 kinds, as kube-apiserver
// v1.37's DeclarativeValidation gate does it for them, and the
// ReplicationController, whose name rule is declarative) and which of those
// validate writes to /status.
func TestDeclarativeValidators(t *testing.T) {
	declarative := map[schema.GroupResource]bool{
		{Group: "resource.k8s.io", Resource: "deviceclasses"}: true, {Group: "resource.k8s.io", Resource: "devicetaintrules"}: true,
		{Group: "resource.k8s.io", Resource: "resourceclaims"}: true, {Group: "resource.k8s.io", Resource: "resourceclaimtemplates"}: true,
		{Group: "resource.k8s.io", Resource: "resourceslices"}: true, {Group: "", Resource: "replicationcontrollers"}: true,
	}
	status := map[schema.GroupResource]bool{
		{Group: "resource.k8s.io", Resource: "devicetaintrules"}: true, {Group: "resource.k8s.io", Resource: "resourceclaims"}: true,
		{Group: "", Resource: "replicationcontrollers"}: true,
	}
	for gr, st := range strategies() {
		_, ok := st.(strategy.DeclarativeValidator)
		if ok != declarative[gr] {
			t.Errorf("%s: DeclarativeValidator %v, want %v", gr, ok, declarative[gr])
		}
		if !declarative[gr] {
			continue
		}
		if _, ok := st.(strategy.StatusStrategy); ok != status[gr] {
			t.Errorf("%s: StatusStrategy %v, want %v", gr, ok, status[gr])
		}
	}
}
