package fakeplane_test

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/pem"
	"strings"
	"testing"

	"github.com/fakeplane/fakeplane"
)

// TestNameRulesAsKubeAPIServer checks the metadata.name rules that are not
// a DNS subdomain: a StatefulSet's name is a DNS label (its pods are named
// after it), a CertificateSigningRequest's is any path segment. Each code
// and message is what a real v1.37 kube-apiserver answered (recorded with
// refplane).
func TestNameRulesAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{Subject: pkix.Name{CommonName: "alice"}}, key)
	if err != nil {
		t.Fatal(err)
	}
	request := base64.StdEncoding.EncodeToString(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE REQUEST", Bytes: der}))
	csr := func(name string) string {
		return `{"metadata":{"name":"` + name + `"},"spec":{"request":"` + request + `","signerName":"example.com/x","usages":["client auth"]}}`
	}
	const csrs = "/apis/certificates.k8s.io/v1/certificatesigningrequests?dryRun=All"
	const sets = "/apis/apps/v1/namespaces/default/statefulsets?dryRun=All"
	set := func(name string) string {
		return `{"metadata":{"name":"` + name + `"},"spec":{"serviceName":"s","selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`
	}
	long := "a" + strings.Repeat("1", 62) + "b"
	runWriteCases(t, fakeplane.Start(t), []writeCase{
		{"a request's name may have underscores and colons", "POST", csrs, csr("A_b:c"), 201, ""},
		{"and capitals and spaces", "POST", csrs, csr("UPPER case"), 201, ""},
		{"but not a percent sign", "POST", csrs, csr("a%b"), 422,
			`CertificateSigningRequest.certificates.k8s.io "a%b" is invalid: metadata.name: Invalid value: "a%b": may not contain '%'`},
		{"nor be ..", "POST", csrs, csr(".."), 422,
			`CertificateSigningRequest.certificates.k8s.io ".." is invalid: metadata.name: Invalid value: "..": may not be '..'`},
		{"a stateful set's name has no dots", "POST", sets, set("s.1"), 422,
			`StatefulSet.apps "s.1" is invalid: metadata.name: Invalid value: "s.1": must not contain dots`},
		{"and at most 63 characters", "POST", sets, set(long), 422,
			`StatefulSet.apps "` + long + `" is invalid: metadata.name: Invalid value: "` + long + `": must be no more than 63 characters`},
		{"a stateful set named as a DNS label", "POST", sets, set("s-1"), 201, ""},
	})
}
