package kubelet

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

func TestDesiredStatusIsAHealthyKubelets(t *testing.T) {
	now := metav1.NewTime(time.Unix(1000, 0))
	for _, tc := range []struct {
		name    string
		node    *corev1.Node
		wantCPU string
	}{
		{"a created node gets the default capacity", NewNode(0), "32"},
		{"a user's node keeps its capacity", &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "mine"},
			Status: corev1.NodeStatus{Capacity: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("4")}}}, "4"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := desiredStatus(tc.node, now, nil)
			if got := st.Allocatable.Cpu().String(); got != tc.wantCPU {
				t.Errorf("allocatable cpu %s, want %s", got, tc.wantCPU)
			}
			want := map[corev1.NodeConditionType]corev1.ConditionStatus{
				corev1.NodeReady: corev1.ConditionTrue, corev1.NodeMemoryPressure: corev1.ConditionFalse,
				corev1.NodeDiskPressure: corev1.ConditionFalse, corev1.NodePIDPressure: corev1.ConditionFalse,
			}
			for _, c := range st.Conditions {
				if want[c.Type] != c.Status || c.Reason == "" || !c.LastHeartbeatTime.Equal(&now) {
					t.Errorf("condition %+v", c)
				}
				delete(want, c.Type)
			}
			if len(want) != 0 {
				t.Errorf("missing conditions %v", want)
			}
			if st.NodeInfo.KubeletVersion != KubeletVersion || st.NodeInfo.OperatingSystem != "linux" || st.DaemonEndpoints.KubeletEndpoint.Port != 10250 {
				t.Errorf("node info %+v", st.NodeInfo)
			}
			hostname := false
			for _, a := range st.Addresses {
				hostname = hostname || a.Type == corev1.NodeHostName && a.Address == tc.node.Name
			}
			if !hostname {
				t.Errorf("addresses %+v lack the Hostname", st.Addresses)
			}
			// A node already reporting this needs no update, later too.
			n := tc.node.DeepCopy()
			n.Status = st
			if later := metav1.NewTime(now.Add(time.Minute)); !statusUpToDate(n, later, nil) {
				t.Error("an up-to-date status is rewritten")
			}
		})
	}
}
