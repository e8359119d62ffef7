package auth

import (
	"errors"
	"net/http"
	"sync/atomic"

	"k8s.io/apiserver/pkg/authentication/authenticator"

	"github.com/fakeplane/fakeplane/auth/cafile"
)

// errNotFrontProxyCert is the request-header authenticator's failure for a
// client certificate that no request-header CA issued.
var errNotFrontProxyCert = errors.New("x509: certificate signed by unknown authority (not a front proxy's)")

// frontProxyPrecheck spares the request-header authenticator the
// verification of a client certificate it cannot verify. Every request
// with a client certificate passes that authenticator first (as upstream
// orders them), which verifies the certificate against the request-header
// CAs; for an ordinary client the verification fails and the client
// certificate authenticator takes over, so each request paid for a failed
// chain building. Go's verification looks for parents among the roots
// whose subject is the certificate's issuer, or finds the certificate
// itself among them: a lone certificate (no intermediates) whose issuer and
// subject are no root's subject fails, and is refused here at once. The
// error differs only in wording, which no client sees: the union of
// authenticators goes on to the next one, and a request none authenticates
// gets a plain 401.
type frontProxyPrecheck struct {
	inner authenticator.Request
	roots cafile.Source
	// subjects are the raw subjects of the request-header CAs of a bundle
	// of roots, made again when its bundle changes.
	subjects atomic.Pointer[caSubjects]
}

// caSubjects are the raw subjects of the CAs of bundle.
type caSubjects struct {
	bundle *cafile.Bundle
	raw    map[string]bool
}

// newFrontProxyPrecheck wraps the request-header authenticator of the CAs
// of roots.
func newFrontProxyPrecheck(inner authenticator.Request, roots cafile.Source) authenticator.Request {
	return &frontProxyPrecheck{inner: inner, roots: roots}
}

// caSubjects returns the raw subjects of the request-header CAs now.
func (p *frontProxyPrecheck) caSubjects() map[string]bool {
	b := p.roots.Bundle()
	if s := p.subjects.Load(); s != nil && s.bundle == b {
		return s.raw
	}
	s := &caSubjects{bundle: b, raw: map[string]bool{}}
	// (Subjects is deprecated for system pools only; this one holds the
	// request-header CAs, and may have been given as a pool alone.)
	for _, subject := range b.Pool.Subjects() {
		s.raw[string(subject)] = true
	}
	p.subjects.Store(s)
	return s.raw
}

// AuthenticateRequest implements authenticator.Request.
func (p *frontProxyPrecheck) AuthenticateRequest(req *http.Request) (*authenticator.Response, bool, error) {
	if req.TLS != nil && len(req.TLS.PeerCertificates) == 1 {
		c := req.TLS.PeerCertificates[0]
		subjects := p.caSubjects()
		if !subjects[string(c.RawIssuer)] && !subjects[string(c.RawSubject)] {
			return nil, false, errNotFrontProxyCert
		}
	}
	return p.inner.AuthenticateRequest(req)
}
