package fakeplane_test

import (
	"encoding/json"
	"net"
	"net/http"
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestExternalAddressNamesTheServer checks the address the control plane
// gives out for itself, as kube-apiserver's ExternalAddress (recorded on
// refplane with --external-hostname=api.example.com): /api's
// serverAddressByClientCIDRs and the issuer discovery document's jwks_uri
// name --external-hostname, else --advertise-address, else the address
// listened on, with the port served on.
func TestExternalAddressNamesTheServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []fakeplane.Option
		host string // "" for the address listened on
	}{
		{"external hostname", []fakeplane.Option{fakeplane.WithExternalHostname("api.example.com"), fakeplane.WithAdvertiseAddress(net.ParseIP("192.0.2.10"))}, "api.example.com"},
		{"advertise address", []fakeplane.Option{fakeplane.WithAdvertiseAddress(net.ParseIP("192.0.2.10"))}, "192.0.2.10"},
		{"neither", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tc.opts...)
			hostPort := strings.TrimPrefix(cp.URL(), "https://")
			want := hostPort
			if tc.host != "" {
				_, port, _ := net.SplitHostPort(hostPort)
				want = net.JoinHostPort(tc.host, port)
			}
			a := getRaw(t, cp, "/api", map[string]string{"Accept": "application/json"})
			var versions metav1.APIVersions
			if err := json.Unmarshal(a.body, &versions); a.code != http.StatusOK || err != nil {
				t.Fatalf("GET /api: %d %v\n%s", a.code, err, a.body)
			}
			if got := versions.ServerAddressByClientCIDRs; len(got) != 1 || got[0].ClientCIDR != "0.0.0.0/0" || got[0].ServerAddress != want {
				t.Errorf("/api's serverAddressByClientCIDRs %+v, want 0.0.0.0/0 at %s", got, want)
			}
			a = getRaw(t, cp, "/.well-known/openid-configuration", nil)
			var discovery struct {
				JWKSURI string `json:"jwks_uri"`
			}
			if err := json.Unmarshal(a.body, &discovery); a.code != http.StatusOK || err != nil {
				t.Fatalf("GET /.well-known/openid-configuration: %d %v\n%s", a.code, err, a.body)
			}
			if w := "https://" + want + "/openid/v1/jwks"; discovery.JWKSURI != w {
				t.Errorf("jwks_uri %s, want %s", discovery.JWKSURI, w)
			}
		})
	}
}
