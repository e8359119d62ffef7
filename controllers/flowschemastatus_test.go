package controllers

import (
	"context"
	"encoding/json"
	"testing"
	"time"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// fsRegistry records the applies of the FlowSchema status controller.
type fsRegistry struct {
	nsRegistry
	applied []string
	// levels are the stored FlowSchemas' priority levels, by name.
	levels map[string]string
}

func (f *fsRegistry) ApplySubresource(ctx context.Context, gvr schema.GroupVersionResource, sub, _, name string, applied *unstructured.Unstructured, force bool) (runtime.Object, error) {
	u, _ := apirequest.UserFrom(ctx)
	conds, _, _ := unstructured.NestedSlice(applied.Object, "status", "conditions")
	c := conds[0].(map[string]any)
	f.applied = append(f.applied, gvr.Resource+"/"+sub+" "+name+" "+c["status"].(string)+" "+c["reason"].(string)+" by "+registry.FieldManagerFrom(ctx)+" as "+u.GetName())
	if !force {
		panic("not forced")
	}
	fs := &flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name}}
	fs.Spec.PriorityLevelConfiguration.Name = f.levels[name]
	fs.Status.Conditions = []flowcontrolv1.FlowSchemaCondition{{Type: "Dangling", Status: flowcontrolv1.ConditionStatus(c["status"].(string)), Reason: c["reason"].(string), Message: c["message"].(string)}}
	return fs, nil
}

func TestFlowSchemaStatusWritesDangling(t *testing.T) {
	reg := &fsRegistry{levels: map[string]string{"a": "missing", "b": "exempt"}}
	c := NewFlowSchemaStatus(reg, func() time.Time { return time.Unix(1e9, 0) }, nil)
	fsEvent := func(name, level string) store.Event {
		b, _ := json.Marshal(&flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: level}}})
		return store.Event{Type: store.Added, Resource: flowSchemasBucket, Key: name, Value: b}
	}
	const by = " by api-priority-and-fairness-config-consumer-v1 as system:apiserver"
	if err := c.Sync(context.Background(), []store.Event{fsEvent("a", "missing"), fsEvent("b", "exempt")}); err != nil {
		t.Fatal(err)
	}
	want := map[string]bool{"flowschemas/status a True NotFound" + by: true, "flowschemas/status b False Found" + by: true}
	if len(reg.applied) != 2 || !want[reg.applied[0]] || !want[reg.applied[1]] {
		t.Fatalf("applied %q", reg.applied)
	}
	// Nothing changed: nothing applied again.
	reg.applied = nil
	if err := c.Sync(context.Background(), nil); err != nil || len(reg.applied) != 0 {
		t.Fatalf("Sync = %v, applied %q", err, reg.applied)
	}
	// The level appears: a turns Found.
	if err := c.Sync(context.Background(), []store.Event{{Type: store.Added, Resource: priorityLevelsBucket, Key: "missing", Value: []byte(`{}`)}}); err != nil {
		t.Fatal(err)
	}
	if len(reg.applied) != 1 || reg.applied[0] != "flowschemas/status a False Found"+by {
		t.Fatalf("applied %q", reg.applied)
	}
}
