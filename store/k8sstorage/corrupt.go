package k8sstorage

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/features"
	"k8s.io/apiserver/pkg/storage"
	"k8s.io/apiserver/pkg/storage/value"
	utilfeature "k8s.io/apiserver/pkg/util/feature"
)

// Corrupt objects. With the AllowUnsafeMalformedObjectDeletion feature
// (beta, on by default in 1.37), kube-apiserver tells objects that cannot be
// read from storage (corrupt) apart from other errors: a list returns the
// objects it could read with an error naming the corrupt ones (up to
// maxCorruptErrors), a get says the object is corrupt, a watch that sees a
// corrupt object deleted ends with a StoreReadError, and a delete with
// ignoreStoreReadErrorWithClusterBreakingPotential
// (DeleteOptions.ExpectTransformOrDecodeError) removes it. An object is
// corrupt when it cannot be decoded, or when the transformer fails with a
// *CorruptObjectError (CorruptOnReadError makes every failure one, as
// kube-apiserver's storage factory does with the transformer it
// configures).

// maxCorruptErrors is how many corrupt objects a list names before it
// gives up.
const maxCorruptErrors = 100

// errTooManyCorrupt ends a list that found more than maxCorruptErrors
// corrupt objects.
var errTooManyCorrupt = errors.New("too many errors, the list is truncated")

// CorruptObjectError says a stored object could not be read: its value did
// not transform (decrypt) or did not decode.
type CorruptObjectError struct {
	Err error
}

// Error implements error.
func (e *CorruptObjectError) Error() string {
	return fmt.Sprintf("data from the storage is not transformable: %v", e.Err)
}

// Unwrap returns the cause.
func (e *CorruptObjectError) Unwrap() error { return e.Err }

// CorruptOnReadError returns t with every error of TransformFromStorage
// wrapped in a *CorruptObjectError, so that the adapter treats the values t
// cannot read as corrupt objects.
func CorruptOnReadError(t value.Transformer) value.Transformer {
	return corruptOnReadError{t}
}

// corruptOnReadError is CorruptOnReadError's transformer.
type corruptOnReadError struct {
	value.Transformer
}

// TransformFromStorage implements value.Transformer.
func (t corruptOnReadError) TransformFromStorage(ctx context.Context, data []byte, dataCtx value.Context) ([]byte, bool, error) {
	out, stale, err := t.Transformer.TransformFromStorage(ctx, data, dataCtx)
	if err != nil {
		err = &CorruptObjectError{Err: err}
	}
	return out, stale, err
}

// corruptionHandled reports whether the adapter tells corrupt objects
// apart (the AllowUnsafeMalformedObjectDeletion feature).
func corruptionHandled() bool {
	return utilfeature.DefaultFeatureGate.Enabled(features.AllowUnsafeMalformedObjectDeletion)
}

// undecodable is the error of an object that did not decode.
type undecodable struct {
	err error
}

// Error implements error.
func (e *undecodable) Error() string { return fmt.Sprintf("object not decodable: %v", e.err) }

// Unwrap returns the cause.
func (e *undecodable) Unwrap() error { return e.err }

// asCorrupt returns the corrupt-object error in err (a transformer's
// *CorruptObjectError or a decoding failure), if corruption is handled.
func asCorrupt(err error) (error, bool) {
	if !corruptionHandled() {
		return nil, false
	}
	var c *CorruptObjectError
	if errors.As(err, &c) {
		return c, true
	}
	var u *undecodable
	if errors.As(err, &u) {
		return u, true
	}
	return nil, false
}

// listErrors collects the errors of the objects a list could not read: it
// stops at the first error that is not a corrupt object, or at
// maxCorruptErrors corrupt ones.
type listErrors struct {
	corrupt []error // storage.NewCorruptObjError of each corrupt object
	abort   error   // why the list stopped, if it did
}

// add records err for the object at key and reports whether the list must
// stop.
func (l *listErrors) add(key string, err error) bool {
	if l.abort != nil {
		return true
	}
	if c, ok := asCorrupt(err); ok {
		l.corrupt = append(l.corrupt, storage.NewCorruptObjError(key, c))
		if len(l.corrupt) >= maxCorruptErrors {
			l.abort = errTooManyCorrupt
			return true
		}
		return false
	}
	l.abort = err
	return true
}

// stopped reports whether the list must stop.
func (l *listErrors) stopped() bool { return l.abort != nil }

// listErr returns the list's error: the error that stopped it if no object was
// corrupt, else a StoreReadError naming the corrupt objects.
func (a *Storage) listErr(l *listErrors) error {
	if len(l.corrupt) == 0 {
		return l.abort
	}
	var causes []metav1.StatusCause
	for _, err := range l.corrupt {
		var se *storage.StorageError
		if errors.As(err, &se) {
			causes = append(causes, metav1.StatusCause{
				Type:    metav1.CauseTypeUnexpectedServerResponse,
				Field:   se.Key,
				Message: err.Error(),
			})
		}
	}
	switch {
	case errors.Is(l.abort, errTooManyCorrupt):
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeTooMany, Message: errTooManyCorrupt.Error()})
	case l.abort != nil:
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeUnexpectedServerResponse, Message: l.abort.Error()})
	}
	var msg strings.Builder
	fmt.Fprintf(&msg, "failed to read one or more %s from the storage: %v", a.groupResource.String(), l.corrupt[0])
	if n := len(l.corrupt); n > 1 {
		fmt.Fprintf(&msg, " (and %d more)", n-1)
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure,
		Code:   http.StatusInternalServerError,
		Reason: metav1.StatusReasonStoreReadError,
		Details: &metav1.StatusDetails{
			Group:  a.groupResource.Group,
			Kind:   a.groupResource.Resource,
			Name:   "list",
			Causes: causes,
		},
		Message: msg.String(),
	}}
}

// corruptDeletedError is the error of a watch that saw a corrupt object
// deleted.
func corruptDeletedError(err error) error {
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status:  metav1.StatusFailure,
		Code:    http.StatusInternalServerError,
		Reason:  metav1.StatusReasonStoreReadError,
		Message: fmt.Sprintf("saw a DELETED event, but object data is corrupt - %v", err),
	}}
}
