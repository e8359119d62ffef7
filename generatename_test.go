package fakeplane_test

import (
	"regexp"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestGenerateNameSuffixAndTruncation checks generated names against
// upstream's SimpleNameGenerator: five characters of its alphabet after
// the prefix, the prefix cut to 58 characters so the name fits in 63.
func TestGenerateNameSuffixAndTruncation(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	suffix := regexp.MustCompile(`^[bcdfghjklmnpqrstvwxz2456789]{5}$`)
	check := func(what, base, name string) {
		t.Helper()
		prefix := base[:min(len(base), 58)]
		if !strings.HasPrefix(name, prefix) || !suffix.MatchString(name[len(prefix):]) {
			t.Errorf("%s with generateName %q: name %q, want %q and 5 random characters", what, base, name, prefix)
		}
	}
	for _, base := range []string{"gen-", strings.Repeat("c", 57) + "-", strings.Repeat("c", 70) + "-"} {
		cm, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{GenerateName: base}}, metav1.CreateOptions{})
		if err != nil {
			t.Fatalf("ConfigMap with generateName %q: %v", base, err)
		}
		check("ConfigMap", base, cm.Name)
	}
	// A Namespace name is a DNS label (63 characters at most): a long
	// prefix is valid because it is cut.
	base := strings.Repeat("n", 61) + "-"
	ns, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: base}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("Namespace with generateName %q: %v", base, err)
	}
	check("Namespace", base, ns.Name)
}
