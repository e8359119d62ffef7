package auth

import (
	"crypto/tls"
	"crypto/x509"
	"net/http"
	"sync/atomic"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"

	"github.com/fakeplane/fakeplane/auth/cafile"
)

func TestCachedCertAuthenticatorVerifiesOncePerChainAndCABundle(t *testing.T) {
	calls := 0
	inner := authenticator.RequestFunc(func(*http.Request) (*authenticator.Response, bool, error) {
		calls++
		return &authenticator.Response{User: &user.DefaultInfo{Name: "u"}}, true, nil
	})
	now := time.Now()
	roots := &switchableSource{}
	roots.cur.Store(&cafile.Bundle{})
	c := newCachedCertAuthenticator(inner, roots)
	c.now = func() time.Time { return now }
	req := func(raw string, notAfter time.Time) *http.Request {
		r, _ := http.NewRequest("GET", "/", nil)
		r.TLS = &tls.ConnectionState{PeerCertificates: []*x509.Certificate{{Raw: []byte(raw), NotAfter: notAfter}}}
		return r
	}
	far := now.Add(24 * time.Hour)
	for _, step := range []struct {
		name      string
		req       *http.Request
		advance   time.Duration
		wantCalls int
	}{
		{"first use verifies", req("a", far), 0, 1},
		{"same chain is remembered", req("a", far), 0, 1},
		{"another chain verifies", req("b", far), 0, 2},
		{"after the TTL it verifies again", req("a", far), 2 * certCacheTTL, 3},
		{"an expiring certificate is not remembered past expiry", req("c", now.Add(2*certCacheTTL+time.Second)), 0, 4},
		{"...and verified again after it", req("c", now.Add(2*certCacheTTL+time.Second)), 2 * time.Second, 5},
		{"a chain verified now", req("d", far), 0, 6},
		{"is verified again once the CAs changed", req("d", far), -1, 7},
		{"and remembered again", req("d", far), 0, 7},
	} {
		if step.advance < 0 {
			roots.cur.Store(&cafile.Bundle{})
			step.advance = 0
		}
		now = now.Add(step.advance)
		if _, ok, err := c.AuthenticateRequest(step.req); !ok || err != nil {
			t.Fatalf("%s: %v %v", step.name, ok, err)
		}
		if calls != step.wantCalls {
			t.Errorf("%s: %d verifications, want %d", step.name, calls, step.wantCalls)
		}
	}
	// Requests without a certificate go straight through.
	r, _ := http.NewRequest("GET", "/", nil)
	_, _, _ = c.AuthenticateRequest(r)
	if calls != 8 {
		t.Errorf("no certificate: %d calls, want 8", calls)
	}
}

// switchableSource is a CA bundle a test replaces.
type switchableSource struct{ cur atomic.Pointer[cafile.Bundle] }

func (s *switchableSource) Bundle() *cafile.Bundle { return s.cur.Load() }
