package fakeplane_test

import (
	"context"
	"net/http"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane"
)

// TestDeleteOptionsComeFromTheBodyOrTheQuery checks where a delete's
// options are read, as kube-apiserver reads them: from the body when there
// is one (controller-runtime sends them there, dry run included), else from
// the query; a query beside a body is ignored. A dry-run delete, of one
// object or of a collection, deletes nothing.
func TestDeleteOptionsComeFromTheBodyOrTheQuery(t *testing.T) {
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	hc, err := rest.HTTPClientFor(cp.RESTConfig())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	base := cp.RESTConfig().Host + "/api/v1/namespaces/default/configmaps"
	const dryRunBody = `{"kind":"DeleteOptions","apiVersion":"v1","dryRun":["All"]}`
	for _, tc := range []struct {
		name, path, body string
		deletes          bool
	}{
		{"one object, dry run in the body", "/a", dryRunBody, false},
		{"one object, dry run in the query", "/a?dryRun=All", "", false},
		{"a collection by label, dry run in the body", "?labelSelector=app%3Dx", dryRunBody, false},
		{"a collection, dry run in the query", "?dryRun=All", "", false},
		{"one object, a body without dry run beside a dry-run query", "/a?dryRun=All", `{"kind":"DeleteOptions","apiVersion":"v1"}`, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a", Labels: map[string]string{"app": "x"}}}
			if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { _ = client.CoreV1().ConfigMaps("default").Delete(ctx, "a", metav1.DeleteOptions{}) })
			req, err := http.NewRequest(http.MethodDelete, base+tc.path, strings.NewReader(tc.body))
			if err != nil {
				t.Fatal(err)
			}
			if tc.body != "" {
				req.Header.Set("Content-Type", "application/json")
			}
			resp, err := hc.Do(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				t.Fatalf("DELETE %s: %d", tc.path, resp.StatusCode)
			}
			_, err = client.CoreV1().ConfigMaps("default").Get(ctx, "a", metav1.GetOptions{})
			if gone := apierrors.IsNotFound(err); gone != tc.deletes {
				t.Fatalf("after DELETE %s with body %q: deleted %v (%v), want %v", tc.path, tc.body, gone, err, tc.deletes)
			}
		})
	}
}
