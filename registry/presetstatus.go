package registry

import (
	"bytes"
	"cmp"
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Precomputed is what CreateAll may know beforehand of the objects it
// creates, each keyed as CreatedManagedFields keys it: computing it at
// every start is most of the time a start takes.
type Precomputed struct {
	// Fields are the managedFields entries (without their time) the
	// create records.
	Fields map[string][]metav1.ManagedFieldsEntry
	// Statuses are the statuses kube-apiserver's own controllers apply to
	// an object right after it is created (a FlowSchema's Dangling
	// condition, the default ServiceCIDR's Ready): the object is created
	// with it, as if they had applied it.
	Statuses map[string]PresetStatus
	// Seeds fill the memo of the control plane's own creates for the
	// documents they have (see CreateSeeds); nil has none.
	Seeds *CreateSeeds
}

// PresetStatus is a status an object is created with, and the
// managedFields entries of the controller that applies it.
type PresetStatus struct {
	// Status is the status's JSON, with PresetTime for each time its
	// controller sets to now.
	Status json.RawMessage `json:"status"`
	// ManagedFields are the controller's entries, without their time.
	ManagedFields []metav1.ManagedFieldsEntry `json:"managedFields"`
	// Finalizers are finalizers the controllers add at once (none in the
	// recorded statuses).
	Finalizers []string `json:"finalizers,omitempty"`
}

// PresetTime stands in a PresetStatus for the time of the create: of the
// length of every time in JSON (RFC 3339 in seconds, four-digit year).
const PresetTime = "1001-01-01T00:00:00Z"

// setPresetStatus gives o, which the server's own create c has prepared,
// the status c presets, with its times and its controller's managedFields
// entries at now: that controller's apply made at once. Only a built-in
// type (a struct with a Status field) takes one.
func (s *Registry) setPresetStatus(c *Request, o *Object) error {
	p := c.presetStatus
	now := metav1.NewTime(s.now().Truncate(time.Second))
	nowJSON, err := now.MarshalJSON()
	if err != nil {
		return err
	}
	v := reflect.ValueOf(o.Obj)
	if v.Kind() != reflect.Pointer || v.Elem().Kind() != reflect.Struct {
		return fmt.Errorf("a preset status for %s, which is not a built-in type", c.Res.GVK)
	}
	status := v.Elem().FieldByName("Status")
	if !status.IsValid() || !status.CanAddr() {
		return fmt.Errorf("a preset status for %s, which has none", c.Res.GVK)
	}
	data := bytes.ReplaceAll(p.Status, []byte(`"`+PresetTime+`"`), nowJSON)
	if err := json.Unmarshal(data, status.Addr().Interface()); err != nil {
		return fmt.Errorf("the preset status of %s: %w", c.Res.GVK, err)
	}
	for _, f := range p.Finalizers {
		if !slices.Contains(o.Meta.GetFinalizers(), f) {
			o.Meta.SetFinalizers(append(o.Meta.GetFinalizers(), f))
		}
	}
	entries := o.Meta.GetManagedFields()
	for i := range p.ManagedFields {
		var e metav1.ManagedFieldsEntry
		p.ManagedFields[i].DeepCopyInto(&e)
		e.Time = &now
		entries = append(entries, e)
	}
	slices.SortStableFunc(entries, compareManagedFieldsEntries)
	o.Meta.SetManagedFields(entries)
	return nil
}

// compareManagedFieldsEntries orders managedFields entries as upstream's
// field manager writes them: by operation (Apply first), then time, then
// manager, then apiVersion, then subresource.
func compareManagedFieldsEntries(a, b metav1.ManagedFieldsEntry) int {
	unix := func(t *metav1.Time) int64 {
		if t == nil {
			return 0
		}
		return t.Unix()
	}
	return cmp.Or(
		cmp.Compare(a.Operation, b.Operation),
		cmp.Compare(unix(a.Time), unix(b.Time)),
		cmp.Compare(a.Manager, b.Manager),
		cmp.Compare(a.APIVersion, b.APIVersion),
		cmp.Compare(a.Subresource, b.Subresource),
	)
}
