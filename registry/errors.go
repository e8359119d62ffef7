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

// errAlreadyExists is the 409 of a create whose name is taken by the stored
// object existing. As upstream's generic store, it prefixes the message with
// "object is being deleted: " when that object has a deletionTimestamp (it
// waits for finalizers or a grace period); reason and details stay those of
// AlreadyExists.
func errAlreadyExists(gr schema.GroupResource, name string, existing []byte) error {
	err := apierrors.NewAlreadyExists(gr, name)
	if terminating(existing) {
		err.ErrStatus.Message = "object is being deleted: " + err.ErrStatus.Message
	}
	return err
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
	if r.Typed != nil && g != "apiregistration.k8s.io" && g != "apiextensions.k8s.io" {
		// kube-apiserver's own resources are kept under their resource
		// alone, some under a name of old.
		if p, ok := specialStoragePrefixes[schema.GroupResource{Group: g, Resource: res}]; ok {
			return "/" + p + "/" + key
		}
		g = ""
	}
	if g == "" {
		return "/" + res + "/" + key
	}
	return "/" + g + "/" + res + "/" + key
}

// specialStoragePrefixes are the etcd prefixes of kube-apiserver's
// resources that are not their resource's name.
var specialStoragePrefixes = map[schema.GroupResource]string{
	{Group: "", Resource: "replicationcontrollers"}:     "controllers",
	{Group: "", Resource: "endpoints"}:                  "services/endpoints",
	{Group: "", Resource: "nodes"}:                      "minions",
	{Group: "", Resource: "services"}:                   "services/specs",
	{Group: "networking.k8s.io", Resource: "ingresses"}: "ingress",
}

// ErrUIDPrecondition is kube-apiserver's answer to an update whose object
// names a UID (want) other than the stored object's (got): its store takes
// the UID as a precondition, checked before anything else, and answers a
// failed one as a conflict carrying the storage error. The key is etcd's,
// under /registry, but a dry run's store checks it without that prefix.
func ErrUIDPrecondition(r *Resource, key, name, want, got string, dryRun bool) error {
	prefix := "/registry"
	if dryRun {
		prefix = ""
	}
	return apierrors.NewConflict(r.GR, name, fmt.Errorf("StorageError: invalid object, Code: 4, Key: %s%s, ResourceVersion: 0, AdditionalErrorMsg: Precondition failed: UID in precondition: %s, UID in object meta: %s", prefix, storageKey(r, key), want, got))
}

// ErrStorageRead is its answer for a list with such an object.
func ErrStorageRead(r *Resource, key string, rev int64, err error) error {
	return ErrStorageReadMany(r, []ReadFailure{{Key: key, Revision: rev, Err: err}})
}

// ReadFailure is a stored object that could not be read.
type ReadFailure struct {
	Key      string
	Revision int64
	Err      error
}

// maxReadFailures is how many unreadable objects a list names before it
// stops reading, as upstream's list stops after 100 corrupt objects.
const maxReadFailures = 100

// ErrStorageReadMany is kube-apiserver's answer for a list with objects it
// cannot decode (with AllowUnsafeMalformedObjectDeletion, on by default):
// 500 StoreReadError, a cause per object, the first one in the message.
// With maxReadFailures of them, the list stopped there and says so.
func ErrStorageReadMany(r *Resource, failed []ReadFailure) error {
	var causes []metav1.StatusCause
	var first string
	for i, f := range failed {
		k := "/registry" + storageKey(r, f.Key)
		msg := fmt.Sprintf("StorageError: corrupt object, Code: 7, Key: %s, ResourceVersion: 0, AdditionalErrorMsg: object not decodable revision=%d: %v", k, f.Revision, f.Err)
		if i == 0 {
			first = msg
		}
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeUnexpectedServerResponse, Message: msg, Field: k})
	}
	if len(failed) >= maxReadFailures {
		causes = append(causes, metav1.StatusCause{Type: metav1.CauseTypeTooMany, Message: "too many errors, the list is truncated"})
	}
	message := fmt.Sprintf("failed to read one or more %s from the storage: %s", r.GR.String(), first)
	if len(failed) > 1 {
		message = fmt.Sprintf("%s (and %d more)", message, len(failed)-1)
	}
	return &apierrors.StatusError{ErrStatus: metav1.Status{
		Status: metav1.StatusFailure, Code: http.StatusInternalServerError, Reason: metav1.StatusReasonStoreReadError,
		Message: message,
		Details: &metav1.StatusDetails{Name: "list", Group: r.GR.Group, Kind: r.GR.Resource, Causes: causes},
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

// errNoSpace is what kube-apiserver answers a write that etcd refuses for
// want of room (etcd's NOSPACE alarm, "mvcc: database space exceeded"):
// etcd's error is not a storage error the registry maps, so its
// ErrorToAPIStatus answers 500 with etcd's text and no reason.
func errNoSpace() error {
	return ErrUnknown(errors.New("etcdserver: mvcc: database space exceeded"))
}
