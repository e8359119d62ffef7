package server

import (
	"encoding/json"
	"testing"

	apidiscoveryv2 "k8s.io/api/apidiscovery/v2"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/registry"
)

// TestNegotiate covers the answers that are not resources (errors,
// discovery, Table bodies): JSON or YAML only.
func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		name   string
		accept string
		ok     bool
		want   mediaChoice
	}{
		{"empty header means JSON", "", true, mediaChoice{kind: mediaJSON}},
		{"wildcard means JSON", "*/*", true, mediaChoice{kind: mediaJSON}},
		{"first acceptable clause wins", "application/json, */*", true, mediaChoice{kind: mediaJSON}},
		{"YAML", "application/yaml", true, mediaChoice{kind: mediaYAML}},
		{"protobuf is skipped", "application/vnd.kubernetes.protobuf, application/json", true, mediaChoice{kind: mediaJSON}},
		{"metadata-only protobuf is skipped", "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1, application/yaml", true, mediaChoice{kind: mediaYAML}},
		{"kubectl's Table header", "application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", true, mediaChoice{kind: mediaJSON, as: "Table", version: "v1"}},
		{"unknown meta version alone", "application/json;as=Table;v=v9;g=meta.k8s.io", false, mediaChoice{}},
		{"unknown meta version falls through", "application/json;as=Table;v=v9;g=meta.k8s.io, application/json", true, mediaChoice{kind: mediaJSON}},
		{"higher q-weight wins", "application/json;q=0.5, application/yaml", true, mediaChoice{kind: mediaYAML}},
		{"nothing served", "text/html", false, mediaChoice{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := negotiate(tc.accept)
			if ok != tc.ok || got != tc.want {
				t.Errorf("negotiate(%q) = %+v, %v; want %+v, %v", tc.accept, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestNegotiateFor covers a resource's negotiation, which is
// kube-apiserver's: clauses ordered by q-weight, the first one the
// resource can serve wins.
func TestNegotiateFor(t *testing.T) {
	const (
		table   = "application/json;as=Table;v=v1;g=meta.k8s.io"
		partial = "application/vnd.kubernetes.protobuf;as=PartialObjectMetadataList;g=meta.k8s.io;v=v1"
	)
	for _, tc := range []struct {
		name       string
		accept     string
		protobufOK bool
		ok         bool
		want       mediaChoice
	}{
		{"empty header means JSON", "", true, true, mediaChoice{kind: mediaJSON}},
		{"wildcard means JSON", "*/*", true, true, mediaChoice{kind: mediaJSON}},
		{"application wildcard means JSON", "application/*", true, true, mediaChoice{kind: mediaJSON}},
		{"protobuf for a built-in type", "application/vnd.kubernetes.protobuf, application/json", true, true, mediaChoice{kind: mediaProtobuf}},
		{"no protobuf for a custom resource", "application/vnd.kubernetes.protobuf, application/json", false, true, mediaChoice{kind: mediaJSON}},
		{"only protobuf for a custom resource", "application/vnd.kubernetes.protobuf", false, false, mediaChoice{}},
		{"metadata-only protobuf for a custom resource", partial + ",application/json", false, true, mediaChoice{kind: mediaProtobuf, as: asPartialList, version: "v1"}},
		{"metadata-only JSON v1beta1", "application/json;as=PartialObjectMetadata;g=meta.k8s.io;v=v1beta1", true, true, mediaChoice{kind: mediaJSON, as: asPartial, version: "v1beta1"}},
		{"Table in YAML", "application/yaml;as=Table;v=v1beta1;g=meta.k8s.io", true, true, mediaChoice{kind: mediaYAML, as: "Table", version: "v1beta1"}},
		{"no Table in protobuf", "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io, application/json", true, true, mediaChoice{kind: mediaJSON}},
		{"no Table in protobuf alone", "application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io", true, false, mediaChoice{}},
		{"Table of another group is skipped", "application/json;as=Table;v=v1;g=example.com, application/yaml", true, true, mediaChoice{kind: mediaYAML}},
		{"unknown meta kind is skipped", "application/json;as=Status;v=v1;g=meta.k8s.io, application/yaml", true, true, mediaChoice{kind: mediaYAML}},
		{"meta group without as is skipped", "application/json;g=meta.k8s.io;v=v1, application/yaml", true, true, mediaChoice{kind: mediaYAML}},
		{"higher q-weight wins over order", "application/json;q=0.5, application/yaml", true, true, mediaChoice{kind: mediaYAML}},
		{"higher q-weight wins for protobuf", "application/json;q=0.9, application/vnd.kubernetes.protobuf", true, true, mediaChoice{kind: mediaProtobuf}},
		{"equal q-weights keep order", "application/yaml;q=0.5, application/json;q=0.5", true, true, mediaChoice{kind: mediaYAML}},
		{"lower q-weight Table loses", table + ";q=0.5, application/json", true, true, mediaChoice{kind: mediaJSON}},
		{"higher q-weight Table wins", "application/json;q=0.5, " + table, true, true, mediaChoice{kind: mediaJSON, as: "Table", version: "v1"}},
		{"a wildcard with a higher q-weight wins", "application/yaml;q=0.5, */*", true, true, mediaChoice{kind: mediaJSON}},
		{"unserved clause with a higher q-weight is skipped", "text/html, application/yaml;q=0.1", true, true, mediaChoice{kind: mediaYAML}},
		// kube-apiserver (goautoneg) orders q=0 clauses last but does
		// not drop them.
		{"q=0 is still acceptable", "application/json;q=0", true, true, mediaChoice{kind: mediaJSON}},
		{"q=0 comes last", "application/json;q=0, application/yaml;q=0.1", true, true, mediaChoice{kind: mediaYAML}},
		{"watch stream in JSON", "application/json;stream=watch", true, true, mediaChoice{kind: mediaJSON}},
		{"no watch stream in YAML", "application/yaml;stream=watch, application/json", true, true, mediaChoice{kind: mediaJSON}},
		{"unknown stream is skipped", "application/json;stream=other, application/yaml", true, true, mediaChoice{kind: mediaYAML}},
		{"server version v1", "application/json;sv=v1", true, true, mediaChoice{kind: mediaJSON}},
		{"other server version is skipped", "application/json;sv=v2, application/yaml", true, true, mediaChoice{kind: mediaYAML}},
		{"unknown parameters are ignored", "application/yaml;charset=utf-8", true, true, mediaChoice{kind: mediaYAML}},
		{"media type names are case-sensitive", "Application/JSON", true, false, mediaChoice{}},
		{"nothing served", "text/html", true, false, mediaChoice{}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, ok := negotiateFor(tc.accept, tc.protobufOK, true)
			if ok != tc.ok || got != tc.want {
				t.Errorf("negotiateFor(%q, %v) = %+v, %v; want %+v, %v", tc.accept, tc.protobufOK, got, ok, tc.want, tc.ok)
			}
		})
	}
}

// TestAggregatedMediaAsKubeAPIServer checks which Accept headers get
// aggregated discovery, and in which media type, as refplane answered them.
func TestAggregatedMediaAsKubeAPIServer(t *testing.T) {
	for accept, want := range map[string]string{
		"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json":                     mediaJSON,
		"application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList":                     mediaJSON,
		"application/json;q=0.9,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;q=0.5":         mediaJSON,
		"application/vnd.kubernetes.protobuf, application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList": mediaJSON,
		"*/*;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList":                                                   mediaJSON,
		"application/yaml;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList":                                      mediaYAML,
		"application/vnd.kubernetes.protobuf;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList;profile=nopeer":    mediaProtobuf,
		"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList":                                 "",
		"application/vnd.kubernetes.protobuf":                                                                       "",
		"":                                                                                                          "",
	} {
		got, ok := aggregatedMedia(accept)
		if got != want || ok != (want != "") {
			t.Errorf("aggregatedMedia(%q) = %q, %v; want %q", accept, got, ok, want)
		}
	}
}

func TestSummarize(t *testing.T) {
	for in, want := range map[string]string{
		"{bad":                         "{bad",
		"hello":                        "68656c6c6f",
		"{" + string(make([]byte, 40)): "{" + string(make([]byte, 29)) + " ...",
	} {
		if got := registry.Summarize([]byte(in), 30); got != want {
			t.Errorf("summarize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInternalPackage(t *testing.T) {
	for group, want := range map[string]string{"": "core", "apps": "apps", "events.k8s.io": "core", "rbac.authorization.k8s.io": "rbac", "networking.k8s.io": "networking"} {
		if got := registry.InternalPackage(group); got != want {
			t.Errorf("internalPackage(%q) = %q, want %q", group, got, want)
		}
	}
}

// TestNegotiateForEndpointsWithoutTables: a Table is refused where the
// endpoint has no table convertor (reviews, log, token, binding), and the
// next clause wins.
func TestNegotiateForEndpointsWithoutTables(t *testing.T) {
	const table = "application/json;as=Table;v=v1;g=meta.k8s.io"
	if _, ok := negotiateFor(table, true, false); ok {
		t.Errorf("negotiateFor(%q) without tables accepted it", table)
	}
	if got, ok := negotiateFor(table+", application/yaml", true, false); !ok || got != (mediaChoice{kind: mediaYAML}) {
		t.Errorf("negotiateFor without tables = %+v, %v; want YAML", got, ok)
	}
	if got, ok := negotiateFor(table, true, true); !ok || got.as != "Table" {
		t.Errorf("negotiateFor with tables = %+v, %v; want a Table", got, ok)
	}
}

// TestWithAggregatedTypeMetaIsTheListsEncoding: an aggregated discovery
// list encoded without kind and apiVersion, given them in front, is the
// list's encoding with them, byte for byte.
func TestWithAggregatedTypeMetaIsTheListsEncoding(t *testing.T) {
	for _, items := range [][]apidiscoveryv2.APIGroupDiscovery{
		{},
		{{ObjectMeta: metav1.ObjectMeta{Name: "apps"}, Versions: []apidiscoveryv2.APIVersionDiscovery{{Version: "v1", Freshness: apidiscoveryv2.DiscoveryFreshnessCurrent}}}},
	} {
		bare, err := json.Marshal(&apidiscoveryv2.APIGroupDiscoveryList{Items: items})
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal(&apidiscoveryv2.APIGroupDiscoveryList{
			TypeMeta: metav1.TypeMeta{Kind: "APIGroupDiscoveryList", APIVersion: "apidiscovery.k8s.io/v2"}, Items: items})
		if err != nil {
			t.Fatal(err)
		}
		if got := withAggregatedTypeMeta(bare); string(got) != string(want) {
			t.Errorf("got %s, want %s", got, want)
		}
	}
}
