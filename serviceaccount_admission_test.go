package fakeplane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestServiceAccountAdmissionWaitsForTheDefaultServiceAccount checks what
// upstream's ServiceAccount admission plugin does when a new pod's
// ServiceAccount is "default" and not there yet: it looks again, up to ten
// times 100-200ms apart, so a pod created right after its namespace is
// admitted once the serviceaccount controller made the account; with that
// controller off the pod is refused, with upstream's message, after the
// last look.
func TestServiceAccountAdmissionWaitsForTheDefaultServiceAccount(t *testing.T) {
	t.Parallel()
	ctx := context.Background()
	t.Run("right after the namespace", func(t *testing.T) {
		t.Parallel()
		cs := kubernetesClient(t, fakeplane.Start(t))
		for i := range 5 {
			ns := fmt.Sprintf("fresh-%d", i)
			if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns}}, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
			pod, err := cs.CoreV1().Pods(ns).Create(ctx, testPod("p", nil), metav1.CreateOptions{})
			if err != nil {
				t.Fatalf("pod created right after namespace %s: %v", ns, err)
			}
			if pod.Spec.ServiceAccountName != "default" {
				t.Errorf("serviceAccountName %q, want default", pod.Spec.ServiceAccountName)
			}
		}
	})
	t.Run("never made", func(t *testing.T) {
		t.Parallel()
		cs := kubernetesClient(t, fakeplane.Start(t, fakeplane.WithControllers("*", "-serviceaccount-controller")))
		if _, err := cs.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bare"}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		_, err := cs.CoreV1().Pods("bare").Create(ctx, testPod("p", nil), metav1.CreateOptions{})
		want := `pods "p" is forbidden: error looking up service account bare/default: serviceaccount "default" not found`
		if !apierrors.IsForbidden(err) || err.Error() != want {
			t.Errorf("pod without its default ServiceAccount: %v, want 403 %q", err, want)
		}
	})
}

// TestServiceAccountAdmissionOfMirrorPodsAndPullSecrets checks two more
// rules of the ServiceAccount admission plugin against the answers of a
// real v1.37 kube-apiserver (recorded with refplane): a mirror pod is left
// alone but may reference no service account, secret or token projection,
// and a pod without image pull secrets takes its service account's.
func TestServiceAccountAdmissionOfMirrorPodsAndPullSecrets(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const pods = "/api/v1/namespaces/default/pods?dryRun=All"
	mirror := func(name, spec string) string {
		return `{"metadata":{"name":"` + name + `","annotations":{"kubernetes.io/config.mirror":"x"}},"spec":{"nodeName":"n",` + spec + `"containers":[{"name":"c","image":"i"}]}}`
	}
	waitForDefaultServiceAccount(t, cp, "default")
	runWriteCases(t, cp, []writeCase{
		{"a plain mirror pod", "POST", pods, mirror("m1", ""), 201, ""},
		{"no service account", "POST", pods, mirror("m2", `"serviceAccountName":"default",`), 403, `pods "m2" is forbidden: a mirror pod may not reference service accounts`},
		{"no secret in a volume", "POST", pods, mirror("m5", `"volumes":[{"name":"s","secret":{"secretName":"x"}}],`), 403, `pods "m5" is forbidden: a mirror pod may not reference secrets`},
		{"no token projection", "POST", pods, mirror("m4", `"volumes":[{"name":"p","projected":{"sources":[{"serviceAccountToken":{"path":"t"}}]}}],`), 403,
			`pods "m4" is forbidden: a mirror pod may not use ServiceAccountToken volume projections`},
		{"a service account with pull secrets", "POST", "/api/v1/namespaces/default/serviceaccounts", `{"metadata":{"name":"withpull"},"imagePullSecrets":[{"name":"reg"}]}`, 201, ""},
	})
	for _, tc := range []struct {
		name, spec string
		want       string
	}{
		{"a pod without pull secrets takes its service account's", `"serviceAccountName":"withpull"`, `[{"name":"reg"}]`},
		{"a pod with its own keeps them", `"serviceAccountName":"withpull","imagePullSecrets":[{"name":"own"}]`, `[{"name":"own"}]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, out := rawExchange(t, cp, "POST", pods, "application/json", []byte(`{"metadata":{"name":"w"},"spec":{`+tc.spec+`,"containers":[{"name":"c","image":"i"}]}}`), nil)
			var pod struct {
				Spec struct {
					ImagePullSecrets json.RawMessage `json:"imagePullSecrets"`
				} `json:"spec"`
			}
			if err := json.Unmarshal(out, &pod); code != 201 || err != nil || string(pod.Spec.ImagePullSecrets) != tc.want {
				t.Errorf("code %d, imagePullSecrets %s, want %s: %s", code, pod.Spec.ImagePullSecrets, tc.want, out)
			}
		})
	}
}
