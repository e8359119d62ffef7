package fakeplane_test

import (
	"bufio"
	"bytes"
	"crypto/tls"
	"encoding/json"
	"strings"
	"testing"

	"golang.org/x/net/websocket"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// dialWatch opens a watch of path over a WebSocket as the admin, with an
// Origin and the Accept given ("" for none).
func dialWatch(t *testing.T, cp *fakeplane.ControlPlane, path, accept string) (*websocket.Conn, error) {
	t.Helper()
	tlsCfg, err := rest.TLSConfigFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	tlsCfg.NextProtos = []string{"http/1.1"}
	cfg, err := websocket.NewConfig(strings.Replace(cp.URL(), "https://", "wss://", 1)+path, "http://localhost")
	if err != nil {
		t.Fatal(err)
	}
	cfg.TlsConfig = tlsCfg
	if accept != "" {
		cfg.Header.Set("Accept", accept)
	}
	return websocket.DialConfig(cfg)
}

// TestWatchOverWebSocket checks a watch over a WebSocket, as kube-apiserver
// serves one (recorded from refplane): one message an event, a text one
// with its JSON for JSON, a binary one with its protobuf (without the
// stream's length prefix) for protobuf, until the watch's timeout, when
// the server closes the socket; a handshake without an Origin is refused.
func TestWatchOverWebSocket(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ws"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	const path = "/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dws&timeoutSeconds=2"

	t.Run("JSON", func(t *testing.T) {
		ws, err := dialWatch(t, cp, path, "")
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		var msg string
		if err := websocket.Message.Receive(ws, &msg); err != nil {
			t.Fatal(err)
		}
		var ev struct {
			Type   string
			Object corev1.ConfigMap
		}
		if err := json.Unmarshal([]byte(msg), &ev); err != nil || ev.Type != "ADDED" || ev.Object.Name != "ws" || !strings.HasSuffix(msg, "}\n") {
			t.Fatalf("first message %q (%v), want the ADDED event of ws as a JSON line", msg, err)
		}
		if _, err := cs.CoreV1().ConfigMaps("default").Update(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "ws"}, Data: map[string]string{"a": "b"}}, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
		if err := websocket.Message.Receive(ws, &msg); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal([]byte(msg), &ev); err != nil || ev.Type != "MODIFIED" || ev.Object.Data["a"] != "b" {
			t.Fatalf("second message %q (%v), want the MODIFIED event", msg, err)
		}
		// The watch's timeout closes the socket.
		if err := websocket.Message.Receive(ws, &msg); err == nil {
			t.Fatalf("a message %q after the timeout, want the socket closed", msg)
		}
	})
	t.Run("protobuf", func(t *testing.T) {
		ws, err := dialWatch(t, cp, path, "application/vnd.kubernetes.protobuf")
		if err != nil {
			t.Fatal(err)
		}
		defer ws.Close()
		var msg []byte
		if err := websocket.Message.Receive(ws, &msg); err != nil {
			t.Fatal(err)
		}
		var ev metav1.WatchEvent
		if err := ev.Unmarshal(msg); err != nil || ev.Type != "ADDED" || !bytes.HasPrefix(ev.Object.Raw, []byte("k8s\x00")) {
			t.Fatalf("first message %q (%v), want a protobuf WatchEvent ADDED", msg, err)
		}
	})
	t.Run("a client that closes ends the watch", func(t *testing.T) {
		ws, err := dialWatch(t, cp, "/api/v1/namespaces/default/configmaps?watch=1&fieldSelector=metadata.name%3Dws", "")
		if err != nil {
			t.Fatal(err)
		}
		var msg string
		if err := websocket.Message.Receive(ws, &msg); err != nil {
			t.Fatal(err)
		}
		// Stop, at the end of the test, waits for every request: it
		// would not return if the watch went on.
		if err := ws.Close(); err != nil {
			t.Fatal(err)
		}
	})
	t.Run("without an Origin", func(t *testing.T) {
		tlsCfg, err := rest.TLSConfigFor(cp.RESTConfig())
		if err != nil {
			t.Fatal(err)
		}
		tlsCfg.NextProtos = []string{"http/1.1"}
		conn, err := tls.Dial("tcp", strings.TrimPrefix(cp.URL(), "https://"), tlsCfg)
		if err != nil {
			t.Fatal(err)
		}
		defer conn.Close()
		req := "GET " + path + " HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n\r\n"
		if _, err := conn.Write([]byte(req)); err != nil {
			t.Fatal(err)
		}
		status, err := bufio.NewReader(conn).ReadString('\n')
		if err != nil || status != "HTTP/1.1 403 Forbidden\r\n" {
			t.Errorf("handshake without an Origin: %q (%v), want HTTP/1.1 403 Forbidden", status, err)
		}
	})
}
