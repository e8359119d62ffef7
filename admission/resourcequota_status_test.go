package admission

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// The messages are kube-apiserver v1.37's, recorded with envtest's flags
// and no kube-controller-manager.
func TestAdmitQuotaByStatusChargesStatusUsed(t *testing.T) {
	list := func(kv ...string) corev1.ResourceList {
		if len(kv) == 0 {
			return nil
		}
		l := corev1.ResourceList{}
		for i := 0; i < len(kv); i += 2 {
			l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
		}
		return l
	}
	cms := schema.GroupResource{Resource: "configmaps"}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
	for _, tc := range []struct {
		name       string
		spec       corev1.ResourceList
		hard, used corev1.ResourceList
		wantErr    string
		wantUsed   corev1.ResourceList
	}{
		{name: "spec alone limits nothing", spec: list("configmaps", "0")},
		{name: "hard without used is status unknown", hard: list("configmaps", "4", "pods", "1"),
			wantErr: "status unknown for quota: q1, resources: configmaps"},
		{name: "charged within the limit", hard: list("configmaps", "4", "pods", "1"), used: list("configmaps", "3", "pods", "1"),
			wantUsed: list("configmaps", "4", "pods", "1")},
		{name: "over the limit", hard: list("configmaps", "4"), used: list("configmaps", "4"),
			wantErr: "exceeded quota: q1, requested: configmaps=1, used: configmaps=4, limited: configmaps=4"},
		{name: "names of other resources are not asked for", hard: list("pods", "1")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			q := corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "q1"}, Spec: corev1.ResourceQuotaSpec{Hard: tc.spec},
				Status: corev1.ResourceQuotaStatus{Hard: tc.hard, Used: tc.used}}
			used, err := AdmitQuotaByStatus(cms, cm, nil, []corev1.ResourceQuota{q})
			if gotErr := ""; err != nil {
				gotErr = err.Error()
				if gotErr != tc.wantErr {
					t.Fatalf("error %q, want %q", gotErr, tc.wantErr)
				}
				return
			} else if tc.wantErr != "" {
				t.Fatalf("admitted, want %q", tc.wantErr)
			}
			if len(used[0]) != len(tc.wantUsed) {
				t.Fatalf("used %v, want %v", used[0], tc.wantUsed)
			}
			for n, v := range tc.wantUsed {
				if got := used[0][n]; got.Cmp(v) != 0 {
					t.Errorf("used[%s] = %s, want %s", n, got.String(), v.String())
				}
			}
		})
	}
}
