package server

import "testing"

func TestNegotiate(t *testing.T) {
	for _, tc := range []struct {
		accept string
		ok     bool
		want   mediaChoice
	}{
		{"", true, mediaChoice{kind: mediaJSON}},
		{"*/*", true, mediaChoice{kind: mediaJSON}},
		{"application/json, */*", true, mediaChoice{kind: mediaJSON}},
		{"application/yaml", true, mediaChoice{kind: mediaYAML}},
		{"application/vnd.kubernetes.protobuf, application/json", true, mediaChoice{kind: mediaJSON}},
		{"application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json", true, mediaChoice{kind: mediaJSON, as: "Table", version: "v1"}},
		{"application/json;as=Table;v=v9;g=meta.k8s.io", false, mediaChoice{}},
		{"application/json;as=Table;v=v9;g=meta.k8s.io, application/json", true, mediaChoice{kind: mediaJSON}},
		{"text/html", false, mediaChoice{}},
	} {
		got, ok := negotiate(tc.accept)
		if ok != tc.ok || got != tc.want {
			t.Errorf("negotiate(%q) = %+v, %v; want %+v, %v", tc.accept, got, ok, tc.want, tc.ok)
		}
	}
}

func TestWantsAggregated(t *testing.T) {
	for accept, want := range map[string]bool{
		"application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList,application/json": true,
		"application/json,application/json;g=apidiscovery.k8s.io;v=v2;as=APIGroupDiscoveryList": false,
		"application/json;g=apidiscovery.k8s.io;v=v2beta1;as=APIGroupDiscoveryList":             false,
		"": false,
	} {
		if got := wantsAggregated(accept); got != want {
			t.Errorf("wantsAggregated(%q) = %v, want %v", accept, got, want)
		}
	}
}

func TestContinueTokenRoundTrip(t *testing.T) {
	tok := encodeContinue(42, "ns/name")
	rv, after, err := decodeContinue(tok)
	if err != nil || rv != 42 || after != "ns/name" {
		t.Fatalf("round trip: %d %q %v", rv, after, err)
	}
	for _, bad := range []string{"not-base64!", "e30", encodeContinue(0, "x")} {
		if _, _, err := decodeContinue(bad); err == nil {
			t.Errorf("decodeContinue(%q) accepted a bad token", bad)
		}
	}
}

func TestSummarize(t *testing.T) {
	for in, want := range map[string]string{
		"{bad":                         "{bad",
		"hello":                        "68656c6c6f",
		"{" + string(make([]byte, 40)): "{" + string(make([]byte, 29)) + " ...",
	} {
		if got := summarize([]byte(in), 30); got != want {
			t.Errorf("summarize(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestInternalPackage(t *testing.T) {
	for group, want := range map[string]string{"": "core", "apps": "apps", "events.k8s.io": "core", "rbac.authorization.k8s.io": "rbac", "networking.k8s.io": "networking"} {
		if got := internalPackage(group); got != want {
			t.Errorf("internalPackage(%q) = %q, want %q", group, got, want)
		}
	}
}
