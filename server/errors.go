package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
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

// notFoundStatus is the Status for an unknown path or resource.
func notFoundStatus() metav1.Status {
	return metav1.Status{
		TypeMeta: metav1.TypeMeta{Kind: "Status", APIVersion: "v1"},
		Status:   metav1.StatusFailure,
		Message:  "the server could not find the requested resource",
		Reason:   metav1.StatusReasonNotFound,
		Details:  &metav1.StatusDetails{},
		Code:     http.StatusNotFound,
	}
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

// errConflict is the optimistic-concurrency 409 for a stale resourceVersion.
func errConflict(gr schema.GroupResource, name string) error {
	return apierrors.NewConflict(gr, name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
}

// errExpired is the 410 for a resourceVersion older than the event log.
func errExpired(msg string) error {
	return apierrors.NewResourceExpired(msg)
}

// errUnknown is kube-apiserver's answer for an error that is not an API
// status (its ErrorToAPIStatus): 500 with the error's text and no reason.
func errUnknown(err error) error {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return err
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}}
}

// storageKey is the etcd key kube-apiserver would keep an object under,
// which its storage errors name.
func storageKey(r *resource, key string) string {
	g, res := r.StorageGroupResource()
	if g == "" {
		return "/" + res + "/" + key
	}
	return "/" + g + "/" + res + "/" + key
}

// errStorageDecode is kube-apiserver's answer for a stored object it cannot
// decode into the requested version (a failed conversion webhook).
func errStorageDecode(r *resource, key string, rev int64, err error) error {
	return apierrors.NewInternalError(fmt.Errorf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%d: %v", storageKey(r, key), rev, err))
}

// errStorageRead is its answer for a list with such an object.
func errStorageRead(r *resource, key string, rev int64, err error) error {
	k := "/registry" + storageKey(r, key)
	msg := fmt.Sprintf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%d: %v", k, rev, err)
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonStoreReadError,
		Message: fmt.Sprintf("failed to read one or more %s from the storage: %s", r.gr.String(), msg),
		Details: &metav1.StatusDetails{Name: "list", Group: r.gr.Group, Kind: r.gr.Resource, Causes: []metav1.StatusCause{
			{Type: metav1.CauseTypeUnexpectedServerResponse, Message: msg, Field: k},
		}},
	}}
}

// errRouteUnsupportedMediaType is the 415 of kube-apiserver's go-restful
// routes (built-in resources) for a body type a route does not consume.
func errRouteUnsupportedMediaType() error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusUnsupportedMediaType, Reason: metav1.StatusReasonUnsupportedMediaType,
		Message: "415: Unsupported Media Type", Details: &metav1.StatusDetails{},
	}}
}
