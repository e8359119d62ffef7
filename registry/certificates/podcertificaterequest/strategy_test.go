package podcertificaterequest

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"math/big"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/validation/field"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	genericapirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// testRequest is a valid pending request for key's public key.
func testRequest(t *testing.T, key ed25519.PrivateKey) *certificatesv1.PodCertificateRequest {
	t.Helper()
	stub, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, key)
	if err != nil {
		t.Fatal(err)
	}
	r := &certificatesv1.PodCertificateRequest{
		ObjectMeta: metav1.ObjectMeta{Name: "r", Namespace: "ns"},
		Spec: certificatesv1.PodCertificateRequestSpec{SignerName: "example.com/s", PodName: "p", PodUID: "pu",
			ServiceAccountName: "sa", ServiceAccountUID: "su", NodeName: "n", NodeUID: "nu", StubPKCS10Request: stub},
	}
	Strategy.Default(r)
	return r
}

// messages are the errors' texts.
func messages(errs field.ErrorList) []string {
	var out []string
	for _, e := range errs {
		out = append(out, e.Error())
	}
	return out
}

func checkMessages(t *testing.T, errs field.ErrorList, want ...string) {
	t.Helper()
	got := messages(errs)
	if len(got) != len(want) {
		t.Fatalf("got %q, want %q", got, want)
	}
	for i := range got {
		if got[i] != want[i] {
			t.Errorf("error %d:\n got %s\nwant %s", i, got[i], want[i])
		}
	}
}

func TestDefaultSetsADayOfExpiration(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	r := testRequest(t, key)
	if r.Spec.MaxExpirationSeconds == nil || *r.Spec.MaxExpirationSeconds != 86400 {
		t.Fatalf("maxExpirationSeconds %v, want 86400", r.Spec.MaxExpirationSeconds)
	}
}

func TestValidateChecksTheSpec(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	for _, tc := range []struct {
		name string
		edit func(s *certificatesv1.PodCertificateRequestSpec)
		want []string
	}{
		{"valid", func(*certificatesv1.PodCertificateRequestSpec) {}, nil},
		{"a Kubernetes signer's day", func(s *certificatesv1.PodCertificateRequestSpec) {
			s.SignerName = "x.kubernetes.io/s"
			v := int32(86401)
			s.MaxExpirationSeconds = &v
		}, []string{"spec.maxExpirationSeconds: Invalid value: 86401: must be in the range [3600, 86400]"}},
		{"no expiration stops the checks", func(s *certificatesv1.PodCertificateRequestSpec) {
			s.MaxExpirationSeconds, s.StubPKCS10Request = nil, nil
		}, []string{"spec.maxExpirationSeconds: Required value: must be set"}},
		{"no stub", func(s *certificatesv1.PodCertificateRequestSpec) { s.StubPKCS10Request = nil },
			[]string{"spec: Invalid value: exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set"}},
		{"user annotations in key order", func(s *certificatesv1.PodCertificateRequestSpec) {
			s.UnverifiedUserAnnotations = map[string]string{"foo": "", "": ""}
		}, []string{"spec.unverifiedUserAnnotations: Required value", `spec.unverifiedUserAnnotations: Invalid value: "foo": must be a domain-prefixed key (such as "acme.io/foo")`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := testRequest(t, key)
			tc.edit(&r.Spec)
			checkMessages(t, Strategy.Validate(context.Background(), r), tc.want...)
		})
	}
}

func TestUpdateKeepsTheStatusAndTheSpec(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	old := testRequest(t, key)
	n := old.DeepCopy()
	n.Status.CertificateChain = "x"
	Strategy.PrepareForUpdate(context.Background(), n, old)
	if n.Status.CertificateChain != "" {
		t.Errorf("the update set the status")
	}
	n.Spec.PodName = "q"
	errs := Strategy.ValidateUpdate(context.Background(), n, old)
	if len(errs) != 1 || errs[0].Field != "spec" || errs[0].Detail != "field is immutable" {
		t.Errorf("got %v", errs)
	}
}

// issued is a status issuing a certificate for key, signed by itself,
// valid from notBefore for lifetime.
func issued(t *testing.T, key ed25519.PrivateKey, notBefore time.Time, lifetime time.Duration) certificatesv1.PodCertificateRequestStatus {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "t"}, NotBefore: notBefore, NotAfter: notBefore.Add(lifetime)}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	nb, na, br := metav1.NewTime(notBefore), metav1.NewTime(notBefore.Add(lifetime)), metav1.NewTime(notBefore.Add(lifetime/2))
	return certificatesv1.PodCertificateRequestStatus{
		Conditions:       []metav1.Condition{{Type: "Issued", Status: "True", Reason: "R", LastTransitionTime: metav1.NewTime(notBefore)}},
		CertificateChain: string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})),
		NotBefore:        &nb, NotAfter: &na, BeginRefreshAt: &br,
	}
}

func TestStatusUpdateFollowsTheRequestsLifecycle(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	now := time.Now().Truncate(time.Second)
	pending := testRequest(t, key)
	issue := pending.DeepCopy()
	issue.Status = issued(t, key, now, 2*time.Hour)
	denied := pending.DeepCopy()
	denied.Status.Conditions = []metav1.Condition{{Type: "Denied", Status: "True", Reason: "R", LastTransitionTime: metav1.NewTime(now)}}
	for _, tc := range []struct {
		name   string
		n, old *certificatesv1.PodCertificateRequest
		want   []string
	}{
		{"an issuance", issue, pending, nil},
		{"a denial", denied, pending, nil},
		{"no change", pending, pending, nil},
		{"an issued request is final", denied, issue, []string{"status: Invalid value: immutable after PodCertificateRequest is issued, denied, or failed"}},
		{"a pending request's status is immutable", func() *certificatesv1.PodCertificateRequest {
			r := pending.DeepCopy()
			r.Status.CertificateChain = "x"
			return r
		}(), pending, []string{`status: Invalid value: status is immutable unless transitioning to "Issued", "Denied", or "Failed"`}},
		{"a leaf lasts an hour", func() *certificatesv1.PodCertificateRequest {
			r := pending.DeepCopy()
			r.Status = issued(t, key, now, 59*time.Minute)
			return r
		}(), pending, []string{"status.certificateChain: Invalid value: 3540000000000: leaf certificate lifetime must be >= 1 hour"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checkMessages(t, validateStatusUpdate(tc.n, tc.old, now), tc.want...)
		})
	}
}

// signers allows "sign" on the signers named to the user alice.
func signers(names ...string) authorizer.Authorizer {
	return authorizer.AuthorizerFunc(func(_ context.Context, a authorizer.Attributes) (authorizer.Decision, string, error) {
		for _, n := range names {
			if a.GetUser().GetName() == "alice" && a.GetVerb() == "sign" && a.GetResource() == "signers" && a.GetName() == n {
				return authorizer.DecisionAllow, "", nil
			}
		}
		return authorizer.DecisionNoOpinion, "", nil
	})
}

func TestStatusChangeNeedsTheSignPermission(t *testing.T) {
	_, key, _ := ed25519.GenerateKey(rand.Reader)
	pending := testRequest(t, key)
	denied := pending.DeepCopy()
	denied.Status.Conditions = []metav1.Condition{{Type: "Denied", Status: "True", Reason: "R", LastTransitionTime: metav1.Now()}}
	ctxFor := func(name string, authz authorizer.Authorizer) context.Context {
		return genericapirequest.WithUser(validate.WithAuthorizer(context.Background(), authz), &user.DefaultInfo{Name: name})
	}
	for _, tc := range []struct {
		name string
		ctx  context.Context
		n    *certificatesv1.PodCertificateRequest
		want []string
	}{
		{"allowed on the signer", ctxFor("alice", signers("example.com/s")), denied, nil},
		{"allowed on the signer's domain", ctxFor("alice", signers("example.com/*")), denied, nil},
		{"refused", ctxFor("bob", signers("example.com/s")), denied, []string{`spec.signerName: Forbidden: User "bob" is not permitted to "sign" for signer "example.com/s"`}},
		{"no change needs no permission", ctxFor("bob", signers()), pending, nil},
		{"no authorizer, no check", genericapirequest.WithUser(context.Background(), &user.DefaultInfo{Name: "bob"}), denied, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			n := tc.n.DeepCopy()
			Strategy.PrepareForStatusUpdate(tc.ctx, n, pending)
			checkMessages(t, Strategy.ValidateStatusUpdate(tc.ctx, n, pending), tc.want...)
		})
	}
}
