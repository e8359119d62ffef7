package fakeplane_test

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"go.uber.org/goleak"
	corev1 "k8s.io/api/core/v1"
	apiextensionsclient "k8s.io/apiextensions-apiserver/pkg/client/clientset/clientset"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/internal/pki"
)

// goroutinesOutsideFakeplane are the tests' clients' goroutines, started by
// libraries the tests use: some live as long as the process, some outlive
// the client that started them. None is fakeplane's.
var goroutinesOutsideFakeplane = []goleak.Option{
	goleak.IgnoreTopFunction("k8s.io/klog/v2.(*loggingT).flushDaemon"),
	goleak.IgnoreAnyFunction("k8s.io/apimachinery/pkg/util/wait.BackoffUntilWithContext.func1"),
	goleak.IgnoreAnyFunction("k8s.io/client-go/util/workqueue.(*Typed[...]).updateUnfinishedWorkLoop"),
	goleak.IgnoreAnyFunction("k8s.io/client-go/util/workqueue.(*delayingType[...]).waitingLoop"),
	goleak.IgnoreAnyFunction("sigs.k8s.io/controller-runtime/pkg/log.(*loggerPromise).Fulfill"),
	// controller-runtime's cache filters its watches; a stopped informer
	// leaves the filter blocked on a send (client side, not fakeplane's).
	goleak.IgnoreTopFunction("k8s.io/apimachinery/pkg/watch.(*filteredWatch).loop"),
	goleak.IgnoreAnyFunction("net/http.(*persistConn).readLoop"),
	goleak.IgnoreAnyFunction("net/http.(*persistConn).writeLoop"),
	goleak.IgnoreAnyFunction("golang.org/x/net/http2.(*ClientConn).readLoop"),
	goleak.IgnoreAnyFunction("net/http.(*http2ClientConn).readLoop"),
}

// TestMain fails the package when a goroutine is left once every test, and
// so every control plane, has stopped.
func TestMain(m *testing.M) {
	goleak.VerifyTestMain(m, goroutinesOutsideFakeplane...)
}

func TestStopLeavesNoGoroutine(t *testing.T) {
	// Not parallel: goleak compares with the goroutines from before the test.
	before := goleak.IgnoreCurrent()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	// A CA file, followed until Stop.
	caFile := filepath.Join(t.TempDir(), "client-ca.pem")
	ca, err := pki.NewCA("file-ca")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(caFile, ca.CertPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	cp, err := fakeplane.New(fakeplane.WithClientCAFile(caFile))
	if err != nil {
		t.Fatal(err)
	}
	if err := cp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	cfg := cp.RESTConfig()
	cfg.QPS, cfg.Burst = 1000, 1000
	client := kubernetes.NewForConfigOrDie(cfg)
	// A watch left open, a namespace being deleted, objects for the garbage
	// collector, and a CRD deleted with objects (its cleanup goroutine).
	w, err := client.CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "doomed"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().ConfigMaps("doomed").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := client.CoreV1().Namespaces().Delete(ctx, "doomed", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	crd := crontabCRD()
	dyn := dynamic.NewForConfigOrDie(cfg)
	crdRes := dyn.Resource(schema.GroupVersionResource{Group: "apiextensions.k8s.io", Version: "v1", Resource: "customresourcedefinitions"})
	if _, err := crdRes.Create(ctx, crd, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ext := apiextensionsclient.NewForConfigOrDie(cfg)
	waitEstablished(t, ctx, ext, crd.GetName())
	tabs := dyn.Resource(schema.GroupVersionResource{Group: "stable.example.com", Version: "v1", Resource: "crontabs"}).Namespace("default")
	for _, n := range []string{"a", "b", "c"} {
		if _, err := tabs.Create(ctx, crontab("v1", n, map[string]any{"cronSpec": "* * * * */5"}), metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if err := crdRes.Delete(ctx, crd.GetName(), metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	w.Stop() // the client's own watch goroutine
	opts := append([]goleak.Option{before}, goroutinesOutsideFakeplane...)
	if err := goleak.Find(opts...); err != nil {
		t.Errorf("goroutines outlived Stop: %v", err)
	}
}

// waitEstablished waits for a CRD's Established condition.
func waitEstablished(t *testing.T, ctx context.Context, ext apiextensionsclient.Interface, name string) {
	t.Helper()
	for {
		crd, err := ext.ApiextensionsV1().CustomResourceDefinitions().Get(ctx, name, metav1.GetOptions{})
		if err == nil {
			for _, c := range crd.Status.Conditions {
				if c.Type == "Established" && c.Status == "True" {
					return
				}
			}
		}
		select {
		case <-ctx.Done():
			t.Fatalf("CRD %s not established: %v", name, err)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
