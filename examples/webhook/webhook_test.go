// Package webhook shows a controller-runtime admission webhook (a
// defaulter and a validator for Deployments) tested against fakeplane the
// way envtest's WebhookInstallOptions does it: the control plane installs
// the kubebuilder webhook manifests of config/webhook, pointed at a local
// webhook server with a certificate it makes, and the test runs the
// manager's webhook server there.
package webhook

import (
	"context"
	"errors"
	"fmt"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/healthz"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"
	"sigs.k8s.io/controller-runtime/pkg/webhook/admission"

	"github.com/fakeplane/fakeplane"
)

// teamDefaulter labels Deployments that name no team.
type teamDefaulter struct{}

// Default implements admission.Defaulter.
func (teamDefaulter) Default(_ context.Context, d *appsv1.Deployment) error {
	if d.Labels["team"] == "" {
		if d.Labels == nil {
			d.Labels = map[string]string{}
		}
		d.Labels["team"] = "unowned"
	}
	return nil
}

// maxReplicas is the most replicas replicaValidator allows.
const maxReplicas = 10

// replicaValidator refuses Deployments with more than maxReplicas.
type replicaValidator struct{}

func (replicaValidator) check(d *appsv1.Deployment) (admission.Warnings, error) {
	if d.Spec.Replicas != nil && *d.Spec.Replicas > maxReplicas {
		return nil, fmt.Errorf("spec.replicas must be at most %d", maxReplicas)
	}
	if d.Labels["team"] == "unowned" {
		return admission.Warnings{"deployment " + d.Name + " has no team"}, nil
	}
	return nil, nil
}

// ValidateCreate implements admission.Validator.
func (v replicaValidator) ValidateCreate(_ context.Context, d *appsv1.Deployment) (admission.Warnings, error) {
	return v.check(d)
}

// ValidateUpdate implements admission.Validator.
func (v replicaValidator) ValidateUpdate(_ context.Context, _, d *appsv1.Deployment) (admission.Warnings, error) {
	return v.check(d)
}

// ValidateDelete implements admission.Validator.
func (replicaValidator) ValidateDelete(context.Context, *appsv1.Deployment) (admission.Warnings, error) {
	return nil, nil
}

// warnings records the Warning headers the client receives.
type warnings []string

func (w *warnings) HandleWarningHeader(_ int, _ string, msg string) { *w = append(*w, msg) }

func TestControllerRuntimeWebhooks(t *testing.T) {
	cp := fakeplane.Start(t, fakeplane.WithWebhooks(fakeplane.WebhookInstallOptions{
		Paths: []string{"config/webhook"},
	}))
	serving, _ := cp.WebhookServing()

	mgr, err := ctrl.NewManager(cp.RESTConfig(), ctrl.Options{
		Scheme:  clientgoscheme.Scheme,
		Metrics: metricsserver.Options{BindAddress: "0"},
		WebhookServer: webhook.NewServer(webhook.Options{
			Host: serving.Host, Port: serving.Port, CertDir: serving.CertDir,
			CertName: serving.CertName, KeyName: serving.KeyName,
		}),
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := ctrl.NewWebhookManagedBy(mgr, &appsv1.Deployment{}).
		WithDefaulter(teamDefaulter{}).
		WithValidator(replicaValidator{}).
		Complete(); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	waitServing(t, mgr.GetWebhookServer().StartedChecker())

	var seen warnings
	cfg := cp.RESTConfig()
	cfg.WarningHandler = &seen
	client := kubernetes.NewForConfigOrDie(cfg)

	// The defaulter labels the Deployment, the validator warns about it.
	d, err := client.AppsV1().Deployments("default").Create(ctx, deployment("web", 3), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if d.Labels["team"] != "unowned" {
		t.Fatalf("labels = %v, want the defaulter's team=unowned", d.Labels)
	}
	if len(seen) != 1 || seen[0] != "deployment web has no team" {
		t.Fatalf("warnings = %q", seen)
	}

	// The validator refuses too many replicas, and nothing is stored.
	_, err = client.AppsV1().Deployments("default").Create(ctx, deployment("huge", 20), metav1.CreateOptions{})
	want := `admission webhook "vdeployment.kb.io" denied the request: spec.replicas must be at most 10`
	if err == nil || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
	if _, err := client.AppsV1().Deployments("default").Get(ctx, "huge", metav1.GetOptions{}); err == nil {
		t.Fatal("the refused Deployment was stored")
	}
}

// deployment is a Deployment of pause containers.
func deployment(name string, replicas int32) *appsv1.Deployment {
	labels := map[string]string{"app": name}
	return &appsv1.Deployment{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: appsv1.DeploymentSpec{
			Replicas: &replicas,
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "registry.k8s.io/pause:3.10"}}},
			},
		},
	}
}

// waitServing waits until the webhook server listens.
func waitServing(t *testing.T, check healthz.Checker) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		err := check(nil)
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatal(errors.Join(errors.New("webhook server did not start"), err))
		}
		time.Sleep(10 * time.Millisecond)
	}
}
