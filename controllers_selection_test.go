package fakeplane_test

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// Start waits for the first sync of the controllers that give namespaces
// their default ServiceAccount and kube-root-ca.crt, so what the default
// namespace holds once it returns shows which of them run.
func TestControllerSelectionDecidesWhatRuns(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name           string
		opts           []fakeplane.Option
		wantSA, wantCA bool
	}{
		{"default runs every controller", nil, true, true},
		{"star runs every controller", []fakeplane.Option{fakeplane.WithControllers("*")}, true, true},
		{"minus one by its name", []fakeplane.Option{fakeplane.WithControllers("*", "-serviceaccount-controller")}, false, true},
		{"minus one by its alias", []fakeplane.Option{fakeplane.WithControllers("*", "-root-ca-cert-publisher")}, true, false},
		{"one named alone", []fakeplane.Option{fakeplane.WithControllers("serviceaccount-controller")}, true, false},
		{"none", []fakeplane.Option{fakeplane.WithControllers()}, false, false},
		{"envtest shape", []fakeplane.Option{fakeplane.WithEnvtestShape()}, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tc.opts...)
			cs := clientset(t, cp)
			ctx := ctxT(t)
			_, err := cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{})
			if gotSA := err == nil; gotSA != tc.wantSA || (err != nil && !apierrors.IsNotFound(err)) {
				t.Errorf("default ServiceAccount: err %v, want present %v", err, tc.wantSA)
			}
			_, err = cs.CoreV1().ConfigMaps("default").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
			if gotCA := err == nil; gotCA != tc.wantCA || (err != nil && !apierrors.IsNotFound(err)) {
				t.Errorf("kube-root-ca.crt: err %v, want present %v", err, tc.wantCA)
			}
		})
	}
}

// In envtest's shape, as with envtest's kube-apiserver, a pod needs no
// ServiceAccount and gets no API access volume; with the ServiceAccount
// admission plugin on, a pod naming a missing ServiceAccount is refused.
func TestEnvtestShapeHasNoServiceAccountAdmission(t *testing.T) {
	t.Parallel()
	pod := func() *corev1.Pod {
		return &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: "p"},
			Spec:       corev1.PodSpec{ServiceAccountName: "missing", Containers: []corev1.Container{{Name: "c", Image: "nginx"}}},
		}
	}
	env := fakeplane.Start(t, fakeplane.WithEnvtestShape())
	got, err := clientset(t, env).CoreV1().Pods("default").Create(ctxT(t), pod(), metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("envtest shape: create a pod whose ServiceAccount is missing: %v", err)
	}
	for _, v := range got.Spec.Volumes {
		if strings.HasPrefix(v.Name, "kube-api-access-") {
			t.Errorf("envtest shape: the pod got the API access volume %s", v.Name)
		}
	}
	cluster := fakeplane.Start(t)
	_, err = clientset(t, cluster).CoreV1().Pods("default").Create(ctxT(t), pod(), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `serviceaccount "missing" not found`) {
		t.Errorf("cluster shape: create a pod whose ServiceAccount is missing: %v, want Forbidden", err)
	}
}

func TestWithControllersRefusesUnknownNames(t *testing.T) {
	t.Parallel()
	_, err := fakeplane.New(fakeplane.WithControllers("*", "-deploymnet"))
	if err == nil || !strings.Contains(err.Error(), `"-deploymnet" is not in the list of known controllers`) {
		t.Errorf("New: %v, want the unknown controller named", err)
	}
}
