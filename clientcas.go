package fakeplane

import (
	"context"
	"crypto/x509"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"sync/atomic"

	"github.com/fakeplane/fakeplane/auth/cafile"
)

// The purposes kube-apiserver names its CA files by, in their messages
// ("client-ca-bundle::PATH").
const (
	clientCAPurpose      = "client-ca-bundle"
	requestHeaderPurpose = "request-header"
)

// clientCASource is the bundle that verifies users' client certificates:
// the cluster CA, WithClientCA's bundles, then WithClientCAFile's file,
// which it returns too (nil without one) for Start to follow.
func (cp *ControlPlane) clientCASource() (cafile.Source, *cafile.File, error) {
	pem := slices.Clone(cp.ca.CertPEM)
	for _, b := range cp.opts.clientCAs {
		if _, err := cafile.Parse(clientCAPurpose, b); err != nil {
			return nil, nil, errors.New("fakeplane: client CA bundle has no certificates")
		}
		pem = append(append(pem, '\n'), b...)
	}
	static, err := cafile.Parse(clientCAPurpose, pem)
	if err != nil {
		return nil, nil, fmt.Errorf("fakeplane: %w", err)
	}
	if cp.opts.clientCAFile == "" {
		return cafile.Static(static), nil, nil
	}
	f, err := cafile.Open(clientCAPurpose, cp.opts.clientCAFile, cp.opts.logger.With("controller", clientCAPurpose))
	if err != nil {
		return nil, nil, fmt.Errorf("fakeplane: %w", err)
	}
	return cafile.Union(cafile.Static(static), f), f, nil
}

// requestHeaderSource is the request-header CA bundle rh gives: its pool
// (whose PEM cannot be read back), its bundle, or its file, which it
// returns too for Start to follow.
func requestHeaderSource(rh *RequestHeader, log *slog.Logger) (cafile.Source, *cafile.File, error) {
	given := 0
	for _, set := range []bool{rh.CA != nil, len(rh.CABundle) > 0, rh.CAFile != ""} {
		if set {
			given++
		}
	}
	switch {
	case given > 1:
		return nil, nil, errors.New("fakeplane: a RequestHeader gives one of CA, CABundle and CAFile")
	case rh.CA != nil:
		return cafile.Static(&cafile.Bundle{Pool: rh.CA}), nil, nil
	case rh.CAFile != "":
		f, err := cafile.Open(requestHeaderPurpose, rh.CAFile, log.With("controller", requestHeaderPurpose))
		if err != nil {
			return nil, nil, fmt.Errorf("fakeplane: %w", err)
		}
		return f, f, nil
	}
	b, err := cafile.Parse(requestHeaderPurpose, rh.CABundle)
	if err != nil {
		return nil, nil, errors.New("fakeplane: request-header CA bundle has no certificates")
	}
	return cafile.Static(b), nil, nil
}

// servingClientCAs returns the CAs the server names to a client when it
// asks for its certificate (a TLS CertificateRequest's certificate
// authorities), as kube-apiserver names them: the client CAs, then the
// request-header CAs, as they are at each handshake. A Go client sends
// only a certificate one of them issued. requestHeader may be nil.
func servingClientCAs(client, requestHeader cafile.Source) func() *x509.CertPool {
	srcs := []cafile.Source{client}
	var poolOnly cafile.Source
	if requestHeader != nil {
		if b := requestHeader.Bundle(); b.Pool != nil && len(b.Certs) == 0 {
			// Given as a pool alone (WithRequestHeader's CA): it cannot be
			// listed, so the others are added to a copy of it.
			poolOnly = requestHeader
		} else {
			srcs = append(srcs, requestHeader)
		}
	}
	union := cafile.Union(srcs...)
	if poolOnly == nil {
		return func() *x509.CertPool { return union.Bundle().Pool }
	}
	type made struct {
		of   *cafile.Bundle
		pool *x509.CertPool
	}
	var last atomic.Pointer[made]
	return func() *x509.CertPool {
		b := union.Bundle()
		if m := last.Load(); m != nil && m.of == b {
			return m.pool
		}
		pool := poolOnly.Bundle().Pool.Clone()
		for _, c := range b.Certs {
			pool.AddCert(c)
		}
		last.Store(&made{of: b, pool: pool})
		return pool
	}
}

// followCAFiles reads files again whenever they change, until ctx ends;
// Stop waits for it (cp.caFilesDone).
func (cp *ControlPlane) followCAFiles(ctx context.Context, files ...*cafile.File) {
	for _, f := range files {
		if f != nil {
			cp.caFilesDone.Go(func() { f.Run(ctx) })
		}
	}
}
