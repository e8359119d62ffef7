package registry

import (
	"context"
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
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

// TestStrategyFlags checks the strategies' flags against upstream's
// registry: which resources keep metadata.generation, which answer a delete
// with the deleted object, which create on update and which refuse an
// update without metadata.resourceVersion. Two differences from upstream
// are kept as the server had them: CSIDrivers do not keep
// metadata.generation, and v1 DeviceTaintRules allow unconditional updates.
func TestStrategyFlags(t *testing.T) {
	generation := map[string]bool{
		"admissionregistration.k8s.io/mutatingwebhookconfigurations": true, "admissionregistration.k8s.io/validatingwebhookconfigurations": true,
		"apps/daemonsets": true, "apps/deployments": true, "apps/replicasets": true, "apps/statefulsets": true,
		"autoscaling/horizontalpodautoscalers": true, "batch/cronjobs": true, "batch/jobs": true,
		"/pods": true, "/podtemplates": true, "/replicationcontrollers": true, "discovery.k8s.io/endpointslices": true,
		"networking.k8s.io/ingresses": true, "networking.k8s.io/ingressclasses": true, "networking.k8s.io/networkpolicies": true,
		"policy/poddisruptionbudgets": true, "scheduling.k8s.io/priorityclasses": true,
		"admissionregistration.k8s.io/mutatingadmissionpolicies": true, "admissionregistration.k8s.io/mutatingadmissionpolicybindings": true,
		"admissionregistration.k8s.io/validatingadmissionpolicies": true, "admissionregistration.k8s.io/validatingadmissionpolicybindings": true,
		"flowcontrol.apiserver.k8s.io/flowschemas": true, "flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": true,
		"resource.k8s.io/deviceclasses": true, "resource.k8s.io/devicetaintrules": true, "resource.k8s.io/resourceslices": true,
	}
	returnDeleted := map[string]bool{
		"/namespaces": true, "/persistentvolumes": true, "/persistentvolumeclaims": true, "/pods": true, "/podtemplates": true,
		"/resourcequotas": true, "/services": true, "storage.k8s.io/storageclasses": true,
		"/serviceaccounts": true, "resource.k8s.io/deviceclasses": true,
		"resource.k8s.io/resourceclaims": true, "resource.k8s.io/resourceclaimtemplates": true, "resource.k8s.io/resourceslices": true,
		"storage.k8s.io/csidrivers": true, "storage.k8s.io/csinodes": true,
		"storage.k8s.io/volumeattachments": true, "storage.k8s.io/volumeattributesclasses": true,
	}
	// Upstream's AllowCreateOnUpdate true, and AllowUnconditionalUpdate
	// false, among the resources with a strategy here.
	createOnUpdate := map[string]bool{
		"coordination.k8s.io/leases": true, "/endpoints": true, "/events": true, "/limitranges": true, "/services": true,
		"rbac.authorization.k8s.io/clusterroles": true, "rbac.authorization.k8s.io/clusterrolebindings": true,
		"rbac.authorization.k8s.io/roles": true, "rbac.authorization.k8s.io/rolebindings": true,
		"node.k8s.io/runtimeclasses": true,
	}
	conditionalUpdate := map[string]bool{
		"policy/poddisruptionbudgets": true, "coordination.k8s.io/leases": true,
		"admissionregistration.k8s.io/mutatingwebhookconfigurations": true, "admissionregistration.k8s.io/validatingwebhookconfigurations": true,
		"node.k8s.io/runtimeclasses": true, "certificates.k8s.io/clustertrustbundles": true, "certificates.k8s.io/podcertificaterequests": true,
		"storagemigration.k8s.io/storageversionmigrations": true, "storage.k8s.io/csidrivers": true, "storage.k8s.io/csistoragecapacities": true,
		"storage.k8s.io/volumeattachments": true, "storage.k8s.io/csinodes": true,
		"resource.k8s.io/devicetaintrules": true, "apiregistration.k8s.io/apiservices": true,
		"admissionregistration.k8s.io/validatingadmissionpolicies": true, "admissionregistration.k8s.io/mutatingadmissionpolicies": true,
		"admissionregistration.k8s.io/mutatingadmissionpolicybindings": true, "admissionregistration.k8s.io/validatingadmissionpolicybindings": true,
	}
	for gr, st := range strategies() {
		key := gr.Group + "/" + gr.Resource
		if got := st.AllowCreateOnUpdate(context.Background()); got != createOnUpdate[key] {
			t.Errorf("%s: AllowCreateOnUpdate %v, want %v", key, got, createOnUpdate[key])
		}
		if got := !st.AllowUnconditionalUpdate(context.Background()); got != conditionalUpdate[key] {
			t.Errorf("%s: refuses unconditional updates %v, want %v", key, got, conditionalUpdate[key])
		}
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

// TestStatusResetOnCreate checks that the strategy of every resource with a
// status subresource, nodes aside, clears at create the status a new object
// is sent with (what remains is what PrepareForCreate itself sets), and that
// the others keep it.
func TestStatusResetOnCreate(t *testing.T) {
	statusSub := map[schema.GroupResource]schema.GroupVersionKind{}
	kinds := map[schema.GroupResource]schema.GroupVersionKind{}
	for _, r := range builtin.Resources() {
		gr := schema.GroupResource{Group: r.Group, Resource: r.Resource}
		gvk := schema.GroupVersionKind{Group: r.Group, Version: r.Version, Kind: r.Kind}
		if _, ok := kinds[gr]; !ok || r.Version == r.StorageVersion {
			kinds[gr] = gvk
		}
		for _, sub := range r.Subresources {
			if sub.Name == "status" {
				statusSub[gr] = gvk
			}
		}
	}
	ctx := context.Background()
	for gr, st := range strategies() {
		newObj := func() runtime.Object {
			obj, err := TypesScheme().New(kinds[gr])
			if err != nil {
				t.Fatalf("%s: %v", gr, err)
			}
			return obj
		}
		sent, fresh := newObj(), newObj()
		if !fillStatus(sent) {
			continue // no status
		}
		st.PrepareForCreate(ctx, sent)
		st.PrepareForCreate(ctx, fresh)
		if pv, ok := sent.(*corev1.PersistentVolume); ok {
			// The phase's transition time is each call's own now.
			pv.Status.LastPhaseTransitionTime = fresh.(*corev1.PersistentVolume).Status.LastPhaseTransitionTime
		}
		_, hasSub := statusSub[gr]
		reset := reflect.DeepEqual(statusOf(sent), statusOf(fresh))
		if want := hasSub && gr != (schema.GroupResource{Resource: "nodes"}); reset != want {
			t.Errorf("%s: status reset at create %v, want %v", gr, reset, want)
		}
	}
}

// fillStatus sets the fields of obj's Status (see fill) and reports whether
// obj has a Status.
func fillStatus(obj runtime.Object) bool {
	v := reflect.ValueOf(obj).Elem().FieldByName("Status")
	if !v.IsValid() {
		return false
	}
	fill(v)
	return true
}

// fill gives every settable field of a struct a value other than its zero:
// strings, numbers and bools, empty slices, maps and pointers, and structs'
// fields in turn.
func fill(v reflect.Value) {
	for i := range v.NumField() {
		f := v.Field(i)
		if !f.CanSet() {
			continue
		}
		switch f.Kind() {
		case reflect.String:
			f.SetString("sent")
		case reflect.Int32, reflect.Int64:
			f.SetInt(7)
		case reflect.Bool:
			f.SetBool(true)
		case reflect.Slice:
			f.Set(reflect.MakeSlice(f.Type(), 1, 1))
		case reflect.Map:
			f.Set(reflect.MakeMap(f.Type()))
		case reflect.Pointer:
			f.Set(reflect.New(f.Type().Elem()))
		case reflect.Struct:
			fill(f)
		}
	}
}

func statusOf(obj runtime.Object) any {
	return reflect.ValueOf(obj).Elem().FieldByName("Status").Interface()
}
