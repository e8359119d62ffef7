package fakeplane

import (
	"context"
	"maps"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestEditedAuthenticationConfigMapIsMergedBackAtResync edits
// kube-system/extension-apiserver-authentication: at the next periodic look
// (a minute on kube-apiserver, shortened here) the removed key is back and
// the changed list has the published values added after the user's.
func TestEditedAuthenticationConfigMapIsMergedBackAtResync(t *testing.T) {
	t.Parallel()
	cp := Start(t, withAuthenticationTrustResync(100*time.Millisecond))
	cs, err := kubernetes.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	cms := cs.CoreV1().ConfigMaps("kube-system")
	cm, err := cms.Get(ctx, "extension-apiserver-authentication", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	published := maps.Clone(cm.Data)
	delete(cm.Data, "requestheader-allowed-names")
	cm.Data["requestheader-username-headers"] = `["X-Other"]`
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	want := maps.Clone(published)
	want["requestheader-username-headers"] = `["X-Other","X-Remote-User"]`
	for {
		got, err := cms.Get(ctx, cm.Name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if maps.Equal(got.Data, want) {
			return
		}
		select {
		case <-ctx.Done():
			t.Fatalf("not merged back: %v", got.Data)
		case <-time.After(20 * time.Millisecond):
		}
	}
}
