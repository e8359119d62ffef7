package server

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/endpoints/handlers/negotiation"
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

// writeError writes err as a Status body with its code, in the encoding
// kube-apiserver negotiates for errors (responsewriters.ErrorNegotiated):
// JSON, YAML or protobuf, whichever Accept clause comes first by weight
// among those naming no meta.k8s.io transformation, for any endpoint
// (custom resources, whose objects have no protobuf encoding, and
// non-resource paths such as /version included). Protobuf is the v1 Status
// in the Kubernetes envelope, as client-go's protobuf clients decode it.
func writeError(w http.ResponseWriter, r *http.Request, err error) {
	st := statusOf(err)
	code := int(st.Code)
	if code == 0 {
		code = http.StatusInternalServerError
	}
	if st.Details != nil && st.Details.RetryAfterSeconds > 0 {
		w.Header().Set("Retry-After", fmt.Sprint(st.Details.RetryAfterSeconds))
	}
	mt := mediaJSON
	if r != nil {
		m, ok := errorMediaType(r.Header.Get("Accept"))
		if !ok {
			// kube-apiserver negotiates an error's encoding without the
			// meta.k8s.io transformations (as=Table, as=PartialObjectMetadata);
			// when no clause of the Accept header is left it writes indented
			// JSON without a final newline (responsewriters.WriteRawJSON).
			b, err := json.MarshalIndent(&st, "", "  ")
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.Header().Set("Content-Type", mediaJSON)
			if w.Header().Get("Cache-Control") == "" {
				w.Header().Set("Cache-Control", "no-cache, private")
			}
			w.WriteHeader(code)
			_, _ = w.Write(b)
			return
		}
		mt = m
	}
	// As upstream's ErrorNegotiated, once an encoding is negotiated.
	auditResponseStatus(r, &st)
	if mt == mediaProtobuf {
		b, err := statusProtobuf(&st)
		if err != nil {
			http.Error(w, err.Error(), http.StatusInternalServerError)
			return
		}
		if w.Header().Get("Cache-Control") == "" {
			w.Header().Set("Cache-Control", "no-cache, private")
		}
		w.Header().Set("Content-Type", mediaProtobuf)
		writeCompressible(w, r, code, b, nil)
		return
	}
	b, err := json.Marshal(&st)
	if err != nil {
		http.Error(w, err.Error(), http.StatusInternalServerError)
		return
	}
	writeBytes(w, r, code, mt, b)
}

// errorMediaType is the media type kube-apiserver encodes an error in for
// an Accept header (an empty one means JSON), false when no clause names
// one it can encode an error in.
func errorMediaType(accept string) (string, bool) {
	opts, ok := negotiation.NegotiateMediaTypeOptions(accept, resourceSerializers(), negotiation.DefaultEndpointRestrictions)
	if !ok {
		return "", false
	}
	return opts.Accepted.MediaType, true
}

// statusProtobuf encodes a Status as kube-apiserver's protobuf serializer
// does: the metav1.Status message in the envelope, typed v1 Status (the
// group/version of every error body, custom resources' included).
func statusProtobuf(st *metav1.Status) ([]byte, error) {
	return protobufDoc("v1", "Status", st)
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
