package kubelet_test

import (
	"fmt"

	"github.com/fakeplane/fakeplane/kubelet"
)

// The third node the simulator creates.
func ExampleNewNode() {
	n := kubelet.NewNode(2)
	fmt.Println(n.Name, n.Spec.PodCIDR, n.Status.Addresses[0].Address, n.Labels["kubernetes.io/hostname"], n.Annotations[kubelet.ManagedAnnotation])
	// Output: node-2 10.128.2.0/24 10.89.0.4 node-2 fake
}
