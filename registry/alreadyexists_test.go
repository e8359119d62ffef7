package registry

import (
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestAlreadyExistsNamesADeletionInProgress checks errAlreadyExists against
// refplane's answers (kube-apiserver v1.37.2): a name held by an object
// with a deletionTimestamp gets the "object is being deleted: " prefix, the
// reason and details staying AlreadyExists'.
func TestAlreadyExistsNamesADeletionInProgress(t *testing.T) {
	gr := schema.GroupResource{Group: "rbac.authorization.k8s.io", Resource: "clusterroles"}
	for _, tc := range []struct {
		name, existing, want string
	}{
		{"live", `{"metadata":{"name":"h6-cr1"}}`, `clusterroles.rbac.authorization.k8s.io "h6-cr1" already exists`},
		{"being deleted", `{"metadata":{"name":"h6-cr1","deletionTimestamp":"2026-11-27T10:40:00Z","finalizers":["example.com/x"]}}`,
			`object is being deleted: clusterroles.rbac.authorization.k8s.io "h6-cr1" already exists`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := errAlreadyExists(gr, "h6-cr1", []byte(tc.existing))
			st := err.(*apierrors.StatusError).ErrStatus
			if st.Message != tc.want || st.Reason != metav1.StatusReasonAlreadyExists || st.Code != 409 ||
				st.Details == nil || st.Details.Name != "h6-cr1" || st.Details.Group != gr.Group || st.Details.Kind != gr.Resource {
				t.Errorf("got %+v", st)
			}
		})
	}
}
