package fakeplane_test

import (
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// selectionPod is a pod of one container in namespace ns.
func selectionPod(ns, name string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}
}

// TestAdmissionPluginSelectionErrors: names the selection refuses, with
// kube-apiserver's errors, fail the start.
func TestAdmissionPluginSelectionErrors(t *testing.T) {
	t.Parallel()
	cases := []struct {
		name string
		opts []fakeplane.Option
		want string
	}{
		{"unknown names", []fakeplane.Option{fakeplane.WithEnableAdmissionPlugins("Foo"), fakeplane.WithDisableAdmissionPlugins("Bar")},
			`fakeplane: [enable-admission-plugins plugin "Foo" is unknown, disable-admission-plugins plugin "Bar" is unknown]`},
		{"enabled and disabled", []fakeplane.Option{fakeplane.WithEnableAdmissionPlugins("AlwaysPullImages", "ServiceAccount"), fakeplane.WithDisableAdmissionPlugins("ServiceAccount")},
			`fakeplane: [ServiceAccount] in enable-admission-plugins and disable-admission-plugins overlapped`},
		{"admission-control with the others", []fakeplane.Option{fakeplane.WithAdmissionControl("AlwaysAdmit"), fakeplane.WithDisableAdmissionPlugins("ServiceAccount")},
			`fakeplane: admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			cp, err := fakeplane.New(tc.opts...)
			if err == nil {
				err = cp.Start(ctxT(t))
				_ = cp.Stop()
			}
			if err == nil || err.Error() != tc.want {
				t.Fatalf("start: %v, want %s", err, tc.want)
			}
		})
	}
}

// TestAdmissionPluginsDisabled: each default plugin turned off by
// WithDisableAdmissionPlugins leaves what it does undone.
func TestAdmissionPluginsDisabled(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithDisableAdmissionPlugins("ServiceAccount", "DefaultTolerationSeconds", "Priority", "LimitRanger",
		"NamespaceLifecycle", "ResourceQuota", "PodSecurity", "DefaultStorageClass"), fakeplane.WithControllers())
	client := kubernetesClient(t, cp)
	ctx := ctxT(t)
	ns := "plain"
	if _, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: ns, Labels: map[string]string{
		"pod-security.kubernetes.io/enforce": "restricted"}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "everyone"}, Value: 7, GlobalDefault: true}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().LimitRanges(ns).Create(ctx, &corev1.LimitRange{ObjectMeta: metav1.ObjectMeta{Name: "cpu"}, Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type: corev1.LimitTypeContainer, Default: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")}}}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.CoreV1().ResourceQuotas(ns).Create(ctx, &corev1.ResourceQuota{ObjectMeta: metav1.ObjectMeta{Name: "none"}, Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
		corev1.ResourcePods: resource.MustParse("0"), corev1.ResourceConfigMaps: resource.MustParse("0")}}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// A privileged pod without a ServiceAccount in a restricted namespace
	// with a zero pod quota: nothing refuses it, nothing adds to it.
	p := selectionPod(ns, "p")
	p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
	got, err := client.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("pod create: %v", err)
	}
	if len(got.Spec.Volumes) != 0 || got.Spec.ServiceAccountName != "" {
		t.Errorf("ServiceAccount off: volumes %v, serviceAccountName %q, want none", got.Spec.Volumes, got.Spec.ServiceAccountName)
	}
	if len(got.Spec.Tolerations) != 0 {
		t.Errorf("DefaultTolerationSeconds off: tolerations %v, want none", got.Spec.Tolerations)
	}
	if got.Spec.Priority != nil || got.Spec.PriorityClassName != "" {
		t.Errorf("Priority off: priority %v, class %q, want none", got.Spec.Priority, got.Spec.PriorityClassName)
	}
	if got.Spec.Containers[0].Resources.Limits != nil || got.Spec.Containers[0].Resources.Requests != nil {
		t.Errorf("LimitRanger off: resources %v, want none", got.Spec.Containers[0].Resources)
	}
	// NamespaceLifecycle off: a namespace that does not exist takes
	// objects.
	if _, err := client.CoreV1().ConfigMaps("nowhere").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("configmap in a namespace that does not exist: %v", err)
	}
	// ... and the immortal namespaces may be deleted.
	if err := client.CoreV1().Namespaces().Delete(ctx, "kube-public", metav1.DeleteOptions{}); err != nil {
		t.Errorf("delete kube-public: %v", err)
	}
}

// TestAdmissionPluginsDefaults: the plugins WithDisableAdmissionPlugins
// turns off in TestAdmissionPluginsDisabled do their work by default.
func TestAdmissionPluginsDefaults(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithControllers(), fakeplane.WithEnableAdmissionPlugins("ServiceAccount"), fakeplane.WithEnvtestShape())
	client := kubernetesClient(t, cp)
	ctx := ctxT(t)
	if _, err := client.CoreV1().ConfigMaps("nowhere").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); !apierrors.IsNotFound(err) || err.Error() != `namespaces "nowhere" not found` {
		t.Errorf("configmap in a namespace that does not exist: %v, want 404", err)
	}
	if err := client.CoreV1().Namespaces().Delete(ctx, "kube-public", metav1.DeleteOptions{}); !apierrors.IsForbidden(err) {
		t.Errorf("delete kube-public: %v, want 403", err)
	}
	// The envtest shape turns ServiceAccount off unless it is enabled:
	// here it is, and without a default ServiceAccount the pod is refused.
	_, err := client.CoreV1().Pods("default").Create(ctx, selectionPod("default", "p"), metav1.CreateOptions{})
	if !apierrors.IsForbidden(err) || !strings.Contains(err.Error(), `error looking up service account default/default`) {
		t.Errorf("pod without a ServiceAccount: %v, want 403", err)
	}
}

// TestAdmissionPriorityClassDefault: the Priority plugin allows one
// default PriorityClass, and keeps a pod's priority on update.
func TestAdmissionPriorityClassDefault(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape())
	client := kubernetesClient(t, cp)
	ctx := ctxT(t)
	pcs := client.SchedulingV1().PriorityClasses()
	if _, err := pcs.Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "first"}, Value: 10, GlobalDefault: true}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	_, err := pcs.Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "second"}, Value: 5, GlobalDefault: true}, metav1.CreateOptions{})
	wantAdmission(t, "second default", err, `priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is already marked as default. Only one default can exist`)
	second, err := pcs.Create(ctx, &schedulingv1.PriorityClass{ObjectMeta: metav1.ObjectMeta{Name: "second"}, Value: 5}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	second.GlobalDefault = true
	_, err = pcs.Update(ctx, second, metav1.UpdateOptions{})
	wantAdmission(t, "made default", err, `priorityclasses.scheduling.k8s.io "second" is forbidden: PriorityClass first is already marked as default. Only one default can exist`)
	first, err := pcs.Get(ctx, "first", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	first.Description = "still the default"
	if _, err := pcs.Update(ctx, first, metav1.UpdateOptions{}); err != nil {
		t.Errorf("update of the default: %v", err)
	}

	pod, err := client.CoreV1().Pods("default").Create(ctx, selectionPod("default", "p"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pod.Spec.Priority == nil || *pod.Spec.Priority != 10 || pod.Spec.PriorityClassName != "first" {
		t.Fatalf("priority %v class %q, want 10 first", pod.Spec.Priority, pod.Spec.PriorityClassName)
	}
	pod.Spec.Priority, pod.Spec.PreemptionPolicy = nil, nil
	pod.Labels = map[string]string{"updated": "yes"}
	updated, err := client.CoreV1().Pods("default").Update(ctx, pod, metav1.UpdateOptions{})
	if err != nil {
		t.Fatalf("update without the priority: %v", err)
	}
	if updated.Spec.Priority == nil || *updated.Spec.Priority != 10 || updated.Spec.PreemptionPolicy == nil {
		t.Errorf("after update: priority %v, preemptionPolicy %v, want the stored ones", updated.Spec.Priority, updated.Spec.PreemptionPolicy)
	}
}

// TestAdmissionNamespacePlugins: NamespaceAutoProvision creates a missing
// namespace; NamespaceExists (with NamespaceLifecycle off) refuses one.
func TestAdmissionNamespacePlugins(t *testing.T) {
	t.Parallel()
	t.Run("NamespaceAutoProvision", func(t *testing.T) {
		t.Parallel()
		cp := fakeplane.Start(t, fakeplane.WithEnvtestShape(), fakeplane.WithEnableAdmissionPlugins("NamespaceAutoProvision"))
		client := kubernetesClient(t, cp)
		ctx := ctxT(t)
		cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}
		if _, err := client.CoreV1().ConfigMaps("dry").Create(ctx, cm, metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}}); !apierrors.IsNotFound(err) {
			t.Errorf("dry run in a missing namespace: %v, want 404 (a dry run provisions nothing)", err)
		}
		if _, err := client.CoreV1().ConfigMaps("made").Create(ctx, cm, metav1.CreateOptions{}); err != nil {
			t.Fatalf("create in a missing namespace: %v", err)
		}
		ns, err := client.CoreV1().Namespaces().Get(ctx, "made", metav1.GetOptions{})
		if err != nil {
			t.Fatalf("provisioned namespace: %v", err)
		}
		if ns.Status.Phase != corev1.NamespaceActive || len(ns.ManagedFields) != 1 || ns.ManagedFields[0].Manager != "kube-apiserver" {
			t.Errorf("provisioned namespace: phase %q, managedFields %v", ns.Status.Phase, ns.ManagedFields)
		}
	})
	t.Run("NamespaceExists", func(t *testing.T) {
		t.Parallel()
		cp := fakeplane.Start(t, fakeplane.WithEnvtestShape(), fakeplane.WithEnableAdmissionPlugins("NamespaceExists"), fakeplane.WithDisableAdmissionPlugins("NamespaceLifecycle"))
		client := kubernetesClient(t, cp)
		_, err := client.CoreV1().ConfigMaps("nowhere").Create(ctxT(t), &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
		if !apierrors.IsNotFound(err) || err.Error() != `namespaces "nowhere" not found` {
			t.Errorf("create in a missing namespace: %v, want 404", err)
		}
	})
}

// TestAdmissionAlwaysDeny: AlwaysDeny refuses every write, reads pass.
func TestAdmissionAlwaysDeny(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape(), fakeplane.WithEnableAdmissionPlugins("AlwaysDeny"))
	client := kubernetesClient(t, cp)
	ctx := ctxT(t)
	_, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{})
	wantAdmission(t, "create", err, `configmaps "c" is forbidden: admission control is denying all modifications`)
	// Refused before validation, as the mutating plugin it also is.
	_, err = client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "Not_Valid"}}, metav1.CreateOptions{})
	wantAdmission(t, "invalid create", err, `configmaps "Not_Valid" is forbidden: admission control is denying all modifications`)
	err = client.CoreV1().ServiceAccounts("default").Delete(ctx, "default", metav1.DeleteOptions{})
	if !apierrors.IsNotFound(err) {
		t.Errorf("delete of nothing: %v, want 404", err)
	}
	if _, err := client.CoreV1().Namespaces().Get(ctx, "default", metav1.GetOptions{}); err != nil {
		t.Errorf("get: %v", err)
	}
	err = client.CoreV1().Namespaces().Delete(ctx, "kube-node-lease", metav1.DeleteOptions{})
	wantAdmission(t, "delete", err, `namespaces "kube-node-lease" is forbidden: admission control is denying all modifications`)
}

// TestAdmissionChainPluginSelection: a webhook plugin turned off calls no
// webhook, while the other one does.
func TestAdmissionChainPluginSelection(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape(), fakeplane.WithDisableAdmissionPlugins("ValidatingAdmissionWebhook"))
	client := kubernetesClient(t, cp)
	ctx := ctxT(t)
	unreachable := "https://127.0.0.1:1/hook"
	fail := admissionregistrationv1.Fail
	none := admissionregistrationv1.SideEffectClassNone
	rule := func(resource string) []admissionregistrationv1.RuleWithOperations {
		return []admissionregistrationv1.RuleWithOperations{{Operations: []admissionregistrationv1.OperationType{admissionregistrationv1.Create},
			Rule: admissionregistrationv1.Rule{APIGroups: []string{""}, APIVersions: []string{"v1"}, Resources: []string{resource}}}}
	}
	if _, err := client.AdmissionregistrationV1().ValidatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.ValidatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "v"},
		Webhooks: []admissionregistrationv1.ValidatingWebhook{{Name: "v.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &unreachable},
			Rules: rule("configmaps"), FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := client.AdmissionregistrationV1().MutatingWebhookConfigurations().Create(ctx, &admissionregistrationv1.MutatingWebhookConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "m"},
		Webhooks: []admissionregistrationv1.MutatingWebhook{{Name: "m.example.com", ClientConfig: admissionregistrationv1.WebhookClientConfig{URL: &unreachable},
			Rules: rule("secrets"), FailurePolicy: &fail, SideEffects: &none, AdmissionReviewVersions: []string{"v1"}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Once the mutating webhook refuses Secrets, the plugins have seen
	// both configurations.
	i := 0
	eventually(t, "mutating webhook in force", func() error {
		i++
		_, err := client.CoreV1().Secrets("default").Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{GenerateName: "s-"}}, metav1.CreateOptions{})
		if err == nil {
			return errors.New("secret created")
		}
		if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), `failed calling webhook "m.example.com"`) {
			t.Fatalf("secret create: %v, want the webhook's failure", err)
		}
		return nil
	})
	if _, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "c"}}, metav1.CreateOptions{}); err != nil {
		t.Errorf("configmap create with ValidatingAdmissionWebhook off: %v", err)
	}
}

// TestAdmissionTaintNodesByConditionDisabled: without the plugin (and
// without a node lifecycle controller), a new node keeps the taints it
// was given.
func TestAdmissionTaintNodesByConditionDisabled(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name   string
		opts   []fakeplane.Option
		taints int
	}{
		{"default", []fakeplane.Option{fakeplane.WithEnvtestShape()}, 1},
		{"disabled", []fakeplane.Option{fakeplane.WithEnvtestShape(), fakeplane.WithDisableAdmissionPlugins("TaintNodesByCondition")}, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, tc.opts...)
			n, err := kubernetesClient(t, cp).CoreV1().Nodes().Create(ctxT(t), &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n"}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if len(n.Spec.Taints) != tc.taints {
				t.Errorf("taints %v, want %d", n.Spec.Taints, tc.taints)
			}
		})
	}
}

// optInPluginsConfig is an AdmissionConfiguration for PodNodeSelector
// (in a file of the legacy format) and PodTolerationRestriction (inline).
const optInPluginsConfig = `apiVersion: apiserver.config.k8s.io/v1
kind: AdmissionConfiguration
plugins:
- name: PodNodeSelector
  path: podnodeselector.yaml
- name: PodTolerationRestriction
  configuration:
    apiVersion: podtolerationrestriction.admission.k8s.io/v1alpha1
    kind: Configuration
    default:
    - key: cluster-default
      operator: Exists
      effect: NoSchedule
`

// TestAdmissionOptInPlugins: the off-by-default plugins that
// WithEnableAdmissionPlugins turns on change and refuse pods and
// Services as kube-apiserver's do (recorded from kube-apiserver v1.37.2
// with the same plugins and configuration).
func TestAdmissionOptInPlugins(t *testing.T) {
	t.Parallel()
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "admission.yaml"), []byte(optInPluginsConfig), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "podnodeselector.yaml"), []byte("podNodeSelectorPluginConfig:\n  clusterDefaultNodeSelector: env=dev\n  restricted: env=prod\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape(), fakeplane.WithAdmissionControlConfigFile(filepath.Join(dir, "admission.yaml")),
		fakeplane.WithEnableAdmissionPlugins("AlwaysPullImages", "DenyServiceExternalIPs", "LimitPodHardAntiAffinityTopology", "ExtendedResourceToleration", "PodNodeSelector", "PodTolerationRestriction"))
	client := kubernetesClient(t, cp)
	ctx := ctxT(t)
	for _, ns := range []*corev1.Namespace{
		{ObjectMeta: metav1.ObjectMeta{Name: "restricted"}},
		{ObjectMeta: metav1.ObjectMeta{Name: "tol", Annotations: map[string]string{
			"scheduler.alpha.kubernetes.io/tolerationsWhitelist": `[{"key":"allowed","operator":"Exists"}]`,
			"scheduler.alpha.kubernetes.io/defaultTolerations":   `[{"key":"allowed","operator":"Exists"}]`}}},
	} {
		if _, err := client.CoreV1().Namespaces().Create(ctx, ns, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}

	// Mutated: pull policy, the cluster's node selector and default
	// toleration, the extended resource's toleration.
	p := selectionPod("default", "p1")
	p.Spec.Containers[0].ImagePullPolicy = corev1.PullNever
	p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{"example.com/gpu": resource.MustParse("1")}
	got, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pol := got.Spec.Containers[0].ImagePullPolicy; pol != corev1.PullAlways {
		t.Errorf("imagePullPolicy %q, want Always", pol)
	}
	if got.Spec.NodeSelector["env"] != "dev" || len(got.Spec.NodeSelector) != 1 {
		t.Errorf("nodeSelector %v, want env=dev", got.Spec.NodeSelector)
	}
	var keys []string
	for _, tol := range got.Spec.Tolerations {
		keys = append(keys, tol.Key+"/"+string(tol.Operator)+"/"+string(tol.Effect))
	}
	if want := []string{"node.kubernetes.io/not-ready/Exists/NoExecute", "node.kubernetes.io/unreachable/Exists/NoExecute",
		"cluster-default/Exists/NoSchedule", "example.com/gpu/Exists/NoSchedule"}; !slices.Equal(keys, want) {
		t.Errorf("tolerations %v, want %v", keys, want)
	}

	// Refused, with kube-apiserver's codes and messages.
	conflicting := selectionPod("restricted", "p2")
	conflicting.Spec.NodeSelector = map[string]string{"env": "dev"}
	antiAffinity := selectionPod("default", "p3")
	antiAffinity.Spec.Affinity = &corev1.Affinity{PodAntiAffinity: &corev1.PodAntiAffinity{RequiredDuringSchedulingIgnoredDuringExecution: []corev1.PodAffinityTerm{{
		LabelSelector: &metav1.LabelSelector{MatchLabels: map[string]string{"a": "b"}}, TopologyKey: "topology.kubernetes.io/zone"}}}}
	notWhitelisted := selectionPod("tol", "p4")
	notWhitelisted.Spec.Tolerations = []corev1.Toleration{{Key: "forbidden", Operator: corev1.TolerationOpExists}}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		code int32
		want string
	}{
		{"node selector outside the namespace's whitelist", conflicting, 403, `pods "p2" is forbidden: pod node label selector labels conflict with its namespace whitelist`},
		{"anti-affinity across zones", antiAffinity, 403, `pods "p3" is forbidden: affinity.PodAntiAffinity.RequiredDuringScheduling has TopologyKey topology.kubernetes.io/zone but only key kubernetes.io/hostname is allowed`},
		{"toleration outside the namespace's whitelist", notWhitelisted, 500, `pod tolerations (possibly merged with namespace default tolerations) conflict with its namespace whitelist`},
	} {
		_, err := client.CoreV1().Pods(tc.pod.Namespace).Create(ctx, tc.pod, metav1.CreateOptions{})
		var status apierrors.APIStatus
		if !errors.As(err, &status) || status.Status().Code != tc.code || status.Status().Message != tc.want {
			t.Errorf("%s: %v, want %d %s", tc.name, err, tc.code, tc.want)
		}
	}
	_, err = client.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "s1"}, Spec: corev1.ServiceSpec{
		Ports: []corev1.ServicePort{{Port: 80}}, ExternalIPs: []string{"1.2.3.4"}}}, metav1.CreateOptions{})
	wantAdmission(t, "service with external IPs", err, `services "s1" is forbidden: Use of external IPs is denied by admission control`)
}

// TestAdmissionDefaultTolerationSeconds: the tolerations
// DefaultTolerationSeconds adds last as long as the options say.
func TestAdmissionDefaultTolerationSeconds(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithEnvtestShape(), fakeplane.WithDefaultTolerationSeconds(60, 120))
	got, err := kubernetesClient(t, cp).CoreV1().Pods("default").Create(ctxT(t), selectionPod("default", "p"), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	seconds := map[string]int64{}
	for _, tol := range got.Spec.Tolerations {
		if tol.TolerationSeconds != nil {
			seconds[tol.Key] = *tol.TolerationSeconds
		}
	}
	if seconds[corev1.TaintNodeNotReady] != 60 || seconds[corev1.TaintNodeUnreachable] != 120 || len(seconds) != 2 {
		t.Errorf("toleration seconds %v, want not-ready 60, unreachable 120", seconds)
	}
}
