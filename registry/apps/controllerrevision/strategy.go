// Package controllerrevision holds the ControllerRevision strategy: the flags of kube-apiserver's
// pkg/registry/apps/controllerrevision strategy and storage, and the rules of its
// validation: a revision that is not negative, data that is a JSON object,
// and data that an update does not change.
package controllerrevision

import (
	"bytes"
	"context"
	"encoding/json"

	appsv1 "k8s.io/api/apps/v1"
	apivalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/strategy"
)

// Strategy is the ControllerRevision strategy.
var Strategy = controllerRevisionStrategy{strategy.Base{Namespaced: true, UnconditionalUpdate: true}}

type controllerRevisionStrategy struct{ strategy.Base }

// Validate checks a new ControllerRevision: its revision is not negative and
// its data is a JSON object.
func (controllerRevisionStrategy) Validate(_ context.Context, obj runtime.Object) field.ErrorList {
	cr := obj.(*appsv1.ControllerRevision)
	errs := apivalidation.ValidateNonnegativeField(cr.Revision, field.NewPath("revision"))
	fld := field.NewPath("data")
	var v any
	switch {
	case cr.Data.Raw == nil:
		errs = append(errs, field.Required(fld, "data is mandatory"))
	default:
		if err := json.Unmarshal(cr.Data.Raw, &v); err != nil {
			errs = append(errs, field.Invalid(fld, "<value omitted>", "error parsing data: "+err.Error()))
			break
		}
		if v == nil {
			errs = append(errs, field.Required(fld, "data is mandatory"))
		} else if _, ok := v.(map[string]any); !ok {
			errs = append(errs, field.Required(fld, "data must be a valid JSON object"))
		}
	}
	return errs
}

// ValidateUpdate checks an update: the revision is not negative and the
// data does not change. The data is compared as JSON: fakeplane stores it
// compacted, and kube-apiserver compares the bytes it stored as sent with
// the bytes sent again, which a client sends alike.
func (controllerRevisionStrategy) ValidateUpdate(_ context.Context, obj, old runtime.Object) field.ErrorList {
	cr, was := obj.(*appsv1.ControllerRevision), old.(*appsv1.ControllerRevision)
	errs := apivalidation.ValidateNonnegativeField(cr.Revision, field.NewPath("revision"))
	if compactJSON(cr.Data.Raw) == compactJSON(was.Data.Raw) {
		return errs
	}
	return append(errs, apivalidation.ValidateImmutableField(cr.Data, was.Data, field.NewPath("data"))...)
}

// compactJSON is raw without insignificant space, or raw as it is when it
// is not JSON.
func compactJSON(raw []byte) string {
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return string(raw)
	}
	return b.String()
}
