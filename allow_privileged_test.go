package fakeplane_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// TestAllowPrivilegedFalseAsKubeAPIServer sends pods, pod templates and
// workloads with privileged or host process containers to a control plane
// started as kube-apiserver with --allow-privileged=false: each is refused
// with the 422 a real v1.37 kube-apiserver (refplane, restarted with that
// flag) answered; what has none is served, and a scale is not checked.
func TestAllowPrivilegedFalseAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithAllowPrivileged(false))
	waitForDefaultServiceAccount(t, cp, "default")
	privileged := `{"name":"c","image":"busybox","securityContext":{"privileged":true}}`
	template := `"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[` + privileged + `]}}`
	runWriteCases(t, cp, []writeCase{
		{"a pod's privileged containers and init containers", "POST", "/api/v1/namespaces/default/pods?dryRun=All", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"ap"},"spec":{"containers":[{"name":"c","image":"busybox","securityContext":{"privileged":true}},{"name":"d","image":"busybox","securityContext":{"privileged":false}}],"initContainers":[{"name":"i","image":"busybox","securityContext":{"privileged":true}}]}}`, 422,
			`Pod "ap" is invalid: [spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy, spec.initContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy]`},
		{"among a deployment's other errors, in upstream's order", "POST", "/apis/apps/v1/namespaces/default/deployments?dryRun=All", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"md"},"spec":{"replicas":-1,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"busybox","imagePullPolicy":"Bad","securityContext":{"privileged":true,"runAsUser":-5,"allowPrivilegeEscalation":false}},{"name":"d","image":"","securityContext":{"privileged":true}}],"initContainers":[{"name":"i","image":"x","securityContext":{"privileged":true}}]}}}}`, 422,
			"Deployment.apps \"md\" is invalid: [spec.replicas: Invalid value: -1: must be greater than or equal to 0, spec.template.spec.containers[0].imagePullPolicy: Unsupported value: \"Bad\": supported values: \"Always\", \"IfNotPresent\", \"Never\", spec.template.spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy, spec.template.spec.containers[0].securityContext.runAsUser: Invalid value: -5: must be between 0 and 2147483647, inclusive, spec.template.spec.containers[0].securityContext: Invalid value: {\"Capabilities\":null,\"Privileged\":true,\"SELinuxOptions\":null,\"WindowsOptions\":null,\"RunAsUser\":-5,\"RunAsGroup\":null,\"RunAsNonRoot\":null,\"ReadOnlyRootFilesystem\":null,\"AllowPrivilegeEscalation\":false,\"ProcMount\":null,\"SeccompProfile\":null,\"AppArmorProfile\":null}: cannot set `allowPrivilegeEscalation` to false and `privileged` to true, spec.template.spec.containers[1].image: Required value, spec.template.spec.containers[1].securityContext.privileged: Forbidden: disallowed by cluster policy, spec.template.spec.initContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy]"},
		{"among a Windows pod's other errors, in upstream's order", "POST", "/api/v1/namespaces/default/pods?dryRun=All", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"p2"},"spec":{"hostNetwork":true,"securityContext":{"windowsOptions":{"hostProcess":true}},"os":{"name":"windows"},"containers":[{"name":"c","image":"x","securityContext":{"privileged":true}}],"ephemeralContainers":[{"name":"e","image":"x","securityContext":{"privileged":true}}]}}`, 422,
			`Pod "p2" is invalid: [spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy, spec.ephemeralContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy, spec: Forbidden: hostProcess containers are disallowed by cluster policy, spec.containers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod, spec.ephemeralContainers[0].securityContext.privileged: Forbidden: cannot be set for a windows pod, spec.ephemeralContainers: Forbidden: cannot be set on create]`},
		{"a host process pod", "POST", "/api/v1/namespaces/default/pods?dryRun=All", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"ap"},"spec":{"hostNetwork":true,"securityContext":{"windowsOptions":{"hostProcess":true}},"containers":[{"name":"c","image":"busybox"}]}}`, 422,
			`Pod "ap" is invalid: spec: Forbidden: hostProcess containers are disallowed by cluster policy`},
		{"a pod template", "POST", "/api/v1/namespaces/default/podtemplates?dryRun=All", `{"apiVersion":"v1","kind":"PodTemplate","metadata":{"name":"ap"},"template":{"spec":{"containers":[` + privileged + `]}}}`, 422,
			`PodTemplate "ap" is invalid: template.spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy`},
		{"a replication controller", "POST", "/api/v1/namespaces/default/replicationcontrollers?dryRun=All", `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"ap"},"spec":{"selector":{"a":"b"},` + template + `}}`, 422,
			`ReplicationController "ap" is invalid: spec.template.spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy`},
		{"a daemon set", "POST", "/apis/apps/v1/namespaces/default/daemonsets?dryRun=All", `{"apiVersion":"apps/v1","kind":"DaemonSet","metadata":{"name":"ap"},"spec":{"selector":{"matchLabels":{"a":"b"}},` + template + `}}`, 422,
			`DaemonSet.apps "ap" is invalid: spec.template.spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy`},
		{"a stateful set", "POST", "/apis/apps/v1/namespaces/default/statefulsets?dryRun=All", `{"apiVersion":"apps/v1","kind":"StatefulSet","metadata":{"name":"ap"},"spec":{"selector":{"matchLabels":{"a":"b"}},` + template + `}}`, 422,
			`StatefulSet.apps "ap" is invalid: spec.template.spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy`},
		{"a replica set", "POST", "/apis/apps/v1/namespaces/default/replicasets?dryRun=All", `{"apiVersion":"apps/v1","kind":"ReplicaSet","metadata":{"name":"ap"},"spec":{"selector":{"matchLabels":{"a":"b"}},` + template + `}}`, 422,
			`ReplicaSet.apps "ap" is invalid: spec.template.spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy`},
		{"a job", "POST", "/apis/batch/v1/namespaces/default/jobs?dryRun=All", `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"ap"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[` + privileged + `]}}}}`, 422,
			`Job.batch "ap" is invalid: spec.template.spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy`},
		{"a cron job", "POST", "/apis/batch/v1/namespaces/default/cronjobs?dryRun=All", `{"apiVersion":"batch/v1","kind":"CronJob","metadata":{"name":"cj"},"spec":{"schedule":"* * * * *","jobTemplate":{"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[` + privileged + `]}}}}}}`, 422,
			`CronJob.batch "cj" is invalid: spec.jobTemplate.spec.template.spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy`},
		{"a deployment without privileged containers", "POST", "/apis/apps/v1/namespaces/default/deployments", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"up"},"spec":{"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"busybox","securityContext":{"privileged":false}}]}}}}`, 201, ""},
		{"made privileged by a patch", "PATCH:application/strategic-merge-patch+json", "/apis/apps/v1/namespaces/default/deployments/up", `{"spec":{"template":{"spec":{"containers":[` + privileged + `]}}}}`, 422,
			`Deployment.apps "up" is invalid: spec.template.spec.containers[0].securityContext.privileged: Forbidden: disallowed by cluster policy`},
		{"scaled", "PATCH:application/merge-patch+json", "/apis/apps/v1/namespaces/default/deployments/up/scale", `{"spec":{"replicas":3}}`, 200, ""},
	})

	// An ephemeral container is checked as the pod's others.
	ctx := context.Background()
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	pod, err := client.CoreV1().Pods("default").Create(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "plain"},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	pod.Spec.EphemeralContainers = []corev1.EphemeralContainer{{EphemeralContainerCommon: corev1.EphemeralContainerCommon{Name: "dbg", Image: "busybox",
		SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}}}
	_, err = client.CoreV1().Pods("default").UpdateEphemeralContainers(ctx, "plain", pod, metav1.UpdateOptions{})
	if want := `Pod "plain" is invalid: spec.ephemeralContainers[0].securityContext.privileged: Forbidden: disallowed by cluster policy`; err == nil || err.Error() != want {
		t.Errorf("privileged ephemeral container: %v, want %q", err, want)
	}
}

// TestAllowPrivilegedByDefault checks that, as kubeadm's and envtest's
// kube-apiserver, fakeplane allows privileged containers unless told not
// to.
func TestAllowPrivilegedByDefault(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape())
	runWriteCases(t, cp, []writeCase{
		{"a privileged pod", "POST", "/api/v1/namespaces/default/pods?dryRun=All", `{"apiVersion":"v1","kind":"Pod","metadata":{"name":"ap"},"spec":{"containers":[{"name":"c","image":"busybox","securityContext":{"privileged":true}}]}}`, 201, ""},
	})
}
