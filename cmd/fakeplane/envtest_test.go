package main

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	authorizationv1 "k8s.io/api/authorization/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// TestRunsAsEnvtestsKubeAPIServer runs controller-runtime's envtest with
// the command linked as the kube-apiserver of its binary assets, on
// envtest's etcd: envtest starts it with its own flags (--secure-port,
// --bind-address, --cert-dir with the serving pair it wrote, its client
// CA, service-account keys and etcd), and its clients work: CRDs it
// installs are served, its admin user is system:masters and the users it
// adds are authorized by RBAC, and no controller runs (kube-apiserver
// alone).
func TestRunsAsEnvtestsKubeAPIServer(t *testing.T) {
	assets := envtestAssets(t)
	env := &envtest.Environment{
		BinaryAssetsDirectory: assets,
		CRDs: []*apiextensionsv1.CustomResourceDefinition{{
			ObjectMeta: metav1.ObjectMeta{Name: "widgets.example.com"},
			Spec: apiextensionsv1.CustomResourceDefinitionSpec{
				Group: "example.com", Scope: apiextensionsv1.NamespaceScoped,
				Names: apiextensionsv1.CustomResourceDefinitionNames{Plural: "widgets", Singular: "widget", Kind: "Widget", ListKind: "WidgetList"},
				Versions: []apiextensionsv1.CustomResourceDefinitionVersion{{Name: "v1", Served: true, Storage: true,
					Schema: &apiextensionsv1.CustomResourceValidation{OpenAPIV3Schema: &apiextensionsv1.JSONSchemaProps{Type: "object",
						Properties: map[string]apiextensionsv1.JSONSchemaProps{"spec": {Type: "object", Properties: map[string]apiextensionsv1.JSONSchemaProps{"size": {Type: "integer"}}}}}}}},
			},
		}},
	}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("envtest start: %v", err)
	}
	stopped := false
	t.Cleanup(func() {
		if !stopped {
			_ = env.Stop()
		}
	})
	ctx := context.Background()
	// Run as kube-apiserver, the command writes no kubeconfig where it
	// runs.
	if _, err := os.Stat("fakeplane.kubeconfig"); !os.IsNotExist(err) {
		t.Errorf("a kubeconfig in the working directory: %v", err)
	}
	var warnings warningRecorder
	cfg.WarningHandler = &warnings
	client := kubernetes.NewForConfigOrDie(cfg)

	v, err := client.Discovery().ServerVersion()
	if err != nil {
		t.Fatalf("version: %v", err)
	}
	if v.GitVersion == "" {
		t.Fatalf("version %+v: no gitVersion", v)
	}

	// The CRD envtest installed is served.
	dyn := dynamic.NewForConfigOrDie(cfg)
	widgets := dyn.Resource(schema.GroupVersionResource{Group: "example.com", Version: "v1", Resource: "widgets"}).Namespace("default")
	w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w"}, "spec": map[string]any{"size": int64(3), "color": "red"}}}
	got, err := widgets.Create(ctx, w, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("create widget: %v", err)
	}
	if _, found, _ := unstructured.NestedFieldNoCopy(got.Object, "spec", "color"); found {
		t.Errorf("spec.color kept; the schema prunes it: %v", got.Object["spec"])
	}
	if want := []string{`unknown field "spec.color"`}; !slices.Equal(warnings.messages(), want) {
		t.Errorf("warnings %q, want %q", warnings.messages(), want)
	}

	// kube-apiserver alone: a Deployment gets no ReplicaSet, and the
	// privileged pod envtest's --allow-privileged=true allows is created.
	dep := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d"}, Spec: appsv1.DeploymentSpec{
		Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"app": "d"}},
		Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": "d"}},
			Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}}}}}
	if _, err := client.AppsV1().Deployments("default").Create(ctx, dep, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create deployment: %v", err)
	}
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox",
		SecurityContext: &corev1.SecurityContext{Privileged: ptr.To(true)}}}}}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create privileged pod: %v", err)
	}
	// The ServiceAccount admission plugin is off, as envtest turns it off:
	// the pod has no token volume and no default ServiceAccount is needed.
	p, err := client.CoreV1().Pods("default").Get(ctx, "p", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("get pod: %v", err)
	}
	if len(p.Spec.Volumes) != 0 {
		t.Errorf("pod volumes %v: the ServiceAccount plugin ran", p.Spec.Volumes)
	}
	rs, err := client.AppsV1().ReplicaSets("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatalf("list replicasets: %v", err)
	}
	if len(rs.Items) != 0 {
		t.Errorf("%d ReplicaSets: a deployment controller runs", len(rs.Items))
	}

	// A user envtest adds, with its client certificate, is who it says,
	// and RBAC decides what it may do.
	user, err := env.AddUser(envtest.User{Name: "alice", Groups: []string{"team"}}, nil)
	if err != nil {
		t.Fatalf("add user: %v", err)
	}
	alice := kubernetes.NewForConfigOrDie(user.Config())
	review, err := alice.AuthorizationV1().SelfSubjectAccessReviews().Create(ctx, &authorizationv1.SelfSubjectAccessReview{Spec: authorizationv1.SelfSubjectAccessReviewSpec{
		ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "default", Verb: "list", Resource: "pods"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatalf("self subject access review: %v", err)
	}
	if review.Status.Allowed {
		t.Errorf("alice may list pods without a binding: %+v", review.Status)
	}
	_, err = alice.CoreV1().Pods("default").List(ctx, metav1.ListOptions{})
	if !apierrors.IsForbidden(err) {
		t.Fatalf("alice lists pods: %v, want 403", err)
	}
	if want := `pods is forbidden: User "alice" cannot list resource "pods" in API group "" in the namespace "default"`; err.Error() != want {
		t.Errorf("alice's error %q, want %q", err, want)
	}

	stopped = true
	if err := env.Stop(); err != nil {
		t.Fatalf("envtest stop: %v", err)
	}
}

// envtestAssets is a directory of envtest's binary assets: the test binary
// linked as kube-apiserver, where it runs the command, and as etcd, where
// it runs etcd's (see TestMain).
func envtestAssets(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	for _, name := range []string{kubeAPIServerName, "etcd"} {
		if err := os.Symlink(os.Args[0], filepath.Join(dir, name)); err != nil {
			t.Fatal(err)
		}
	}
	t.Setenv(runMainEnv, "1")
	return dir
}

// warningRecorder keeps the warnings a client is sent.
type warningRecorder struct {
	mu   sync.Mutex
	msgs []string
}

// HandleWarningHeader records one warning (rest.WarningHandler).
func (w *warningRecorder) HandleWarningHeader(_ int, _ string, msg string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.msgs = append(w.msgs, msg)
}

// messages are the warnings recorded so far.
func (w *warningRecorder) messages() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.msgs)
}
