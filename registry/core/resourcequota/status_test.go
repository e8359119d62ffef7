package resourcequota

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

const qualifiedName = "name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]')"

func TestStatusUpdateValidation(t *testing.T) {
	list := func(kv ...string) corev1.ResourceList {
		l := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	for _, tc := range []struct {
		name       string
		hard, used corev1.ResourceList
		noRV       bool
		want       []string
	}{
		{name: "the quota controller's status", hard: list("pods", "5", "requests.hugepages-2Mi", "1Gi"), used: list("pods", "0", "count/foo.example.com", "3")},
		{name: "hard before used", hard: list("pods", "-1"), used: list("bogus name", "1"), want: []string{
			`status.hard[pods]: Invalid value: "-1": must be greater than or equal to 0`,
			`status.used[bogus name]: Invalid value: "bogus name": ` + qualifiedName,
			`status.used[bogus name]: Invalid value: "bogus name": must be a standard resource for quota`,
		}},
		{name: "a standard resource not for quota", used: list("storage", "1"),
			want: []string{`status.used[storage]: Invalid value: "storage": must be a standard resource for quota`}},
		{name: "counts are whole", used: list("pods", "1500m"), want: []string{`status.used[pods]: Invalid value: "1500m": must be an integer`}},
		{name: "extended resources are whole and not negative", hard: list("example.com/foo", "-1500m"), want: []string{
			`status.hard[example.com/foo]: Invalid value: "-1500m": must be greater than or equal to 0`,
			`status.hard[example.com/foo]: Invalid value: "-1500m": must be an integer`,
		}},
		{name: "names in sorted order", hard: list("services.nodeports", "0.5", "hugepages-2Mi", "1Gi"), used: list("example.com/bad name", "1", "cpu", "-1"), want: []string{
			`status.hard[services.nodeports]: Invalid value: "500m": must be an integer`,
			`status.used[cpu]: Invalid value: "-1": must be greater than or equal to 0`,
			`status.used[example.com/bad name]: Invalid value: "example.com/bad name": ` + qualifiedName,
		}},
		{name: "a resource version", noRV: true, want: []string{"resourceVersion: Required value"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{ResourceVersion: "2"}, Spec: corev1.ResourceQuotaSpec{Hard: list("pods", "5")},
				Status: corev1.ResourceQuotaStatus{Hard: tc.hard, Used: tc.used}}
			if tc.noRV {
				q.ResourceVersion = ""
			}
			validatetest.ExpectErrors(t, Strategy.ValidateStatusUpdate(context.Background(), q, &corev1.ResourceQuota{}), tc.want)
		})
	}
}
