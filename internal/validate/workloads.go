package validate

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strconv"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apiresource "k8s.io/apimachinery/pkg/api/resource"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The helpers of pkg/apis/core/validation, pkg/apis/apps/validation and
// pkg/apis/batch/validation that the workload strategies (pods and their
// templates, claims, the apps and batch controllers' objects) share with
// other resources' rules.

// InternalValue renders a value as upstream's messages show its internal
// type: JSON of the untagged Go fields, in declaration order.
func InternalValue(v any) any {
	return goNamed(reflect.ValueOf(v))
}

// ImmutableInternal is ImmutableField for a value of a type whose internal
// form upstream renders in the message.
func ImmutableInternal(n, p any, fld *field.Path) field.ErrorList {
	if apiequality.Semantic.DeepEqual(n, p) {
		return nil
	}
	return field.ErrorList{field.Invalid(fld, InternalValue(n), "field is immutable")}
}

// SupportedValue is upstream's switch over an enum: Required when empty,
// NotSupported (listing the values in upstream's order) when unknown.
func SupportedValue(fld *field.Path, v string, valid ...string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	for _, ok := range valid {
		if v == ok {
			return nil
		}
	}
	return field.ErrorList{field.NotSupported(fld, v, valid)}
}

// DNS1123Label is upstream's ValidateDNS1123Label.
func DNS1123Label(v string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}

// Nonnegative is upstream's ValidateNonnegativeField.
func Nonnegative(v int64, fld *field.Path) field.ErrorList {
	return apimachineryvalidation.ValidateNonnegativeField(v, fld)
}

// PositiveIntOrPercent is upstream's ValidatePositiveIntOrPercent.
func PositiveIntOrPercent(v intstr.IntOrString, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	switch v.Type {
	case intstr.String:
		for _, msg := range validation.IsValidPercent(v.StrVal) {
			errs = append(errs, field.Invalid(fld, v, msg))
		}
	case intstr.Int:
		errs = append(errs, Nonnegative(int64(v.IntValue()), fld)...)
	}
	return errs
}

func percentValue(v intstr.IntOrString) (int, bool) {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return 0, false
	}
	n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1])
	return n, true
}

// IntOrPercentValue is upstream's getIntOrPercentValue: the number of a
// valid percent, else the integer.
func IntOrPercentValue(v intstr.IntOrString) int {
	if n, ok := percentValue(v); ok {
		return n
	}
	return v.IntValue()
}

// NotMoreThan100Percent is upstream's IsNotMoreThan100Percent.
func NotMoreThan100Percent(v intstr.IntOrString, fld *field.Path) field.ErrorList {
	if n, ok := percentValue(v); ok && n > 100 {
		return field.ErrorList{field.Invalid(fld, v, "must not be greater than 100%")}
	}
	return nil
}

// WorkloadSelector is the strict selector rule of Deployments and
// ReplicaSets: required, valid and not empty (kind names the workload in
// the message).
func WorkloadSelector(sel *metav1.LabelSelector, fld *field.Path, kind string) field.ErrorList {
	if sel == nil {
		return field.ErrorList{field.Required(fld, "")}
	}
	errs := metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, fld)
	if len(sel.MatchLabels)+len(sel.MatchExpressions) == 0 {
		errs = append(errs, field.Invalid(fld, sel, "empty selector is invalid for "+kind))
	}
	return errs
}

// ContainerPortProtocols are the protocols of a container or Service port,
// in upstream's order.
var ContainerPortProtocols = []string{"SCTP", "TCP", "UDP"}

// StandardResourceNames are upstream's standard resource names.
var StandardResourceNames = sets.New(
	"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory", "requests.ephemeral-storage",
	"limits.cpu", "limits.memory", "limits.ephemeral-storage", "pods", "resourcequotas", "services",
	"replicationcontrollers", "secrets", "persistentvolumeclaims", "storage", "requests.storage", "configmaps",
	"services.nodeports", "services.loadbalancers",
)

var integerResourceNames = sets.New("pods", "resourcequotas", "services", "replicationcontrollers",
	"secrets", "configmaps", "persistentvolumeclaims", "services.nodeports", "services.loadbalancers")

// IsNativeResource is upstream's helper.IsNativeResource.
func IsNativeResource(name string) bool {
	return !strings.Contains(name, "/") || strings.Contains(name, "kubernetes.io/")
}

// IsExtendedResource is upstream's helper.IsExtendedResourceName.
func IsExtendedResource(name string) bool {
	if IsNativeResource(name) || strings.HasPrefix(name, "requests.") {
		return false
	}
	return len(validation.IsQualifiedName("requests."+name)) == 0
}

// ResourceQuantity is upstream's ValidateResourceQuantityValue: not
// negative, and whole for integer and extended resources.
func ResourceQuantity(name string, q apiresource.Quantity, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.Cmp(apiresource.Quantity{}) < 0 {
		errs = append(errs, field.Invalid(fld, q.String(), "must be greater than or equal to 0"))
	}
	if (integerResourceNames.Has(name) || IsExtendedResource(name)) && q.MilliValue()%1000 != 0 {
		errs = append(errs, field.Invalid(fld, q, "must be an integer"))
	}
	return errs
}

// ResourceNames returns the names of a resource list as a set, for
// SortedKeys.
func ResourceNames(l corev1.ResourceList) map[string]struct{} {
	m := make(map[string]struct{}, len(l))
	for k := range l {
		m[string(k)] = struct{}{}
	}
	return m
}

// StatusCount is one count of a workload's status, by its field name.
type StatusCount struct {
	Name  string
	Value int64
}

// Count is the StatusCount of a field.
func Count(name string, v int64) StatusCount { return StatusCount{Name: name, Value: v} }

// AboveReplicas is upstream's message for a status count above
// status.replicas.
const AboveReplicas = "cannot be greater than status.replicas"

// StatusCounts checks that counts are not negative.
func StatusCounts(st *field.Path, counts ...StatusCount) field.ErrorList {
	var errs field.ErrorList
	for _, c := range counts {
		errs = append(errs, Nonnegative(c.Value, st.Child(c.Name))...)
	}
	return errs
}

// NotAbove reports counts above limit with msg.
func NotAbove(st *field.Path, limit int32, msg string, counts ...StatusCount) field.ErrorList {
	var errs field.ErrorList
	for _, c := range counts {
		if c.Value > int64(limit) {
			errs = append(errs, field.Invalid(st.Child(c.Name), int32(c.Value), msg))
		}
	}
	return errs
}

// CollisionDecremented is upstream's rule that status.collisionCount does
// not go down.
func CollisionDecremented(st *field.Path, n, p *int32) field.ErrorList {
	if p != nil && (n == nil || *n < *p) {
		v := int32(0)
		if n != nil {
			v = *n
		}
		return field.ErrorList{field.Invalid(st.Child("collisionCount"), v, "cannot be decremented")}
	}
	return nil
}

// goNamed renders a value as upstream's diff of internal types shows it:
// JSON with the Go field names in declaration order.
func goNamed(v reflect.Value) any {
	if v.Kind() == reflect.Pointer || v.Kind() == reflect.Interface {
		if v.IsNil() {
			return nil
		}
		if _, ok := v.Interface().(json.Marshaler); ok {
			return v.Interface()
		}
		return goNamed(v.Elem())
	}
	if v.CanInterface() {
		if _, ok := v.Interface().(json.Marshaler); ok {
			return v.Interface()
		}
		if v.CanAddr() {
			if _, ok := v.Addr().Interface().(json.Marshaler); ok {
				return v.Addr().Interface()
			}
		}
	}
	switch v.Kind() {
	case reflect.Struct:
		t := v.Type()
		if !strings.HasPrefix(t.PkgPath(), "k8s.io/api/") {
			// metav1 and the like are the same types upstream, tagged.
			return v.Interface()
		}
		var o orderedJSON
		for i := 0; i < t.NumField(); i++ {
			f := t.Field(i)
			if !f.IsExported() || f.Anonymous && f.Type == reflect.TypeOf(metav1.TypeMeta{}) {
				// The internal objects upstream renders carry no kind.
				continue
			}
			val := goNamed(v.Field(i))
			// encoding/json inlines an untagged embedded struct, as the
			// internal types' JSON upstream diffs shows.
			if f.Anonymous {
				if inner, ok := val.(orderedJSON); ok {
					o = append(o, inner...)
					continue
				}
				if inner, ok := inlineJSON(val); ok {
					o = append(o, inner...)
					continue
				}
			}
			o = append(o, orderedField{f.Name, val})
		}
		return o
	case reflect.Slice:
		if v.IsNil() {
			return nil
		}
		if v.Type().Elem().Kind() == reflect.Uint8 {
			return v.Interface()
		}
		out := make([]any, v.Len())
		for i := range out {
			out[i] = goNamed(v.Index(i))
		}
		return out
	case reflect.Map:
		if v.IsNil() {
			return nil
		}
		out := map[string]any{}
		for _, k := range v.MapKeys() {
			out[fmt.Sprint(k.Interface())] = goNamed(v.MapIndex(k))
		}
		return out
	}
	return v.Interface()
}

// inlineJSON returns the members of v's JSON object in order.
func inlineJSON(v any) (orderedJSON, bool) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, false
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, false
	}
	var o orderedJSON
	for dec.More() {
		k, err := dec.Token()
		if err != nil {
			return nil, false
		}
		var raw json.RawMessage
		if err := dec.Decode(&raw); err != nil {
			return nil, false
		}
		o = append(o, orderedField{fmt.Sprint(k), raw})
	}
	return o, true
}

type orderedField struct {
	name  string
	value any
}

// orderedJSON is a JSON object whose keys keep their order.
type orderedJSON []orderedField

func (o orderedJSON) MarshalJSON() ([]byte, error) {
	var b bytes.Buffer
	b.WriteByte('{')
	for i, f := range o {
		if i > 0 {
			b.WriteByte(',')
		}
		k, _ := json.Marshal(f.name)
		b.Write(k)
		b.WriteByte(':')
		v, err := json.Marshal(f.value)
		if err != nil {
			return nil, err
		}
		b.Write(v)
	}
	b.WriteByte('}')
	return b.Bytes(), nil
}
