// Package storageclass holds the StorageClass strategy: kube-apiserver's
// pkg/registry/storage/storageclass rules.
package storageclass

import (
	"context"
	"strings"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	apivalidate "k8s.io/apimachinery/pkg/api/validate"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the StorageClass strategy.
var Strategy = storageClassStrategy{strategy.Base{UnconditionalUpdate: true, ReturnDeleted: true}}

type storageClassStrategy struct{ strategy.Base }

// Default sets the reclaim policy and the volume binding mode.
func (storageClassStrategy) Default(obj runtime.Object) {
	o := obj.(*storagev1.StorageClass)
	if o.ReclaimPolicy == nil {
		p := corev1.PersistentVolumeReclaimDelete
		o.ReclaimPolicy = &p
	}
	if o.VolumeBindingMode == nil {
		m := storagev1.VolumeBindingImmediate
		o.VolumeBindingMode = &m
	}
}

// Validate checks a new class's provisioner, parameters and policies.
func (storageClassStrategy) Validate(ctx context.Context, obj runtime.Object) field.ErrorList {
	sc := obj.(*storagev1.StorageClass)
	return validate.WithDeclarative(ctx, validateStorageClass(sc), declareStorageClass(sc, nil))
}

// ValidateUpdate checks the class as new and keeps the provisioner,
// parameters and policies (declarative rules, beta in v1.37, which name
// no value).
func (storageClassStrategy) ValidateUpdate(ctx context.Context, obj, old runtime.Object) field.ErrorList {
	sc := obj.(*storagev1.StorageClass)
	return validate.WithDeclarative(ctx, validateStorageClass(sc), declareStorageClass(sc, old.(*storagev1.StorageClass)))
}

// validateStorageClass is upstream's handwritten ValidateStorageClass less
// the metadata. A missing provisioner is left to the declarative rule.
func validateStorageClass(sc *storagev1.StorageClass) field.ErrorList {
	errs := ValidateProvisioner(sc.Provisioner, field.NewPath("provisioner"))
	if sc.Provisioner == "" {
		errs = errs.MarkCoveredByDeclarative()
	}
	errs = append(errs, ValidateParameters(sc.Parameters, true, field.NewPath("parameters"))...)
	if p := sc.ReclaimPolicy; p != nil && *p != "" && *p != corev1.PersistentVolumeReclaimDelete && *p != corev1.PersistentVolumeReclaimRetain {
		errs = append(errs, field.NotSupported(field.NewPath("reclaimPolicy"), p, []string{"Delete", "Retain"}))
	}
	if m := sc.VolumeBindingMode; m == nil {
		errs = append(errs, field.Required(field.NewPath("volumeBindingMode"), ""))
	} else if *m != storagev1.VolumeBindingImmediate && *m != storagev1.VolumeBindingWaitForFirstConsumer {
		errs = append(errs, field.NotSupported(field.NewPath("volumeBindingMode"), m, []string{"Immediate", "WaitForFirstConsumer"}))
	}
	return append(errs, validateAllowedTopologies(sc.AllowedTopologies, field.NewPath("allowedTopologies"))...)
}

// validateAllowedTopologies is upstream's: each term's expressions have a
// label key, values, none repeated, and no key twice; a term whose keys and
// values repeat an earlier term's is a Duplicate. As upstream's, the terms
// are compared with a list that starts with one nil entry per term, and
// equality.Semantic takes nil and empty alike, so a term without
// expressions is always a Duplicate (reported once: identical errors are
// merged).
func validateAllowedTopologies(terms []corev1.TopologySelectorTerm, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := make([]map[string]sets.Set[string], len(terms))
	for i, term := range terms {
		exprs := fld.Index(i).Child("matchLabelExpressions")
		keys := map[string]sets.Set[string]{}
		for j, rq := range term.MatchLabelExpressions {
			values := exprs.Index(j).Child("values")
			if len(rq.Values) == 0 {
				errs = append(errs, field.Required(values, ""))
			}
			set := sets.New[string]()
			for k, v := range rq.Values {
				if set.Has(v) {
					errs = append(errs, field.Duplicate(values.Index(k), v))
				}
				set.Insert(v)
			}
			errs = append(errs, metav1validation.ValidateLabelName(rq.Key, exprs.Index(j).Child("key"))...)
			if _, ok := keys[rq.Key]; ok {
				errs = append(errs, field.Duplicate(exprs.Index(j).Child("key"), rq.Key))
			}
			keys[rq.Key] = set
		}
		for _, earlier := range seen {
			if equality.Semantic.DeepEqual(keys, earlier) {
				errs = append(errs, field.Duplicate(exprs, ""))
			}
		}
		seen = append(seen, keys)
	}
	return errs
}

// declareStorageClass is upstream's declarative StorageClass rules: the
// provisioner is required, and on an update (old not nil) the provisioner,
// parameters, reclaim policy and volume binding mode may not change, in
// that field order.
func declareStorageClass(sc, old *storagev1.StorageClass) field.ErrorList {
	ctx, op := context.Background(), validate.Operation(old != nil)
	if old == nil {
		old = &storagev1.StorageClass{}
	}
	var errs field.ErrorList
	if !validate.Unchanged(op, &sc.Provisioner, &old.Provisioner) {
		fld := field.NewPath("provisioner")
		errs = append(errs, apivalidate.RequiredValue(ctx, op, fld, &sc.Provisioner, &old.Provisioner).MarkBeta()...)
		errs = append(errs, apivalidate.Immutable(ctx, op, fld, &sc.Provisioner, &old.Provisioner).MarkBeta()...)
	}
	if !validate.Unchanged(op, &sc.Parameters, &old.Parameters) {
		errs = append(errs, apivalidate.Immutable(ctx, op, field.NewPath("parameters"), sc.Parameters, old.Parameters).MarkBeta()...)
	}
	if !validate.Unchanged(op, sc.ReclaimPolicy, old.ReclaimPolicy) {
		errs = append(errs, apivalidate.Immutable(ctx, op, field.NewPath("reclaimPolicy"), sc.ReclaimPolicy, old.ReclaimPolicy).MarkBeta()...)
	}
	if !validate.Unchanged(op, sc.VolumeBindingMode, old.VolumeBindingMode) {
		errs = append(errs, apivalidate.Immutable(ctx, op, field.NewPath("volumeBindingMode"), sc.VolumeBindingMode, old.VolumeBindingMode).MarkBeta()...)
	}
	return errs
}

// ValidateProvisioner is upstream's check of a provisioner's or a driver's
// name: required, and a qualified name once lowercased.
func ValidateProvisioner(name string, fld *field.Path) field.ErrorList {
	if name == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	for _, msg := range validation.IsQualifiedName(strings.ToLower(name)) {
		errs = append(errs, field.Invalid(fld, strings.ToLower(name), msg))
	}
	return errs
}

// ValidateParameters is upstream's check of a class's parameters: at most
// 512, no empty key, 256 KiB of keys and values in all, and (unless
// allowEmpty) at least one.
func ValidateParameters(params map[string]string, allowEmpty bool, fld *field.Path) field.ErrorList {
	if len(params) > 512 {
		return field.ErrorList{field.TooLong(fld, "", 512)}
	}
	var errs field.ErrorList
	size := 0
	for _, k := range validate.SortedKeys(params) {
		if k == "" {
			errs = append(errs, field.Invalid(fld, k, "field can not be empty."))
		}
		size += len(k) + len(params[k])
	}
	if size > 256*1024 {
		errs = append(errs, field.TooLong(fld, "", 256*1024))
	}
	if !allowEmpty && len(params) == 0 {
		errs = append(errs, field.Required(fld, "must contain at least one key/value pair"))
	}
	return errs
}
