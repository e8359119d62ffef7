package controllers

import (
	"cmp"
	"context"
	"crypto/x509"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// The cleaner's times, upstream's: it looks every CSRCleanerInterval; an
// issued, denied or failed request goes an hour after its condition, a
// pending one (or an approved one never issued) after a day.
const (
	CSRCleanerInterval     = time.Hour
	csrDecidedExpiration   = time.Hour
	csrUndecidedExpiration = 24 * time.Hour
)

// CSRCleaner deletes the CertificateSigningRequests that are done with, as
// kube-controller-manager's certificatesigningrequest-cleaner-controller
// does at start and then every CSRCleanerInterval: issued, denied or failed
// ones an hour after their condition, pending ones a day after their
// creation, approved ones never issued a day after their approval, and
// those whose certificate has expired. It deletes as
// kube-system/certificate-controller.
type CSRCleaner struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	now  func() time.Time
	// Interval is the time between two looks (0: CSRCleanerInterval).
	Interval time.Duration
	// csrs are the requests by name.
	csrs  map[string]*certificatesv1.CertificateSigningRequest
	looks lookTimer
}

// lookTimer spaces a periodic cleaner's looks, the first at its first
// Sync.
type lookTimer struct {
	// next is when the next look is due (zero: now).
	next time.Time
}

// wait returns the Requeue that waits for the next look when none is due
// at now; otherwise it schedules the next one interval on and returns nil.
func (l *lookTimer) wait(now time.Time, interval time.Duration) *Requeue {
	if now.Before(l.next) {
		return &Requeue{After: max(l.next.Sub(now), time.Millisecond)}
	}
	l.next = now.Add(interval)
	return nil
}

// NewCSRCleaner returns the cleaner, reading the time from now (nil:
// time.Now), deleting through reg and logging to log (nil: slog.Default()).
func NewCSRCleaner(reg registry.Interface, now func() time.Time, log *slog.Logger) *CSRCleaner {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &CSRCleaner{reg: reg, log: log, user: controllerUser(csrUser), now: now, csrs: map[string]*certificatesv1.CertificateSigningRequest{}}
}

// Name implements Controller.
func (c *CSRCleaner) Name() string { return CSRCleanerName }

// Resources implements Controller.
func (c *CSRCleaner) Resources() []string { return []string{csrsBucket} }

// Sync implements Controller.
func (c *CSRCleaner) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if ev.Type == store.Deleted {
			delete(c.csrs, ev.Key)
			continue
		}
		csr, err := decodeEvent[certificatesv1.CertificateSigningRequest](ev)
		if err != nil {
			c.log.Warn("undecodable CertificateSigningRequest", "err", err)
			continue
		}
		c.csrs[ev.Key] = csr
	}
	interval := cmp.Or(c.Interval, CSRCleanerInterval)
	now := c.now()
	if r := c.looks.wait(now, interval); r != nil {
		return r
	}
	var errs []error
	names := make([]string, 0, len(c.csrs))
	for name, csr := range c.csrs {
		if why := csrDone(csr, now); why != "" {
			names = append(names, name)
			c.log.Info("cleaning CertificateSigningRequest", "csr", name, "why", why)
		}
	}
	sort.Strings(names)
	ctx = apirequest.WithUser(ctx, c.user)
	for _, name := range names {
		_, err := c.reg.Delete(ctx, csrsGVR, "", name, metav1.DeleteOptions{})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("unable to delete CSR %q: %w", name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return &Requeue{After: interval}
}

// csrDone says why csr is done with at now, or "" when it is not: upstream's
// tests (pending, issued, expired, approved but not issued, denied, failed
// for too long), which delete the same requests in any order.
func csrDone(csr *certificatesv1.CertificateSigningRequest, now time.Time) string {
	issued := len(csr.Status.Certificate) > 0
	older := func(t metav1.Time, d time.Duration) bool { return !t.IsZero() && now.Sub(t.Time) > d }
	if len(csr.Status.Conditions) == 0 && older(csr.CreationTimestamp, csrUndecidedExpiration) {
		return "pending for more than a day"
	}
	for _, cond := range csr.Status.Conditions {
		switch cond.Type {
		case certificatesv1.CertificateApproved:
			switch {
			case issued && older(cond.LastUpdateTime, csrDecidedExpiration):
				return "issued more than an hour ago"
			case issued && certificateExpired(csr.Status.Certificate, now):
				return "its certificate has expired"
			case !issued && older(cond.LastUpdateTime, csrUndecidedExpiration):
				return "approved but not issued for more than a day"
			}
		case certificatesv1.CertificateDenied:
			if older(cond.LastUpdateTime, csrDecidedExpiration) {
				return "denied more than an hour ago"
			}
		case certificatesv1.CertificateFailed:
			if older(cond.LastUpdateTime, csrDecidedExpiration) {
				return "failed more than an hour ago"
			}
		}
	}
	return ""
}

// certificateExpired reports whether the first certificate of a PEM chain
// ended before now (false when none parses).
func certificateExpired(chain []byte, now time.Time) bool {
	block, _ := pem.Decode(chain)
	if block == nil {
		return false
	}
	certs, err := x509.ParseCertificates(block.Bytes)
	if err != nil || len(certs) == 0 {
		return false
	}
	return now.After(certs[0].NotAfter)
}
