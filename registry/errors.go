package registry

import (
	"errors"
	"fmt"
	"net/http"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// ErrConflict is the optimistic-concurrency 409 for a stale resourceVersion.
func ErrConflict(gr schema.GroupResource, name string) error {
	return apierrors.NewConflict(gr, name, errors.New("the object has been modified; please apply your changes to the latest version and try again"))
}

// ErrUnknown is kube-apiserver's answer for an error that is not an API
// status (its ErrorToAPIStatus): 500 with the error's text and no reason.
func ErrUnknown(err error) error {
	var st apierrors.APIStatus
	if errors.As(err, &st) {
		return err
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Message: err.Error()}}
}

// ErrStorageDecode is kube-apiserver's answer for a stored object it cannot
// decode into the requested version (a failed conversion webhook).
func ErrStorageDecode(r *Resource, key string, rev int64, err error) error {
	return apierrors.NewInternalError(fmt.Errorf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%d: %v", storageKey(r, key), rev, err))
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

// storageKey is the etcd key kube-apiserver would keep an object under,
// which its storage errors name.
func storageKey(r *Resource, key string) string {
	g, res := r.StorageGroupResource()
	if g == "" {
		return "/" + res + "/" + key
	}
	return "/" + g + "/" + res + "/" + key
}

// ErrStorageRead is its answer for a list with such an object.
func ErrStorageRead(r *Resource, key string, rev int64, err error) error {
	k := "/registry" + storageKey(r, key)
	msg := fmt.Sprintf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%d: %v", k, rev, err)
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonStoreReadError,
		Message: fmt.Sprintf("failed to read one or more %s from the storage: %s", r.GR.String(), msg),
		Details: &metav1.StatusDetails{Name: "list", Group: r.GR.Group, Kind: r.GR.Resource, Causes: []metav1.StatusCause{
			{Type: metav1.CauseTypeUnexpectedServerResponse, Message: msg, Field: k},
		}},
	}}
}

// NotFoundPath is kube-apiserver's answer for a path it does not serve.
func NotFoundPath() error {
	return &apierrors.StatusError{ErrStatus: notFoundStatus()}
}

// ErrExpired is the 410 for a resourceVersion older than the event log.
func ErrExpired(msg string) error {
	return apierrors.NewResourceExpired(msg)
}
