package fakeplane_test

import (
	"bytes"
	"context"
	"net/http"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"go.etcd.io/etcd/api/v3/mvccpb"
	clientv3 "go.etcd.io/etcd/client/v3"
	"go.uber.org/zap"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/etcdtest"
)

// TestControlPlaneOnEtcd runs a control plane on etcd (--etcd-servers):
// create, get, list, watch and a conflicting update through client-go,
// resourceVersions that are etcd's revisions, and the objects still there
// for a second control plane started on the same etcd and prefix.
func TestControlPlaneOnEtcd(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	prefix := etcdtest.Prefix(t)
	ctx := context.Background()
	on := []fakeplane.Option{fakeplane.WithEtcdServers(srv.Endpoints), fakeplane.WithEtcdPrefix(prefix)}

	cp := fakeplane.Start(t, on...)
	c := kubernetesClient(t, cp)
	cms := c.CoreV1().ConfigMaps("default")
	created, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}, Data: map[string]string{"k": "v1"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	got, err := cms.Get(ctx, "a", metav1.GetOptions{})
	if err != nil || got.ResourceVersion != created.ResourceVersion || got.Data["k"] != "v1" {
		t.Fatalf("get = %v, %v; want v1 at %s", got, err, created.ResourceVersion)
	}
	// The resourceVersion is etcd's revision of the key; etcd holds the
	// object with the placeholder its Stamp wrote at revision 0.
	kv := etcdKey(t, srv, prefix+"//configmaps/default/a")
	if rv := strconv.FormatInt(kv.ModRevision, 10); rv != created.ResourceVersion {
		t.Fatalf("resourceVersion %s, etcd's ModRevision %s", created.ResourceVersion, rv)
	}
	if !bytes.Contains(kv.Value, []byte(`"resourceVersion":"0"`)) {
		t.Fatalf("etcd holds %s, want the resourceVersion placeholder", kv.Value)
	}
	list, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	listRV, _ := strconv.ParseInt(list.ResourceVersion, 10, 64)
	if listRV < kv.ModRevision || !hasConfigMap(list.Items, "a") {
		t.Fatalf("list at %s (items %d) does not hold a at %s", list.ResourceVersion, len(list.Items), created.ResourceVersion)
	}

	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: list.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	updated := created.DeepCopy()
	updated.Data["k"] = "v2"
	updated, err = cms.Update(ctx, updated, metav1.UpdateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	stale := created.DeepCopy()
	stale.Data["k"] = "lost"
	if _, err := cms.Update(ctx, stale, metav1.UpdateOptions{}); !apierrors.IsConflict(err) {
		t.Fatalf("update at the stale resourceVersion %s: %v, want 409 Conflict", created.ResourceVersion, err)
	}
	if err := cms.Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := nextEvent(t, w)
	if cm, ok := ev.Object.(*corev1.ConfigMap); ev.Type != watch.Modified || !ok || cm.Name != "a" || cm.ResourceVersion != updated.ResourceVersion || cm.Data["k"] != "v2" {
		t.Fatalf("first event %s %#v, want MODIFIED a at %s", ev.Type, ev.Object, updated.ResourceVersion)
	}
	ev = nextEvent(t, w)
	cm, ok := ev.Object.(*corev1.ConfigMap)
	if ev.Type != watch.Deleted || !ok || cm.Name != "a" || cm.Data["k"] != "v2" {
		t.Fatalf("second event %s %#v, want DELETED a", ev.Type, ev.Object)
	}
	if deletedAt, _ := strconv.ParseInt(cm.ResourceVersion, 10, 64); strconv.FormatInt(deletedAt, 10) == updated.ResourceVersion || deletedAt == 0 {
		t.Fatalf("DELETED event at %s, want the delete's revision after %s", cm.ResourceVersion, updated.ResourceVersion)
	}
	kept, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kept"}, Data: map[string]string{"k": "survives"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "on-etcd"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}

	// A new control plane on the same etcd and prefix finds the objects.
	cp2 := fakeplane.Start(t, on...)
	c2 := kubernetesClient(t, cp2)
	got, err = c2.CoreV1().ConfigMaps("default").Get(ctx, "kept", metav1.GetOptions{})
	if err != nil || got.ResourceVersion != kept.ResourceVersion || got.Data["k"] != "survives" {
		t.Fatalf("after the restart: %v, %v; want kept at %s", got, err, kept.ResourceVersion)
	}
	if _, err := c2.CoreV1().ConfigMaps("default").Get(ctx, "a", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the deleted ConfigMap after the restart: %v, want 404", err)
	}
	if _, err := c2.CoreV1().Namespaces().Get(ctx, "on-etcd", metav1.GetOptions{}); err != nil {
		t.Fatalf("the namespace after the restart: %v", err)
	}
	again, err := c2.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if a, _ := strconv.ParseInt(again.ResourceVersion, 10, 64); a <= kv.ModRevision {
		t.Fatalf("a write after the restart at %s, not after %d", again.ResourceVersion, kv.ModRevision)
	}
}

// etcdKey reads one key from etcd directly.
func etcdKey(t *testing.T, srv *etcdtest.Server, key string) *mvccpb.KeyValue {
	t.Helper()
	cfg := clientv3.Config{Endpoints: srv.Endpoints, DialTimeout: 5 * time.Second, Logger: zap.NewNop()}
	if srv.TLS != nil {
		var err error
		if cfg.TLS, err = srv.TLS.ClientConfig(); err != nil {
			t.Fatal(err)
		}
	}
	cli, err := clientv3.New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	defer cli.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	resp, err := cli.Get(ctx, key)
	if err != nil || len(resp.Kvs) != 1 {
		t.Fatalf("etcd get %s: %v (%d keys)", key, err, len(resp.Kvs))
	}
	return resp.Kvs[0]
}

// TestControlPlaneOnEtcdOverTLS runs a control plane on an etcd that serves
// over TLS and requires a client certificate, as kubeadm's
// (WithEtcdTLS: --etcd-cafile, --etcd-certfile, --etcd-keyfile): an object
// written through client-go is in etcd. Without the client certificate, or
// with files that do not load, the start fails with kube-apiserver's
// errors.
func TestControlPlaneOnEtcdOverTLS(t *testing.T) {
	t.Parallel()
	srv := etcdtest.StartTLS(t)
	prefix := etcdtest.Prefix(t)
	ctx := ctxT(t)
	cp := fakeplane.Start(t, fakeplane.WithEtcdServers(srv.Endpoints), fakeplane.WithEtcdPrefix(prefix), fakeplane.WithEtcdTLS(fakeplane.EtcdTLS{
		CAFile: srv.TLS.CAFile, CertFile: srv.TLS.CertFile, KeyFile: srv.TLS.KeyFile,
	}))
	created, err := kubernetesClient(t, cp).CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if kv := etcdKey(t, srv, prefix+"//configmaps/default/a"); strconv.FormatInt(kv.ModRevision, 10) != created.ResourceVersion {
		t.Fatalf("etcd holds the ConfigMap at revision %d, client-go saw %s", kv.ModRevision, created.ResourceVersion)
	}

	on := func(files fakeplane.EtcdTLS) []fakeplane.Option {
		return []fakeplane.Option{fakeplane.WithEtcdServers(srv.Endpoints), fakeplane.WithEtcdPrefix(prefix), fakeplane.WithEtcdTLS(files)}
	}
	missing := filepath.Join(t.TempDir(), "missing.crt")
	for _, tc := range []struct {
		name string
		opts []fakeplane.Option
		want string
	}{
		{"a certificate without its key", on(fakeplane.EtcdTLS{CAFile: srv.TLS.CAFile, CertFile: srv.TLS.CertFile}),
			"error creating storage factory: KeyFile and CertFile must both be present[key: , cert: " + srv.TLS.CertFile + "]"},
		{"a key without its certificate", on(fakeplane.EtcdTLS{KeyFile: srv.TLS.KeyFile}),
			"error creating storage factory: KeyFile and CertFile must both be present[key: " + srv.TLS.KeyFile + ", cert: ]"},
		{"a CA file that is not there", on(fakeplane.EtcdTLS{CAFile: missing}),
			"error creating storage factory: open " + missing + ": no such file or directory"},
		{"no etcd to secure", []fakeplane.Option{fakeplane.WithEtcdTLS(fakeplane.EtcdTLS{CAFile: srv.TLS.CAFile})},
			"--etcd-cafile, --etcd-certfile and --etcd-keyfile secure --etcd-servers, and none is given"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if err := startError(t, tc.opts...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("start: %v, want %q", err, tc.want)
			}
		})
	}
	t.Run("no client certificate", func(t *testing.T) {
		// etcd refuses the connection: the start fails once its context
		// ends.
		cp, err := fakeplane.New(on(fakeplane.EtcdTLS{CAFile: srv.TLS.CAFile})...)
		if err != nil {
			t.Fatal(err)
		}
		short, cancel := context.WithTimeout(ctx, 2*time.Second)
		defer cancel()
		if err := cp.Start(short); err == nil {
			_ = cp.Stop()
			t.Fatal("a control plane without etcd's client certificate started")
		}
	})
}

// hasConfigMap reports whether items hold a ConfigMap named name.
func hasConfigMap(items []corev1.ConfigMap, name string) bool {
	for _, it := range items {
		if it.Name == name {
			return true
		}
	}
	return false
}

// nextEvent returns the next event of w, failing if none comes.
func nextEvent(t *testing.T, w watch.Interface) watch.Event {
	t.Helper()
	select {
	case ev, ok := <-w.ResultChan():
		if !ok {
			t.Fatal("the watch ended")
		}
		return ev
	case <-time.After(30 * time.Second):
		t.Fatal("no watch event in 30s")
	}
	return watch.Event{}
}

// TestEtcdHealthChecksReadEtcd runs a control plane on etcd and stops etcd:
// the "etcd" check of /livez, /readyz and /healthz and the "etcd-readiness"
// check of /readyz fail as kube-apiserver's do with etcd gone (recorded on
// refplane with its etcd paused): "[-]etcd failed: reason withheld" in the
// verbose lists, 500, and the read's error at the check's own path.
func TestEtcdHealthChecksReadEtcd(t *testing.T) {
	t.Parallel()
	srv := etcdtest.Start(t)
	cp := fakeplane.Start(t, fakeplane.WithEtcdServers(srv.Endpoints), fakeplane.WithEtcdPrefix(etcdtest.Prefix(t)),
		fakeplane.WithEtcdHealthcheckTimeout(300*time.Millisecond), fakeplane.WithEtcdReadycheckTimeout(300*time.Millisecond))
	for _, path := range []string{"/livez?verbose", "/readyz?verbose", "/healthz?verbose"} {
		a := getRaw(t, cp, path, nil)
		if a.code != http.StatusOK || !strings.Contains(string(a.body), "[+]etcd ok\n") {
			t.Fatalf("GET %s with etcd up: %d\n%s", path, a.code, a.body)
		}
	}
	if a := getRaw(t, cp, "/readyz/etcd-readiness", nil); a.code != http.StatusOK || string(a.body) != "ok" {
		t.Fatalf("GET /readyz/etcd-readiness with etcd up: %d %q", a.code, a.body)
	}

	srv.Stop()
	// A check reads etcd at most every half timeout; until then it
	// answers the last read's result.
	deadline := time.Now().Add(30 * time.Second)
	for {
		a := getRaw(t, cp, "/livez?verbose", nil)
		if a.code == http.StatusInternalServerError {
			if !strings.Contains(string(a.body), "[-]etcd failed: reason withheld\n") || !strings.HasSuffix(string(a.body), "livez check failed\n") {
				t.Fatalf("GET /livez?verbose with etcd gone: %d\n%s", a.code, a.body)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("GET /livez?verbose still %d 30s after etcd stopped:\n%s", a.code, a.body)
		}
		time.Sleep(100 * time.Millisecond)
	}
	readyz := getRaw(t, cp, "/readyz?verbose", nil)
	for _, want := range []string{"[-]etcd failed: reason withheld\n", "[-]etcd-readiness failed: reason withheld\n", "readyz check failed\n"} {
		if readyz.code != http.StatusInternalServerError || !strings.Contains(string(readyz.body), want) {
			t.Fatalf("GET /readyz?verbose with etcd gone: %d, want 500 with %q:\n%s", readyz.code, want, readyz.body)
		}
	}
	for _, path := range []string{"/livez/etcd", "/readyz/etcd-readiness", "/healthz/etcd"} {
		a := getRaw(t, cp, path, nil)
		if a.code != http.StatusInternalServerError || !strings.HasPrefix(string(a.body), "internal server error: error getting data from etcd: ") {
			t.Fatalf("GET %s with etcd gone: %d %q", path, a.code, a.body)
		}
	}
}
