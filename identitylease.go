package fakeplane

// kube-apiserver's identity Lease: kube-system/apiserver-<hash>, which a
// kube-apiserver creates as it starts and renews every 10 s (its post-start
// hook start-kube-apiserver-identity-lease-controller).

import (
	"context"
	"crypto/sha256"
	"encoding/base32"
	"encoding/binary"
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/registry"
)

// The identity Lease as kube-apiserver v1.37 keeps it.
const (
	// identityLeaseLabel says which component's identity a Lease is.
	identityLeaseLabel = "apiserver.kubernetes.io/identity"
	// identityLeaseDuration is its leaseDurationSeconds.
	identityLeaseDuration = 3600
	// identityLeaseRenewInterval is how often it is renewed.
	identityLeaseRenewInterval = 10 * time.Second
	// peerAdvertiseAddressAnnotation holds the server's address for its
	// peers (feature UnknownVersionInteroperabilityProxy, on in v1.37).
	peerAdvertiseAddressAnnotation = "kubernetes.io/peer-advertise-address"
)

var leasesGVR = schema.GroupVersionResource{Group: "coordination.k8s.io", Version: "v1", Resource: "leases"}

// apiserverID is the identity kube-apiserver derives from its host's name:
// "apiserver-" and the start of the SHA-256 of the host name and
// "kube-apiserver" (each with its length), in lower-case base32.
func apiserverID(hostname string) string {
	var b []byte
	for _, s := range []string{hostname, "kube-apiserver"} {
		b = binary.BigEndian.AppendUint16(b, uint16(len(s)))
		b = append(b, s...)
	}
	hash := sha256.Sum256(b)
	return "apiserver-" + strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(hash[:16]))
}

// identityLease creates and renews the control plane's identity Lease, as
// kube-apiserver's lease controller does: created with a holder identity
// of its own (the id and a UUID), renewed by an update that sets its
// duration, renewTime and labels, keeping the holder it finds; written as
// kube-apiserver (field manager kube-apiserver).
type identityLease struct {
	reg              registry.Interface
	now              func() time.Time
	log              *slog.Logger
	name, hostname   string
	holder, peerAddr string

	periodic
}

// newIdentityLease returns the identity Lease controller of a server whose
// peers reach it at peerAddr (host:port), writing through reg at the time
// now gives.
func newIdentityLease(reg registry.Interface, peerAddr string, now func() time.Time, log *slog.Logger) (*identityLease, error) {
	hostname, err := os.Hostname()
	if err != nil {
		return nil, fmt.Errorf("hostname for the apiserver identity: %w", err)
	}
	if now == nil {
		now = time.Now
	}
	id := apiserverID(hostname)
	return &identityLease{reg: reg, now: now, log: log, name: id, hostname: hostname,
		holder: id + "_" + string(uuid.NewUUID()), peerAddr: peerAddr}, nil
}

// asKubeAPIServer is ctx as kube-apiserver's loopback client writes: as
// system:apiserver, field manager kube-apiserver.
func asKubeAPIServer(ctx context.Context) context.Context {
	u := &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}}
	return registry.WithFieldManager(apirequest.WithUser(ctx, u), "kube-apiserver")
}

// renewed sets what each renewal sets on lease.
func (l *identityLease) renewed(lease *coordinationv1.Lease) {
	lease.Spec.LeaseDurationSeconds = ptr.To(int32(identityLeaseDuration))
	lease.Spec.RenewTime = &metav1.MicroTime{Time: l.now()}
	if lease.Labels == nil {
		lease.Labels = map[string]string{}
	}
	if lease.Annotations == nil {
		lease.Annotations = map[string]string{}
	}
	lease.Labels[identityLeaseLabel] = "kube-apiserver"
	lease.Labels["kubernetes.io/hostname"] = l.hostname
	lease.Annotations[peerAdvertiseAddressAnnotation] = l.peerAddr
}

// ensure creates the Lease, or renews the one there is (a data directory's,
// or another server's sharing the store from the same host).
func (l *identityLease) ensure(ctx context.Context) error {
	lease := &coordinationv1.Lease{
		TypeMeta:   metav1.TypeMeta{APIVersion: "coordination.k8s.io/v1", Kind: "Lease"},
		ObjectMeta: metav1.ObjectMeta{Name: l.name, Namespace: metav1.NamespaceSystem},
		Spec:       coordinationv1.LeaseSpec{HolderIdentity: ptr.To(l.holder)},
	}
	l.renewed(lease)
	_, err := l.reg.Create(asKubeAPIServer(ctx), leasesGVR, lease)
	if apierrors.IsAlreadyExists(err) {
		return l.renew(ctx)
	}
	if err != nil {
		return fmt.Errorf("create the identity Lease: %w", err)
	}
	return nil
}

// renew renews the Lease, or creates it again when it is gone.
func (l *identityLease) renew(ctx context.Context) error {
	_, err := l.reg.Update(asKubeAPIServer(ctx), leasesGVR, metav1.NamespaceSystem, l.name, func(cur runtime.Object) (runtime.Object, error) {
		lease, ok := cur.(*coordinationv1.Lease)
		if !ok {
			return nil, fmt.Errorf("the identity Lease is a %T", cur)
		}
		l.renewed(lease)
		return lease, nil
	})
	if apierrors.IsNotFound(err) {
		return l.ensure(ctx)
	}
	if err != nil {
		return fmt.Errorf("renew the identity Lease: %w", err)
	}
	return nil
}

// start renews the Lease every interval until close.
func (l *identityLease) start(interval time.Duration) {
	l.periodic.start(interval, l.renew, l.log, "kube-apiserver identity lease")
}
