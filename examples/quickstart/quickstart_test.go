// Package quickstart shows the smallest useful fakeplane test: start a
// control plane, talk to it with client-go, watch what changes.
package quickstart

import (
	"context"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

func TestQuickstart(t *testing.T) {
	cp := fakeplane.Start(t) // stopped by t.Cleanup
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	w, err := client.CoreV1().ConfigMaps("default").Watch(ctx, metav1.ListOptions{FieldSelector: "metadata.name=settings"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()

	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "settings"}, Data: map[string]string{"mode": "fast"}}
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := <-w.ResultChan()
	if ev.Type != watch.Added || ev.Object.(*corev1.ConfigMap).Data["mode"] != "fast" {
		t.Fatalf("got %s %v", ev.Type, ev.Object)
	}
	t.Logf("kubectl --kubeconfig %s get cm settings", cp.KubeconfigPath())
}
