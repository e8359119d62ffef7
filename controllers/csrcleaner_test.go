package controllers

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/json"
	"encoding/pem"
	"errors"
	"math/big"
	"slices"
	"testing"
	"time"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/registry/registrytest"
	"github.com/fakeplane/fakeplane/store"
)

// testCertificate is a PEM certificate that ends at notAfter.
func testCertificate(t *testing.T, notAfter time.Time) []byte {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: "c"}, NotBefore: notAfter.Add(-time.Hour), NotAfter: notAfter}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der})
}

// TestCSRCleanerDeletesWhatIsDoneWith: the cleaner deletes, at its first
// look and then at each interval, the requests kube-controller-manager's
// cleaner deletes (issued, denied or failed over an hour ago, pending or
// approved and not issued over a day ago, a certificate expired) and keeps
// the others.
func TestCSRCleanerDeletesWhatIsDoneWith(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	ago := func(d time.Duration) metav1.Time { return metav1.NewTime(now.Add(-d)) }
	cond := func(typ certificatesv1.RequestConditionType, at metav1.Time) certificatesv1.CertificateSigningRequestCondition {
		return certificatesv1.CertificateSigningRequestCondition{Type: typ, Status: corev1.ConditionTrue, LastUpdateTime: at}
	}
	valid, expired := testCertificate(t, now.Add(time.Hour)), testCertificate(t, now.Add(-time.Minute))
	cases := []struct {
		name       string
		created    time.Duration
		conditions []certificatesv1.CertificateSigningRequestCondition
		cert       []byte
		deleted    bool
	}{
		{name: "issued-an-hour-ago", created: 3 * time.Hour, conditions: conds(cond(certificatesv1.CertificateApproved, ago(61*time.Minute))), cert: valid, deleted: true},
		{name: "issued-just-now", created: 3 * time.Hour, conditions: conds(cond(certificatesv1.CertificateApproved, ago(time.Minute))), cert: valid},
		{name: "issued-expired", created: 3 * time.Hour, conditions: conds(cond(certificatesv1.CertificateApproved, ago(time.Minute))), cert: expired, deleted: true},
		{name: "denied-an-hour-ago", created: 3 * time.Hour, conditions: conds(cond(certificatesv1.CertificateDenied, ago(61*time.Minute))), deleted: true},
		{name: "denied-just-now", created: 3 * time.Hour, conditions: conds(cond(certificatesv1.CertificateDenied, ago(59*time.Minute)))},
		{name: "failed-an-hour-ago", created: 3 * time.Hour, conditions: conds(cond(certificatesv1.CertificateApproved, ago(2*time.Hour)), cond(certificatesv1.CertificateFailed, ago(61*time.Minute))), deleted: true},
		{name: "pending-a-day", created: 25 * time.Hour, deleted: true},
		{name: "pending-an-hour", created: 2 * time.Hour},
		{name: "approved-not-issued-a-day", created: 30 * time.Hour, conditions: conds(cond(certificatesv1.CertificateApproved, ago(25*time.Hour))), deleted: true},
		{name: "approved-not-issued-an-hour", created: 30 * time.Hour, conditions: conds(cond(certificatesv1.CertificateApproved, ago(2*time.Hour)))},
	}
	reg := registrytest.NewRecorder()
	clock := now
	c := NewCSRCleaner(reg, func() time.Time { return clock }, nil)
	var events []store.Event
	var want []string
	for _, tc := range cases {
		csr := &certificatesv1.CertificateSigningRequest{ObjectMeta: metav1.ObjectMeta{Name: tc.name, CreationTimestamp: ago(tc.created)},
			Status: certificatesv1.CertificateSigningRequestStatus{Conditions: tc.conditions, Certificate: tc.cert}}
		data, err := json.Marshal(csr)
		if err != nil {
			t.Fatal(err)
		}
		events = append(events, store.Event{Type: store.Added, Key: tc.name, Value: data})
		if tc.deleted {
			want = append(want, "delete "+tc.name)
		}
	}
	slices.Sort(want)
	var requeue *Requeue
	if err := c.Sync(context.Background(), events); !errors.As(err, &requeue) || requeue.After != CSRCleanerInterval {
		t.Fatalf("first look: %v, want a requeue after the interval", err)
	}
	if !slices.Equal(reg.Writes, want) {
		t.Errorf("deleted %q, want %q", reg.Writes, want)
	}
	// Before the interval is over, a change is kept for the next look.
	clock = now.Add(30 * time.Minute)
	if err := c.Sync(context.Background(), nil); !errors.As(err, &requeue) || requeue.After != 30*time.Minute || len(reg.Writes) != len(want) {
		t.Fatalf("within the interval: %v, writes %q", err, reg.Writes)
	}
	// At the next look, the request denied 59 minutes before the first
	// goes too.
	clock = now.Add(CSRCleanerInterval)
	if err := c.Sync(context.Background(), nil); !errors.As(err, &requeue) || !slices.Contains(reg.Writes, "delete denied-just-now") {
		t.Errorf("next look: %v, writes %q", err, reg.Writes)
	}
}

// conds is its arguments as a slice.
func conds(c ...certificatesv1.CertificateSigningRequestCondition) []certificatesv1.CertificateSigningRequestCondition {
	return c
}
