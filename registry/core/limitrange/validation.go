package limitrange

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// standardLimitTypes are the limit types that need no domain.
var standardLimitTypes = sets.New(corev1.LimitTypePod, corev1.LimitTypeContainer, corev1.LimitTypePersistentVolumeClaim)

// validateLimitRange is upstream's ValidateLimitRange without the
// metadata: each item's type (known or qualified, not repeated), its
// resource names, and the order of min <= defaultRequest <= default <= max
// and of maxLimitRequestRatio. Upstream walks maps in random order; the
// items' resources are taken here in sorted order. The values of the
// errors are quantities as upstream passes them, so their text is the
// same.
func validateLimitRange(lr *corev1.LimitRange) field.ErrorList {
	var errs field.ErrorList
	seen := map[corev1.LimitType]bool{}
	for i := range lr.Spec.Limits {
		it := &lr.Spec.Limits[i]
		idx := field.NewPath("spec", "limits").Index(i)
		errs = append(errs, validateLimitType(it.Type, idx.Child("type"))...)
		if seen[it.Type] {
			errs = append(errs, field.Duplicate(idx.Child("type"), it.Type))
		}
		seen[it.Type] = true

		names := sets.New[string]()
		collect := func(l corev1.ResourceList, fld *field.Path) {
			for _, k := range validate.ResourceNames(l) {
				errs = append(errs, validateLimitResourceName(it.Type, k, fld.Key(k))...)
				names.Insert(k)
			}
		}
		collect(it.Max, idx.Child("max"))
		collect(it.Min, idx.Child("min"))
		if it.Type == corev1.LimitTypePod {
			if len(it.Default) > 0 {
				errs = append(errs, field.Forbidden(idx.Child("default"), "may not be specified when `type` is 'Pod'"))
			}
			if len(it.DefaultRequest) > 0 {
				errs = append(errs, field.Forbidden(idx.Child("defaultRequest"), "may not be specified when `type` is 'Pod'"))
			}
		} else {
			collect(it.Default, idx.Child("default"))
			collect(it.DefaultRequest, idx.Child("defaultRequest"))
		}
		if it.Type == corev1.LimitTypePersistentVolumeClaim {
			_, hasMin := it.Min[corev1.ResourceStorage]
			_, hasMax := it.Max[corev1.ResourceStorage]
			if !hasMin && !hasMax {
				errs = append(errs, field.Required(idx.Child("limits"), "either minimum or maximum storage value is required, but neither was provided"))
			}
		}
		collect(it.MaxLimitRequestRatio, idx.Child("maxLimitRequestRatio"))
		if it.Type == corev1.LimitTypePod {
			// Default and DefaultRequest of a Pod item were refused above and
			// take no part in the comparisons.
			it = &corev1.LimitRangeItem{Type: it.Type, Max: it.Max, Min: it.Min, MaxLimitRequestRatio: it.MaxLimitRequestRatio}
		}
		for _, k := range sets.List(names) {
			errs = append(errs, validateLimitOrder(it, corev1.ResourceName(k), idx)...)
		}
	}
	return errs
}

// validateLimitOrder checks one resource of an item: min <= defaultRequest
// <= default <= max, a ratio of at least 1 and at most max/min, and equal
// default and defaultRequest for resources that cannot be overcommitted.
func validateLimitOrder(it *corev1.LimitRangeItem, k corev1.ResourceName, idx *field.Path) field.ErrorList {
	var errs field.ErrorList
	min, hasMin := it.Min[k]
	max, hasMax := it.Max[k]
	def, hasDef := it.Default[k]
	req, hasReq := it.DefaultRequest[k]
	ratio, hasRatio := it.MaxLimitRequestRatio[k]
	key := string(k)
	if hasMin && hasMax && min.Cmp(max) > 0 {
		errs = append(errs, field.Invalid(idx.Child("min").Key(key), min, fmt.Sprintf("min value %s is greater than max value %s", min.String(), max.String())))
	}
	if hasReq && hasMin && min.Cmp(req) > 0 {
		errs = append(errs, field.Invalid(idx.Child("defaultRequest").Key(key), req, fmt.Sprintf("min value %s is greater than default request value %s", min.String(), req.String())))
	}
	if hasReq && hasMax && req.Cmp(max) > 0 {
		errs = append(errs, field.Invalid(idx.Child("defaultRequest").Key(key), req, fmt.Sprintf("default request value %s is greater than max value %s", req.String(), max.String())))
	}
	if hasReq && hasDef && req.Cmp(def) > 0 {
		errs = append(errs, field.Invalid(idx.Child("defaultRequest").Key(key), req, fmt.Sprintf("default request value %s is greater than default limit value %s", req.String(), def.String())))
	}
	if hasDef && hasMin && min.Cmp(def) > 0 {
		errs = append(errs, field.Invalid(idx.Child("default").Key(key), min, fmt.Sprintf("min value %s is greater than default value %s", min.String(), def.String())))
	}
	if hasDef && hasMax && def.Cmp(max) > 0 {
		errs = append(errs, field.Invalid(idx.Child("default").Key(key), max, fmt.Sprintf("default value %s is greater than max value %s", def.String(), max.String())))
	}
	if hasRatio && ratio.Cmp(*resource.NewQuantity(1, resource.DecimalSI)) < 0 {
		errs = append(errs, field.Invalid(idx.Child("maxLimitRequestRatio").Key(key), ratio, fmt.Sprintf("ratio %s is less than 1", ratio.String())))
	}
	if hasRatio && hasMin && hasMax {
		r, lo, hi := float64(ratio.Value()), min.Value(), max.Value()
		if ratio.Value() < resource.MaxMilliValue && lo < resource.MaxMilliValue && hi < resource.MaxMilliValue {
			r, lo, hi = float64(ratio.MilliValue())/1000, min.MilliValue(), max.MilliValue()
		}
		if limit := float64(hi) / float64(lo); r > limit {
			errs = append(errs, field.Invalid(idx.Child("maxLimitRequestRatio").Key(key), ratio, fmt.Sprintf("ratio %s is greater than max/min = %f", ratio.String(), limit)))
		}
	}
	if !validate.OvercommitAllowed(key) && hasDef && hasReq && def.Cmp(req) != 0 {
		errs = append(errs, field.Invalid(idx.Child("defaultRequest").Key(key), req, fmt.Sprintf("default value %s must equal to defaultRequest value %s in %s", def.String(), req.String(), key)))
	}
	return errs
}

// validateLimitType is upstream's validateLimitRangeTypeName.
func validateLimitType(t corev1.LimitType, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(string(t)) {
		errs = append(errs, field.Invalid(fld, t, msg))
	}
	if len(errs) == 0 && !strings.Contains(string(t), "/") && !standardLimitTypes.Has(t) {
		errs = append(errs, field.Invalid(fld, t, "must be a standard limit type or fully qualified"))
	}
	return errs
}

// validateLimitResourceName is upstream's validateLimitRangeResourceName:
// container resource names for Pod and Container items, any resource name
// for the others.
func validateLimitResourceName(t corev1.LimitType, name string, fld *field.Path) field.ErrorList {
	if t == corev1.LimitTypePod || t == corev1.LimitTypeContainer {
		return validate.ContainerResourceName(name, fld)
	}
	return validate.ResourceName(name, fld)
}
