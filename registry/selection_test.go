package registry

import (
	"encoding/base64"
	"testing"
)

func TestContinueTokenRoundTrip(t *testing.T) {
	for _, prefix := range []string{"", "ns/"} {
		tok := encodeContinue(42, "ns/name", prefix)
		rv, after, err := decodeContinue(tok, prefix)
		if err != nil || rv != 42 || after != "ns/name" {
			t.Fatalf("round trip with prefix %q: %d %q %v", prefix, rv, after, err)
		}
	}
	for _, bad := range []string{"not-base64!", "e30", encodeContinue(0, "x", "")} {
		if _, _, err := decodeContinue(bad, ""); err == nil {
			t.Errorf("decodeContinue(%q) accepted a bad token", bad)
		}
	}
}

// TestContinueTokenStartKey checks the start key of a continue token as
// kube-apiserver v1.37.2 writes it (decoded from refplane's tokens): relative
// to the list's key prefix, with a leading slash.
func TestContinueTokenStartKey(t *testing.T) {
	for _, tc := range []struct{ prefix, key, want string }{
		{"h8-a/", "h8-a/w1", `{"v":"meta.k8s.io/v1","rv":3838,"start":"/w1\u0000"}`},
		{"", "h8-a/w1", `{"v":"meta.k8s.io/v1","rv":3838,"start":"/h8-a/w1\u0000"}`},
		{"", "node-1", `{"v":"meta.k8s.io/v1","rv":3838,"start":"/node-1\u0000"}`},
	} {
		b, err := base64.RawURLEncoding.DecodeString(encodeContinue(3838, tc.key, tc.prefix))
		if err != nil || string(b) != tc.want {
			t.Errorf("token of %q in %q: %s (%v), want %s", tc.key, tc.prefix, b, err, tc.want)
		}
	}
}
