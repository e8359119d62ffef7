package fakeplane_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"strings"
	"testing"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"

	"github.com/fakeplane/fakeplane"
)

// TestCertificateSigningRequestApproval: the approval subresource changes
// status.conditions and nothing else (update and patch), fills in their
// timestamps, and refuses Approved with Denied; the main resource keeps
// the status.
func TestCertificateSigningRequestApproval(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	csrs := clientset(t, cp).CertificatesV1().CertificateSigningRequests()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "alice"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	req := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
	for _, name := range []string{"by-update", "by-patch"} {
		if _, err := csrs.Create(ctx, &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: certificatesv1.CertificateSigningRequestSpec{Request: req, SignerName: "example.com/signer", Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cur, err := csrs.Get(ctx, "by-update", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cur.Status.Conditions = []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Test"}}
	cur.Spec.SignerName = "example.com/other"
	cur.Status.Certificate = []byte("not through approval")
	approved, err := csrs.UpdateApproval(ctx, "by-update", cur, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("approve by update: %v", err)
	}
	c := approved.Status.Conditions
	if len(c) != 1 || c[0].Type != certificatesv1.CertificateApproved || c[0].LastUpdateTime.IsZero() || c[0].LastTransitionTime.IsZero() ||
		approved.Spec.SignerName != "example.com/signer" || approved.Status.Certificate != nil {
		t.Errorf("after approval: conditions %+v signer %s certificate %q", c, approved.Spec.SignerName, approved.Status.Certificate)
	}
	patched, err := csrs.Patch(ctx, "by-patch", types.MergePatchType, []byte(`{"status":{"conditions":[{"type":"Denied","status":"True","reason":"No"}]}}`), metav1.PatchOptions{}, "approval")
	if err != nil || len(patched.Status.Conditions) != 1 || patched.Status.Conditions[0].Type != certificatesv1.CertificateDenied {
		t.Fatalf("deny by patch: %v %+v", err, patched)
	}
	_, err = csrs.Patch(ctx, "by-patch", types.JSONPatchType, []byte(`[{"op":"add","path":"/status/conditions/-","value":{"type":"Approved","status":"True"}}]`), metav1.PatchOptions{}, "approval")
	// v1.37's declarative rule (beta) gives the message, as refplane answered.
	if !apierrors.IsInvalid(err) || !strings.Contains(err.Error(), "must specify at most one of: `conditions[{\"type\": \"Approved\"}]`, `conditions[{\"type\": \"Denied\"}]`") {
		t.Errorf("approving a denied request: %v", err)
	}
	// The main resource does not change the status.
	approved.Status.Conditions = nil
	main, err := csrs.Update(ctx, approved, metav1.UpdateOptions{})
	if err != nil || len(main.Status.Conditions) != 1 {
		t.Errorf("main update: %v, conditions %+v (want the approval kept)", err, main.Status.Conditions)
	}
}
