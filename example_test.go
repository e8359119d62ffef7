package fakeplane_test

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
)

// A control plane for a program that is not a test: New, Start, Stop.
func ExampleNew() {
	ctx := context.Background()
	cp, err := fakeplane.New()
	if err != nil {
		panic(err)
	}
	if err := cp.Start(ctx); err != nil {
		panic(err)
	}
	defer cp.Stop()

	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	namespaces, err := client.CoreV1().Namespaces().List(ctx, metav1.ListOptions{})
	if err != nil {
		panic(err)
	}
	for _, ns := range namespaces.Items {
		fmt.Println(ns.Name, ns.Status.Phase)
	}
	// Output:
	// default Active
	// kube-node-lease Active
	// kube-public Active
	// kube-system Active
}

// Every new namespace gets what a cluster's controllers put there.
func ExampleControlPlane_RESTConfig() {
	ctx := context.Background()
	cp, _ := fakeplane.New()
	if err := cp.Start(ctx); err != nil {
		panic(err)
	}
	defer cp.Stop()

	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	_, err := client.CoreV1().Namespaces().Create(ctx, &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "team-a"}}, metav1.CreateOptions{})
	if err != nil {
		panic(err)
	}
	// The controllers add them a moment after the namespace is created, as
	// on a cluster: wait for them.
	var names []string
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		sa, err := client.CoreV1().ServiceAccounts("team-a").Get(ctx, "default", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		cm, err := client.CoreV1().ConfigMaps("team-a").Get(ctx, "kube-root-ca.crt", metav1.GetOptions{})
		if err != nil {
			return false, nil
		}
		names = []string{sa.Name, cm.Name}
		return true, nil
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(names[0], names[1])
	// Output: default kube-root-ca.crt
}

// Simulated nodes and the built-in scheduler: a pod is bound as on a
// cluster.
func ExampleWithNodes() {
	ctx := context.Background()
	cp, err := fakeplane.New(fakeplane.WithNodes(1))
	if err != nil {
		panic(err)
	}
	if err := cp.Start(ctx); err != nil {
		panic(err)
	}
	defer cp.Stop()

	client := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "default"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "web", Image: "nginx"}}},
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, pod, metav1.CreateOptions{}); err != nil {
		panic(err)
	}
	err = wait.PollUntilContextTimeout(ctx, 10*time.Millisecond, 10*time.Second, true, func(ctx context.Context) (bool, error) {
		pod, err = client.CoreV1().Pods("default").Get(ctx, "web", metav1.GetOptions{})
		return err == nil && pod.Spec.NodeName != "", err
	})
	if err != nil {
		panic(err)
	}
	fmt.Println(pod.Spec.NodeName, pod.Spec.SchedulerName)
	// Output: node-0 default-scheduler
}
