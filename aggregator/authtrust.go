package aggregator

import (
	"bytes"
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"log/slog"
	"maps"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/authentication/user"
	apirequest "k8s.io/apiserver/pkg/endpoints/request"
	"k8s.io/client-go/util/cert"

	"github.com/fakeplane/fakeplane/controllers"
	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
)

// The ConfigMap in which kube-apiserver tells extension API servers how to
// authenticate their clients, and its keys.
const (
	AuthenticationConfigMapNamespace = "kube-system"
	AuthenticationConfigMapName      = "extension-apiserver-authentication"

	keyClientCA            = "client-ca-file"
	keyRequestHeaderCA     = "requestheader-client-ca-file"
	keyAllowedNames        = "requestheader-allowed-names"
	keyUsernameHeaders     = "requestheader-username-headers"
	keyUIDHeaders          = "requestheader-uid-headers"
	keyGroupHeaders        = "requestheader-group-headers"
	keyExtraHeaderPrefixes = "requestheader-extra-headers-prefix"
)

// DefaultAuthenticationTrustResync is how often ClusterAuthenticationTrust
// looks at its ConfigMap again without being told to, kube-apiserver's one
// minute: a ConfigMap changed by someone else is corrected then (a created
// or deleted one at once).
const DefaultAuthenticationTrustResync = time.Minute

// ProxyClientCert is the client certificate the aggregator presents to
// every extension API server it proxies to (kube-apiserver's
// --proxy-client-cert-file and --proxy-client-key-file), PEM encoded. An
// extension API server trusts it when the request-header CA of the
// extension-apiserver-authentication ConfigMap signed it and its CN is one
// of the allowed names there. The zero value is no certificate.
type ProxyClientCert struct {
	CertPEM []byte
	KeyPEM  []byte
}

// IsZero reports whether there is no certificate.
func (p ProxyClientCert) IsZero() bool { return len(p.CertPEM) == 0 && len(p.KeyPEM) == 0 }

// TLSCertificate parses the pair for a tls.Config's Certificates.
func (p ProxyClientCert) TLSCertificate() (tls.Certificate, error) {
	c, err := tls.X509KeyPair(p.CertPEM, p.KeyPEM)
	if err != nil {
		return tls.Certificate{}, fmt.Errorf("proxy client certificate: %w", err)
	}
	return c, nil
}

// AuthenticationInfo is what the control plane publishes about its client
// authentication (kube-apiserver's ClusterAuthenticationInfo): the CAs as
// PEM bundles, the request-header settings as the effective lists.
type AuthenticationInfo struct {
	// ClientCA verifies client certificates (--client-ca-file).
	ClientCA []byte
	// RequestHeaderCA verifies the front proxy's client certificate
	// (--requestheader-client-ca-file); empty when there is none, and then
	// the request-header keys are not published.
	RequestHeaderCA                  []byte
	RequestHeaderAllowedNames        []string
	RequestHeaderUsernameHeaders     []string
	RequestHeaderUIDHeaders          []string
	RequestHeaderGroupHeaders        []string
	RequestHeaderExtraHeaderPrefixes []string
}

var (
	_ controllers.Controller = (*ClusterAuthenticationTrust)(nil)
	_ controllers.Filter     = (*ClusterAuthenticationTrust)(nil)
	_ controllers.Waker      = (*ClusterAuthenticationTrust)(nil)
)

var (
	configMapsGVR = schema.GroupVersionResource{Version: "v1", Resource: "configmaps"}
	namespacesGVR = schema.GroupVersionResource{Version: "v1", Resource: "namespaces"}
)

// Store buckets ClusterAuthenticationTrust watches.
const configMapsBucket = "/configmaps"

// ClusterAuthenticationTrust keeps kube-system/extension-apiserver-authentication
// as kube-apiserver's ClusterAuthenticationTrustController does: what is
// stored there is merged with what the control plane publishes (CAs added
// to the bundles, expired ones dropped, names and headers added to the
// lists, each once), so a ConfigMap left by an earlier run or edited by
// hand keeps what it had and gains what is missing. It acts at once when
// the ConfigMap is created or deleted, or the CA bundles change
// (SetCABundles), and looks again every Resync. It writes as
// kube-apiserver's loopback identity (system:apiserver) under the field
// manager "kube-apiserver".
type ClusterAuthenticationTrust struct {
	reg  registry.Interface
	log  *slog.Logger
	user user.Info
	// mu guards info's CA bundles, which SetCABundles changes, and
	// caChanged, set until Sync acts on the change.
	mu        sync.Mutex
	info      AuthenticationInfo
	caChanged bool
	// wake has a value once the CA bundles changed.
	wake chan struct{}
	// Resync is the period of the unprompted look (default
	// DefaultAuthenticationTrustResync). Set it before the controller runs.
	Resync time.Duration
	// Now reads the clock that decides which CAs expired (default
	// time.Now, the clock client certificates are verified with).
	Now func() time.Time
	// stored is the ConfigMap as last seen; nil when there is none.
	stored *corev1.ConfigMap
}

// NewClusterAuthenticationTrust returns the controller that publishes info
// in the extension-apiserver-authentication ConfigMap, writing through reg
// and logging to log (nil: slog.Default()).
func NewClusterAuthenticationTrust(reg registry.Interface, info AuthenticationInfo, log *slog.Logger) *ClusterAuthenticationTrust {
	if log == nil {
		log = slog.Default()
	}
	return &ClusterAuthenticationTrust{
		reg:    reg,
		log:    log,
		user:   &user.DefaultInfo{Name: user.APIServerUser, Groups: []string{user.SystemPrivilegedGroup}},
		info:   info,
		wake:   make(chan struct{}, 1),
		Resync: DefaultAuthenticationTrustResync,
		Now:    time.Now,
	}
}

// Name implements controllers.Controller.
func (c *ClusterAuthenticationTrust) Name() string { return "cluster-authentication-trust-controller" }

// SetCABundles replaces the published client and request-header CA
// bundles (a CA file read again) and wakes the controller, which merges
// them into the ConfigMap as kube-apiserver's does when its CA content
// changes: a CA added is published at once, one removed stays until it
// expires.
func (c *ClusterAuthenticationTrust) SetCABundles(clientCA, requestHeaderCA []byte) {
	c.mu.Lock()
	c.info.ClientCA, c.info.RequestHeaderCA = clientCA, requestHeaderCA
	c.caChanged = true
	c.mu.Unlock()
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// Wake implements controllers.Waker: SetCABundles wakes it.
func (c *ClusterAuthenticationTrust) Wake() <-chan struct{} { return c.wake }

// caBundles returns the published CA bundles.
func (c *ClusterAuthenticationTrust) caBundles() (clientCA, requestHeaderCA []byte) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.info.ClientCA, c.info.RequestHeaderCA
}

// Resources implements controllers.Controller.
func (c *ClusterAuthenticationTrust) Resources() []string { return []string{configMapsBucket} }

// Wants implements controllers.Filter: the one ConfigMap.
func (c *ClusterAuthenticationTrust) Wants(_, key string) bool {
	return key == AuthenticationConfigMapNamespace+"/"+AuthenticationConfigMapName
}

// Sync implements controllers.Controller. It records the ConfigMap's
// changes and brings it in line when it was created or deleted, on the
// first call, and when called with no events (the periodic look). It
// always asks to be called again after Resync.
func (c *ClusterAuthenticationTrust) Sync(ctx context.Context, events []store.Event) error {
	act := len(events) == 0 // woken by the timer or SetCABundles, or the first call on an empty store
	c.mu.Lock()
	act = act || c.caChanged
	c.caChanged = false
	c.mu.Unlock()
	for _, ev := range events {
		if ev.Type == store.Deleted {
			c.stored = nil
			act = true
			continue
		}
		cm := &corev1.ConfigMap{}
		if err := json.Unmarshal(ev.Value, cm); err != nil {
			c.log.Error("decode ConfigMap", "key", ev.Key, "revision", ev.Revision, "err", err)
			continue
		}
		c.stored = cm
		// kube-apiserver's informer handler reacts to additions and
		// deletions; updates wait for the periodic look.
		act = act || ev.Type == store.Added
	}
	if act {
		if err := c.reconcile(ctx); err != nil {
			return err
		}
	}
	resync := c.Resync
	if resync <= 0 {
		resync = DefaultAuthenticationTrustResync
	}
	return &controllers.Requeue{After: resync}
}

// reconcile writes the merge of the stored ConfigMap and the published
// info, when it differs from what is stored.
func (c *ClusterAuthenticationTrust) reconcile(ctx context.Context) error {
	var have map[string]string
	if c.stored != nil {
		have = c.stored.Data
	}
	want, err := c.merged(have)
	if err != nil {
		return fmt.Errorf("%s/%s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, err)
	}
	if c.stored != nil && c.stored.Data != nil && maps.Equal(want, c.stored.Data) {
		return nil
	}
	ctx = registry.WithFieldManager(apirequest.WithUser(ctx, c.user), "kube-apiserver")
	if c.stored != nil {
		_, err = c.reg.Update(ctx, configMapsGVR, AuthenticationConfigMapNamespace, AuthenticationConfigMapName, func(cur runtime.Object) (runtime.Object, error) {
			cm, ok := cur.(*corev1.ConfigMap)
			if !ok {
				return nil, fmt.Errorf("the registry answered with a %T", cur)
			}
			data, err := c.merged(cm.Data)
			if err != nil {
				return nil, err
			}
			cm.Data = data
			return cm, nil
		})
		if err == nil || apierrors.IsNotFound(err) { // deleted meanwhile: its event follows
			return nil
		}
		return fmt.Errorf("update %s/%s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, err)
	}
	cm := &corev1.ConfigMap{
		ObjectMeta: metav1.ObjectMeta{Namespace: AuthenticationConfigMapNamespace, Name: AuthenticationConfigMapName},
		Data:       want,
	}
	_, err = c.reg.Create(ctx, configMapsGVR, cm)
	if apierrors.IsNotFound(err) {
		// As kube-apiserver, the namespace is made when it is missing.
		_, err = c.reg.Create(ctx, namespacesGVR, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: AuthenticationConfigMapNamespace}})
		if err == nil || apierrors.IsAlreadyExists(err) {
			_, err = c.reg.Create(ctx, configMapsGVR, cm)
		}
	}
	if err == nil || apierrors.IsAlreadyExists(err) { // made meanwhile: its event follows
		return nil
	}
	return fmt.Errorf("create %s/%s: %w", AuthenticationConfigMapNamespace, AuthenticationConfigMapName, err)
}

// merged is the ConfigMap data for what have holds combined with the
// published info, in kube-apiserver's format: the CA bundles as PEM, the
// lists as JSON arrays. The request-header keys are there only when a
// request-header CA is.
func (c *ClusterAuthenticationTrust) merged(have map[string]string) (map[string]string, error) {
	lists := []struct {
		key  string
		want []string
	}{
		{keyUsernameHeaders, c.info.RequestHeaderUsernameHeaders},
		{keyUIDHeaders, c.info.RequestHeaderUIDHeaders},
		{keyGroupHeaders, c.info.RequestHeaderGroupHeaders},
		{keyExtraHeaderPrefixes, c.info.RequestHeaderExtraHeaderPrefixes},
		{keyAllowedNames, c.info.RequestHeaderAllowedNames},
	}
	combined := make(map[string][]string, len(lists))
	for _, l := range lists {
		var old []string
		if v := have[l.key]; v != "" {
			if err := json.Unmarshal([]byte(v), &old); err != nil {
				return nil, fmt.Errorf("key %s: %w", l.key, err)
			}
		}
		combined[l.key] = combineUnique(old, l.want)
	}
	wantClientCA, wantRequestHeaderCA := c.caBundles()
	clientCA, err := c.combineCAs(have[keyClientCA], wantClientCA)
	if err != nil {
		return nil, fmt.Errorf("key %s: %w", keyClientCA, err)
	}
	requestHeaderCA, err := c.combineCAs(have[keyRequestHeaderCA], wantRequestHeaderCA)
	if err != nil {
		return nil, fmt.Errorf("key %s: %w", keyRequestHeaderCA, err)
	}

	data := map[string]string{}
	if len(clientCA) > 0 {
		data[keyClientCA] = string(clientCA)
	}
	if len(requestHeaderCA) == 0 {
		return data, nil
	}
	data[keyRequestHeaderCA] = string(requestHeaderCA)
	for _, l := range lists {
		v := combined[l.key]
		if l.key == keyUIDHeaders && len(v) == 0 {
			continue // written only when there are some
		}
		b, err := json.Marshal(v)
		if err != nil {
			return nil, fmt.Errorf("key %s: %w", l.key, err)
		}
		data[l.key] = string(b)
	}
	return data, nil
}

// combineUnique is a then b, each value once, never nil.
func combineUnique(a, b []string) []string {
	out := []string{}
	seen := map[string]bool{}
	for _, s := range append(append([]string(nil), a...), b...) {
		if !seen[s] {
			seen[s] = true
			out = append(out, s)
		}
	}
	return out
}

// combineCAs is the certificates of bundle a then of bundle b, each once,
// without those that expired more than five minutes ago, as PEM; empty
// when none is left. A bundle that holds no certificate is an error.
func (c *ClusterAuthenticationTrust) combineCAs(a string, b []byte) ([]byte, error) {
	var certs []*x509.Certificate
	for _, bundle := range [][]byte{[]byte(a), b} {
		if len(bundle) == 0 {
			continue
		}
		parsed, err := cert.ParseCertsPEM(bundle)
		if err != nil {
			return nil, err
		}
		certs = append(certs, parsed...)
	}
	cutoff := c.Now().Add(-5 * time.Minute)
	var out bytes.Buffer
	var kept []*x509.Certificate
	for _, crt := range certs {
		if !crt.NotAfter.After(cutoff) {
			continue
		}
		dup := false
		for _, k := range kept {
			if bytes.Equal(k.Raw, crt.Raw) {
				dup = true
				break
			}
		}
		if dup {
			continue
		}
		kept = append(kept, crt)
		if err := pem.Encode(&out, &pem.Block{Type: "CERTIFICATE", Bytes: crt.Raw}); err != nil {
			return nil, err
		}
	}
	return out.Bytes(), nil
}
