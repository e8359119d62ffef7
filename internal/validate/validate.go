// Package validate holds the small field-validation helpers that many
// resources' strategies share, with kube-apiserver's messages.
package validate

import (
	"reflect"
	"sort"

	"k8s.io/apimachinery/pkg/api/validation/path"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// MaxConfigSize is upstream's core.MaxSecretSize, the limit of a Secret's or
// ConfigMap's data.
const MaxConfigSize = 1 << 20

// ImmutableForbidden is upstream's message for changing an immutable
// ConfigMap or Secret.
const ImmutableForbidden = "field is immutable when `immutable` is set"

// SortedKeys returns the keys of m in sorted order: where upstream ranges
// over a map (in random order), fakeplane reports in key order.
func SortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// ImmutableField is upstream's ValidateImmutableField.
func ImmutableField(n, p any, fld *field.Path) field.ErrorList {
	if reflect.DeepEqual(n, p) {
		return nil
	}
	return field.ErrorList{field.Invalid(fld, n, "field is immutable")}
}

// RequiredPathSegment validates a required value that names something in a
// URL path segment (a kind, a name): Required when empty, else upstream's
// path segment rules.
func RequiredPathSegment(fld *field.Path, v string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	for _, msg := range path.IsValidPathSegmentName(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}

// Dedup drops repeated errors, keeping the first of each: upstream runs the
// metadata rules more than once on update but answers each once.
func Dedup(errs field.ErrorList) field.ErrorList {
	seen := map[string]bool{}
	out := errs[:0:0]
	for _, e := range errs {
		k := e.Error()
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}

// Kept is one field an update must keep: its path, new and old value.
type Kept struct {
	Path     *field.Path
	New, Old any
}

// ImmutableData is upstream's rule for updating a ConfigMap or Secret whose
// immutable field was set: it stays set, and the given fields keep their
// values (Forbidden, in that order).
func ImmutableData(newImmutable, oldImmutable *bool, kept ...Kept) field.ErrorList {
	if oldImmutable == nil || !*oldImmutable {
		return nil
	}
	var errs field.ErrorList
	if newImmutable == nil || !*newImmutable {
		errs = append(errs, field.Forbidden(field.NewPath("immutable"), ImmutableForbidden))
	}
	for _, k := range kept {
		if !reflect.DeepEqual(k.New, k.Old) {
			errs = append(errs, field.Forbidden(k.Path, ImmutableForbidden))
		}
	}
	return errs
}

// ConditionTypes is upstream's check of a status's condition types (the
// flowcontrol kinds'): each is required and given once, reported at
// fld.conditions[i].type.
func ConditionTypes[T ~string](fld *field.Path, types []T) field.ErrorList {
	var errs field.ErrorList
	seen := map[T]bool{}
	for i, t := range types {
		p := fld.Child("conditions").Index(i).Child("type")
		if seen[t] {
			errs = append(errs, field.Duplicate(p, t))
		}
		seen[t] = true
		if t == "" {
			errs = append(errs, field.Required(p, ""))
		}
	}
	return errs
}
