package aggregator

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
	"log/slog"
	"maps"
	"math/big"
	"slices"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/controllers"
	"github.com/fakeplane/fakeplane/registry/registrytest"
	"github.com/fakeplane/fakeplane/store"
)

// testCA is a self-signed CA certificate in PEM valid until notAfter.
func testCA(t *testing.T, cn string, notAfter time.Time) string {
	t.Helper()
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		t.Fatal(err)
	}
	tmpl := &x509.Certificate{
		SerialNumber: big.NewInt(1), Subject: pkix.Name{CommonName: cn},
		NotBefore: notAfter.Add(-48 * time.Hour), NotAfter: notAfter,
		IsCA: true, BasicConstraintsValid: true, KeyUsage: x509.KeyUsageCertSign,
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, key.Public(), key)
	if err != nil {
		t.Fatal(err)
	}
	return string(pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}))
}

// kubeadmInfo is what a kubeadm cluster publishes.
func kubeadmInfo(clientCA, proxyCA string) AuthenticationInfo {
	return AuthenticationInfo{
		ClientCA:                         []byte(clientCA),
		RequestHeaderCA:                  []byte(proxyCA),
		RequestHeaderAllowedNames:        []string{"front-proxy-client"},
		RequestHeaderUsernameHeaders:     []string{"X-Remote-User"},
		RequestHeaderGroupHeaders:        []string{"X-Remote-Group"},
		RequestHeaderExtraHeaderPrefixes: []string{"X-Remote-Extra-"},
	}
}

func TestAuthenticationConfigMapMergesStoredDataWithPublished(t *testing.T) {
	now := time.Now()
	later := now.Add(24 * time.Hour)
	clientCA, proxyCA, otherCA := testCA(t, "ca", later), testCA(t, "front-proxy-ca", later), testCA(t, "other", later)
	expired := testCA(t, "expired", now.Add(-time.Hour))
	published := map[string]string{
		"client-ca-file":                     clientCA,
		"requestheader-client-ca-file":       proxyCA,
		"requestheader-allowed-names":        `["front-proxy-client"]`,
		"requestheader-username-headers":     `["X-Remote-User"]`,
		"requestheader-group-headers":        `["X-Remote-Group"]`,
		"requestheader-extra-headers-prefix": `["X-Remote-Extra-"]`,
	}
	with := func(m map[string]string, kv ...string) map[string]string {
		m = maps.Clone(m)
		for i := 0; i < len(kv); i += 2 {
			if kv[i+1] == "" {
				delete(m, kv[i])
			} else {
				m[kv[i]] = kv[i+1]
			}
		}
		return m
	}
	for _, tc := range []struct {
		name    string
		info    AuthenticationInfo
		have    map[string]string
		want    map[string]string
		wantErr bool
	}{
		{name: "nothing stored gets what is published", info: kubeadmInfo(clientCA, proxyCA), want: published},
		{name: "what is published is left as it is", info: kubeadmInfo(clientCA, proxyCA), have: published, want: published},
		{name: "a deleted key comes back", info: kubeadmInfo(clientCA, proxyCA),
			have: with(published, "requestheader-allowed-names", ""), want: published},
		{name: "stored names and headers stay first, published ones are added",
			info: kubeadmInfo(clientCA, proxyCA),
			have: with(published, "requestheader-allowed-names", `["bob","front-proxy-client"]`, "requestheader-username-headers", `["X-Other"]`),
			want: with(published, "requestheader-allowed-names", `["bob","front-proxy-client"]`, "requestheader-username-headers", `["X-Other","X-Remote-User"]`)},
		{name: "stored CAs stay first, expired ones go",
			info: kubeadmInfo(clientCA, proxyCA),
			have: with(published, "client-ca-file", otherCA+expired+clientCA),
			want: with(published, "client-ca-file", otherCA+clientCA)},
		{name: "uid headers are written when there are some",
			info: func() AuthenticationInfo {
				i := kubeadmInfo(clientCA, proxyCA)
				i.RequestHeaderUIDHeaders = []string{"X-Remote-Uid"}
				return i
			}(),
			want: with(published, "requestheader-uid-headers", `["X-Remote-Uid"]`)},
		{name: "no request-header CA publishes the client CA alone",
			info: AuthenticationInfo{ClientCA: []byte(clientCA)},
			have: map[string]string{"requestheader-allowed-names": `["x"]`},
			want: map[string]string{"client-ca-file": clientCA}},
		{name: "a stored request-header CA keeps its keys",
			info: AuthenticationInfo{ClientCA: []byte(clientCA)},
			have: map[string]string{"requestheader-client-ca-file": proxyCA, "requestheader-allowed-names": `["x"]`},
			want: map[string]string{
				"client-ca-file": clientCA, "requestheader-client-ca-file": proxyCA, "requestheader-allowed-names": `["x"]`,
				"requestheader-username-headers": `[]`, "requestheader-group-headers": `[]`, "requestheader-extra-headers-prefix": `[]`,
			}},
		{name: "a list that is not JSON is an error", info: kubeadmInfo(clientCA, proxyCA),
			have: with(published, "requestheader-group-headers", "X-Remote-Group"), wantErr: true},
		{name: "a CA bundle without certificates is an error", info: kubeadmInfo(clientCA, proxyCA),
			have: with(published, "client-ca-file", "garbage"), wantErr: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := NewClusterAuthenticationTrust(registrytest.NewRecorder(), tc.info, slog.New(slog.DiscardHandler))
			got, err := c.merged(tc.have)
			if (err != nil) != tc.wantErr {
				t.Fatalf("error %v, want error %v", err, tc.wantErr)
			}
			if !tc.wantErr && !maps.Equal(got, tc.want) {
				t.Errorf("got\n%v\nwant\n%v", got, tc.want)
			}
		})
	}
}

func configMapEvent(t *testing.T, typ store.EventType, data map[string]string) store.Event {
	t.Helper()
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Namespace: AuthenticationConfigMapNamespace, Name: AuthenticationConfigMapName}, Data: data}
	b, err := json.Marshal(cm)
	if err != nil {
		t.Fatal(err)
	}
	return store.Event{Type: typ, Resource: configMapsBucket, Key: AuthenticationConfigMapNamespace + "/" + AuthenticationConfigMapName, Value: b}
}

func TestAuthenticationConfigMapIsWrittenOnCreateDeleteAndResyncOnly(t *testing.T) {
	later := time.Now().Add(24 * time.Hour)
	info := kubeadmInfo(testCA(t, "ca", later), testCA(t, "front-proxy-ca", later))
	reg := registrytest.NewRecorder()
	c := NewClusterAuthenticationTrust(reg, info, slog.New(slog.DiscardHandler))
	c.Resync = 7 * time.Second
	ctx := context.Background()
	sync := func(events ...store.Event) {
		t.Helper()
		var rq *controllers.Requeue
		if err := c.Sync(ctx, events); !errors.As(err, &rq) || rq.After != 7*time.Second {
			t.Fatalf("Sync: %v, want a requeue after the resync period", err)
		}
	}
	written := func() map[string]string {
		t.Helper()
		cm, ok := reg.Objects[AuthenticationConfigMapName].(*corev1.ConfigMap)
		if !ok {
			t.Fatalf("no ConfigMap written: %v", reg.Writes)
		}
		return cm.Data
	}

	sync() // first sync, nothing stored
	if !slices.Equal(reg.Writes, []string{"create " + AuthenticationConfigMapName}) || reg.Users[0] != "system:apiserver/kube-apiserver" {
		t.Fatalf("first sync: %v by %v", reg.Writes, reg.Users)
	}
	published := written()
	sync(configMapEvent(t, store.Added, published)) // its own creation
	if len(reg.Writes) != 1 {
		t.Fatalf("the published ConfigMap was written again: %v", reg.Writes)
	}

	// An edit waits for the periodic look, as kube-apiserver's does.
	edited := maps.Clone(published)
	delete(edited, "requestheader-allowed-names")
	reg.Objects[AuthenticationConfigMapName] = &corev1.ConfigMap{Data: edited}
	sync(configMapEvent(t, store.Modified, edited))
	if len(reg.Writes) != 1 {
		t.Fatalf("an edit was corrected before the resync: %v", reg.Writes)
	}
	sync() // the resync
	if !slices.Equal(reg.Writes[1:], []string{"update " + AuthenticationConfigMapName}) || !maps.Equal(written(), published) {
		t.Fatalf("resync after an edit: %v, %v", reg.Writes, written())
	}
	sync(configMapEvent(t, store.Modified, published))

	// A deletion is corrected at once.
	delete(reg.Objects, AuthenticationConfigMapName)
	sync(configMapEvent(t, store.Deleted, nil))
	if !slices.Equal(reg.Writes[2:], []string{"create " + AuthenticationConfigMapName}) || !maps.Equal(written(), published) {
		t.Fatalf("after deletion: %v", reg.Writes)
	}
}
