package fakeplane_test

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// kubeSchedulerBinary finds a real kube-scheduler: $FAKEPLANE_KUBE_SCHEDULER
// or ~/.cache/refplane/bin/kube-scheduler.
func kubeSchedulerBinary() string {
	if p := os.Getenv("FAKEPLANE_KUBE_SCHEDULER"); p != "" {
		return p
	}
	home, err := os.UserHomeDir()
	if err != nil {
		return ""
	}
	p := filepath.Join(home, ".cache", "refplane", "bin", "kube-scheduler")
	if _, err := os.Stat(p); err != nil {
		return ""
	}
	return p
}

// TestExternalKubeSchedulerBindsOnlyItsPods runs the real kube-scheduler
// against fakeplane's kubeconfig, with a profile the built-in scheduler
// does not have, next to the built-in default-scheduler: each binds its own
// pods and only those.
func TestExternalKubeSchedulerBindsOnlyItsPods(t *testing.T) {
	bin := kubeSchedulerBinary()
	if bin == "" {
		t.Skip("no kube-scheduler binary: set FAKEPLANE_KUBE_SCHEDULER or put one at ~/.cache/refplane/bin/kube-scheduler to run this test")
	}
	cp := fakeplane.Start(t, fakeplane.WithNodes(2))
	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx := context.Background()

	dir := t.TempDir()
	cfg := filepath.Join(dir, "config.yaml")
	if err := os.WriteFile(cfg, []byte(strings.Join([]string{
		"apiVersion: kubescheduler.config.k8s.io/v1",
		"kind: KubeSchedulerConfiguration",
		"clientConnection:",
		"  kubeconfig: " + cp.KubeconfigPath(),
		"leaderElection:",
		"  leaderElect: false",
		"profiles:",
		"- schedulerName: external-scheduler",
		"",
	}, "\n")), 0o600); err != nil {
		t.Fatal(err)
	}
	for _, p := range []*corev1.Pod{pausePod("ext-0", "external-scheduler", "100m"), pausePod("ext-1", "external-scheduler", "100m"), pausePod("builtin", "", "100m"), pausePod("nobodys", "nobody", "")} {
		if _, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cmdCtx, cancel := context.WithCancel(ctx)
	cmd := exec.CommandContext(cmdCtx, bin, "--config", cfg, "--secure-port", "0", "-v", "2")
	var logs strings.Builder
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = cmd.Wait()
		if t.Failed() {
			t.Logf("kube-scheduler's log:\n%s", logs.String())
		}
	})

	for _, name := range []string{"ext-0", "ext-1"} {
		waitPod(t, client, name, func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
		if ev := waitEvent(t, client, name, "Scheduled"); ev.ReportingController != "external-scheduler" {
			t.Errorf("%s scheduled by %q, want external-scheduler", name, ev.ReportingController)
		}
	}
	waitPod(t, client, "builtin", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if ev := waitEvent(t, client, "builtin", "Scheduled"); ev.ReportingController != "default-scheduler" {
		t.Errorf("builtin scheduled by %q, want default-scheduler", ev.ReportingController)
	}
	p, err := client.CoreV1().Pods("default").Get(ctx, "nobodys", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if p.Spec.NodeName != "" || len(p.Status.Conditions) != 0 {
		t.Errorf("a pod of no running scheduler: node %q conditions %+v", p.Spec.NodeName, p.Status.Conditions)
	}
}
