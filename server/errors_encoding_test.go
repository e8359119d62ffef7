package server

import (
	"net/http"
	"net/http/httptest"
	"testing"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// TestErrorMediaTypeNegotiatesAsKubeAPIServer checks the encoding chosen
// for an error body against refplane's (kube-apiserver v1.37.2) answers:
// the first clause by weight that names JSON, YAML or protobuf without a
// meta.k8s.io transformation; none left means the raw JSON fallback.
func TestErrorMediaTypeNegotiatesAsKubeAPIServer(t *testing.T) {
	for _, tc := range []struct {
		accept, want string
		ok           bool
	}{
		{"", mediaJSON, true},
		{"*/*", mediaJSON, true},
		{mediaProtobuf, mediaProtobuf, true},
		{mediaProtobuf + ", application/json", mediaProtobuf, true},
		{"application/json, " + mediaProtobuf, mediaJSON, true},
		{mediaProtobuf + ";q=0.5, application/json;q=0.9", mediaJSON, true},
		{mediaProtobuf + ";stream=watch", mediaProtobuf, true},
		{"application/yaml", mediaYAML, true},
		{mediaProtobuf + ";as=Table;v=v1;g=meta.k8s.io", "", false},
		{"application/json;as=Table;v=v1;g=meta.k8s.io, application/yaml", mediaYAML, true},
		{"text/html", "", false},
	} {
		got, ok := errorMediaType(tc.accept)
		if got != tc.want || ok != tc.ok {
			t.Errorf("errorMediaType(%q) = %q, %v; want %q, %v", tc.accept, got, ok, tc.want, tc.ok)
		}
	}
}

// TestWriteErrorInProtobuf checks a protobuf error body byte for byte
// against refplane's answer to GET of a missing ConfigMap with Accept
// application/vnd.kubernetes.protobuf.
func TestWriteErrorInProtobuf(t *testing.T) {
	r := httptest.NewRequest("GET", "/api/v1/namespaces/h6-a/configmaps/nope", nil)
	r.Header.Set("Accept", mediaProtobuf)
	w := httptest.NewRecorder()
	writeError(w, r, apierrors.NewNotFound(schema.GroupResource{Resource: "configmaps"}, "nope"))
	const want = "k8s\x00\n\f\n\x02v1\x12\x06Status\x12U\n\x06\n\x00\x12\x00\x1a\x00\x12\aFailure\x1a\x1bconfigmaps \"nope\" not found\"\bNotFound*\x18\n\x04nope\x12\x00\x1a\nconfigmaps(\x002\x000\x94\x03\x1a\x00\"\x00"
	if w.Code != http.StatusNotFound || w.Header().Get("Content-Type") != mediaProtobuf || w.Body.String() != want {
		t.Errorf("%d %q %q, want 404 %q %q", w.Code, w.Header().Get("Content-Type"), w.Body.String(), mediaProtobuf, want)
	}
	if cc := w.Header().Get("Cache-Control"); cc != "no-cache, private" {
		t.Errorf("Cache-Control %q", cc)
	}
}

// TestDefaultVersionIsV1372 checks /version's release fields against
// refplane's.
func TestDefaultVersionIsV1372(t *testing.T) {
	v := DefaultVersion()
	if v.GitVersion != "v1.37.2" || v.GitCommit != "$Format:%H$" || v.GitTreeState != "clean" ||
		v.Major != "1" || v.Minor != "37" || v.EmulationMajor != "1" || v.EmulationMinor != "37" ||
		v.MinCompatibilityMajor != "1" || v.MinCompatibilityMinor != "36" {
		t.Errorf("DefaultVersion() = %+v", v)
	}
}
