package auth

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"testing"

	"k8s.io/apiserver/pkg/authentication/authenticator"
)

// TestFrontProxyPrecheckRefusesOnlyWhatVerificationRefuses checks that the
// precheck refuses, without asking the request-header authenticator, only
// certificates that verifying against the request-header CAs refuses, and
// passes the others (and chains with intermediates) on.
func TestFrontProxyPrecheckRefusesOnlyWhatVerificationRefuses(t *testing.T) {
	f := newChainFixture(t)
	asked := 0
	inner := authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
		asked++
		return nil, false, nil
	})
	p := newFrontProxyPrecheck(inner, caSource(f.proxyCA))
	caCert := f.proxyCA.Cert
	for _, tc := range []struct {
		name    string
		chain   []*x509.Certificate
		refused bool
	}{
		{"client CA's certificate", []*x509.Certificate{f.aliceCert}, true},
		{"another CA's certificate", []*x509.Certificate{f.strangerCert}, true},
		{"front proxy's certificate", []*x509.Certificate{f.proxyCert}, false},
		{"front proxy CA's certificate with a name not allowed", []*x509.Certificate{f.badCert}, false},
		{"the front proxy CA itself", []*x509.Certificate{caCert}, false},
		{"with intermediates", []*x509.Certificate{f.aliceCert, caCert}, false},
	} {
		asked = 0
		r, _ := http.NewRequest("GET", "/", nil)
		r.TLS = &tls.ConnectionState{PeerCertificates: tc.chain}
		_, ok, err := p.AuthenticateRequest(r)
		if refused := err == errNotFrontProxyCert; refused != tc.refused || ok {
			t.Errorf("%s: refused %v (ok %v), want %v", tc.name, refused, ok, tc.refused)
		}
		if wantAsked := map[bool]int{true: 0, false: 1}[tc.refused]; asked != wantAsked {
			t.Errorf("%s: request-header authenticator asked %d times, want %d", tc.name, asked, wantAsked)
		}
		if tc.refused {
			if _, err := tc.chain[0].Verify(x509.VerifyOptions{Roots: f.proxyCA.Pool(), KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}}); err == nil {
				t.Errorf("%s: refused, but it verifies against the request-header CA", tc.name)
			}
		}
	}
	// No certificate: the authenticator decides.
	asked = 0
	r, _ := http.NewRequest("GET", "/", nil)
	if _, _, err := p.AuthenticateRequest(r); err != nil || asked != 1 {
		t.Errorf("no certificate: err %v, asked %d", err, asked)
	}
}
