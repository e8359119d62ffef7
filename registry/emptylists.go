package registry

import (
	"bytes"
	"reflect"
)

// emptyJSONList is how encoding/json writes an empty, non-nil slice.
var emptyJSONList = []byte("[]")

// nilEmptySlices sets every empty, non-nil slice reachable from v through
// exported struct fields, pointers and slice elements to nil (with set
// false, it only looks), and reports whether there was any.
// kube-apiserver stores built-in objects in protobuf, which cannot tell an
// empty list from none: a list sent as [] in a field without omitempty is
// read back, and answered, as null. Byte slices are left alone (protobuf
// keeps an empty bytes field), and so are map values, which protobuf keeps
// too.
func nilEmptySlices(v reflect.Value, set bool) bool {
	switch v.Kind() {
	case reflect.Pointer, reflect.Interface:
		if v.IsNil() {
			return false
		}
		return nilEmptySlices(v.Elem(), set)
	case reflect.Struct:
		changed := false
		t := v.Type()
		for i := 0; i < v.NumField(); i++ {
			if t.Field(i).IsExported() && nilEmptySlices(v.Field(i), set) {
				changed = true
			}
		}
		return changed
	case reflect.Slice:
		if v.IsNil() || v.Type().Elem().Kind() == reflect.Uint8 {
			return false
		}
		if v.Len() == 0 {
			if !v.CanSet() {
				return false
			}
			if set {
				v.Set(reflect.Zero(v.Type()))
			}
			return true
		}
		changed := false
		for i := 0; i < v.Len(); i++ {
			if nilEmptySlices(v.Index(i), set) {
				changed = true
			}
		}
		return changed
	}
	return false
}

// hasEmptyList reports whether encoded JSON may hold an empty list (it may
// also be in a string).
func hasEmptyList(b []byte) bool { return bytes.Contains(b, emptyJSONList) }
