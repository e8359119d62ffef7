package main

import (
	"context"
	"os"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// TestNodesAndSchedulerConfigFlags runs the command with --nodes and
// --scheduler-config and a data directory: a pod for the configured
// profile is bound to a simulated node, and after a restart (which finds
// its nodes and takes the scheduler's Lease again) the next one too.
func TestNodesAndSchedulerConfigFlags(t *testing.T) {
	dir := t.TempDir()
	cfg := filepath.Join(dir, "sched.yaml")
	if err := os.WriteFile(cfg, []byte("apiVersion: kubescheduler.config.k8s.io/v1\nkind: KubeSchedulerConfiguration\nprofiles:\n- schedulerName: default-scheduler\n- schedulerName: my-scheduler\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(dir, "kc")
	args := []string{"--listen", "127.0.0.1:0", "--kubeconfig", kc, "--data-dir", filepath.Join(dir, "data"), "--nodes", "2", "--scheduler-config", cfg}
	for i, name := range []string{"first", "second"} {
		p := startFakeplane(t, nil, args...)
		rc, err := clientcmd.BuildConfigFromFlags("", kc)
		if err != nil {
			t.Fatal(err)
		}
		client := kubernetes.NewForConfigOrDie(rc)
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		nodes, err := client.CoreV1().Nodes().List(ctx, metav1.ListOptions{})
		if err != nil || len(nodes.Items) != 2 {
			t.Fatalf("run %d: nodes %v, %v; want node-0 and node-1", i, nodes, err)
		}
		pod := &corev1.Pod{
			ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: "default"},
			Spec:       corev1.PodSpec{SchedulerName: "my-scheduler", Containers: []corev1.Container{{Name: "c", Image: "pause"}}},
		}
		if _, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
		err = wait.PollUntilContextCancel(ctx, 20*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			got, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
			return err == nil && got.Spec.NodeName != "", err
		})
		cancel()
		if err != nil {
			t.Fatalf("run %d: pod %s not bound: %v", i, name, err)
		}
		if err := p.signal(t, syscall.SIGTERM, 30*time.Second); err != nil {
			t.Fatalf("exit after SIGTERM: %v", err)
		}
	}
}
