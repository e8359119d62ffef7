package fakeplane_test

import (
	"bufio"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// TestWatchOverHTTP1AndHTTP2 runs the same watch over both protocols.
func TestWatchOverHTTP1AndHTTP2(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	for _, tc := range []struct {
		name   string
		protos []string
		want   int
	}{
		{"http/1.1", []string{"http/1.1"}, 1},
		{"h2", []string{"h2"}, 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg := cp.RESTConfig()
			cfg.NextProtos = tc.protos
			hc, err := rest.HTTPClientFor(cfg)
			if err != nil {
				t.Fatal(err)
			}
			cs, err := kubernetes.NewForConfigAndClient(cfg, hc)
			if err != nil {
				t.Fatal(err)
			}
			ctx := ctxT(t)
			// The protocol the connection negotiated.
			req, _ := http.NewRequestWithContext(ctx, "GET", cp.URL()+"/version", nil)
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.ProtoMajor != tc.want {
				t.Fatalf("negotiated HTTP/%d, want HTTP/%d", resp.ProtoMajor, tc.want)
			}
			name := "over-" + strings.ReplaceAll(tc.name, "/", "-")
			w, err := cs.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=" + name})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Stop()
			if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			select {
			case ev := <-w.ResultChan():
				if ev.Type != watch.Added || ev.Object.(*corev1.ConfigMap).Name != name {
					t.Errorf("event %s %v", ev.Type, ev.Object)
				}
			case <-ctx.Done():
				t.Fatal("no event")
			}
		})
	}
}

// TestSlowWatcherIsDropped opens a watch that never reads and checks that
// writers finish and the watch ends without every event.
func TestSlowWatcherIsDropped(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	// The watch gets a connection of its own (HTTP/1.1): over a shared HTTP/2
	// connection, a stream nobody reads would exhaust the connection's flow
	// control window and hold up the writers' answers on the client side.
	wcfg := cp.RESTConfig()
	wcfg.NextProtos = []string{"http/1.1"}
	hc, _ := rest.HTTPClientFor(wcfg)
	req, _ := http.NewRequestWithContext(ctx, "GET", cp.URL()+"/api/v1/namespaces/default/configmaps?watch=true&resourceVersion=1", nil)
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()

	// 1,600 events of 20 kB: more than the server's per-watch buffer (1,000
	// events) and the socket buffers hold.
	const writers, each = 4, 400
	payload := strings.Repeat("x", 20000)
	var wg sync.WaitGroup
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			for i := 0; i < each; i++ {
				cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("s%d-%d", w, i)}, Data: map[string]string{"p": payload}}
				if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
					t.Error(err)
					return
				}
			}
		}(w)
	}
	wg.Wait() // writers were not stalled by the watcher that does not read

	// Now read: the stream ends (the server dropped it) before all events.
	events := 0
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		var ev struct{ Type string }
		if err := json.Unmarshal(sc.Bytes(), &ev); err != nil {
			t.Fatalf("bad event line: %v", err)
		}
		events++
	}
	if events >= writers*each {
		t.Errorf("the slow watcher received all %d events; it should have been dropped", events)
	}
	if events == 0 {
		t.Errorf("the watcher received nothing before it was dropped")
	}
}
