package validatetest

import (
	"encoding/json"
	"net/netip"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/fixtures"
)

// BootstrapObjects returns the objects of kind that a control plane creates
// at start (fixtures.Bootstrap), decoded as T, so that a strategy's tests
// can check that its rules accept them.
func BootstrapObjects[T any](t testing.TB, kind string) []T {
	t.Helper()
	docs, err := fixtures.Bootstrap(6443, netip.MustParsePrefix("10.0.0.0/24"), 0)
	if err != nil {
		t.Fatal(err)
	}
	var out []T
	for _, doc := range docs {
		var tm metav1.TypeMeta
		if err := json.Unmarshal(doc, &tm); err != nil {
			t.Fatal(err)
		}
		if tm.Kind != kind {
			continue
		}
		var obj T
		if err := json.Unmarshal(doc, &obj); err != nil {
			t.Fatal(err)
		}
		out = append(out, obj)
	}
	return out
}
