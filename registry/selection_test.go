package registry

import "testing"

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
