package controllers

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sort"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// pcrsBucket is the store bucket of PodCertificateRequests.
const pcrsBucket = "certificates.k8s.io/podcertificaterequests"

var pcrsGVR = certificatesv1.SchemeGroupVersion.WithResource("podcertificaterequests")

// The PodCertificateRequest cleaner's times, kube-controller-manager's: it
// looks every PCRCleanerInterval and deletes the requests older than
// pcrExpiration (every signer is expected to have answered by then).
const (
	PCRCleanerInterval = 5 * time.Minute
	pcrExpiration      = 15 * time.Minute
)

// PCRCleaner deletes the PodCertificateRequests created more than fifteen
// minutes ago, as kube-controller-manager's
// podcertificaterequest-cleaner-controller does at start and then every
// PCRCleanerInterval (with the request's UID as a precondition). It deletes
// as kube-system/podcertificaterequestcleaner.
type PCRCleaner struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	now  func() time.Time
	// Interval is the time between two looks (0: PCRCleanerInterval).
	Interval time.Duration
	// created are the requests' creation times and UIDs, by store key.
	created map[string]pcrMeta
	looks   lookTimer
}

// pcrMeta is what the cleaner keeps of a request.
type pcrMeta struct {
	namespace, name string
	uid             types.UID
	created         time.Time
}

// NewPCRCleaner returns the cleaner, reading the time from now (nil:
// time.Now), deleting through reg and logging to log (nil: slog.Default()).
func NewPCRCleaner(reg registry.Interface, now func() time.Time, log *slog.Logger) *PCRCleaner {
	if log == nil {
		log = slog.Default()
	}
	if now == nil {
		now = time.Now
	}
	return &PCRCleaner{reg: reg, log: log, user: controllerUser("podcertificaterequestcleaner"), now: now, created: map[string]pcrMeta{}}
}

// Name implements Controller.
func (c *PCRCleaner) Name() string { return PCRCleanerName }

// Resources implements Controller.
func (c *PCRCleaner) Resources() []string { return []string{pcrsBucket} }

// Sync implements Controller.
func (c *PCRCleaner) Sync(ctx context.Context, events []store.Event) error {
	for _, ev := range events {
		if ev.Type == store.Deleted {
			delete(c.created, ev.Key)
			continue
		}
		obj, err := decodeEvent[struct {
			Metadata metav1.ObjectMeta `json:"metadata"`
		}](ev)
		if err != nil {
			c.log.Warn("undecodable PodCertificateRequest", "err", err)
			continue
		}
		m := obj.Metadata
		c.created[ev.Key] = pcrMeta{namespace: m.Namespace, name: m.Name, uid: m.UID, created: m.CreationTimestamp.Time}
	}
	interval := cmp.Or(c.Interval, PCRCleanerInterval)
	now := c.now()
	if r := c.looks.wait(now, interval); r != nil {
		return r
	}
	var old []string
	for key, m := range c.created {
		if !now.Before(m.created.Add(pcrExpiration)) {
			old = append(old, key)
		}
	}
	sort.Strings(old)
	ctx = apirequest.WithUser(ctx, c.user)
	var errs []error
	for _, key := range old {
		m := c.created[key]
		uid := m.uid
		_, err := c.reg.Delete(ctx, pcrsGVR, m.namespace, m.name, metav1.DeleteOptions{Preconditions: &metav1.Preconditions{UID: &uid}})
		if err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, fmt.Errorf("unable to delete PodCertificateRequest %q: %w", m.namespace+"/"+m.name, err))
		}
	}
	if err := errors.Join(errs...); err != nil {
		return err
	}
	return &Requeue{After: interval}
}
