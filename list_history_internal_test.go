package fakeplane

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
)

// TestListContinueOutlivesWatchCacheUntilCompaction pages a list across far
// more writes than the watch cache holds, then compacts the store: the
// token keeps its revision until the compaction, after which it gets
// upstream's 410 with a token that continues at the current revision.
func TestListContinueOutlivesWatchCacheUntilCompaction(t *testing.T) {
	t.Parallel()
	cp := Start(t, WithWatchCacheSize(50))
	cs, err := kubernetes.NewForConfig(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	cms := cs.CoreV1().ConfigMaps("default")
	for i := range 8 {
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("p%d", i)}, Data: map[string]string{"v": "0"}}
		if _, err := cms.Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// kube-root-ca.crt p0 ... p7, 3 a page.
	first, err := cms.List(ctx, metav1.ListOptions{Limit: 3})
	if err != nil || first.Continue == "" {
		t.Fatalf("first page: %v %v", first, err)
	}

	// Many more writes than the watch cache holds: updates, deletes and
	// re-creates of the keys still to come, and new keys.
	for round := range 40 {
		for i := 3; i < 8; i++ {
			name := fmt.Sprintf("p%d", i)
			cm, err := cms.Get(ctx, name, metav1.GetOptions{})
			switch {
			case apierrors.IsNotFound(err):
				cm = &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}, Data: map[string]string{"v": "back"}}
				_, err = cms.Create(ctx, cm, metav1.CreateOptions{})
			case err != nil:
			case (round+i)%4 == 0:
				err = cms.Delete(ctx, name, metav1.DeleteOptions{})
			default:
				cm.Data["v"] = fmt.Sprint(round)
				_, err = cms.Update(ctx, cm, metav1.UpdateOptions{})
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("q%02d", round)}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	second, err := cms.List(ctx, metav1.ListOptions{Limit: 3, Continue: first.Continue})
	if err != nil {
		t.Fatalf("continue after many writes: %v", err)
	}
	if second.ResourceVersion != first.ResourceVersion || second.RemainingItemCount == nil || *second.RemainingItemCount != 3 {
		t.Errorf("second page at %s with %v remaining, want %s and 3", second.ResourceVersion, second.RemainingItemCount, first.ResourceVersion)
	}
	for i, cm := range second.Items {
		if want := fmt.Sprintf("p%d", i+2); cm.Name != want || cm.Data["v"] != "0" {
			t.Errorf("second page item %d: %s %v, want %s as first created", i, cm.Name, cm.Data, want)
		}
	}

	if err := cp.store.Compact(cp.store.CurrentRevision()); err != nil {
		t.Fatal(err)
	}
	_, err = cms.List(ctx, metav1.ListOptions{Limit: 3, Continue: second.Continue})
	st, ok := err.(apierrors.APIStatus)
	if !ok || !apierrors.IsResourceExpired(err) {
		t.Fatalf("continue after compaction: %v, want 410 Expired", err)
	}
	const msg = "The provided continue parameter is too old to display a consistent list result. You can start a new list without the continue parameter, or use the continue token in this response to retrieve the remainder of the results. Continuing with the provided token results in an inconsistent list - objects that were created, modified, or deleted between the time the first chunk was returned and now may show up in the list."
	if st.Status().Message != msg {
		t.Errorf("message %q", st.Status().Message)
	}
	// The start key is relative to the list's key prefix (the namespace's),
	// as kube-apiserver v1.37.2 writes it.
	inconsistent := st.Status().ListMeta.Continue
	raw, _ := base64.RawURLEncoding.DecodeString(inconsistent)
	var tok struct {
		RV    int64  `json:"rv"`
		Start string `json:"start"`
	}
	if err := json.Unmarshal(raw, &tok); err != nil || tok.RV != -1 || tok.Start != "/p4\x00" {
		t.Fatalf("inconsistent continue token %q: %+v, %v", raw, tok, err)
	}
	rest, err := cms.List(ctx, metav1.ListOptions{Continue: inconsistent})
	if err != nil {
		t.Fatalf("list with the inconsistent token: %v", err)
	}
	if rest.ResourceVersion == first.ResourceVersion || len(rest.Items) == 0 || rest.Items[0].Name <= "p4" {
		t.Errorf("inconsistent continuation at %s: %v", rest.ResourceVersion, len(rest.Items))
	}
	for _, cm := range rest.Items {
		if cm.Name <= "p4" {
			t.Errorf("inconsistent continuation lists %s, not after p4", cm.Name)
		}
	}
}
