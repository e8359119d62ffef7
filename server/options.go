package server

import (
	"net/http"
	"strconv"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metainternalversionscheme "k8s.io/apimachinery/pkg/apis/meta/internalversion/scheme"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// writeOptions are the query parameters of create, update and patch.
type writeOptions struct {
	dryRun          bool
	fieldValidation string // Ignore, Warn or Strict ("" means Warn, as upstream)
	fieldManager    string
	force           bool
}

// parseWriteOptions decodes and validates CreateOptions, UpdateOptions or
// PatchOptions from the query, answering 422 as upstream does.
func parseWriteOptions(c *call, pt types.PatchType) (*writeOptions, error) {
	q := c.r.URL.Query()
	var errs field.ErrorList
	var kind string
	out := &writeOptions{}
	switch c.Info.Verb {
	case "create":
		kind = "CreateOptions"
		o := &metav1.CreateOptions{}
		if err := metainternalversionscheme.ParameterCodec.DecodeParameters(q, metav1.SchemeGroupVersion, o); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		errs = metav1validation.ValidateCreateOptions(o)
		out.dryRun, out.fieldValidation, out.fieldManager = len(o.DryRun) > 0, o.FieldValidation, o.FieldManager
	case "update":
		kind = "UpdateOptions"
		o := &metav1.UpdateOptions{}
		if err := metainternalversionscheme.ParameterCodec.DecodeParameters(q, metav1.SchemeGroupVersion, o); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		errs = metav1validation.ValidateUpdateOptions(o)
		out.dryRun, out.fieldValidation, out.fieldManager = len(o.DryRun) > 0, o.FieldValidation, o.FieldManager
	case "patch":
		kind = "PatchOptions"
		o := &metav1.PatchOptions{}
		if err := metainternalversionscheme.ParameterCodec.DecodeParameters(q, metav1.SchemeGroupVersion, o); err != nil {
			return nil, apierrors.NewBadRequest(err.Error())
		}
		errs = metav1validation.ValidatePatchOptions(o, pt)
		out.dryRun, out.fieldValidation, out.fieldManager = len(o.DryRun) > 0, o.FieldValidation, o.FieldManager
		out.force = o.Force != nil && *o.Force
	default:
		return out, nil
	}
	if len(errs) > 0 {
		return nil, apierrors.NewInvalid(schema.GroupKind{Group: metav1.GroupName, Kind: kind}, "", errs)
	}
	c.Request.FieldManager, c.Request.FieldValidation = out.fieldManager, out.fieldValidation
	if out.fieldValidation == "" {
		out.fieldValidation = metav1.FieldValidationWarn
	}
	return out, nil
}

// addWarnings sets Warning headers as kube-apiserver's warning recorder does.
func addWarnings(w http.ResponseWriter, warnings []string) {
	for _, msg := range warnings {
		w.Header().Add("Warning", "299 - "+strconv.Quote(strings.ToValidUTF8(msg, "")))
	}
}
