package fakeplane_test

import (
	"crypto"
	"crypto/ecdsa"
	"crypto/ed25519"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"math/big"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane"
)

// The paths and long messages of TestCertificatesValidationAsKubeAPIServer.
const (
	certBundles  = `/apis/certificates.k8s.io/v1/clustertrustbundles`
	certRequests = `/apis/certificates.k8s.io/v1/namespaces/h1-cert/podcertificaterequests`
	certMerge    = "PATCH:application/merge-patch+json"

	certSubdomain = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	certLabelKey  = `a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName')`
	certReason    = `a condition reason must start with alphabetic character, optionally followed by a string of alphanumeric characters or '_,:', and must end with an alphanumeric character or '_' (e.g. 'my_name',  or 'MY_NAME',  or 'MyName',  or 'ReasonA,ReasonB',  or 'ReasonA:ReasonB', regex used for validation is '[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?')`
	certOneOf     = `spec: Invalid value: exactly one of (stubPKCS10Request) or (pkixPublicKey, proofOfPossession) must be set`
	certTerminal  = `status: Invalid value: immutable after PodCertificateRequest is issued, denied, or failed`
)

// certPEM is the PEM block of a DER certificate.
func certPEM(der []byte) string {
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// certIssue makes a certificate for pub from notBefore to notAfter, a CA
// or not, signed by parent's key (self-signed when parent is nil).
func certIssue(t *testing.T, ca bool, pub crypto.PublicKey, parent *x509.Certificate, key crypto.Signer, notBefore, notAfter time.Time) (*x509.Certificate, string) {
	t.Helper()
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(time.Now().UnixNano()), Subject: pkix.Name{CommonName: "h1"},
		NotBefore: notBefore, NotAfter: notAfter, IsCA: ca, BasicConstraintsValid: ca}
	if parent == nil {
		parent = tmpl
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, parent, pub, key)
	if err != nil {
		t.Fatal(err)
	}
	c, err := x509.ParseCertificate(der)
	if err != nil {
		t.Fatal(err)
	}
	return c, certPEM(der)
}

// certStub is the base64 of an empty PKCS#10 request signed by key.
func certStub(t *testing.T, key crypto.Signer) []byte {
	t.Helper()
	der, err := x509.CreateCertificateRequest(rand.Reader, &x509.CertificateRequest{}, key)
	if err != nil {
		t.Fatal(err)
	}
	return der
}

// certJSON is the JSON of v, for request bodies.
func certJSON(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		panic(err)
	}
	return string(b)
}

// TestCertificatesValidationAsKubeAPIServer checks the validation of
// ClusterTrustBundles and PodCertificateRequests (certificates.k8s.io/v1,
// the version kube-apiserver v1.37 serves): creates, updates, writes to a
// request's status and the "sign" permission they need. Every code and
// message is the answer refplane (a real v1.37 kube-apiserver) gave to the
// same requests; keys and certificates are made afresh, and where a message
// shows one (or a time) the recorded message is filled in with it.
func TestCertificatesValidationAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)

	now := time.Now().Truncate(time.Second)
	_, caKey, _ := ed25519.GenerateKey(rand.Reader)
	caCert, ca := certIssue(t, true, caKey.Public(), nil, caKey, now.Add(-time.Hour), now.Add(24*time.Hour))
	_, caKey2, _ := ed25519.GenerateKey(rand.Reader)
	_, ca2 := certIssue(t, true, caKey2.Public(), nil, caKey2, now.Add(-time.Hour), now.Add(24*time.Hour))
	_, otherKey, _ := ed25519.GenerateKey(rand.Reader)
	_, leaf := certIssue(t, false, otherKey.Public(), caCert, caKey, now.Add(-time.Hour), now.Add(24*time.Hour))
	withHeaders := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Headers: map[string]string{"X": "y"}, Bytes: caCert.Raw}))
	privateKey := string(pem.EncodeToMemory(&pem.Block{Type: "PRIVATE KEY", Bytes: []byte("abc")}))
	junk := string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: []byte("abc")}))

	bundle := func(name, signer, trust string) string {
		spec := map[string]any{"trustBundle": trust}
		if signer != "" {
			spec["signerName"] = signer
		}
		return certJSON(map[string]any{"metadata": map[string]any{"name": name}, "spec": spec})
	}
	invalidBundle := func(name, causes string) string {
		return `ClusterTrustBundle.certificates.k8s.io "` + name + `" is invalid: ` + causes
	}
	t.Run("ClusterTrustBundle", func(t *testing.T) {
		runWriteCases(t, cp, []writeCase{
			{"a bundle without a signer", "POST", certBundles, bundle("h1-ctb-a", "", ca), 201, ""},
			{"a bundle for a signer, named after it", "POST", certBundles, bundle("example.com:h1-signer:b", "example.com/h1-signer", ca+ca2), 201, ""},
			{"a bundle for a signer starts with its name", "POST", certBundles, bundle("h1-ctb-c", "example.com/h1-signer", ca), 422,
				invalidBundle("h1-ctb-c", `metadata.name: Invalid value: "h1-ctb-c": ClusterTrustBundle for signerName example.com/h1-signer must be named with prefix example.com:h1-signer:`)},
			{"a bundle without a signer has no colon in its name", "POST", certBundles, bundle("h1:ctb-d", "", ca), 422,
				invalidBundle("h1:ctb-d", `metadata.name: Invalid value: "h1:ctb-d": ClusterTrustBundle without signer name must not have ":" in its name`)},
			{"the signer's name is checked after the bundle's", "POST", certBundles, bundle("h1-ctb-e", "foo", ca), 422,
				invalidBundle("h1-ctb-e", `[metadata.name: Invalid value: "h1-ctb-e": ClusterTrustBundle for signerName foo must be named with prefix foo:, spec.signerName: Invalid value: "foo": must be a fully qualified domain and path of the form 'example.com/signer-name']`)},
			{"the signer's name is a domain and a path", "POST", certBundles, bundle("foo:h1-ctb-e2", "foo", ca), 422,
				invalidBundle("foo:h1-ctb-e2", `spec.signerName: Invalid value: "foo": must be a fully qualified domain and path of the form 'example.com/signer-name'`)},
			{"an empty bundle has no trust anchor", "POST", certBundles, bundle("h1-ctb-f", "", ""), 422,
				invalidBundle("h1-ctb-f", `spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided`)},
			{"text outside PEM blocks is no trust anchor", "POST", certBundles, bundle("h1-ctb-g", "", "hello"), 422,
				invalidBundle("h1-ctb-g", `spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided`)},
			{"a trust anchor is a CA", "POST", certBundles, bundle("h1-ctb-h", "", leaf), 422,
				invalidBundle("h1-ctb-h", `spec.trustBundle: Invalid value: "<value omitted>": entry 0 does not have the CA bit set`)},
			{"a block is a CERTIFICATE", "POST", certBundles, bundle("h1-ctb-i", "", privateKey), 422,
				invalidBundle("h1-ctb-i", `spec.trustBundle: Invalid value: "<value omitted>": entry 0 has bad block type: PRIVATE KEY`)},
			{"a block has no headers", "POST", certBundles, bundle("h1-ctb-j", "", withHeaders), 422,
				invalidBundle("h1-ctb-j", `spec.trustBundle: Invalid value: "<value omitted>": entry 0 has PEM block headers`)},
			{"a block is an X.509 certificate", "POST", certBundles, bundle("h1-ctb-k", "", junk), 422,
				invalidBundle("h1-ctb-k", `spec.trustBundle: Invalid value: "<value omitted>": entry 0 does not parse as X.509`)},
			{"a trust anchor is given once", "POST", certBundles, bundle("h1-ctb-l", "", ca+ca2+ca), 422,
				invalidBundle("h1-ctb-l", `spec.trustBundle: Invalid value: "<value omitted>": duplicate trust anchor (indices [0 2])`)},
			{"every bad block is reported, and then no duplicates", "POST", certBundles, bundle("h1-ctb-m", "", privateKey+leaf+ca+ca), 422,
				invalidBundle("h1-ctb-m", `[spec.trustBundle: Invalid value: "<value omitted>": entry 0 has bad block type: PRIVATE KEY, spec.trustBundle: Invalid value: "<value omitted>": entry 1 does not have the CA bit set]`)},
			{"a bundle is at most 1 MiB", "POST", certBundles, bundle("h1-ctb-n", "", strings.Repeat("x", 1<<20+1)), 422,
				invalidBundle("h1-ctb-n", `spec.trustBundle: Too long: may not be more than 1048576 bytes`)},
			{"metadata errors come first", "POST", certBundles, bundle("H1_bad", "", "nope"), 422,
				invalidBundle("H1_bad", `[metadata.name: Invalid value: "H1_bad": `+certSubdomain+`, spec.trustBundle: Invalid value: "<value omitted>": at least one trust anchor must be provided]`)},
			{"text after the blocks is ignored", "POST", certBundles, bundle("h1-ctb-o", "", ca+"trailing text"), 201, ""},
			{"an update does not set a signer", certMerge, certBundles + "/h1-ctb-a", `{"spec":{"signerName":"example.com/h1-signer"}}`, 422,
				invalidBundle("h1-ctb-a", `[metadata.name: Invalid value: "h1-ctb-a": ClusterTrustBundle for signerName example.com/h1-signer must be named with prefix example.com:h1-signer:, spec.signerName: Invalid value: "example.com/h1-signer": field is immutable]`)},
			{"an update does not change the signer", certMerge, certBundles + "/example.com:h1-signer:b", `{"spec":{"signerName":"example.com/h1-other"}}`, 422,
				invalidBundle("example.com:h1-signer:b", `[metadata.name: Invalid value: "example.com:h1-signer:b": ClusterTrustBundle for signerName example.com/h1-other must be named with prefix example.com:h1-other:, spec.signerName: Invalid value: "example.com/h1-other": field is immutable]`)},
			{"an update does not remove the signer", certMerge, certBundles + "/example.com:h1-signer:b", `{"spec":{"signerName":null}}`, 422,
				invalidBundle("example.com:h1-signer:b", `[metadata.name: Invalid value: "example.com:h1-signer:b": ClusterTrustBundle without signer name must not have ":" in its name, spec.signerName: Invalid value: "": field is immutable]`)},
			{"a changed bundle is checked", certMerge, certBundles + "/h1-ctb-a", certJSON(map[string]any{"spec": map[string]any{"trustBundle": privateKey}}), 422,
				invalidBundle("h1-ctb-a", `spec.trustBundle: Invalid value: "<value omitted>": entry 0 has bad block type: PRIVATE KEY`)},
			{"a bundle is replaced", certMerge, certBundles + "/h1-ctb-a", certJSON(map[string]any{"spec": map[string]any{"trustBundle": ca2}}), 200, ""},
			{"labels change", certMerge, certBundles + "/h1-ctb-a", `{"metadata":{"labels":{"a":"b"}}}`, 200, ""},
		})
	})

	_, reqKey, _ := ed25519.GenerateKey(rand.Reader)
	stub := certStub(t, reqKey)
	rsaKey, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	p224, _ := ecdsa.GenerateKey(elliptic.P224(), rand.Reader)
	p256, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	badSignature := certStub(t, p256)
	badSignature[len(badSignature)-3] ^= 0xff
	request := func(name string, edit func(spec map[string]any)) string {
		spec := map[string]any{"signerName": "example.com/h1-signer", "podName": "p", "podUID": "pu", "serviceAccountName": "sa",
			"serviceAccountUID": "su", "nodeName": "n", "nodeUID": "nu", "maxExpirationSeconds": 86400, "stubPKCS10Request": stub}
		if edit != nil {
			edit(spec)
		}
		return certJSON(map[string]any{"metadata": map[string]any{"name": name}, "spec": spec, "status": map[string]any{"certificateChain": "x"}})
	}
	invalidRequest := func(name, causes string) string {
		return `PodCertificateRequest.certificates.k8s.io "` + name + `" is invalid: ` + causes
	}
	immutableSpec := func(podName, annotations string) string {
		return `spec: Invalid value: {"SignerName":"example.com/h1-signer","PodName":"` + podName + `","PodUID":"pu","ServiceAccountName":"sa","ServiceAccountUID":"su","NodeName":"n","NodeUID":"nu","MaxExpirationSeconds":86400,"PKIXPublicKey":null,"ProofOfPossession":null,"StubPKCS10Request":"` +
			base64.StdEncoding.EncodeToString(stub) + `","UnverifiedUserAnnotations":` + annotations + `}: field is immutable`
	}
	emptyNames := `spec.signerName: Required value, spec.podName: Invalid value: "": ` + certSubdomain + `, spec.podUID: Invalid value: "": must not be empty, spec.serviceAccountName: Invalid value: "": ` + certSubdomain +
		`, spec.serviceAccountUID: Invalid value: "": must not be empty, spec.nodeName: Invalid value: "": ` + certSubdomain + `, spec.nodeUID: Invalid value: "": must not be empty`
	t.Run("PodCertificateRequest", func(t *testing.T) {
		runWriteCases(t, cp, []writeCase{
			{"a namespace", "POST", `/api/v1/namespaces`, `{"metadata":{"name":"h1-cert"}}`, 201, ""},
			{"a request", "POST", certRequests, request("h1-pcr-a", nil), 201, ""},
			{"a request with the default expiration", "POST", certRequests, request("h1-pcr-b", func(s map[string]any) { delete(s, "maxExpirationSeconds") }), 201, ""},
			{"an empty spec", "POST", certRequests, `{"metadata":{"name":"h1-pcr-empty"},"spec":{}}`, 422,
				invalidRequest("h1-pcr-empty", `[`+emptyNames+`, `+certOneOf+`]`)},
			{"an empty spec with a short expiration", "POST", certRequests, `{"metadata":{"name":"h1-pcr-empty2"},"spec":{"maxExpirationSeconds":1}}`, 422,
				invalidRequest("h1-pcr-empty2", `[`+emptyNames+`, spec.maxExpirationSeconds: Invalid value: 1: must be in the range [3600, 7862400], `+certOneOf+`]`)},
			{"a Kubernetes signer's certificates last a day at most", "POST", certRequests, request("h1-pcr-c", func(s map[string]any) { s["signerName"] = "kubernetes.io/foo"; s["maxExpirationSeconds"] = 86401 }), 422,
				invalidRequest("h1-pcr-c", `spec.maxExpirationSeconds: Invalid value: 86401: must be in the range [3600, 86400]`)},
			{"a Kubernetes signer's certificates last an hour at least", "POST", certRequests, request("h1-pcr-c2", func(s map[string]any) { s["signerName"] = "kubernetes.io/foo"; s["maxExpirationSeconds"] = 3600 }), 201, ""},
			{"certificates last an hour at least", "POST", certRequests, request("h1-pcr-d", func(s map[string]any) { s["maxExpirationSeconds"] = 3599 }), 422,
				invalidRequest("h1-pcr-d", `spec.maxExpirationSeconds: Invalid value: 3599: must be in the range [3600, 7862400]`)},
			{"certificates last 91 days at most", "POST", certRequests, request("h1-pcr-d2", func(s map[string]any) { s["maxExpirationSeconds"] = 91*86400 + 1 }), 422,
				invalidRequest("h1-pcr-d2", `spec.maxExpirationSeconds: Invalid value: 7862401: must be in the range [3600, 7862400]`)},
			{"certificates may last 91 days", "POST", certRequests, request("h1-pcr-d3", func(s map[string]any) { s["maxExpirationSeconds"] = 91 * 86400 }), 201, ""},
			{"a stub request is required", "POST", certRequests, request("h1-pcr-e", func(s map[string]any) { delete(s, "stubPKCS10Request") }), 422,
				invalidRequest("h1-pcr-e", certOneOf)},
			{"a stub request is PKCS#10", "POST", certRequests, request("h1-pcr-f", func(s map[string]any) { s["stubPKCS10Request"] = []byte("abc") }), 422,
				invalidRequest("h1-pcr-f", `spec.stubPKCS10Request: Invalid value: must be a valid PKCS#10 CSR`)},
			{"an RSA key has 3072 or 4096 bits", "POST", certRequests, request("h1-pcr-g", func(s map[string]any) { s["stubPKCS10Request"] = certStub(t, rsaKey) }), 422,
				invalidRequest("h1-pcr-g", `spec.stubPKCS10Request: Invalid value: "2048-bit modulus": RSA keys must have modulus size 3072 or 4096`)},
			{"an elliptic key is on P-256, P-384 or P-521", "POST", certRequests, request("h1-pcr-h", func(s map[string]any) { s["stubPKCS10Request"] = certStub(t, p224) }), 422,
				invalidRequest("h1-pcr-h", `spec.stubPKCS10Request: Invalid value: "curve P-224": elliptic public keys must use curve P256, P384, or P521`)},
			{"a stub request is signed by its key", "POST", certRequests, request("h1-pcr-i", func(s map[string]any) { s["stubPKCS10Request"] = badSignature }), 422,
				invalidRequest("h1-pcr-i", `spec.stubPKCS10Request: Invalid value: invalid signature`)},
			{"a P-256 key", "POST", certRequests, request("h1-pcr-i2", func(s map[string]any) { s["stubPKCS10Request"] = certStub(t, p256) }), 201, ""},
			{"a user annotation's key is a label key", "POST", certRequests, request("h1-pcr-j", func(s map[string]any) {
				s["unverifiedUserAnnotations"] = map[string]string{"a/b/c": "z", "Example.com/OK": "v"}
			}), 422,
				invalidRequest("h1-pcr-j", `spec.unverifiedUserAnnotations: Invalid value: "a/b/c": `+certLabelKey)},
			{"a user annotation's key has a domain", "POST", certRequests, request("h1-pcr-j1", func(s map[string]any) { s["unverifiedUserAnnotations"] = map[string]string{"foo": "x"} }), 422,
				invalidRequest("h1-pcr-j1", `spec.unverifiedUserAnnotations: Invalid value: "foo": must be a domain-prefixed key (such as "acme.io/foo")`)},
			{"user annotations fit 256 KiB", "POST", certRequests, request("h1-pcr-j2", func(s map[string]any) {
				s["unverifiedUserAnnotations"] = map[string]string{"example.com/big": strings.Repeat("v", 256*1024)}
			}), 422, invalidRequest("h1-pcr-j2", `spec.unverifiedUserAnnotations: Too long: may not be more than 262144 bytes`)},
			{"UIDs have 128 bytes at most", "POST", certRequests, request("h1-pcr-k", func(s map[string]any) {
				s["podUID"], s["serviceAccountUID"], s["nodeUID"] = strings.Repeat("u", 129), strings.Repeat("u", 129), strings.Repeat("u", 129)
			}), 422, invalidRequest("h1-pcr-k", `[spec.podUID: Too long: may not be more than 128 bytes, spec.serviceAccountUID: Too long: may not be more than 128 bytes, spec.nodeUID: Too long: may not be more than 128 bytes]`)},
			{"names are DNS subdomains", "POST", certRequests, request("h1-pcr-l", func(s map[string]any) {
				s["podName"], s["serviceAccountName"], s["nodeName"], s["signerName"] = "Bad_Pod", "Bad_SA", "Bad_Node", "bad"
			}), 422, invalidRequest("h1-pcr-l", `[spec.signerName: Invalid value: "bad": must be a fully qualified domain and path of the form 'example.com/signer-name', spec.podName: Invalid value: "Bad_Pod": `+certSubdomain+
				`, spec.serviceAccountName: Invalid value: "Bad_SA": `+certSubdomain+`, spec.nodeName: Invalid value: "Bad_Node": `+certSubdomain+`]`)},
			{"metadata errors come first", "POST", certRequests, request("Bad_PCR", func(s map[string]any) { s["maxExpirationSeconds"] = 1 }), 422,
				invalidRequest("Bad_PCR", `[metadata.name: Invalid value: "Bad_PCR": `+certSubdomain+`, spec.maxExpirationSeconds: Invalid value: 1: must be in the range [3600, 7862400]]`)},
			{"a stub request has 10 KiB at most", "POST", certRequests, request("h1-pcr-m", func(s map[string]any) { s["stubPKCS10Request"] = make([]byte, 10*1024+1) }), 422,
				invalidRequest("h1-pcr-m", `spec.stubPKCS10Request: Too long: may not be more than 10240 bytes`)},
			{"the spec is immutable", certMerge, certRequests + "/h1-pcr-a", `{"spec":{"podName":"q"}}`, 422, invalidRequest("h1-pcr-a", immutableSpec("q", "null"))},
			{"user annotations are immutable", certMerge, certRequests + "/h1-pcr-a", `{"spec":{"unverifiedUserAnnotations":{"example.com/x":"y"}}}`, 422,
				invalidRequest("h1-pcr-a", immutableSpec("p", `{"example.com/x":"y"}`))},
			{"an update changes labels, not the status", certMerge, certRequests + "/h1-pcr-a", `{"metadata":{"labels":{"a":"b"}},"status":{"certificateChain":"x"}}`, 200, ""},
		})
		code, _, out := rawExchange(t, cp, "GET", certRequests+"/h1-pcr-b", "", nil, nil)
		if code != 200 || !strings.Contains(string(out), `"maxExpirationSeconds":86400`) || strings.Contains(string(out), `"certificateChain"`) {
			t.Errorf("h1-pcr-b: %d %s, want the default maxExpirationSeconds 86400 and no status", code, out)
		}
	})

	condition := func(typ, status string) map[string]any {
		return map[string]any{"type": typ, "status": status, "reason": "R", "message": "m", "lastTransitionTime": now.UTC().Format(time.RFC3339)}
	}
	stamp := func(t time.Time) string { return t.UTC().Format(time.RFC3339) }
	// shown is how a time in a request's status shows in a message: as
	// kube-apiserver decodes it (in its local zone), in JSON.
	shown := func(t time.Time) string { return certJSON(t.Local()) }
	status := func(chain string, notBefore, notAfter, refresh time.Time) string {
		return certJSON(map[string]any{"status": map[string]any{"conditions": []any{condition("Issued", "True")}, "certificateChain": chain,
			"notBefore": stamp(notBefore), "notAfter": stamp(notAfter), "beginRefreshAt": stamp(refresh)}})
	}
	conditions := func(c ...any) string { return certJSON(map[string]any{"status": map[string]any{"conditions": c}}) }
	issue := func(notBefore, notAfter time.Time) string {
		_, c := certIssue(t, false, reqKey.Public(), caCert, caKey, notBefore, notAfter)
		return c
	}
	good := issue(now, now.Add(2*time.Hour))
	old := issue(now.Add(-time.Hour), now.Add(2*time.Hour))
	short := issue(now, now.Add(59*time.Minute))
	long := issue(now, now.Add(25*time.Hour))
	statusOf := func(name string) string { return certRequests + "/" + name + "/status" }
	chainError := func(chain, detail string) string {
		return invalidRequest("h1-pcr-a", fmt.Sprintf("status.certificateChain: Invalid value: %q: %s", chain, detail))
	}
	t.Run("PodCertificateRequest status", func(t *testing.T) {
		runWriteCases(t, cp, []writeCase{
			{"a condition's type is Issued, Denied or Failed", certMerge, statusOf("h1-pcr-a"), conditions(condition("Foo", "True")), 422,
				invalidRequest("h1-pcr-a", `status.conditions.[0].type: Unsupported value: "Foo": supported values: "Issued", "Denied", "Failed"`)},
			{"a terminal condition is True", certMerge, statusOf("h1-pcr-a"), conditions(condition("Issued", "False")), 422,
				invalidRequest("h1-pcr-a", `status.conditions.[0].status: Unsupported value: "False": supported values: "True"`)},
			{"there is one terminal condition at most", certMerge, statusOf("h1-pcr-a"), conditions(condition("Issued", "True"), condition("Denied", "True"), condition("Issued", "True")), 422,
				invalidRequest("h1-pcr-a", `[status.conditions.[1].type: Invalid value: "Denied": There may be at most one condition with type "Issued", "Denied", or "Failed", status.conditions.[2].type: Invalid value: "Issued": There may be at most one condition with type "Issued", "Denied", or "Failed", status.conditions[2]: Duplicate value: "Issued"]`)},
			{"conditions are metav1 conditions", certMerge, statusOf("h1-pcr-a"), conditions(map[string]any{"type": "Denied", "status": "True", "reason": "bad reason", "observedGeneration": -1}), 422,
				invalidRequest("h1-pcr-a", `[status.conditions[0].observedGeneration: Invalid value: -1: must be greater than or equal to zero, status.conditions[0].lastTransitionTime: Required value, status.conditions[0].reason: Invalid value: "bad reason": `+certReason+`]`)},
			{"a denial sets conditions alone", certMerge, statusOf("h1-pcr-a"), certJSON(map[string]any{"status": map[string]any{"conditions": []any{condition("Denied", "True")}, "certificateChain": "x"}}), 422,
				invalidRequest("h1-pcr-a", `status: Invalid value: non-condition status fields must be empty when denying or failing the PodCertificateRequest`)},
			{"a pending request's status is immutable", certMerge, statusOf("h1-pcr-a"), `{"status":{"conditions":[],"certificateChain":"x"}}`, 422,
				invalidRequest("h1-pcr-a", `status: Invalid value: status is immutable unless transitioning to "Issued", "Denied", or "Failed"`)},
			{"an issuance has a certificate", certMerge, statusOf("h1-pcr-a"), conditions(condition("Issued", "True")), 422,
				chainError("", "issued certificate chain must contain at least one certificate")},
			{"an issued chain's leaf is a CERTIFICATE", certMerge, statusOf("h1-pcr-a"), certJSON(map[string]any{"status": map[string]any{"conditions": []any{condition("Issued", "True")}, "certificateChain": privateKey}}), 422,
				chainError(privateKey, "issued certificate chain must consist entirely of CERTIFICATE PEM blocks")},
			{"an issued chain's leaf is X.509", certMerge, statusOf("h1-pcr-a"), certJSON(map[string]any{"status": map[string]any{"conditions": []any{condition("Issued", "True")}, "certificateChain": junk}}), 422,
				chainError(junk, "leaf certificate does not parse as valid X.509")},
			{"the leaf is for the requested key", certMerge, statusOf("h1-pcr-a"), certJSON(map[string]any{"status": map[string]any{"conditions": []any{condition("Issued", "True")}, "certificateChain": leaf}}), 422,
				chainError(leaf, "leaf certificate was not issued to the requested public key")},
			{"an issuance has its times", certMerge, statusOf("h1-pcr-a"), certJSON(map[string]any{"status": map[string]any{"conditions": []any{condition("Issued", "True")}, "certificateChain": good}}), 422,
				invalidRequest("h1-pcr-a", `[status.notBefore: Required value: must be present and consistent with the issued certificate, status.notAfter: Required value: must be present and consistent with the issued certificate, status.beginRefreshAt: Required value: must be present and in the range [notbefore+10min, notafter-10min]]`)},
			{"notBefore is the leaf's", certMerge, statusOf("h1-pcr-a"), status(good, now.Add(time.Second), now.Add(2*time.Hour), now.Add(time.Hour)), 422,
				invalidRequest("h1-pcr-a", `status.notBefore: Invalid value: `+shown(now.Add(time.Second))+`: must be set to the NotBefore time encoded in the leaf certificate`)},
			{"notBefore is now", certMerge, statusOf("h1-pcr-a"), status(old, now.Add(-time.Hour), now.Add(2*time.Hour), now.Add(time.Hour)), 422,
				invalidRequest("h1-pcr-a", `status.notBefore: Invalid value: `+shown(now.Add(-time.Hour))+`: must be set to within 5 minutes of kube-apiserver's current time`)},
			{"notAfter is the leaf's", certMerge, statusOf("h1-pcr-a"), status(good, now, now.Add(3*time.Hour), now.Add(time.Hour)), 422,
				invalidRequest("h1-pcr-a", `status.notAfter: Invalid value: `+shown(now.Add(3*time.Hour))+`: must be set to the NotAfter time encoded in the leaf certificate`)},
			{"a leaf lasts an hour at least", certMerge, statusOf("h1-pcr-a"), status(short, now, now.Add(59*time.Minute), now.Add(30*time.Minute)), 422,
				invalidRequest("h1-pcr-a", `status.certificateChain: Invalid value: 3540000000000: leaf certificate lifetime must be >= 1 hour`)},
			{"a leaf lasts maxExpirationSeconds at most", certMerge, statusOf("h1-pcr-a"), status(long, now, now.Add(25*time.Hour), now.Add(time.Hour)), 422,
				invalidRequest("h1-pcr-a", `status.certificateChain: Invalid value: 90000000000000: leaf certificate lifetime must be <= spec.maxExpirationSeconds (86400)`)},
			{"a refresh begins 10 minutes after notBefore", certMerge, statusOf("h1-pcr-a"), status(good, now, now.Add(2*time.Hour), now.Add(5*time.Minute)), 422,
				invalidRequest("h1-pcr-a", `status.beginRefreshAt: Invalid value: `+shown(now.Add(5*time.Minute))+`: must be at least 10 minutes after status.notBefore`)},
			{"a refresh begins 10 minutes before notAfter", certMerge, statusOf("h1-pcr-a"), status(good, now, now.Add(2*time.Hour), now.Add(115*time.Minute)), 422,
				invalidRequest("h1-pcr-a", `status.beginRefreshAt: Invalid value: `+shown(now.Add(115*time.Minute))+`: must be at least 10 minutes before status.notAfter`)},
			{"the rest of the chain is CERTIFICATE blocks", certMerge, statusOf("h1-pcr-a"), status(good+privateKey, now, now.Add(2*time.Hour), now.Add(time.Hour)), 422,
				chainError(good+privateKey, "issued certificate chain must consist entirely of CERTFICATE PEM blocks")},
			{"the rest of the chain is X.509", certMerge, statusOf("h1-pcr-a"), status(good+junk, now, now.Add(2*time.Hour), now.Add(time.Hour)), 422,
				chainError(good+junk, "intermediate certificate does not parse as valid X.509")},
			{"an issuance", certMerge, statusOf("h1-pcr-a"), status(good+ca, now, now.Add(2*time.Hour), now.Add(time.Hour)), 200, ""},
			{"an issued request's status is immutable", certMerge, statusOf("h1-pcr-a"), status(good+ca, now, now.Add(2*time.Hour), now.Add(90*time.Minute)), 422, invalidRequest("h1-pcr-a", certTerminal)},
			{"an issued request is not denied", certMerge, statusOf("h1-pcr-a"), conditions(condition("Denied", "True")), 422, invalidRequest("h1-pcr-a", certTerminal)},
			{"a failure", certMerge, statusOf("h1-pcr-b"), conditions(condition("Failed", "True")), 200, ""},
			{"the same status again", certMerge, statusOf("h1-pcr-b"), conditions(condition("Failed", "True")), 200, ""},
			{"a failed request is not denied", certMerge, statusOf("h1-pcr-b"), conditions(condition("Denied", "True")), 422, invalidRequest("h1-pcr-b", certTerminal)},
		})
	})

	t.Run("a status write needs the sign permission", func(t *testing.T) {
		runWriteCases(t, cp, []writeCase{
			{"a role to write the status", "POST", `/apis/rbac.authorization.k8s.io/v1/namespaces/h1-cert/roles`,
				`{"metadata":{"name":"h1-status"},"rules":[{"apiGroups":["certificates.k8s.io"],"resources":["podcertificaterequests","podcertificaterequests/status"],"verbs":["get","patch","update"]}]}`, 201, ""},
			{"bound to h1-user", "POST", `/apis/rbac.authorization.k8s.io/v1/namespaces/h1-cert/rolebindings`,
				`{"metadata":{"name":"h1-status"},"roleRef":{"apiGroup":"rbac.authorization.k8s.io","kind":"Role","name":"h1-status"},"subjects":[{"apiGroup":"rbac.authorization.k8s.io","kind":"User","name":"h1-user"}]}`, 201, ""},
		})
		as := http.Header{"Impersonate-User": {"h1-user"}}
		for _, tc := range []struct {
			name, body string
			code       int
			message    string
		}{
			{"a valid change without the sign permission", conditions(condition("Denied", "True")), 422,
				invalidRequest("h1-pcr-i2", `spec.signerName: Forbidden: User "h1-user" is not permitted to "sign" for signer "example.com/h1-signer"`)},
			{"an invalid change is refused first", conditions(condition("Foo", "True")), 422,
				invalidRequest("h1-pcr-i2", `status.conditions.[0].type: Unsupported value: "Foo": supported values: "Issued", "Denied", "Failed"`)},
			{"no change needs no permission", `{"metadata":{"labels":{"a":"b"}}}`, 200, ""},
		} {
			t.Run(tc.name, func(t *testing.T) {
				code, _, out := rawExchange(t, cp, "PATCH", statusOf("h1-pcr-i2"), "application/merge-patch+json", []byte(tc.body), as)
				if code != tc.code {
					t.Fatalf("code %d, want %d: %s", code, tc.code, out)
				}
				var st struct{ Message string }
				_ = json.Unmarshal(out, &st)
				if tc.message != "" && st.Message != tc.message {
					t.Errorf("message\n got %s\nwant %s", st.Message, tc.message)
				}
			})
		}
	})
}
