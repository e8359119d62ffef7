package registry

import (
	"testing"

	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/internal/builtin"
	"github.com/fakeplane/fakeplane/registry/strategy"
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

// TestStrategyFlags checks the strategies' Generation and ReturnDeleted
// against upstream's registry: which resources keep metadata.generation and
// which answer a delete with the deleted object.
func TestStrategyFlags(t *testing.T) {
	generation := map[string]bool{
		"admissionregistration.k8s.io/mutatingwebhookconfigurations": true, "admissionregistration.k8s.io/validatingwebhookconfigurations": true,
		"apps/daemonsets": true, "apps/deployments": true, "apps/replicasets": true, "apps/statefulsets": true,
		"autoscaling/horizontalpodautoscalers": true, "batch/cronjobs": true, "batch/jobs": true,
		"/pods": true, "/podtemplates": true, "/replicationcontrollers": true, "discovery.k8s.io/endpointslices": true,
		"networking.k8s.io/ingresses": true, "networking.k8s.io/ingressclasses": true, "networking.k8s.io/networkpolicies": true,
		"policy/poddisruptionbudgets": true, "scheduling.k8s.io/priorityclasses": true,
	}
	returnDeleted := map[string]bool{
		"/namespaces": true, "/persistentvolumes": true, "/persistentvolumeclaims": true, "/pods": true, "/podtemplates": true,
		"/resourcequotas": true, "/services": true, "storage.k8s.io/storageclasses": true,
	}
	for gr, st := range strategies() {
		key := gr.Group + "/" + gr.Resource
		g, _ := st.(strategy.GenerationTracker)
		if got := g != nil && g.TracksGeneration(); got != generation[key] {
			t.Errorf("%s: TracksGeneration %v, want %v", key, got, generation[key])
		}
		d, _ := st.(strategy.DeleteReturner)
		if got := d != nil && d.ReturnsDeletedObject(); got != returnDeleted[key] {
			t.Errorf("%s: ReturnsDeletedObject %v, want %v", key, got, returnDeleted[key])
		}
	}
}
