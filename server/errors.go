package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// statusOf turns any error into the Status body kube-apiserver would send.
func statusOf(err error) metav1.Status {
	var se apierrors.APIStatus
	if errors.As(err, &se) {
		st := se.Status()
		st.Kind, st.APIVersion = "Status", "v1"
		if st.Status == "" {
			st.Status = metav1.StatusFailure
		}
		return st
	}
	st := apierrors.NewInternalError(err).ErrStatus
	st.Kind, st.APIVersion = "Status", "v1"
	return st
}

// writeError writes err as a Status body with its code.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	st := statusOf(err)
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(st.Details.RetryAfterSeconds))
	}
	writeJSONOrYAML(w, r, code, &st)
}

// writeJSONOrYAML encodes v as YAML when the client asked only for YAML, JSON otherwise.
func writeJSONOrYAML(w http.ResponseWriter, r *http.Request, code int, v any) {
	b, err := json.Marshal(v)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	mt := mediaJSON
	if r != nil {
		if m, ok := negotiate(r.Header.Get("Accept")); ok {
			mt = m.kind
		}
	}
	writeBytes(w, r, code, mt, b)
}

// errUnsupportedMediaType is the 415 kube-apiserver gives for a body type it cannot read.
func errUnsupportedMediaType(accepted []string) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusUnsupportedMediaType,
		Reason:  metav1.StatusReasonUnsupportedMediaType,
		Message: "the body of the request was in an unknown format - accepted media types include: " + strings.Join(accepted, ", "),
	}}
}

// errNotAcceptable is the 406 for an Accept header the server cannot satisfy.
func errNotAcceptable(accepted []string) error {
	return notAcceptable("only the following media types are accepted: " + strings.Join(accepted, ", "))
}

// errRouteUnsupportedMediaType is the 415 of kube-apiserver's go-restful
// routes (built-in resources) for a body type a route does not consume.
func errRouteUnsupportedMediaType() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType,
		Message: "415: Unsupported Media Type", Details: &metav1.StatusDetails{},
	}}
}
