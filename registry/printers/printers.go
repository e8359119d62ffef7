package printers

import (
	"context"
	"fmt"
	"reflect"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/registry/rest"
)

// Printer prints one built-in resource's Table: its column definitions and
// a row of cells per object. It is safe for concurrent use.
type Printer struct {
	columns []metav1.TableColumnDefinition
	cells   cellsFunc
	// list, when set, prints the rows of a list (a get or a watch event
	// prints one object with cells): the index of the item each row shows
	// and the row's cells. Upstream's list printers of a few resources look
	// at all the items (the default StorageClass) or order them
	// (FlowSchemas).
	list func(objs []runtime.Object, now time.Time) (order []int, cells [][]any)
	// conditions, when set, gives a row's conditions (completed pods).
	conditions func(obj runtime.Object) []metav1.TableRowCondition
}

// cellsFunc prints one object's cells, for objects of the given types.
type cellsFunc struct {
	print func(obj runtime.Object, now time.Time) []any
	// types are the pointer types print accepts; none means any object
	// with metadata.
	types []reflect.Type
}

// typed is the cellsFunc of a printer of one type.
func typed[T runtime.Object](print func(obj T, now time.Time) []any) cellsFunc {
	return cellsFunc{
		print: func(obj runtime.Object, now time.Time) []any { return print(obj.(T), now) },
		types: []reflect.Type{reflect.TypeFor[T]()},
	}
}

// anyOf is the cellsFunc of a printer of several types, given by examples.
func anyOf(print func(obj runtime.Object, now time.Time) []any, examples ...runtime.Object) cellsFunc {
	types := make([]reflect.Type, len(examples))
	for i, e := range examples {
		types[i] = reflect.TypeOf(e)
	}
	return cellsFunc{print: print, types: types}
}

// nameAge prints an object's name and age: the cells of a resource
// without a printer of its own.
var nameAge = cellsFunc{print: func(obj runtime.Object, now time.Time) []any {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []any{"", "<unknown>"}
	}
	return []any{m.GetName(), age(now, m.GetCreationTimestamp())}
}}

// createdAt prints an object's name and creation time: upstream's default
// table convertor, which a few resources keep.
var createdAt = cellsFunc{print: func(obj runtime.Object, _ time.Time) []any {
	m, err := meta.Accessor(obj)
	if err != nil {
		return []any{"", ""}
	}
	ts, _ := m.GetCreationTimestamp().MarshalQueryParameter()
	return []any{m.GetName(), ts}
}}

// Columns returns the resource's Table column definitions as kube-apiserver
// v1.37 answers them. The slice is shared: callers must not modify it.
func (p *Printer) Columns() []metav1.TableColumnDefinition { return p.columns }

// Accepts reports whether the printer prints objects of obj's type.
func (p *Printer) Accepts(obj runtime.Object) bool {
	if len(p.cells.types) == 0 {
		_, err := meta.Accessor(obj)
		return err == nil
	}
	t := reflect.TypeOf(obj)
	for _, want := range p.cells.types {
		if t == want {
			return true
		}
	}
	return false
}

// Cells prints one object's row, ages counted up to now: one cell per
// column, in the columns' order (an IPAddress has one more: upstream
// prints its age past the two columns). obj must be of a type the printer
// accepts.
func (p *Printer) Cells(obj runtime.Object, now time.Time) []any {
	return p.cells.print(obj, now)
}

// ListCells prints the rows of a list's items: the index of the item each
// row shows and its cells. Most resources print a row per item in order;
// a few look at all the items (a StorageClass list marks its effective
// default) or order them (FlowSchemas, by matching precedence).
func (p *Printer) ListCells(objs []runtime.Object, now time.Time) (order []int, cells [][]any) {
	if p.list != nil {
		return p.list(objs, now)
	}
	order = make([]int, len(objs))
	cells = make([][]any, len(objs))
	for i, o := range objs {
		order[i] = i
		cells[i] = p.cells.print(o, now)
	}
	return order, cells
}

// Conditions returns a row's conditions: a completed pod's, none for other
// objects.
func (p *Printer) Conditions(obj runtime.Object) []metav1.TableRowCondition {
	if p.conditions == nil {
		return nil
	}
	return p.conditions(obj)
}

// ConvertToTable prints one object or a list as a Table, as kube-apiserver's
// TableConvertor does: every column (no headers when the options ask for
// none), a row per object whose Object is the object itself (the caller
// trims it to what includeObject asks), and the list's metadata or the
// object's resourceVersion. Ages are counted against the context's clock
// (WithClock), the current time without one.
func (p *Printer) ConvertToTable(ctx context.Context, obj runtime.Object, tableOptions runtime.Object) (*metav1.Table, error) {
	noHeaders := false
	switch o := tableOptions.(type) {
	case nil:
	case *metav1.TableOptions:
		noHeaders = o != nil && o.NoHeaders
	default:
		return nil, fmt.Errorf("unrecognized type %T for table options, can't display tabular output", tableOptions)
	}
	now := clockFrom(ctx)()
	t := &metav1.Table{Rows: []metav1.TableRow{}}
	if !noHeaders {
		t.ColumnDefinitions = p.columns
	}
	var objs []runtime.Object
	if meta.IsListType(obj) {
		items, err := meta.ExtractList(obj)
		if err != nil {
			return nil, fmt.Errorf("print %T as a table: %w", obj, err)
		}
		objs = items
		if m, err := meta.ListAccessor(obj); err == nil {
			t.ResourceVersion, t.Continue, t.RemainingItemCount = m.GetResourceVersion(), m.GetContinue(), m.GetRemainingItemCount()
		}
	} else {
		objs = []runtime.Object{obj}
		if m, err := meta.CommonAccessor(obj); err == nil {
			t.ResourceVersion = m.GetResourceVersion()
		}
	}
	for _, o := range objs {
		if !p.Accepts(o) {
			return nil, fmt.Errorf("no table printer for %T", o)
		}
	}
	var order []int
	var cells [][]any
	if meta.IsListType(obj) {
		order, cells = p.ListCells(objs, now)
	} else {
		order, cells = []int{0}, [][]any{p.Cells(obj, now)}
	}
	for i, idx := range order {
		t.Rows = append(t.Rows, metav1.TableRow{Cells: cells[i], Conditions: p.Conditions(objs[idx]), Object: runtime.RawExtension{Object: objs[idx]}})
	}
	return t, nil
}

var _ rest.TableConvertor = (*Printer)(nil)

// clockKey is the context key of the clock ages are counted against.
type clockKey struct{}

// WithClock returns a context whose Tables (ConvertToTable) count ages
// against now, the control plane's clock.
func WithClock(ctx context.Context, now func() time.Time) context.Context {
	return context.WithValue(ctx, clockKey{}, now)
}

// clockFrom returns the context's clock, the current time without one.
func clockFrom(ctx context.Context) func() time.Time {
	if now, ok := ctx.Value(clockKey{}).(func() time.Time); ok && now != nil {
		return now
	}
	return time.Now
}

// groups are the printers of each API group, by resource.
var groups = map[string]func() map[string]Printer{
	"":                             core,
	"admissionregistration.k8s.io": admissionregistration,
	"apiextensions.k8s.io":         apiextensions,
	"apiregistration.k8s.io":       apiregistration,
	"apps":                         apps,
	"autoscaling":                  autoscaling,
	"batch":                        batch,
	"certificates.k8s.io":          certificates,
	"coordination.k8s.io":          coordination,
	"discovery.k8s.io":             discovery,
	"events.k8s.io":                events,
	"flowcontrol.apiserver.k8s.io": flowcontrol,
	"networking.k8s.io":            networking,
	"node.k8s.io":                  node,
	"policy":                       policy,
	"rbac.authorization.k8s.io":    rbac,
	"resource.k8s.io":              resource,
	"scheduling.k8s.io":            scheduling,
	"storage.k8s.io":               storage,
	"storagemigration.k8s.io":      storagemigration,
}

// table holds the printer of every resource that has one of its own or
// recorded columns, built once and only read afterwards.
var table = sync.OnceValue(func() map[schema.GroupResource]*Printer {
	cols, err := recordedColumns()
	if err != nil {
		// The recording is embedded at build time; TestRecordedColumns
		// parses it.
		panic(err)
	}
	out := map[schema.GroupResource]*Printer{}
	for gr, c := range cols {
		out[gr] = &Printer{columns: c, cells: nameAge}
	}
	for group, printers := range groups {
		for resource, p := range printers() {
			gr := schema.GroupResource{Group: group, Resource: resource}
			p.columns = columnsOf(cols, gr)
			out[gr] = &p
		}
	}
	return out
})

// defaultPrinter prints a resource fakeplane knows no columns of: its name
// and age.
var defaultPrinter = &Printer{columns: defaultColumns, cells: nameAge}

// For returns the TableConvertor of a built-in resource: its own printer,
// or its name and age in the columns kube-apiserver answers for it. ok is
// false for a resource with neither.
func For(gr schema.GroupResource) (tc rest.TableConvertor, ok bool) {
	p, ok := table()[gr]
	if !ok {
		return nil, false
	}
	return p, true
}

// Lookup returns the printer of a built-in resource, or for a resource
// fakeplane knows no columns of, one that prints its name and age. The
// server's Tables use it to print objects it has decoded itself.
func Lookup(gr schema.GroupResource) *Printer {
	if p, ok := table()[gr]; ok {
		return p
	}
	return defaultPrinter
}
