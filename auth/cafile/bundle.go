package cafile

import (
	"bytes"
	"crypto/x509"
	"fmt"
	"sync/atomic"

	"k8s.io/client-go/util/cert"
)

// Bundle is a CA bundle as loaded: its PEM, its certificates and a pool of
// them. A Bundle is never modified: a source that changes gives a new one,
// so a caller may compare pointers to tell whether it changed.
type Bundle struct {
	PEM   []byte
	Certs []*x509.Certificate
	Pool  *x509.CertPool
}

// Source gives the bundle in use now.
type Source interface {
	// Bundle returns the current bundle, never nil.
	Bundle() *Bundle
}

// Parse loads pem into a Bundle. name says whose bundle it is in the
// error, kube-apiserver's (`error loading CA bundle for "NAME": ...`,
// `missing content for CA bundle "NAME"`).
func Parse(name string, pem []byte) (*Bundle, error) {
	if len(pem) == 0 {
		return nil, fmt.Errorf("missing content for CA bundle %q", name)
	}
	certs, err := cert.ParseCertsPEM(pem)
	if err != nil {
		return nil, fmt.Errorf("error loading CA bundle for %q: %w", name, err)
	}
	return newBundle(pem, certs), nil
}

// newBundle is the Bundle of certs, whose PEM is pem.
func newBundle(pem []byte, certs []*x509.Certificate) *Bundle {
	pool := x509.NewCertPool()
	for _, c := range certs {
		pool.AddCert(c)
	}
	return &Bundle{PEM: pem, Certs: certs, Pool: pool}
}

// staticSource is a bundle that never changes.
type staticSource struct{ b *Bundle }

func (s staticSource) Bundle() *Bundle { return s.b }

// Static returns a Source of b alone.
func Static(b *Bundle) Source { return staticSource{b} }

// Union returns a Source of the certificates of srcs, in their order, each
// once: the PEM joins the sources' PEM with a newline. It is computed again
// only when a source's bundle changed.
func Union(srcs ...Source) Source {
	return &union{srcs: srcs}
}

type union struct {
	srcs []Source
	last atomic.Pointer[unionState]
}

// unionState is a union's bundle and the sources' bundles it was made of.
type unionState struct {
	of     []*Bundle
	bundle *Bundle
}

// Bundle implements Source.
func (u *union) Bundle() *Bundle {
	last := u.last.Load()
	if last != nil {
		same := true
		for i, s := range u.srcs {
			if s.Bundle() != last.of[i] {
				same = false
				break
			}
		}
		if same {
			return last.bundle
		}
	}
	st := &unionState{of: make([]*Bundle, len(u.srcs))}
	var pem []byte
	var certs []*x509.Certificate
	for i, s := range u.srcs {
		b := s.Bundle()
		st.of[i] = b
		if len(b.PEM) > 0 {
			if len(pem) > 0 && !bytes.HasSuffix(pem, []byte("\n")) {
				pem = append(pem, '\n')
			}
			pem = append(pem, b.PEM...)
		}
		for _, c := range b.Certs {
			if !containsCert(certs, c) {
				certs = append(certs, c)
			}
		}
	}
	st.bundle = newBundle(pem, certs)
	// Two callers may compute it at once: either result is right.
	u.last.Store(st)
	return st.bundle
}

// containsCert reports whether certs holds c.
func containsCert(certs []*x509.Certificate, c *x509.Certificate) bool {
	for _, have := range certs {
		if have.Equal(c) {
			return true
		}
	}
	return false
}
