package printers

import (
	"context"
	"reflect"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestConvertToTable checks the Tables a printer's TableConvertor answers
// for one object and for lists: columns unless asked for none, a row per
// item (in the printer's order) carrying the item, its conditions, and the
// list's metadata or the object's resourceVersion; ages by the context's
// clock.
func TestConvertToTable(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	flowSchemas := schema.GroupResource{Group: "flowcontrol.apiserver.k8s.io", Resource: "flowschemas"}
	pod := func(name string, phase corev1.PodPhase) corev1.Pod {
		return corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name, ResourceVersion: "7", CreationTimestamp: ago(2 * time.Minute)}, Status: corev1.PodStatus{Phase: phase}}
	}
	fs := func(name string, precedence int32) flowcontrolv1.FlowSchema {
		return flowcontrolv1.FlowSchema{ObjectMeta: metav1.ObjectMeta{Name: name}, Spec: flowcontrolv1.FlowSchemaSpec{MatchingPrecedence: precedence}}
	}
	running, done := pod("a", corev1.PodRunning), pod("b", corev1.PodSucceeded)
	one := int64(1)
	for _, tc := range []struct {
		name    string
		gr      schema.GroupResource
		obj     runtime.Object
		options runtime.Object
		// names are the rows' first cells; rv, cont and remaining the
		// Table's list metadata.
		names     []any
		rv, cont  string
		remaining *int64
		headers   bool
		// completed lists the rows with a Completed condition.
		completed []bool
	}{{
		name: "one object has its resourceVersion", gr: pods, obj: &running,
		names: []any{"a"}, rv: "7", headers: true, completed: []bool{false},
	}, {
		name: "no headers when asked", gr: pods, obj: &running, options: &metav1.TableOptions{NoHeaders: true},
		names: []any{"a"}, rv: "7", completed: []bool{false},
	}, {
		name: "list keeps its metadata and conditions", gr: pods, options: &metav1.TableOptions{},
		obj:   &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "9", Continue: "next", RemainingItemCount: &one}, Items: []corev1.Pod{running, done}},
		names: []any{"a", "b"}, rv: "9", cont: "next", remaining: &one, headers: true, completed: []bool{false, true},
	}, {
		name: "empty list", gr: pods, obj: &corev1.PodList{ListMeta: metav1.ListMeta{ResourceVersion: "3"}},
		rv: "3", headers: true,
	}, {
		name: "flow schemas listed by precedence", gr: flowSchemas,
		obj:   &flowcontrolv1.FlowSchemaList{Items: []flowcontrolv1.FlowSchema{fs("z", 10), fs("b", 500), fs("a", 500), fs("c", 0)}},
		names: []any{"z", "a", "b", "c"}, headers: true, completed: []bool{false, false, false, false},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			tc2, ok := For(tc.gr)
			if !ok {
				t.Fatalf("no printer for %s", tc.gr)
			}
			ctx := WithClock(context.Background(), func() time.Time { return tableNow })
			table, err := tc2.ConvertToTable(ctx, tc.obj, tc.options)
			if err != nil {
				t.Fatal(err)
			}
			if got := table.ColumnDefinitions != nil; got != tc.headers {
				t.Errorf("columns %v, want headers %v", table.ColumnDefinitions, tc.headers)
			}
			if table.ResourceVersion != tc.rv || table.Continue != tc.cont || !reflect.DeepEqual(table.RemainingItemCount, tc.remaining) {
				t.Errorf("list metadata %+v, want %q %q %v", table.ListMeta, tc.rv, tc.cont, tc.remaining)
			}
			var names []any
			for i, row := range table.Rows {
				names = append(names, row.Cells[0])
				if row.Object.Object == nil {
					t.Errorf("row %d carries no object", i)
				} else if m, _ := row.Object.Object.(metav1.Object); m == nil || m.GetName() != row.Cells[0] {
					t.Errorf("row %d prints %v but carries %#v", i, row.Cells[0], row.Object.Object)
				}
				if got := len(row.Conditions) > 0; i < len(tc.completed) && got != tc.completed[i] {
					t.Errorf("row %d conditions %v, want completed %v", i, row.Conditions, tc.completed[i])
				}
			}
			if !reflect.DeepEqual(names, tc.names) {
				t.Errorf("rows %v, want %v", names, tc.names)
			}
			if tc.gr == pods && len(table.Rows) > 0 && table.Rows[0].Cells[4] != "2m" {
				t.Errorf("age %v, want 2m by the context's clock", table.Rows[0].Cells[4])
			}
		})
	}
}

// TestConvertToTableRejects checks that a TableConvertor refuses objects
// its printer does not print and options that are not TableOptions.
func TestConvertToTableRejects(t *testing.T) {
	p := Lookup(schema.GroupResource{Resource: "pods"})
	ctx := context.Background()
	for _, tc := range []struct {
		name    string
		obj     runtime.Object
		options runtime.Object
	}{
		{name: "another resource's object", obj: &corev1.ConfigMap{}},
		{name: "another resource's list", obj: &corev1.ConfigMapList{Items: []corev1.ConfigMap{{}}}},
		{name: "options of another type", obj: &corev1.Pod{}, options: &metav1.ListOptions{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if table, err := p.ConvertToTable(ctx, tc.obj, tc.options); err == nil {
				t.Errorf("converts to %+v", table)
			}
		})
	}
}

// TestConvertToTableClock checks that ages count from the current time
// when the context carries no clock.
func TestConvertToTableClock(t *testing.T) {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c", CreationTimestamp: metav1.NewTime(time.Now().Add(-3 * time.Hour))}}
	table, err := Lookup(schema.GroupResource{Resource: "configmaps"}).ConvertToTable(context.Background(), cm, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := table.Rows[0].Cells[2]; got != "3h" {
		t.Errorf("age %v, want 3h", got)
	}
}
