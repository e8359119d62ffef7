package fakeplane_test

import (
	"encoding/json"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// TestListAndWatchOptionsAsKubeAPIServer checks lists and watches whose
// options kube-apiserver v1.37 answers in ways of its own (recorded with
// refplane): a list at resourceVersion 0 comes whole from its watch cache,
// limit or not; initial events, asked for or not, end with a bookmark
// when bookmarks are allowed, and only then; a watch without initial events and without a
// resourceVersion starts now; a watch given a continue token is refused;
// and a negative timeout ends the watch at once with an error event.
func TestListAndWatchOptionsAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cms := "/api/v1/namespaces/default/configmaps"
	for _, name := range []string{"a", "b", "c"} {
		if code, _, b := rawRequest(t, cp, "POST", cms, "application/json", []byte(`{"metadata":{"name":"`+name+`","labels":{"x":"1"}}}`), nil); code != 201 {
			t.Fatalf("create %s: %d %s", name, code, b)
		}
	}
	list := func(t *testing.T, query string) metav1.List {
		code, _, b := rawRequest(t, cp, "GET", cms+"?labelSelector=x&"+query, "", nil, nil)
		var l metav1.List
		if err := json.Unmarshal(b, &l); code != 200 || err != nil {
			t.Fatalf("list ?%s: %d %v %s", query, code, err, b)
		}
		return l
	}
	t.Run("a list at resourceVersion 0 ignores the limit", func(t *testing.T) {
		for _, q := range []string{"resourceVersion=0&limit=1", "resourceVersion=0&resourceVersionMatch=NotOlderThan&limit=1"} {
			if l := list(t, q); len(l.Items) != 3 || l.Continue != "" {
				t.Errorf("?%s: %d items, continue %q; want 3 and none", q, len(l.Items), l.Continue)
			}
		}
	})
	t.Run("a list at the latest revision is paged", func(t *testing.T) {
		if l := list(t, "limit=1"); len(l.Items) != 1 || l.Continue == "" {
			t.Errorf("%d items, continue %q; want 1 and a token", len(l.Items), l.Continue)
		}
	})
	// events returns the types of a watch's events (its body ends with the
	// watch's timeout).
	events := func(t *testing.T, query string) []string {
		code, _, b := rawRequest(t, cp, "GET", cms+"?watch=1&labelSelector=x&"+query, "", nil, nil)
		if code != 200 {
			t.Fatalf("watch ?%s: %d %s", query, code, b)
		}
		var types []string
		dec := json.NewDecoder(strings.NewReader(string(b)))
		for dec.More() {
			var ev struct {
				Type   string
				Object map[string]any
			}
			if err := dec.Decode(&ev); err != nil {
				t.Fatalf("event: %v in %s", err, b)
			}
			switch ev.Type {
			case "ERROR":
				ev.Type += ":" + ev.Object["message"].(string)
			case "BOOKMARK":
				md, _ := ev.Object["metadata"].(map[string]any)
				if a, _ := md["annotations"].(map[string]any); a["k8s.io/initial-events-end"] == "true" {
					ev.Type += ":end"
				}
			}
			types = append(types, ev.Type)
		}
		return types
	}
	// want is the watch's first events; with bookmarks allowed, others may
	// follow before it times out.
	for _, tc := range []struct {
		name, query string
		want        string
	}{
		{"initial events without bookmarks end without one", "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&timeoutSeconds=1", "ADDED ADDED ADDED"},
		{"initial events with bookmarks end with one", "sendInitialEvents=true&resourceVersionMatch=NotOlderThan&allowWatchBookmarks=true&timeoutSeconds=1", "ADDED ADDED ADDED BOOKMARK:end"},
		{"a watch from no resourceVersion marks the end of its initial events", "allowWatchBookmarks=true&timeoutSeconds=1", "ADDED ADDED ADDED BOOKMARK:end"},
		{"so does a watch from resourceVersion 0", "resourceVersion=0&allowWatchBookmarks=true&timeoutSeconds=1", "ADDED ADDED ADDED BOOKMARK:end"},
		{"no initial events and no resourceVersion start now", "sendInitialEvents=false&resourceVersionMatch=NotOlderThan&timeoutSeconds=1", ""},
		{"a timeout that has passed ends at once", "timeoutSeconds=-1", "ERROR:context deadline exceeded"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := events(t, tc.query)
			if strings.Contains(tc.query, "allowWatchBookmarks") && len(got) > 4 {
				got = got[:4]
			}
			if strings.Join(got, " ") != tc.want {
				t.Errorf("events %q, want %q", got, tc.want)
			}
		})
	}
	t.Run("a bookmark is an empty object of the kind", func(t *testing.T) {
		code, _, b := rawRequest(t, cp, "GET", "/api/v1/namespaces/default/pods?watch=1&allowWatchBookmarks=true&timeoutSeconds=1", "", nil, nil)
		first, _, _ := strings.Cut(string(b), "\n")
		var ev struct{ Object map[string]any }
		_ = json.Unmarshal([]byte(first), &ev)
		rv, _ := ev.Object["metadata"].(map[string]any)["resourceVersion"].(string)
		want := `{"type":"BOOKMARK","object":{"kind":"Pod","apiVersion":"v1","metadata":{"resourceVersion":"` + rv + `","annotations":{"k8s.io/initial-events-end":"true"}},"spec":{"containers":null},"status":{}}}`
		if code != 200 || rv == "" || first != want {
			t.Errorf("%d, first event\n%s\nwant\n%s", code, first, want)
		}
	})
	t.Run("a watch given a continue token is refused", func(t *testing.T) {
		code, _, b := rawRequest(t, cp, "GET", cms+"?watch=1&continue=abc", "", nil, nil)
		var st metav1.Status
		_ = json.Unmarshal(b, &st)
		want := `ListOptions.meta.k8s.io "" is invalid: resourceVersionMatch: Forbidden: resourceVersionMatch is forbidden when continue is provided`
		if code != 422 || st.Message != want {
			t.Errorf("%d %q, want 422 %q", code, st.Message, want)
		}
	})
}

// TestWatchFromAFutureResourceVersion: as kube-apiserver v1.37's watch
// cache (recorded from refplane), a watch from a resourceVersion the store
// has not reached opens at once (200, no 504 as a list gets) and delivers
// only the events after that resourceVersion.
func TestWatchFromAFutureResourceVersion(t *testing.T) {
	t.Parallel()
	// The next revisions must be this test's: no identity Lease renewal.
	cp := fakeplane.Start(t, fakeplane.WithIdentityLeaseRenewInterval(time.Hour))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	cms := cs.CoreV1().ConfigMaps("default")
	l, err := cms.List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	rv, err := strconv.ParseInt(l.ResourceVersion, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	// Two writes to come are at or before the watch's resourceVersion.
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: strconv.FormatInt(rv+2, 10)})
	if err != nil {
		t.Fatalf("watch from rv+2: %v", err)
	}
	defer w.Stop()
	for _, name := range []string{"before-1", "before-2", "after"} {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	select {
	case ev := <-w.ResultChan():
		cm, ok := ev.Object.(*corev1.ConfigMap)
		if !ok || ev.Type != watch.Added || cm.Name != "after" {
			t.Fatalf("first event %s %+v, want ADDED after", ev.Type, ev.Object)
		}
	case <-ctx.Done():
		t.Fatal("no event")
	}
}

// TestWatchInYAMLIsNotAcceptable: YAML has no stream serializer, so a
// watch asking for it (first, or as a Table) is refused with 406 and the
// stream types, in YAML when YAML was asked for plainly and in JSON for a
// Table; for a custom resource too. Recorded from refplane.
func TestWatchInYAMLIsNotAcceptable(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithObjects(subresourceWidgetCRD()))
	const msg = "only the following media types are accepted: application/json;stream=watch, application/vnd.kubernetes.protobuf;stream=watch"
	for _, path := range []string{"/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1", "/apis/h4.example.com/v1/namespaces/default/h4widgets?watch=1&timeoutSeconds=1"} {
		for _, tc := range []struct{ accept, contentType string }{
			{"application/yaml", "application/yaml"},
			{"application/yaml, application/json", "application/yaml"},
			{"application/yaml;as=Table;v=v1;g=meta.k8s.io", "application/json"},
		} {
			code, h, body := rawExchange(t, cp, "GET", path, "", nil, http.Header{"Accept": {tc.accept}})
			if code != http.StatusNotAcceptable || h.Get("Content-Type") != tc.contentType || !strings.Contains(string(body), "stream=watch") {
				t.Errorf("GET %s Accept %s: %d %s %s, want 406 %s %q", path, tc.accept, code, h.Get("Content-Type"), body, tc.contentType, msg)
			}
		}
	}
	code, _, body := rawRequest(t, cp, "GET", "/api/v1/namespaces/default/configmaps?watch=1&timeoutSeconds=1", "", nil, http.Header{"Accept": {"application/yaml;as=Table;v=v1;g=meta.k8s.io"}})
	if code != http.StatusNotAcceptable || !strings.Contains(string(body), `"message": "`+msg+`"`) {
		t.Errorf("the 406's message: %s, want %q", body, msg)
	}
}
