package fakeplane_test

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// --enable-priority-and-fairness=false answers as kube-apiserver v1.37.2
// did with it (recorded on refplane): no X-Kubernetes-PF-* headers, no
// Dangling condition on the bootstrap FlowSchemas (no config consumer),
// and the health checks name the max-in-flight filter where priority and
// fairness's two hooks were.
func TestPriorityAndFairnessCanBeTurnedOff(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		opts []fakeplane.Option
		on   bool
	}{
		{name: "on by default", on: true},
		{name: "off", opts: []fakeplane.Option{fakeplane.WithPriorityAndFairness(false)}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tc.opts...)
			_, h, _ := rawExchange(t, cp, "GET", "/api/v1/namespaces", "", nil, nil)
			if got := h.Get("X-Kubernetes-PF-FlowSchema-UID") != "" && h.Get("X-Kubernetes-PF-PriorityLevel-UID") != ""; got != tc.on {
				t.Errorf("priority and fairness headers: %v, want %v (%v)", got, tc.on, h)
			}
			fs, err := kubernetesClient(t, cp).FlowcontrolV1().FlowSchemas().Get(ctxT(t), "exempt", metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if got := len(fs.Status.Conditions) == 1 && fs.Status.Conditions[0].Type == "Dangling"; got != tc.on {
				t.Errorf("Dangling condition: %v, want %v (%+v)", got, tc.on, fs.Status)
			}
			_, _, body := rawRequest(t, cp, "GET", "/readyz?verbose", "", nil, nil)
			want := []string{"[+]poststarthook/priority-and-fairness-config-consumer ok\n[+]poststarthook/priority-and-fairness-filter ok\n"}
			if !tc.on {
				want = []string{"[+]poststarthook/generic-apiserver-start-informers ok\n[+]poststarthook/max-in-flight-filter ok\n[+]poststarthook/storage-object-count-tracker-hook ok\n"}
			}
			for _, w := range want {
				if !strings.Contains(string(body), w) {
					t.Errorf("/readyz?verbose lacks %q:\n%s", w, body)
				}
			}
			if !tc.on && strings.Contains(string(body), "priority-and-fairness-filter") {
				t.Errorf("/readyz?verbose names the priority and fairness filter:\n%s", body)
			}
		})
	}
}
