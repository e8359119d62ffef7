package fakeplane_test

import (
	"fmt"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/wardle"
)

// wardleClients returns dynamic clients of flunders in default: through
// the control plane as the admin, and straight to the extension server as
// the aggregator would call it (front-proxy certificate, the admin named
// in X-Remote-User and X-Remote-Group), so that both are authorized the
// same way (system:masters needs no SubjectAccessReview).
func wardleClients(b *testing.B) (proxied, direct dynamic.ResourceInterface, ext *wardle.Server) {
	cp, ext := startWardle(b)
	certPEM, keyPEM := cp.ProxyClientCert()
	directCfg := &rest.Config{
		Host:            "https://" + ext.Address(),
		TLSClientConfig: rest.TLSClientConfig{CAData: ext.CABundle(), ServerName: "api.wardle.svc", CertData: certPEM, KeyData: keyPEM},
		QPS:             -1,
		WrapTransport: func(rt http.RoundTripper) http.RoundTripper {
			return roundTripperFunc(func(r *http.Request) (*http.Response, error) {
				r = r.Clone(r.Context())
				r.Header.Set("X-Remote-User", fakeplane.AdminUser)
				r.Header.Set("X-Remote-Group", fakeplane.AdminGroup)
				return rt.RoundTrip(r)
			})
		},
	}
	proxied = dynamic.NewForConfigOrDie(cp.RESTConfig()).Resource(flundersGVR).Namespace("default")
	direct = dynamic.NewForConfigOrDie(directCfg).Resource(flundersGVR).Namespace("default")
	return proxied, direct, ext
}

// BenchmarkAggregatedGet is a GET of one flunder through the aggregator's
// proxy, against the same GET straight to the extension server.
func BenchmarkAggregatedGet(b *testing.B) {
	proxied, direct, _ := wardleClients(b)
	ctx := ctxT(b)
	if _, err := direct.Create(ctx, flunder("one"), metav1.CreateOptions{}); err != nil {
		b.Fatal(err)
	}
	for _, bc := range []struct {
		name   string
		client dynamic.ResourceInterface
	}{{"proxied", proxied}, {"direct", direct}} {
		b.Run(bc.name, func(b *testing.B) {
			for b.Loop() {
				if _, err := bc.client.Get(ctx, "one", metav1.GetOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// BenchmarkAggregatedWatchEvent is the time from a create on the
// extension server to its event on a watch through the aggregator's proxy
// (and on a watch straight to the extension server).
func BenchmarkAggregatedWatchEvent(b *testing.B) {
	proxied, direct, _ := wardleClients(b)
	ctx := ctxT(b)
	// The names go on across the runs of each sub-benchmark (the flunders
	// stay on the one extension server).
	i := 0
	for _, bc := range []struct {
		name   string
		client dynamic.ResourceInterface
	}{{"proxied", proxied}, {"direct", direct}} {
		b.Run(bc.name, func(b *testing.B) {
			lst, err := bc.client.List(ctx, metav1.ListOptions{})
			if err != nil {
				b.Fatal(err)
			}
			w, err := bc.client.Watch(ctx, metav1.ListOptions{ResourceVersion: lst.GetResourceVersion()})
			if err != nil {
				b.Fatal(err)
			}
			defer w.Stop()
			for b.Loop() {
				i++
				name := fmt.Sprintf("%s-%d", bc.name, i)
				if _, err := direct.Create(ctx, flunder(name), metav1.CreateOptions{}); err != nil {
					b.Fatal(err)
				}
				for seen := false; !seen; {
					ev, ok := <-w.ResultChan()
					if !ok {
						b.Fatal("the watch ended")
					}
					u, isFlunder := ev.Object.(*unstructured.Unstructured)
					seen = isFlunder && u.GetName() == name
				}
			}
		})
	}
}
