package fakeplane_test

import (
	"crypto/tls"
	"crypto/x509"
	"net/url"
	"testing"

	"golang.org/x/net/http2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// HTTPS is served as kube-apiserver v1.37.2 serves it (its SETTINGS frame
// recorded on refplane): HTTP/2 with 100 concurrent streams a connection,
// frames and stream windows of 256 KiB, or as many streams as
// --http2-max-streams-per-connection says; HTTP/1.1 alone with
// --disable-http2-serving.
func TestHTTP2ServingAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name    string
		serving fakeplane.SecureServing
		alpn    string
		streams uint32
	}{
		{name: "default", alpn: "h2", streams: 100},
		{name: "max streams", serving: fakeplane.SecureServing{HTTP2MaxStreamsPerConnection: 7}, alpn: "h2", streams: 7},
		{name: "HTTP/1.1 alone", serving: fakeplane.SecureServing{DisableHTTP2: true}, alpn: "http/1.1"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, fakeplane.WithSecureServing(tc.serving))
			u, err := url.Parse(cp.URL())
			if err != nil {
				t.Fatal(err)
			}
			roots := x509.NewCertPool()
			roots.AppendCertsFromPEM(cp.RESTConfig().CAData)
			conn, err := tls.Dial("tcp", u.Host, &tls.Config{RootCAs: roots, NextProtos: []string{"h2", "http/1.1"}})
			if err != nil {
				t.Fatal(err)
			}
			defer conn.Close()
			if got := conn.ConnectionState().NegotiatedProtocol; got != tc.alpn {
				t.Fatalf("negotiated %q, want %q", got, tc.alpn)
			}
			if tc.alpn == "h2" {
				if _, err := conn.Write([]byte(http2.ClientPreface)); err != nil {
					t.Fatal(err)
				}
				fr := http2.NewFramer(conn, conn)
				if err := fr.WriteSettings(); err != nil {
					t.Fatal(err)
				}
				f, err := fr.ReadFrame()
				if err != nil {
					t.Fatal(err)
				}
				settings, ok := f.(*http2.SettingsFrame)
				if !ok {
					t.Fatalf("first frame %v, want SETTINGS", f)
				}
				want := map[http2.SettingID]uint32{
					http2.SettingMaxConcurrentStreams: tc.streams, http2.SettingMaxFrameSize: 256 * 1024,
					http2.SettingInitialWindowSize: 256 * 1024, http2.SettingMaxHeaderListSize: 1048896,
				}
				for id, v := range want {
					if got, _ := settings.Value(id); got != v {
						t.Errorf("%v: %d, want %d", id, got, v)
					}
				}
			}
			// Clients work either way.
			if _, err := kubernetesClient(t, cp).CoreV1().Namespaces().Get(ctxT(t), "default", metav1.GetOptions{}); err != nil {
				t.Fatal(err)
			}
		})
	}
}
