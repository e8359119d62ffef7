package fakeplane_test

import (
	"context"
	"maps"
	"slices"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/util/retry"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// The messages below come from upstream's source (k8s.io/kubernetes
// v1.37.2 plugin/pkg/admission/security/podsecurity and
// k8s.io/pod-security-admission v0.37.2: its checks' reasons and details,
// the "violates PodSecurity" and "would violate PodSecurity" texts, the
// namespace label errors and the existing-pods warnings), not from a live
// kube-apiserver run: none was reachable when they were written.

// restrictedDetail is what PodSecurity says of testPod at restricted:latest.
const restrictedDetail = `allowPrivilegeEscalation != false (container "app" must set securityContext.allowPrivilegeEscalation=false), ` +
	`unrestricted capabilities (container "app" must set securityContext.capabilities.drop=["ALL"]), ` +
	`runAsNonRoot != true (pod or container "app" must set securityContext.runAsNonRoot=true), ` +
	`seccompProfile (pod or container "app" must set securityContext.seccompProfile.type to "RuntimeDefault" or "Localhost")`

// podSecurityNamespace creates a namespace with the given pod-security
// labels.
func podSecurityNamespace(t *testing.T, client kubernetes.Interface, name string, labels map[string]string) {
	t.Helper()
	if _, err := client.CoreV1().Namespaces().Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: labels}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
}

// restrictedPod is testPod made to pass the restricted level.
func restrictedPod(name string) *corev1.Pod {
	p := testPod(name, nil)
	p.Spec.SecurityContext = &corev1.PodSecurityContext{RunAsNonRoot: ptr.To(true), SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault}}
	p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
	return p
}

// privilegedPod is testPod with a privileged container.
func privilegedPod(name string) *corev1.Pod {
	p := testPod(name, nil)
	p.Spec.Containers[0].SecurityContext = &corev1.SecurityContext{Privileged: ptr.To(true)}
	return p
}

func TestAdmissionPodSecurityEnforcesTheNamespaceLevel(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	admin := kubernetesClient(t, cp)
	podSecurityNamespace(t, admin, "restricted", map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
	podSecurityNamespace(t, admin, "baseline-old", map[string]string{
		"pod-security.kubernetes.io/enforce":         "baseline",
		"pod-security.kubernetes.io/enforce-version": "v1.20",
	})
	ctx := context.Background()
	cases := []struct {
		name, namespace string
		pod             *corev1.Pod
		dryRun          bool
		want            string // "" when the pod is admitted
	}{{
		name: "a pod breaking restricted", namespace: "restricted", pod: testPod("x", nil),
		want: `pods "x" is forbidden: violates PodSecurity "restricted:latest": ` + restrictedDetail,
	}, {
		name: "a dry-run pod breaking restricted", namespace: "restricted", pod: testPod("dry", nil), dryRun: true,
		want: `pods "dry" is forbidden: violates PodSecurity "restricted:latest": ` + restrictedDetail,
	}, {
		name: "a pod meeting restricted", namespace: "restricted", pod: restrictedPod("fine"),
	}, {
		name: "a dry-run pod meeting restricted", namespace: "restricted", pod: restrictedPod("fine-dry"), dryRun: true,
	}, {
		name: "a privileged pod at baseline of a version", namespace: "baseline-old", pod: privilegedPod("priv"),
		want: `pods "priv" is forbidden: violates PodSecurity "baseline:v1.20": privileged (container "app" must not set securityContext.privileged=true)`,
	}, {
		name: "a plain pod at baseline", namespace: "baseline-old", pod: testPod("plain", nil),
	}, {
		name: "a privileged pod where no label is set", namespace: "default", pod: privilegedPod("priv"),
	}, {
		name: "a privileged pod in kube-system", namespace: "kube-system", pod: privilegedPod("priv"),
	}}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			client, warnings := clientWithWarnings(t, cp)
			var opts metav1.CreateOptions
			if tc.dryRun {
				opts.DryRun = []string{metav1.DryRunAll}
			}
			_, err := client.CoreV1().Pods(tc.namespace).Create(ctx, tc.pod, opts)
			if tc.want == "" {
				if err != nil {
					t.Fatalf("create: %v", err)
				}
			} else {
				status, ok := err.(apierrors.APIStatus)
				if !ok || !apierrors.IsForbidden(err) || err.Error() != tc.want {
					t.Fatalf("create: %v\nwant 403 %s", err, tc.want)
				}
				if d := status.Status().Details; d == nil || d.Name != tc.pod.Name || d.Kind != "pods" {
					t.Errorf("details = %+v, want name %q kind pods", d, tc.pod.Name)
				}
			}
			// A refused pod gets no warning (upstream adds none to a
			// request it refuses); an admitted one breaks no warned level.
			if got := warnings.Messages(); len(got) != 0 {
				t.Errorf("warnings = %q, want none", got)
			}
		})
	}
	// The dry-run pod was not stored.
	if _, err := admin.CoreV1().Pods("restricted").Get(ctx, "fine-dry", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Errorf("get fine-dry: %v, want 404", err)
	}
}

// podTemplate is testPod's spec as a template labelled app=web.
func podTemplate(restart corev1.RestartPolicy) corev1.PodTemplateSpec {
	p := testPod("", map[string]string{"app": "web"})
	p.Spec.RestartPolicy = restart
	return corev1.PodTemplateSpec{ObjectMeta: p.ObjectMeta, Spec: p.Spec}
}

func TestAdmissionPodSecurityWarnsOnPodsAndPodControllers(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	admin := kubernetesClient(t, cp)
	const ns = "warned"
	podSecurityNamespace(t, admin, ns, map[string]string{"pod-security.kubernetes.io/warn": "restricted"})
	// An enforced level warns at that level too, but does not refuse pod
	// controllers.
	podSecurityNamespace(t, admin, "enforced", map[string]string{"pod-security.kubernetes.io/enforce": "restricted"})
	ctx := context.Background()
	sel := &metav1.LabelSelector{MatchLabels: map[string]string{"app": "web"}}
	warn := `would violate PodSecurity "restricted:latest": ` + restrictedDetail
	cases := []struct {
		name string
		do   func(c kubernetes.Interface) error
		want []string
	}{{
		name: "pod",
		do: func(c kubernetes.Interface) error {
			_, err := c.CoreV1().Pods(ns).Create(ctx, testPod("p", nil), metav1.CreateOptions{})
			return err
		},
		want: []string{warn},
	}, {
		name: "dry-run pod",
		do: func(c kubernetes.Interface) error {
			_, err := c.CoreV1().Pods(ns).Create(ctx, testPod("p-dry", nil), metav1.CreateOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		},
		want: []string{warn},
	}, {
		name: "pod meeting the level",
		do: func(c kubernetes.Interface) error {
			_, err := c.CoreV1().Pods(ns).Create(ctx, restrictedPod("ok"), metav1.CreateOptions{})
			return err
		},
	}, {
		name: "deployment",
		do: func(c kubernetes.Interface) error {
			_, err := c.AppsV1().Deployments(ns).Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"},
				Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Selector: sel, Template: podTemplate(corev1.RestartPolicyAlways)}}, metav1.CreateOptions{})
			return err
		},
		want: []string{warn},
	}, {
		name: "deployment update",
		do: func(c kubernetes.Interface) error {
			_, err := c.AppsV1().Deployments(ns).Patch(ctx, "d", types.MergePatchType, []byte(`{"metadata":{"labels":{"touched":"yes"}}}`), metav1.PatchOptions{})
			return err
		},
		want: []string{warn},
	}, {
		name: "deployment scale (a subresource)",
		do: func(c kubernetes.Interface) error {
			// The deployment controller writes the Deployment meanwhile.
			return retry.RetryOnConflict(retry.DefaultRetry, func() error {
				s, err := c.AppsV1().Deployments(ns).GetScale(ctx, "d", metav1.GetOptions{})
				if err != nil {
					return err
				}
				s.Spec.Replicas = 0
				_, err = c.AppsV1().Deployments(ns).UpdateScale(ctx, "d", s, metav1.UpdateOptions{})
				return err
			})
		},
	}, {
		name: "replicaset",
		do: func(c kubernetes.Interface) error {
			_, err := c.AppsV1().ReplicaSets(ns).Create(ctx, &appsv1.ReplicaSet{ObjectMeta: metav1.ObjectMeta{Name: "rs"},
				Spec: appsv1.ReplicaSetSpec{Replicas: ptr.To[int32](0), Selector: sel, Template: podTemplate(corev1.RestartPolicyAlways)}}, metav1.CreateOptions{})
			return err
		},
		want: []string{warn},
	}, {
		name: "statefulset",
		do: func(c kubernetes.Interface) error {
			_, err := c.AppsV1().StatefulSets(ns).Create(ctx, &appsv1.StatefulSet{ObjectMeta: metav1.ObjectMeta{Name: "ss"},
				Spec: appsv1.StatefulSetSpec{Replicas: ptr.To[int32](0), ServiceName: "web", Selector: sel, Template: podTemplate(corev1.RestartPolicyAlways)}}, metav1.CreateOptions{})
			return err
		},
		want: []string{warn},
	}, {
		name: "daemonset",
		do: func(c kubernetes.Interface) error {
			_, err := c.AppsV1().DaemonSets(ns).Create(ctx, &appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Name: "ds"},
				Spec: appsv1.DaemonSetSpec{Selector: sel, Template: podTemplate(corev1.RestartPolicyAlways)}}, metav1.CreateOptions{})
			return err
		},
		want: []string{warn},
	}, {
		name: "job",
		do: func(c kubernetes.Interface) error {
			_, err := c.BatchV1().Jobs(ns).Create(ctx, &batchv1.Job{ObjectMeta: metav1.ObjectMeta{Name: "j"},
				Spec: batchv1.JobSpec{Suspend: ptr.To(true), Template: podTemplate(corev1.RestartPolicyNever)}}, metav1.CreateOptions{})
			return err
		},
		want: []string{warn},
	}, {
		name: "cronjob",
		do: func(c kubernetes.Interface) error {
			_, err := c.BatchV1().CronJobs(ns).Create(ctx, &batchv1.CronJob{ObjectMeta: metav1.ObjectMeta{Name: "cj"},
				Spec: batchv1.CronJobSpec{Schedule: "0 0 1 1 *", Suspend: ptr.To(true),
					JobTemplate: batchv1.JobTemplateSpec{Spec: batchv1.JobSpec{Template: podTemplate(corev1.RestartPolicyNever)}}}}, metav1.CreateOptions{})
			return err
		},
		want: []string{warn},
	}, {
		name: "replicationcontroller",
		do: func(c kubernetes.Interface) error {
			tmpl := podTemplate(corev1.RestartPolicyAlways)
			_, err := c.CoreV1().ReplicationControllers(ns).Create(ctx, &corev1.ReplicationController{ObjectMeta: metav1.ObjectMeta{Name: "rc"},
				Spec: corev1.ReplicationControllerSpec{Replicas: ptr.To[int32](0), Selector: map[string]string{"app": "web"}, Template: &tmpl}}, metav1.CreateOptions{})
			return err
		},
		want: []string{warn},
	}, {
		name: "podtemplate",
		do: func(c kubernetes.Interface) error {
			_, err := c.CoreV1().PodTemplates(ns).Create(ctx, &corev1.PodTemplate{ObjectMeta: metav1.ObjectMeta{Name: "pt"},
				Template: podTemplate(corev1.RestartPolicyAlways)}, metav1.CreateOptions{})
			return err
		},
		want: []string{warn},
	}, {
		name: "deployment where restricted is enforced",
		do: func(c kubernetes.Interface) error {
			_, err := c.AppsV1().Deployments("enforced").Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"},
				Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Selector: sel, Template: podTemplate(corev1.RestartPolicyAlways)}}, metav1.CreateOptions{})
			return err
		},
		want: []string{warn},
	}, {
		name: "deployment where no label is set",
		do: func(c kubernetes.Interface) error {
			_, err := c.AppsV1().Deployments("default").Create(ctx, &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"},
				Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](0), Selector: sel, Template: podTemplate(corev1.RestartPolicyAlways)}}, metav1.CreateOptions{})
			return err
		},
	}}
	for _, tc := range cases {
		// In order: the update and scale cases use the deployment.
		client, warnings := clientWithWarnings(t, cp)
		if err := tc.do(client); err != nil {
			t.Errorf("%s: %v", tc.name, err)
			continue
		}
		if got := warnings.Messages(); !slices.Equal(got, tc.want) {
			t.Errorf("%s: warnings\n%q\nwant\n%q", tc.name, got, tc.want)
		}
	}
}

func TestAdmissionPodSecurityNamespaceLabels(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	admin := kubernetesClient(t, cp)
	ctx := context.Background()
	const ns = "apps"
	podSecurityNamespace(t, admin, ns, nil)
	for _, p := range []*corev1.Pod{testPod("b", nil), testPod("a", nil), privilegedPod("c"), restrictedPod("d")} {
		if _, err := admin.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	restrictedReasons := "allowPrivilegeEscalation != false, unrestricted capabilities, runAsNonRoot != true, seccompProfile"
	cases := []struct {
		name         string
		labels       map[string]string
		dryRun       bool
		wantErr      string
		wantWarnings []string
	}{{
		name:    "an unknown level",
		labels:  map[string]string{"pod-security.kubernetes.io/enforce": "bogus"},
		wantErr: `Namespace "apps" is invalid: metadata.labels[pod-security.kubernetes.io/enforce]: Invalid value: "bogus": must be one of privileged, baseline, restricted`,
	}, {
		name:    "a malformed version",
		labels:  map[string]string{"pod-security.kubernetes.io/warn-version": "1.30"},
		wantErr: `Namespace "apps" is invalid: metadata.labels[pod-security.kubernetes.io/warn-version]: Invalid value: "1.30": must be "latest" or "v1.x"`,
	}, {
		name:   "a dry-run enforce of restricted",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"},
		dryRun: true,
		wantWarnings: []string{
			`existing pods in namespace "apps" violate the new PodSecurity enforce level "restricted:latest"`,
			`a (and 1 other pod): ` + restrictedReasons,
			`c: privileged, ` + restrictedReasons,
		},
	}, {
		name:   "enforce baseline",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"},
		wantWarnings: []string{
			`existing pods in namespace "apps" violate the new PodSecurity enforce level "baseline:latest"`,
			`c: privileged`,
		},
	}, {
		name:   "warn and audit leave the enforced level as it is",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/warn": "restricted", "pod-security.kubernetes.io/audit": "restricted"},
	}, {
		name:   "enforce restricted",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "restricted"},
		wantWarnings: []string{
			`existing pods in namespace "apps" violate the new PodSecurity enforce level "restricted:latest"`,
			`a (and 1 other pod): ` + restrictedReasons,
			`c: privileged, ` + restrictedReasons,
		},
	}, {
		name:   "back to baseline (a relaxed level is not checked)",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline"},
	}, {
		name:   "an older version of baseline",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "baseline", "pod-security.kubernetes.io/enforce-version": "v1.22"},
		wantWarnings: []string{
			`existing pods in namespace "apps" violate the new PodSecurity enforce level "baseline:v1.22"`,
			`c: privileged`,
		},
	}, {
		name:   "privileged",
		labels: map[string]string{"pod-security.kubernetes.io/enforce": "privileged"},
	}}
	for _, tc := range cases {
		client, warnings := clientWithWarnings(t, cp)
		cur, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		before := cur.Labels
		cur.Labels = map[string]string{"kubernetes.io/metadata.name": ns}
		for k, v := range tc.labels {
			cur.Labels[k] = v
		}
		var opts metav1.UpdateOptions
		if tc.dryRun {
			opts.DryRun = []string{metav1.DryRunAll}
		}
		_, err = client.CoreV1().Namespaces().Update(ctx, cur, opts)
		switch {
		case tc.wantErr != "" && (!apierrors.IsInvalid(err) || err.Error() != tc.wantErr):
			t.Errorf("%s: %v\nwant 422 %s", tc.name, err, tc.wantErr)
		case tc.wantErr == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		}
		if got := warnings.Messages(); !slices.Equal(got, tc.wantWarnings) {
			t.Errorf("%s: warnings\n%q\nwant\n%q", tc.name, got, tc.wantWarnings)
		}
		if tc.dryRun || tc.wantErr != "" {
			after, err := client.CoreV1().Namespaces().Get(ctx, ns, metav1.GetOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !maps.Equal(after.Labels, before) {
				t.Errorf("%s: labels changed to %v", tc.name, after.Labels)
			}
		}
	}
	// A namespace cannot be created with an invalid label either.
	_, err := admin.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "bad",
		Labels: map[string]string{"pod-security.kubernetes.io/audit": "none"}}}, metav1.CreateOptions{})
	want := `Namespace "bad" is invalid: metadata.labels[pod-security.kubernetes.io/audit]: Invalid value: "none": must be one of privileged, baseline, restricted`
	if !apierrors.IsInvalid(err) || err.Error() != want {
		t.Errorf("create bad: %v\nwant 422 %s", err, want)
	}
}

func TestAdmissionPodSecurityPodUpdates(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	const ns = "tight"
	podSecurityNamespace(t, client, ns, nil)
	pods := client.CoreV1().Pods(ns)
	// "old" predates the enforced level and breaks it; "ok" meets it.
	old := testPod("old", nil)
	old.Spec.SchedulerName = "nobody"
	for _, p := range []*corev1.Pod{old, restrictedPod("ok")} {
		if _, err := pods.Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := client.CoreV1().Namespaces().Patch(ctx, ns, types.MergePatchType,
		[]byte(`{"metadata":{"labels":{"pod-security.kubernetes.io/enforce":"restricted"}}}`), metav1.PatchOptions{}); err != nil {
		t.Fatal(err)
	}
	refused := func(name, detail string) string {
		return `pods "` + name + `" is forbidden: violates PodSecurity "restricted:latest": ` + detail
	}
	cases := []struct {
		name string
		do   func() error
		want string // "" when admitted
	}{{
		name: "a label change of a pod breaking the level",
		do: func() error {
			_, err := pods.Patch(ctx, "old", types.MergePatchType, []byte(`{"metadata":{"labels":{"x":"y"}}}`), metav1.PatchOptions{})
			return err
		},
	}, {
		name: "an image change of a pod breaking the level",
		do: func() error {
			_, err := pods.Patch(ctx, "old", types.StrategicMergePatchType, []byte(`{"spec":{"containers":[{"name":"app","image":"registry.k8s.io/pause:3.9"}]}}`), metav1.PatchOptions{})
			return err
		},
		want: refused("old", restrictedDetail),
	}, {
		name: "a dry-run image change of a pod breaking the level",
		do: func() error {
			_, err := pods.Patch(ctx, "old", types.StrategicMergePatchType, []byte(`{"spec":{"containers":[{"name":"app","image":"registry.k8s.io/pause:3.9"}]}}`), metav1.PatchOptions{DryRun: []string{metav1.DryRunAll}})
			return err
		},
		want: refused("old", restrictedDetail),
	}, {
		name: "an image change of a pod meeting the level",
		do: func() error {
			_, err := pods.Patch(ctx, "ok", types.StrategicMergePatchType, []byte(`{"spec":{"containers":[{"name":"app","image":"registry.k8s.io/pause:3.9"}]}}`), metav1.PatchOptions{})
			return err
		},
	}, {
		name: "a status write",
		do: func() error {
			p, err := pods.Get(ctx, "old", metav1.GetOptions{})
			if err != nil {
				return err
			}
			p.Status.Conditions = append(p.Status.Conditions, corev1.PodCondition{Type: "example.com/ready", Status: corev1.ConditionTrue})
			_, err = pods.UpdateStatus(ctx, p, metav1.UpdateOptions{})
			return err
		},
	}, {
		name: "a binding",
		do: func() error {
			return pods.Bind(ctx, &corev1.Binding{ObjectMeta: metav1.ObjectMeta{Name: "old"}, Target: corev1.ObjectReference{Kind: "Node", Name: "node-a"}}, metav1.CreateOptions{})
		},
	}, {
		name: "an ephemeral container breaking the level",
		do: func() error {
			p, err := pods.Get(ctx, "ok", metav1.GetOptions{})
			if err != nil {
				return err
			}
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, ephemeral("dbg"))
			_, err = pods.UpdateEphemeralContainers(ctx, "ok", p, metav1.UpdateOptions{})
			return err
		},
		want: refused("ok", `allowPrivilegeEscalation != false (container "dbg" must set securityContext.allowPrivilegeEscalation=false), `+
			`unrestricted capabilities (container "dbg" must set securityContext.capabilities.drop=["ALL"])`),
	}, {
		name: "an ephemeral container meeting the level",
		do: func() error {
			p, err := pods.Get(ctx, "ok", metav1.GetOptions{})
			if err != nil {
				return err
			}
			e := ephemeral("dbg")
			e.SecurityContext = &corev1.SecurityContext{AllowPrivilegeEscalation: ptr.To(false), Capabilities: &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}}}
			p.Spec.EphemeralContainers = append(p.Spec.EphemeralContainers, e)
			_, err = pods.UpdateEphemeralContainers(ctx, "ok", p, metav1.UpdateOptions{})
			return err
		},
	}}
	for _, tc := range cases {
		err := tc.do()
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!apierrors.IsForbidden(err) || err.Error() != tc.want):
			t.Errorf("%s: %v\nwant 403 %s", tc.name, err, tc.want)
		}
	}
	got, err := pods.Get(ctx, "old", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got.Spec.NodeName != "node-a" || got.Labels["x"] != "y" || got.Spec.Containers[0].Image != "registry.k8s.io/pause:3.10" {
		t.Errorf("old: node %q labels %v image %s", got.Spec.NodeName, got.Labels, got.Spec.Containers[0].Image)
	}
}
