package fakeplane_test

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"net"
	"slices"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// newCSR makes a P-256 key and a PEM certificate request of tmpl with it.
func newCSR(t *testing.T, tmpl *x509.CertificateRequest) (request, keyPEM []byte) {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, tmpl, key)
	if err != nil {
		t.Fatal(err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}), pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER})
}

// TestCertificateSigningRequestsAreSignedAsByKubeControllerManager: as
// kube-controller-manager's CSR controllers given the cluster CA (recorded
// on refplane with --cluster-signing-cert-file), a node client request its
// requester may make is approved at once, approved requests of the
// kubernetes.io signers are issued (or failed with the signer's rule they
// break), others are left alone, and an issued kube-apiserver-client
// certificate authenticates its subject.
func TestCertificateSigningRequestsAreSignedAsByKubeControllerManager(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	ctx := ctxT(t)
	cs := clientset(t, cp)
	csrs := cs.CertificatesV1().CertificateSigningRequests()
	usages := func(u ...certificatesv1.KeyUsage) []certificatesv1.KeyUsage { return u }
	node := pkix.Name{CommonName: "system:node:n1", Organization: []string{"system:nodes"}}
	cases := []struct {
		name       string
		tmpl       x509.CertificateRequest
		signer     string
		usages     []certificatesv1.KeyUsage
		expiration *int32
		// approve, deny: what a user does (kubectl certificate approve).
		approve, deny bool
		// wantAutoApproved: the approving controller approves it;
		// wantFailed: the signer's message; wantIssued: a certificate.
		wantAutoApproved bool
		wantFailed       string
		wantIssued       bool
	}{
		{name: "client", tmpl: x509.CertificateRequest{Subject: pkix.Name{CommonName: "alice", Organization: []string{"dev"}}},
			signer: certificatesv1.KubeAPIServerClientSignerName, usages: usages(certificatesv1.UsageClientAuth), approve: true, wantIssued: true},
		{name: "client-with-server-auth", tmpl: x509.CertificateRequest{Subject: pkix.Name{CommonName: "bob"}},
			signer: certificatesv1.KubeAPIServerClientSignerName, usages: usages(certificatesv1.UsageServerAuth), approve: true,
			wantFailed: "invalid usage for client certificate: server auth"},
		{name: "short-lived", tmpl: x509.CertificateRequest{Subject: pkix.Name{CommonName: "carol"}},
			signer: certificatesv1.KubeAPIServerClientSignerName, usages: usages(certificatesv1.UsageClientAuth, certificatesv1.UsageDigitalSignature),
			expiration: ptr.To[int32](700), approve: true, wantIssued: true},
		{name: "kubelet-client", tmpl: x509.CertificateRequest{Subject: node},
			signer: certificatesv1.KubeAPIServerClientKubeletSignerName, usages: usages(certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth),
			wantAutoApproved: true, wantIssued: true},
		{name: "kubelet-client-not-a-node", tmpl: x509.CertificateRequest{Subject: pkix.Name{CommonName: "n2", Organization: []string{"system:nodes"}}},
			signer: certificatesv1.KubeAPIServerClientKubeletSignerName, usages: usages(certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageClientAuth),
			approve: true, wantFailed: "subject common name does not begin with system:node:"},
		{name: "kubelet-serving", tmpl: x509.CertificateRequest{Subject: node, DNSNames: []string{"n1"}, IPAddresses: []net.IP{net.ParseIP("10.0.0.1")}},
			signer: certificatesv1.KubeletServingSignerName, usages: usages(certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageServerAuth),
			approve: true, wantIssued: true},
		{name: "kubelet-serving-without-names", tmpl: x509.CertificateRequest{Subject: node},
			signer: certificatesv1.KubeletServingSignerName, usages: usages(certificatesv1.UsageDigitalSignature, certificatesv1.UsageKeyEncipherment, certificatesv1.UsageServerAuth),
			approve: true, wantFailed: "DNS or IP subjectAltName is required"},
		{name: "kubelet-serving-client-usage", tmpl: x509.CertificateRequest{Subject: node, DNSNames: []string{"n1"}},
			signer: certificatesv1.KubeletServingSignerName, usages: usages(certificatesv1.UsageDigitalSignature, certificatesv1.UsageClientAuth),
			approve: true, wantFailed: "usages did not match [digital signature key encipherment server auth]"},
		{name: "another-signer", tmpl: x509.CertificateRequest{Subject: pkix.Name{CommonName: "dave"}},
			signer: "example.com/signer", usages: usages(certificatesv1.UsageClientAuth), approve: true},
		{name: "denied", tmpl: x509.CertificateRequest{Subject: pkix.Name{CommonName: "erin"}},
			signer: certificatesv1.KubeAPIServerClientSignerName, usages: usages(certificatesv1.UsageClientAuth), deny: true},
	}
	keys := map[string][]byte{}
	for _, tc := range cases {
		req, key := newCSR(t, &tc.tmpl)
		keys[tc.name] = key
		if _, err := csrs.Create(ctx, &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: tc.name},
			Spec: certificatesv1.CertificateSigningRequestSpec{Request: req, SignerName: tc.signer, Usages: tc.usages, ExpirationSeconds: tc.expiration}}, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create %s: %v", tc.name, err)
		}
	}
	for _, tc := range cases {
		if !tc.approve && !tc.deny {
			continue
		}
		cond := certificatesv1.CertificateSigningRequestCondition{Type: certificatesv1.CertificateApproved, Status: corev1.ConditionTrue, Reason: "KubectlApprove"}
		if tc.deny {
			cond.Type, cond.Reason = certificatesv1.CertificateDenied, "KubectlDeny"
		}
		cur, err := csrs.Get(ctx, tc.name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		cur.Status.Conditions = append(cur.Status.Conditions, cond)
		if _, err := csrs.UpdateApproval(ctx, tc.name, cur, metav1.UpdateOptions{}); err != nil {
			t.Fatalf("approve %s: %v", tc.name, err)
		}
	}
	// The controllers handle requests in the order of their changes: once
	// the last approved one is done, all are.
	eventuallyT(t, "the last approved request handled", func(ctx context.Context) (bool, error) {
		csr, err := csrs.Get(ctx, "kubelet-serving-client-usage", metav1.GetOptions{})
		return err == nil && len(csr.Status.Conditions) == 2, err
	})
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			csr, err := csrs.Get(ctx, tc.name, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			var approval, failed *certificatesv1.CertificateSigningRequestCondition
			for i, c := range csr.Status.Conditions {
				switch c.Type {
				case certificatesv1.CertificateApproved, certificatesv1.CertificateDenied:
					approval = &csr.Status.Conditions[i]
				case certificatesv1.CertificateFailed:
					failed = &csr.Status.Conditions[i]
				}
			}
			if tc.wantAutoApproved != (approval != nil && approval.Reason == "AutoApproved") {
				t.Errorf("approval %+v, want auto-approved %v", approval, tc.wantAutoApproved)
			}
			if tc.wantAutoApproved && approval.Message != "Auto approving kubelet client certificate after SubjectAccessReview." {
				t.Errorf("approval message %q", approval.Message)
			}
			switch {
			case tc.wantFailed == "" && failed != nil:
				t.Errorf("failed: %+v", failed)
			case tc.wantFailed != "" && (failed == nil || failed.Reason != "SignerValidationFailure" || failed.Message != tc.wantFailed || failed.LastUpdateTime.IsZero()):
				t.Errorf("failed condition %+v, want SignerValidationFailure %q", failed, tc.wantFailed)
			}
			if tc.wantIssued != (len(csr.Status.Certificate) > 0) {
				t.Fatalf("certificate %q, want one: %v", csr.Status.Certificate, tc.wantIssued)
			}
			if tc.wantIssued {
				checkIssued(t, cp, csr, tc.tmpl)
			}
		})
	}
	// The client certificate the signer issued is alice's, as on a cluster
	// whose signer is its client CA.
	cert, err := csrs.Get(ctx, "client", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg := rest.CopyConfig(cp.RESTConfig())
	cfg.BearerToken, cfg.BearerTokenFile = "", ""
	cfg.TLSClientConfig.CertFile, cfg.TLSClientConfig.KeyFile = "", ""
	cfg.TLSClientConfig.CertData, cfg.TLSClientConfig.KeyData = cert.Status.Certificate, keys["client"]
	alice, err := kubernetes.NewForConfig(cfg)
	if err != nil {
		t.Fatal(err)
	}
	review, err := alice.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("as alice: %v", err)
	}
	if u := review.Status.UserInfo; u.Username != "alice" || !slices.Equal(u.Groups, []string{"dev", "system:authenticated"}) {
		t.Errorf("the issued certificate authenticates %+v, want alice in dev", u)
	}
}

// checkIssued checks an issued certificate as kube-controller-manager's
// signer makes them: the request's subject and names, signed by the cluster
// CA, its usages, not a CA, from five minutes before signing, for a year
// less those five minutes or for the expirationSeconds asked (raised to ten
// minutes) after signing.
func checkIssued(t *testing.T, cp *fakeplane.ControlPlane, csr *certificatesv1.CertificateSigningRequest, tmpl x509.CertificateRequest) {
	t.Helper()
	block, _ := pem.Decode(csr.Status.Certificate)
	if block == nil || block.Type != "CERTIFICATE" {
		t.Fatalf("status.certificate is not a PEM certificate: %q", csr.Status.Certificate)
	}
	cert, err := x509.ParseCertificate(block.Bytes)
	if err != nil {
		t.Fatal(err)
	}
	roots := x509.NewCertPool()
	roots.AppendCertsFromPEM(cp.RESTConfig().CAData)
	if _, err := cert.Verify(x509.VerifyOptions{Roots: roots, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageAny}}); err != nil {
		t.Errorf("not signed by the cluster CA: %v", err)
	}
	if cert.Subject.CommonName != tmpl.Subject.CommonName || !slices.Equal(cert.Subject.Organization, tmpl.Subject.Organization) ||
		!slices.Equal(cert.DNSNames, tmpl.DNSNames) || len(cert.IPAddresses) != len(tmpl.IPAddresses) {
		t.Errorf("subject %v names %v %v, want %v %v %v", cert.Subject, cert.DNSNames, cert.IPAddresses, tmpl.Subject, tmpl.DNSNames, tmpl.IPAddresses)
	}
	if cert.IsCA || !cert.BasicConstraintsValid {
		t.Errorf("CA %v, basic constraints %v", cert.IsCA, cert.BasicConstraintsValid)
	}
	var wantKU x509.KeyUsage
	var wantEKU []x509.ExtKeyUsage
	for _, u := range csr.Spec.Usages {
		switch u {
		case certificatesv1.UsageDigitalSignature:
			wantKU |= x509.KeyUsageDigitalSignature
		case certificatesv1.UsageKeyEncipherment:
			wantKU |= x509.KeyUsageKeyEncipherment
		case certificatesv1.UsageClientAuth:
			wantEKU = append(wantEKU, x509.ExtKeyUsageClientAuth)
		case certificatesv1.UsageServerAuth:
			wantEKU = append(wantEKU, x509.ExtKeyUsageServerAuth)
		}
	}
	if cert.KeyUsage != wantKU || !slices.Equal(cert.ExtKeyUsage, wantEKU) {
		t.Errorf("key usage %v %v, want %v %v", cert.KeyUsage, cert.ExtKeyUsage, wantKU, wantEKU)
	}
	signed := cert.NotBefore.Add(5 * time.Minute)
	want := 365*24*time.Hour - 5*time.Minute
	if csr.Spec.ExpirationSeconds != nil {
		want = max(time.Duration(*csr.Spec.ExpirationSeconds)*time.Second, 10*time.Minute)
	}
	if got := cert.NotAfter.Sub(signed); got != want {
		t.Errorf("lasts %v after signing, want %v", got, want)
	}
	if approved := csr.Status.Conditions[0].LastUpdateTime.Time; signed.Before(approved.Add(-time.Second)) || signed.After(time.Now()) {
		t.Errorf("signed at %v, approved at %v", signed, approved)
	}
}
