package fakeplane_test

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/labels"
)

// selTarget is a collection the selector fuzz target lists.
type selTarget struct {
	path string
	// fieldLabels are the fields a field selector may name, with the value
	// of each for an item.
	fieldLabels map[string]func(item map[string]any) string
}

// nested is the string at a path of an object, "" when absent.
func nested(obj map[string]any, path ...string) string {
	for i, p := range path {
		v, ok := obj[p]
		if !ok {
			return ""
		}
		if i == len(path)-1 {
			s, _ := v.(string)
			return s
		}
		if obj, ok = v.(map[string]any); !ok {
			return ""
		}
	}
	return ""
}

// metaFields are the field labels every resource supports.
var metaFields = map[string]func(map[string]any) string{
	"metadata.name":      func(o map[string]any) string { return nested(o, "metadata", "name") },
	"metadata.namespace": func(o map[string]any) string { return nested(o, "metadata", "namespace") },
}

// selTargets are ConfigMaps (the metadata field labels only) and the
// custom resource, with its selectable field spec.color.
var selTargets = []selTarget{
	{"/api/v1/namespaces/" + fuzzNS + "/configmaps", metaFields},
	{widgetsPath, map[string]func(map[string]any) string{
		"metadata.name":      metaFields["metadata.name"],
		"metadata.namespace": metaFields["metadata.namespace"],
		"spec.color":         func(o map[string]any) string { return nested(o, "spec", "color") },
	}},
}

// listItems lists a collection and returns its items.
func (fp *fuzzPlane) listItems(t testing.TB, path string) []map[string]any {
	t.Helper()
	var l struct {
		Items []map[string]any `json:"items"`
	}
	if err := json.Unmarshal(fp.mustDo(t, "GET", path, "", "", 200), &l); err != nil {
		t.Fatal(err)
	}
	return l.Items
}

// FuzzSelectors lists with fuzzed label and field selectors. A selector
// that labels.Parse or fields.ParseSelector refuses, or a field the
// resource does not support, must get 400; any other must get 200 with
// exactly the items it selects. Nothing is ever committed.
func FuzzSelectors(f *testing.F) {
	fp := startFuzzPlane(f)
	cms := selTargets[0].path
	for _, cm := range []string{
		`{"metadata":{"name":"web-front","labels":{"app":"web","tier":"frontend"}}}`,
		`{"metadata":{"name":"web-back","labels":{"app":"web","tier":"backend","env":"prod"}}}`,
		`{"metadata":{"name":"db","labels":{"app":"db","env":"prod","version":"1.2"}}}`,
		`{"metadata":{"name":"plain"}}`,
	} {
		fp.mustDo(f, "POST", cms, "application/json", cm, 201)
	}
	for _, w := range []string{
		`{"apiVersion":"fuzz.example.com/v1","kind":"Widget","metadata":{"name":"red","labels":{"app":"web"}},"spec":{"color":"red"}}`,
		`{"apiVersion":"fuzz.example.com/v1","kind":"Widget","metadata":{"name":"green","labels":{"app":"db"}},"spec":{"color":"green"}}`,
		`{"apiVersion":"fuzz.example.com/v1","kind":"Widget","metadata":{"name":"blue"},"spec":{"color":"blue"}}`,
	} {
		fp.mustDo(f, "POST", widgetsPath, "application/json", w, 201)
	}
	all := make([][]map[string]any, len(selTargets))
	for i, st := range selTargets {
		all[i] = fp.listItems(f, st.path)
	}

	// What kubectl get -l / --field-selector and controllers send.
	for _, s := range [][2]string{
		{"app=web", ""}, {"app==web,tier!=backend", ""}, {"env", ""}, {"!env", ""},
		{"app in (web,db),tier notin (frontend)", ""}, {"version>1", ""}, {"version<2", ""},
		{"", "metadata.name=db"}, {"", "metadata.name!=db,metadata.namespace=fuzz"}, {"app=web", "metadata.name==web-back"},
		{"", "spec.color=red"}, {"", "spec.color!=red"}, {"", "status.phase=Running"}, {"", `metadata.name=a\,b`},
		{"app=", ""}, {"a b=c", ""}, {"app in (", ""}, {"", "metadata.name"}, {"", "=x"},
		{"example.com/role=ops", ""}, {"kubernetes.io/metadata.name=fuzz", ""},
	} {
		f.Add(uint8(0), s[0], s[1])
		f.Add(uint8(1), s[0], s[1])
	}

	f.Fuzz(func(t *testing.T, res uint8, ls, fs string) {
		i := int(res) % len(selTargets)
		st := selTargets[i]
		rev := fp.revision(t)
		q := url.Values{"labelSelector": {ls}, "fieldSelector": {fs}}
		code, answer := fp.send(t, "GET", st.path+"?"+q.Encode(), "", nil)
		fp.checkUnchanged(t, rev, "a list")

		want := 200
		lsel, err := labels.Parse(ls)
		if err != nil {
			want = 400
		}
		fsel, err := fields.ParseSelector(fs)
		if err != nil {
			want = 400
		} else {
			for _, r := range fsel.Requirements() {
				if st.fieldLabels[r.Field] == nil {
					want = 400
				}
			}
		}
		if code != want {
			t.Fatalf("labelSelector %q fieldSelector %q: %d %s, want %d", ls, fs, code, answer, want)
		}
		if code != 200 {
			return
		}
		var wantNames []string
		for _, item := range all[i] {
			set := fields.Set{}
			for f, get := range st.fieldLabels {
				set[f] = get(item)
			}
			var lbls map[string]string
			if m, ok := item["metadata"].(map[string]any)["labels"].(map[string]any); ok {
				lbls = map[string]string{}
				for k, v := range m {
					lbls[k], _ = v.(string)
				}
			}
			if lsel.Matches(labels.Set(lbls)) && fsel.Matches(set) {
				wantNames = append(wantNames, nested(item, "metadata", "name"))
			}
		}
		var l struct {
			Items []map[string]any `json:"items"`
		}
		if err := json.Unmarshal(answer, &l); err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, item := range l.Items {
			got = append(got, nested(item, "metadata", "name"))
		}
		if !slices.Equal(got, wantNames) {
			t.Fatalf("labelSelector %q fieldSelector %q selected %q, want %q", ls, fs, got, wantNames)
		}
	})
}

// queryTargets are the collections the list and watch fuzz target reads:
// namespaced built-ins, the custom resource, and a list across namespaces.
var queryTargets = []struct{ path, listKind string }{
	{"/api/v1/namespaces/" + fuzzNS + "/configmaps", "ConfigMapList"},
	{"/api/v1/namespaces/" + fuzzNS + "/pods", "PodList"},
	{widgetsPath, "WidgetList"},
	{"/api/v1/configmaps", "ConfigMapList"},
}

// isWatch says whether the query asks for a watch, as the server decodes
// the watch parameter: any first value but "0" and "false" (in any case)
// means true, the empty one too.
func isWatch(q url.Values) bool {
	v, ok := q["watch"]
	if !ok || len(v) == 0 {
		return false
	}
	return v[0] != "0" && !strings.EqualFold(v[0], "false")
}

// FuzzListQuery lists and watches with fuzzed query strings (label and
// field selectors, resourceVersion, resourceVersionMatch, limit,
// continue, timeoutSeconds, allowWatchBookmarks, sendInitialEvents,
// watch). Every answer must be a success or a refusal with a Status, a
// list must be a list of the resource holding at most limit items, and
// nothing is ever committed.
func FuzzListQuery(f *testing.F) {
	fp := startFuzzPlane(f)
	for i := range 3 {
		n := strconv.Itoa(i)
		fp.mustDo(f, "POST", queryTargets[0].path, "application/json", `{"metadata":{"name":"cm-`+n+`","labels":{"app":"web","n":"`+n+`"}}}`, 201)
		fp.mustDo(f, "POST", widgetsPath, "application/json", `{"apiVersion":"fuzz.example.com/v1","kind":"Widget","metadata":{"name":"w-`+n+`"},"spec":{"color":"red"}}`, 201)
	}
	fp.mustDo(f, "POST", queryTargets[1].path, "application/json", `{"metadata":{"name":"p","labels":{"app":"web"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}`, 201)
	var page struct {
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
			Continue        string `json:"continue"`
		} `json:"metadata"`
	}
	if err := json.Unmarshal(fp.mustDo(f, "GET", queryTargets[0].path+"?limit=1", "", "", 200), &page); err != nil {
		f.Fatal(err)
	}
	rv, cont := page.Metadata.ResourceVersion, url.QueryEscape(page.Metadata.Continue)

	// What client-go's reflectors and kubectl send.
	for res := range uint8(len(queryTargets)) {
		for _, q := range []string{
			"limit=500&resourceVersion=0",
			"limit=500",
			"labelSelector=app%3Dweb&limit=500",
			"fieldSelector=metadata.name%3Dcm-1&limit=500",
			"allowWatchBookmarks=true&resourceVersion=" + rv + "&timeoutSeconds=1&watch=true",
			"allowWatchBookmarks=true&resourceVersionMatch=NotOlderThan&sendInitialEvents=true&timeoutSeconds=1&watch=true",
			"limit=1&continue=" + cont,
			"resourceVersion=" + rv + "&resourceVersionMatch=Exact&limit=2",
			"resourceVersion=" + rv + "&resourceVersionMatch=NotOlderThan",
			"resourceVersion=1&watch=1",
			"resourceVersionMatch=Exact",
			"limit=-1&continue=bad",
			"timeoutSeconds=x&watch=true",
			"sendInitialEvents=true&watch=false",
			"watch",
		} {
			f.Add(res, q)
		}
	}

	f.Fuzz(func(t *testing.T, res uint8, query string) {
		qt := queryTargets[int(res)%len(queryTargets)]
		ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
		defer cancel()
		req, err := http.NewRequestWithContext(ctx, "GET", fp.cp.URL()+qt.path+"?"+query, nil)
		if err != nil {
			return // not a URL a client can send
		}
		// What the server reads of the query, as net/http parses it (the
		// pairs that parse).
		parsed := req.URL.Query()
		watch := isWatch(parsed)
		rev := fp.revision(t)
		if v, err := strconv.ParseInt(parsed.Get("resourceVersion"), 10, 64); err == nil && v > rev {
			// A resourceVersion ahead of the store's is waited for three
			// seconds before its 504 (TestFutureResourceVersionIsWaitedFor):
			// an input that slow stalls the fuzzer past its -fuzztime.
			return
		}
		before := fp.panics.Load()
		req.Header.Set("Accept", "application/json")
		resp, err := fp.hc.Do(req)
		if err != nil {
			t.Fatalf("GET ?%s: %v", query, err)
		}
		if watch && resp.StatusCode == 200 {
			// A watch streams until it times out: its answer is the code
			// and the Content-Type.
			cancel()
			resp.Body.Close()
			if ct := resp.Header.Get("Content-Type"); !strings.HasPrefix(ct, "application/json") {
				t.Fatalf("watch ?%s: Content-Type %q", query, ct)
			}
		} else {
			b, err := io.ReadAll(resp.Body)
			resp.Body.Close()
			if errors.Is(err, context.DeadlineExceeded) || errors.Is(ctx.Err(), context.DeadlineExceeded) {
				t.Fatalf("GET ?%s (a list) did not end: %d %s", query, resp.StatusCode, b)
			}
			if err != nil {
				t.Fatalf("GET ?%s: %v", query, err)
			}
			t.Logf("GET ?%s: %d %.200s", query, resp.StatusCode, b)
			checkAnswer(t, resp.StatusCode, resp.Header.Get("Content-Type"), b)
			if resp.StatusCode == 200 {
				checkList(t, query, parsed, qt.listKind, b)
			}
		}
		if n := fp.panics.Load(); n != before {
			t.Fatalf("GET ?%s: the server panicked serving it", query)
		}
		fp.checkUnchanged(t, rev, "a list or watch")
	})
}

// checkList fails unless a list answer is a list of the kind wanted, at a
// resourceVersion, with at most limit items when the query sets a limit
// and reads the current state.
func checkList(t *testing.T, query string, q url.Values, listKind string, b []byte) {
	t.Helper()
	var l struct {
		Kind     string `json:"kind"`
		Metadata struct {
			ResourceVersion string `json:"resourceVersion"`
		} `json:"metadata"`
		Items *[]json.RawMessage `json:"items"`
	}
	if err := json.Unmarshal(b, &l); err != nil {
		t.Fatalf("GET ?%s: the list is no JSON: %v: %s", query, err, b)
	}
	if l.Kind != listKind || l.Metadata.ResourceVersion == "" || l.Items == nil {
		t.Fatalf("GET ?%s: answer %s, want a %s with a resourceVersion and items", query, b, listKind)
	}
	limit, err := strconv.ParseInt(q.Get("limit"), 10, 64)
	if err == nil && limit > 0 && q.Get("resourceVersion") == "" && int64(len(*l.Items)) > limit {
		t.Fatalf("GET ?%s: %d items, more than the limit", query, len(*l.Items))
	}
}
