package fakeplane_test

import (
	"context"
	"fmt"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// BenchmarkDeployment100Replicas measures a Deployment of 100 replicas from
// its creation to all of them available: the deployment controller's
// ReplicaSet, the replicaset controller's 100 pods, the test kubelet making
// them ready, and the status flowing back up.
func BenchmarkDeployment100Replicas(b *testing.B) {
	cp := fakeplane.Start(b)
	startTestKubelet(b, cp, nil)
	cs := clientset(b, cp)
	ctx := context.Background()
	b.ResetTimer()
	for i := range b.N {
		name := fmt.Sprintf("bench-%d", i)
		if _, err := cs.AppsV1().Deployments("default").Create(ctx, webDeployment(name, 100, "nginx:1.27"), metav1.CreateOptions{}); err != nil {
			b.Fatal(err)
		}
		waitRolledOut(b, cs, "default", name)
		b.StopTimer()
		// Each round starts from an empty namespace.
		if err := cs.AppsV1().Deployments("default").Delete(ctx, name, metav1.DeleteOptions{}); err != nil {
			b.Fatal(err)
		}
		waitWorkload(b, "pods of "+name+" gone", func() (bool, string) {
			n := len(podsOf(b, cs, "default", map[string]string{"app": name}))
			return n == 0, fmt.Sprintf("%d pods", n)
		})
		b.StartTimer()
	}
}
