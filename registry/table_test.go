package registry

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/internal/builtin"
)

// TestStrategiesMatchTheServedResources checks each registered strategy
// against the table of served built-in resources: the resource exists and
// the strategy's scope is the resource's.
func TestStrategiesMatchTheServedResources(t *testing.T) {
	scope := map[schema.GroupResource]bool{}
	for _, r := range builtin.Resources() {
		scope[schema.GroupResource{Group: r.Group, Resource: r.Resource}] = r.Namespaced
	}
	for gr, st := range strategies() {
		namespaced, ok := scope[gr]
		if !ok {
			t.Errorf("%s: a strategy for a resource that is not served", gr)
			continue
		}
		if st.NamespaceScoped() != namespaced {
			t.Errorf("%s: strategy NamespaceScoped %v, served namespaced %v", gr, st.NamespaceScoped(), namespaced)
		}
		if got, ok := For(gr); !ok || got != st {
			t.Errorf("%s: For does not return the registered strategy", gr)
		}
	}
	if _, ok := For(schema.GroupResource{Resource: "no-such-things"}); ok {
		t.Error("For found a strategy for an unknown resource")
	}
}
