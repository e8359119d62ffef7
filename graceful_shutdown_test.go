package fakeplane_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestGracefulShutdownDelay stops a control plane with a shutdown delay
// (--shutdown-delay-duration, recorded on refplane with SIGTERM): while
// Stop waits, /readyz fails its shutdown check as kube-apiserver's
// ("[-]shutdown failed: reason withheld", and "internal server error:
// process is shutting down" at its own path), /livez passes and requests
// are served; then Stop returns and nothing answers.
func TestGracefulShutdownDelay(t *testing.T) {
	t.Parallel()
	cp, err := fakeplane.New(fakeplane.WithGracefulShutdown(fakeplane.GracefulShutdown{DelayDuration: 3 * time.Second, SendRetryAfter: true}))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Start(ctxT(t)); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cp.Stop() })
	cs := clientset(t, cp)
	if a := getRaw(t, cp, "/readyz?verbose", nil); a.code != http.StatusOK || !strings.Contains(string(a.body), "[+]shutdown ok\n") {
		t.Fatalf("/readyz?verbose before Stop: %d\n%s", a.code, a.body)
	}
	stopped := make(chan error, 1)
	go func() { stopped <- cp.Stop() }()
	// Stop marks the shutdown as it begins; wait for /readyz to say so.
	var readyz rawAnswer
	for deadline := time.Now().Add(10 * time.Second); ; {
		readyz = getRaw(t, cp, "/readyz?verbose", nil)
		if readyz.code != http.StatusOK || time.Now().After(deadline) {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	select {
	case err := <-stopped:
		t.Fatalf("Stop returned (%v) before its delay passed", err)
	default:
	}
	if readyz.code != http.StatusInternalServerError || !strings.Contains(string(readyz.body), "[-]shutdown failed: reason withheld\n") ||
		!strings.HasSuffix(string(readyz.body), "readyz check failed\n") {
		t.Fatalf("/readyz?verbose during the delay: %d\n%s", readyz.code, readyz.body)
	}
	if a := getRaw(t, cp, "/readyz/shutdown", nil); a.code != http.StatusInternalServerError || string(a.body) != "internal server error: process is shutting down\n" {
		t.Errorf("/readyz/shutdown during the delay: %d %q", a.code, a.body)
	}
	if a := getRaw(t, cp, "/livez", nil); a.code != http.StatusOK {
		t.Errorf("/livez during the delay: %d %s", a.code, a.body)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctxT(t), "default", metav1.GetOptions{}); err != nil {
		t.Errorf("a request during the delay: %v, want it served", err)
	}
	if err := <-stopped; err != nil {
		t.Fatal(err)
	}
	if _, err := cs.CoreV1().Namespaces().Get(ctxT(t), "default", metav1.GetOptions{}); err == nil {
		t.Error("a request after Stop was served")
	}
}

// TestGracefulShutdownIsChecked checks the durations as kube-apiserver
// checks its --shutdown-* flags, with its errors.
func TestGracefulShutdownIsChecked(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		g    fakeplane.GracefulShutdown
		want string
	}{
		{fakeplane.GracefulShutdown{DelayDuration: -time.Second}, "fakeplane: --shutdown-delay-duration can not be negative value"},
		{fakeplane.GracefulShutdown{WatchTerminationGracePeriod: -time.Second}, "fakeplane: shutdown-watch-termination-grace-period, if provided, can not be a negative value"},
	} {
		if _, err := fakeplane.New(fakeplane.WithGracefulShutdown(tc.g)); err == nil || err.Error() != tc.want {
			t.Errorf("%+v: %v, want %q", tc.g, err, tc.want)
		}
	}
}
