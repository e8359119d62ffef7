package auth

import (
	"crypto/sha256"
	"net/http"
	"sync"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"

	"github.com/fakeplane/fakeplane/auth/cafile"
)

// certCacheTTL is how long a verified client certificate chain is trusted
// without verifying it again.
const certCacheTTL = time.Minute

// certCacheMax bounds the number of remembered chains.
const certCacheMax = 10000

// cachedCertAuthenticator remembers what a client-certificate authenticator
// answered for a certificate chain, so that a client's every request does
// not pay for a signature verification (clients reuse one certificate for
// many requests). An entry lives at most a minute, never past the
// certificate's expiry, and only while the CA bundle it was verified with
// is the one in use (a CA file read again forgets every answer).
type cachedCertAuthenticator struct {
	inner authenticator.Request
	roots cafile.Source
	now   func() time.Time

	mu sync.Mutex
	m  map[[sha256.Size]byte]certCacheEntry
}

type certCacheEntry struct {
	resp  *authenticator.Response
	ok    bool
	err   error
	until time.Time
	roots *cafile.Bundle
}

func newCachedCertAuthenticator(inner authenticator.Request, roots cafile.Source) *cachedCertAuthenticator {
	return &cachedCertAuthenticator{inner: inner, roots: roots, now: time.Now, m: map[[sha256.Size]byte]certCacheEntry{}}
}

// AuthenticateRequest implements authenticator.Request.
func (c *cachedCertAuthenticator) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	if req.TLS == nil || len(req.TLS.PeerCertificates) == 0 {
		return c.inner.AuthenticateRequest(req)
	}
	h := sha256.New()
	for _, cert := range req.TLS.PeerCertificates {
		h.Write(cert.Raw)
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	now := c.now()
	roots := c.roots.Bundle()
	c.mu.Lock()
	e, hit := c.m[key]
	c.mu.Unlock()
	if hit && now.Before(e.until) && e.roots == roots {
		return e.resp, e.ok, e.err
	}
	resp, ok, err := c.inner.AuthenticateRequest(req)
	until := now.Add(certCacheTTL)
	if na := req.TLS.PeerCertificates[0].NotAfter; na.Before(until) {
		until = na
	}
	c.mu.Lock()
	if len(c.m) >= certCacheMax {
		c.m = map[[sha256.Size]byte]certCacheEntry{}
	}
	c.m[key] = certCacheEntry{resp: resp, ok: ok, err: err, until: until, roots: roots}
	c.mu.Unlock()
	return resp, ok, err
}
