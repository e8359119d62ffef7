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
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// The helpers of upstream's pkg/apis/core/validation that the strategies of
// several groups share.

// InternalValue renders a value as upstream's messages show its internal
// type's (untagged) JSON: Go field names in declaration order, embedded
// structs inlined, metav1 types as tagged.
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

// DNS1123Label reports v when it is not a DNS label.
func DNS1123Label(v string, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsDNS1123Label(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}

// ContainerPortProtocols are the protocols a container or Service port
// may name, in upstream's order.
var ContainerPortProtocols = []string{"SCTP", "TCP", "UDP"}

// PortNumOrName is upstream's ValidatePortNumOrName.
func PortNumOrName(p intstr.IntOrString, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if p.Type == intstr.Int {
		for _, msg := range validation.IsValidPortNum(p.IntValue()) {
			errs = append(errs, field.Invalid(fld, p.IntValue(), msg))
		}
	} else {
		for _, msg := range validation.IsValidPortName(p.StrVal) {
			errs = append(errs, field.Invalid(fld, p.StrVal, msg))
		}
	}
	return errs
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
		errs = append(errs, apimachineryvalidation.ValidateNonnegativeField(int64(v.IntValue()), fld)...)
	}
	return errs
}

// NotMoreThan100Percent is upstream's IsNotMoreThan100Percent.
func NotMoreThan100Percent(v intstr.IntOrString, fld *field.Path) field.ErrorList {
	if v.Type != intstr.String || len(validation.IsValidPercent(v.StrVal)) != 0 {
		return nil
	}
	if n, _ := strconv.Atoi(v.StrVal[:len(v.StrVal)-1]); n > 100 {
		return field.ErrorList{field.Invalid(fld, v, "must not be greater than 100%")}
	}
	return nil
}

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

// Quantity is upstream's ValidateResourceQuantityValue: not negative, and
// whole for the resources counted in units.
func Quantity(name string, q apiresource.Quantity, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if q.Cmp(apiresource.Quantity{}) < 0 {
		errs = append(errs, field.Invalid(fld, q.String(), "must be greater than or equal to 0"))
	}
	if (integerResourceNames.Has(name) || IsExtendedResource(name)) && q.MilliValue()%1000 != 0 {
		errs = append(errs, field.Invalid(fld, q, "must be an integer"))
	}
	return errs
}

// ResourceNames returns the names of a resource list in sorted order.
func ResourceNames(l corev1.ResourceList) []string {
	m := make(map[string]struct{}, len(l))
	for k := range l {
		m[string(k)] = struct{}{}
	}
	return SortedKeys(m)
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
