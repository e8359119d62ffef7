package main

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// TestAdmissionPluginFlagsAreChecked: the plugin flags' names are checked
// at start, with kube-apiserver's errors on one line.
func TestAdmissionPluginFlagsAreChecked(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{[]string{"--enable-admission-plugins", "Foo"}, `enable-admission-plugins plugin "Foo" is unknown`},
		{[]string{"--enable-admission-plugins", "AlwaysPullImages,ServiceAccount", "--disable-admission-plugins", "ServiceAccount"},
			`[ServiceAccount] in enable-admission-plugins and disable-admission-plugins overlapped`},
		{[]string{"--admission-control", "AlwaysAdmit", "--enable-admission-plugins", "AlwaysPullImages"},
			`admission-control and enable-admission-plugins/disable-admission-plugins flags are mutually exclusive`},
	} {
		args := append([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "k")}, tc.args...)
		err := run(args)
		if err == nil || !strings.Contains(err.Error(), tc.want) || strings.Contains(err.Error(), "\n") {
			t.Errorf("%v: %v, want one line with %q", tc.args, err, tc.want)
		}
	}
}

// TestAdmissionPluginFlags: a pod created through a command started with
// the admission flags shows what they chose.
func TestAdmissionPluginFlags(t *testing.T) {
	kubeconfig := filepath.Join(t.TempDir(), "admin.kubeconfig")
	startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", kubeconfig,
		"--disable-admission-plugins", "ServiceAccount", "--enable-admission-plugins", "AlwaysPullImages",
		"--default-not-ready-toleration-seconds", "30", "--default-unreachable-toleration-seconds", "40")
	cfg, err := clientcmd.BuildConfigFromFlags("", kubeconfig)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	pod := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: "p"}, Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox", ImagePullPolicy: corev1.PullNever}}}}
	got, err := kubernetes.NewForConfigOrDie(cfg).CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(got.Spec.Volumes) != 0 {
		t.Errorf("--disable-admission-plugins=ServiceAccount: volumes %v, want none", got.Spec.Volumes)
	}
	if p := got.Spec.Containers[0].ImagePullPolicy; p != corev1.PullAlways {
		t.Errorf("--enable-admission-plugins=AlwaysPullImages: imagePullPolicy %q, want Always", p)
	}
	var seconds []int64
	for _, tol := range got.Spec.Tolerations {
		seconds = append(seconds, *tol.TolerationSeconds)
	}
	if len(seconds) != 2 || seconds[0] != 30 || seconds[1] != 40 {
		t.Errorf("toleration seconds %v, want [30 40]", seconds)
	}
}
