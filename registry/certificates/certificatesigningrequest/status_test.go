package certificatesigningrequest

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"math/big"
	"strings"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

// testPEM returns a PEM certificate request and two PEM certificates, made
// for the test.
func testPEM(t *testing.T) (request, cert1, cert2 []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "alice"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	request = pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der})
	cert := func(serial int64) []byte {
		tmpl := &x509.Certificate{SerialNumber: big.NewInt(serial), Subject: pkix.Name{CommonName: "alice"},
			NotBefore: time.Now(), NotAfter: time.Now().Add(time.Hour)}
		der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
		if err != nil {
			t.Fatal(err)
		}
		return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
	}
	return request, cert(1), cert(2)
}

func condition(t certificatesv1.RequestConditionType, status corev1.ConditionStatus) certificatesv1.CertificateSigningRequestCondition {
	return certificatesv1.CertificateSigningRequestCondition{Type: t, Status: status}
}

const (
	approvedAndDenied = "status.conditions: Invalid value: \"{conditions[{\\\"type\\\": \\\"Approved\\\"}], conditions[{\\\"type\\\": \\\"Denied\\\"}]}\": " +
		"must specify at most one of: `conditions[{\"type\": \"Approved\"}]`, `conditions[{\"type\": \"Denied\"}]`"
	noCertificateBlock = `status.certificate: Invalid value: "<certificate data>": must contain at least one CERTIFICATE PEM block`
)

func TestStatusAndApprovalValidation(t *testing.T) {
	request, cert1, cert2 := testPEM(t)
	stored := func(conds ...certificatesv1.CertificateSigningRequestCondition) *certificatesv1.CertificateSigningRequest {
		return &certificatesv1.CertificateSigningRequest{
			ObjectMeta: metav1.ObjectMeta{Name: "csr", ResourceVersion: "1"},
			Spec: certificatesv1.CertificateSigningRequestSpec{Request: request, SignerName: "example.com/x",
				Usages: []certificatesv1.KeyUsage{certificatesv1.UsageClientAuth}},
			Status: certificatesv1.CertificateSigningRequestStatus{Conditions: conds},
		}
	}
	approved := condition(certificatesv1.CertificateApproved, corev1.ConditionTrue)
	denied := condition(certificatesv1.CertificateDenied, corev1.ConditionTrue)
	failed := condition(certificatesv1.CertificateFailed, corev1.ConditionTrue)
	pemOf := func(typ string, headers map[string]string, body []byte) []byte {
		return pem.EncodeToMemory(&pem.Block{Type: typ, Headers: headers, Bytes: body})
	}
	certDER, _ := pem.Decode(cert1)
	for _, tc := range []struct {
		name string
		// via is the subresource written: "status", "approval" or "" (the
		// request itself).
		via      string
		old      *certificatesv1.CertificateSigningRequest
		conds    []certificatesv1.CertificateSigningRequestCondition
		cert     []byte
		wantErrs []string
	}{
		{name: "a certificate is PEM", via: "status", old: stored(), cert: []byte("nope"), wantErrs: []string{noCertificateBlock}},
		{name: "a certificate's blocks are certificates", via: "status", old: stored(), cert: append(append([]byte{}, cert1...), pemOf("X", nil, []byte{1})...),
			wantErrs: []string{`status.certificate: Invalid value: "<certificate data>": only CERTIFICATE PEM blocks are allowed, found "X"`}},
		{name: "a certificate's blocks have no headers", via: "status", old: stored(), cert: pemOf("CERTIFICATE", map[string]string{"Proc-Type": "4,ENCRYPTED"}, certDER.Bytes),
			wantErrs: []string{`status.certificate: Invalid value: "<certificate data>": no PEM block headers are permitted`}},
		{name: "a certificate block parses", via: "status", old: stored(), cert: pemOf("CERTIFICATE", nil, []byte{0x30, 0x82, 0x01}),
			wantErrs: []string{`status.certificate: Invalid value: "<certificate data>": x509: malformed certificate`}},
		{name: "a certificate block is not empty", via: "status", old: stored(), cert: pemOf("CERTIFICATE", nil, nil),
			wantErrs: []string{`status.certificate: Invalid value: "<certificate data>": found CERTIFICATE PEM block containing 0 certificates`}},
		{name: "the status may set a certificate", via: "status", old: stored(approved), conds: []certificatesv1.CertificateSigningRequestCondition{approved}, cert: cert1},
		{name: "the status may not change a certificate", via: "status", old: func() *certificatesv1.CertificateSigningRequest {
			o := stored(approved)
			o.Status.Certificate = cert1
			return o
		}(), conds: []certificatesv1.CertificateSigningRequestCondition{approved}, cert: cert2,
			wantErrs: []string{"status.certificate: Forbidden: updates may not modify existing certificate content"}},
		{name: "a stored certificate is not checked again", via: "status", old: func() *certificatesv1.CertificateSigningRequest {
			o := stored()
			o.Status.Certificate = []byte("nope")
			return o
		}(), cert: []byte("nope")},
		{name: "the approval may not set a certificate", via: "approval", old: stored(), cert: cert1,
			wantErrs: []string{"status.certificate: Forbidden: updates may not set certificate content"}},
		{name: "Failed is True only", via: "status", old: stored(), conds: []certificatesv1.CertificateSigningRequestCondition{condition(certificatesv1.CertificateFailed, "Maybe")},
			wantErrs: []string{`status.conditions[0].status: Unsupported value: "Maybe": supported values: "True"`}},
		{name: "a condition has a type and status, no type twice", via: "status", old: stored(), conds: []certificatesv1.CertificateSigningRequestCondition{
			condition("", ""), condition("X", "Maybe"), condition("X", corev1.ConditionTrue)},
			wantErrs: []string{"status.conditions[0].type: Required value", "status.conditions[0].status: Required value",
				`status.conditions[1].status: Unsupported value: "Maybe": supported values: "False", "True", "Unknown"`,
				`status.conditions[2].type: Duplicate value: "X"`}},
		{name: "the stored request's faults are let through", via: "status", old: stored(condition("", corev1.ConditionTrue), condition("X", corev1.ConditionTrue), condition("X", corev1.ConditionTrue)),
			conds: []certificatesv1.CertificateSigningRequestCondition{condition("", corev1.ConditionTrue), condition("X", corev1.ConditionTrue), condition("X", corev1.ConditionTrue), condition("Y", "True")}},
		{name: "the status may not add Approved", via: "status", old: stored(), conds: []certificatesv1.CertificateSigningRequestCondition{approved},
			wantErrs: []string{`status.conditions: Forbidden: updates may not add a condition of type "Approved"`}},
		{name: "the status may add Failed", via: "status", old: stored(approved), conds: []certificatesv1.CertificateSigningRequestCondition{approved, failed}},
		{name: "the status may not remove Failed", via: "status", old: stored(approved, failed), conds: []certificatesv1.CertificateSigningRequestCondition{approved},
			wantErrs: []string{`status.conditions: Forbidden: updates may not remove a condition of type "Failed"`}},
		{name: "the status may not change Approved", via: "status", old: stored(approved), conds: []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "R"}},
			wantErrs: []string{`status.conditions: Forbidden: updates may not modify a condition of type "Approved"`}},
		{name: "the status may not swap Approved for Denied", via: "status", old: stored(approved), conds: []certificatesv1.CertificateSigningRequestCondition{denied},
			wantErrs: []string{`status.conditions: Forbidden: updates may not remove a condition of type "Approved"`,
				`status.conditions: Forbidden: updates may not add a condition of type "Denied"`}},
		{name: "the status may not add Denied to Approved", via: "status", old: stored(approved), conds: []certificatesv1.CertificateSigningRequestCondition{approved, denied},
			wantErrs: []string{`status.conditions: Forbidden: updates may not add a condition of type "Denied"`, approvedAndDenied}},
		{name: "the approval may approve", via: "approval", old: stored(), conds: []certificatesv1.CertificateSigningRequestCondition{approved}},
		{name: "Approved is True only", via: "approval", old: stored(), conds: []certificatesv1.CertificateSigningRequestCondition{condition(certificatesv1.CertificateApproved, corev1.ConditionFalse)},
			wantErrs: []string{`status.conditions[0].status: Unsupported value: "False": supported values: "True"`}},
		{name: "Approved and Denied are not together", via: "approval", old: stored(), conds: []certificatesv1.CertificateSigningRequestCondition{approved, denied},
			wantErrs: []string{approvedAndDenied}},
		{name: "nor added to one another", via: "approval", old: stored(approved), conds: []certificatesv1.CertificateSigningRequestCondition{approved, denied},
			wantErrs: []string{approvedAndDenied}},
		{name: "a stored Approved and Denied may stay", via: "approval", old: stored(approved, denied), conds: []certificatesv1.CertificateSigningRequestCondition{approved, denied, failed}},
		{name: "Approved is not given twice", via: "approval", old: stored(), conds: []certificatesv1.CertificateSigningRequestCondition{approved, approved},
			wantErrs: []string{`status.conditions[1].type: Duplicate value: "Approved"`}},
		{name: "the approval may not remove Approved", via: "approval", old: stored(approved), conds: nil,
			wantErrs: []string{`status.conditions: Forbidden: updates may not remove a condition of type "Approved"`}},
		{name: "the approval may change Approved", via: "approval", old: stored(approved), conds: []certificatesv1.CertificateSigningRequestCondition{{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "R"}}},
		{name: "an update keeps what it is given", via: "", old: stored(approved), conds: []certificatesv1.CertificateSigningRequestCondition{approved}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.old.DeepCopy()
			n.Status.Conditions, n.Status.Certificate = tc.conds, tc.cert
			ctx := context.Background()
			var errs field.ErrorList
			switch tc.via {
			case "status":
				errs = Strategy.ValidateStatusUpdate(ctx, n, tc.old)
			case "approval":
				errs = Strategy.ValidateApprovalUpdate(ctx, n, tc.old)
			default:
				errs = Strategy.ValidateUpdate(ctx, n, tc.old)
			}
			// The first line of each: a modified condition's message goes
			// on with a diff.
			var got []error
			for _, e := range errs {
				first, _, _ := strings.Cut(e.Error(), "\n")
				got = append(got, errors.New(first))
			}
			validatetest.ExpectErrors(t, got, tc.wantErrs)
		})
	}
}

func TestPrepareForStatusUpdateKeepsApprovedAndDenied(t *testing.T) {
	stamp := metav1.NewTime(time.Date(2020, 1, 1, 0, 0, 0, 0, time.UTC))
	old := &certificatesv1.CertificateSigningRequest{
		Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: "example.com/x"},
		Status: certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{
			{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Stored", LastUpdateTime: stamp, LastTransitionTime: stamp},
			{Type: "X", Status: corev1.ConditionFalse, LastUpdateTime: stamp, LastTransitionTime: stamp},
		}},
	}
	n := &certificatesv1.CertificateSigningRequest{
		Spec: certificatesv1.CertificateSigningRequestSpec{SignerName: "example.com/changed"},
		Status: certificatesv1.CertificateSigningRequestStatus{Conditions: []certificatesv1.CertificateSigningRequestCondition{
			{Type: "X", Status: corev1.ConditionFalse, Reason: "New"},
			{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "Changed"},
			{Type: "Y", Status: corev1.ConditionTrue},
		}},
	}
	Strategy.PrepareForStatusUpdate(context.Background(), n, old)
	if n.Spec.SignerName != "example.com/x" {
		t.Errorf("spec.signerName %q, want the stored one", n.Spec.SignerName)
	}
	c := n.Status.Conditions
	if c[1] != old.Status.Conditions[0] {
		t.Errorf("Approved condition %+v, want the stored %+v", c[1], old.Status.Conditions[0])
	}
	if c[0].Reason != "New" || !c[0].LastTransitionTime.Equal(&stamp) || c[0].LastUpdateTime.IsZero() || c[0].LastUpdateTime.Equal(&stamp) {
		t.Errorf("X condition %+v: want its reason, the stored transition time and a new update time", c[0])
	}
	if c[2].LastTransitionTime.IsZero() || c[2].LastUpdateTime.IsZero() {
		t.Errorf("Y condition %+v: want its times set", c[2])
	}

	// A write that adds a Denied condition keeps it as written, for
	// validation to refuse.
	n = old.DeepCopy()
	n.Status.Conditions = append(n.Status.Conditions, certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateDenied, Status: corev1.ConditionTrue, Reason: "Sent"})
	Strategy.PrepareForStatusUpdate(context.Background(), n, old)
	if got := n.Status.Conditions[2]; got.Type != certificatesv1.CertificateDenied || got.Reason != "Sent" {
		t.Errorf("Denied condition %+v, want the one sent", got)
	}
}
