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

// TestServiceAccountEnforcesMountableSecrets: a service account annotated
// kubernetes.io/enforce-mountable-secrets: "true" limits its pods to the
// secrets it lists. The codes and messages are kube-apiserver v1.37's
// answers to the same requests (recorded from refplane), including the 500
// with a bare message that new ephemeral containers get.
func TestServiceAccountEnforcesMountableSecrets(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	const (
		sas  = "/api/v1/namespaces/default/serviceaccounts"
		pods = "/api/v1/namespaces/default/pods"
	)
	pod := func(name, sa, spec string) string {
		return `{"metadata":{"name":"` + name + `"},"spec":{"serviceAccountName":"` + sa + `",` + spec + `}}`
	}
	const c = `"containers":[{"name":"c","image":"x"}]`
	const forbidden = ` is not allowed because service account strict does not reference that secret`
	const ephemeral = "application/strategic-merge-patch+json"
	waitForDefaultServiceAccount(t, cp, "default")
	runWriteCases(t, cp, []writeCase{
		{"an enforcing service account", "POST", sas, `{"metadata":{"name":"strict","annotations":{"kubernetes.io/enforce-mountable-secrets":"true"}},"secrets":[{"name":"ok"}],"imagePullSecrets":[{"name":"pull-ok"}]}`, 201, ""},
		{"an annotation that is not a bool enforces nothing", "POST", sas, `{"metadata":{"name":"weird","annotations":{"kubernetes.io/enforce-mountable-secrets":"yes"}}}`, 201, ""},
		{"a pod without secrets", "POST", pods, pod("p1", "strict", c), 201, ""},
		{"an unlisted secret volume", "POST", pods, pod("p2", "strict", `"volumes":[{"name":"v","secret":{"secretName":"nope"}}],`+c), 403,
			`pods "p2" is forbidden: volume with secret.secretName="nope"` + forbidden},
		{"an unlisted env secret", "POST", pods, pod("p3", "strict", `"volumes":[{"name":"v","secret":{"secretName":"ok"}}],"containers":[{"name":"c","image":"x","env":[{"name":"E","valueFrom":{"secretKeyRef":{"name":"bad","key":"k"}}}]}]`), 403,
			`pods "p3" is forbidden: container c with envVar E referencing secret.secretName="bad"` + forbidden},
		{"an init container's envFrom", "POST", pods, pod("p4", "strict", `"initContainers":[{"name":"i","image":"x","envFrom":[{"secretRef":{"name":"bad2"}}]}],`+c), 403,
			`pods "p4" is forbidden: init container i with envFrom referencing secret.secretName="bad2"` + forbidden},
		{"an unlisted pull secret", "POST", pods, pod("p5", "strict", `"imagePullSecrets":[{"name":"pull-ok"},{"name":"pull-bad"}],`+c), 403,
			`pods "p5" is forbidden: imagePullSecrets[1].name="pull-bad" is not allowed because service account strict does not reference that imagePullSecret`},
		{"not enforced", "POST", pods, pod("p6", "weird", `"volumes":[{"name":"v","secret":{"secretName":"nope"}}],`+c), 201, ""},
		{"projected secrets are not looked at, env is", "POST", pods, pod("p7", "strict", `"volumes":[{"name":"v","projected":{"sources":[{"secret":{"name":"nope"}}]}}],"containers":[{"name":"c","image":"x","envFrom":[{"secretRef":{"name":"x1"}}],"env":[{"name":"A","valueFrom":{"secretKeyRef":{"name":"x2","key":"k"}}}]}]`), 403,
			`pods "p7" is forbidden: container c with envVar A referencing secret.secretName="x2"` + forbidden},
		{"init containers before containers", "POST", pods, pod("p8", "strict", `"containers":[{"name":"c","image":"x","env":[{"name":"A","valueFrom":{"secretKeyRef":{"name":"x2","key":"k"}}}]}],"initContainers":[{"name":"i","image":"x","env":[{"name":"B","valueFrom":{"secretKeyRef":{"name":"x3","key":"k"}}}]}]`), 403,
			`pods "p8" is forbidden: init container i with envVar B referencing secret.secretName="x3"` + forbidden},
		{"an unlisted secret in an ephemeral container", "PATCH:" + ephemeral, pods + "/p1/ephemeralcontainers", `{"spec":{"ephemeralContainers":[{"name":"dbg","image":"x","env":[{"name":"A","valueFrom":{"secretKeyRef":{"name":"x2","key":"k"}}}]}]}}`, 500,
			`ephemeral container dbg with envVar A referencing secret.secretName="x2"` + forbidden},
		{"a listed one", "PATCH:" + ephemeral, pods + "/p1/ephemeralcontainers", `{"spec":{"ephemeralContainers":[{"name":"dbg2","image":"x","envFrom":[{"secretRef":{"name":"ok"}}]}]}}`, 200, ""},
		{"the default service account enforces nothing", "POST", pods, pod("p9", "default", `"volumes":[{"name":"v","secret":{"secretName":"nope"}}],`+c), 201, ""},
	})
}
