package admission

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	k8sadmission "k8s.io/apiserver/pkg/admission"
)

func TestOptinDenyServiceExternalIPsRefusesNewExternalIPs(t *testing.T) {
	svc := func(ips ...string) *corev1.Service {
		return &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: "web", Namespace: "ns"}, Spec: corev1.ServiceSpec{ExternalIPs: ips}}
	}
	denied := optinWant{msg: `services "web" is forbidden: Use of external IPs is denied by admission control`, code: 403, reason: optinForbidden}
	cases := []struct {
		name        string
		op          k8sadmission.Operation
		subresource string
		obj, old    *corev1.Service
		want        optinWant
	}{
		{name: "create without", op: k8sadmission.Create, obj: svc()},
		{name: "create with", op: k8sadmission.Create, obj: svc("1.1.1.1"), want: denied},
		{name: "update adding the first", op: k8sadmission.Update, obj: svc("1.1.1.1"), old: svc(), want: denied},
		{name: "update adding another", op: k8sadmission.Update, obj: svc("1.1.1.1", "2.2.2.2"), old: svc("1.1.1.1"), want: denied},
		{name: "update replacing", op: k8sadmission.Update, obj: svc("2.2.2.2"), old: svc("1.1.1.1"), want: denied},
		{name: "update keeping", op: k8sadmission.Update, obj: svc("2.2.2.2", "1.1.1.1"), old: svc("1.1.1.1", "2.2.2.2")},
		{name: "update removing", op: k8sadmission.Update, obj: svc("1.1.1.1"), old: svc("1.1.1.1", "2.2.2.2")},
		{name: "update removing all", op: k8sadmission.Update, obj: svc(), old: svc("1.1.1.1")},
		{name: "status subresource", op: k8sadmission.Update, subresource: "status", obj: svc("1.1.1.1"), old: svc()},
		{name: "delete", op: k8sadmission.Delete, obj: svc("1.1.1.1")},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var old runtime.Object
			if tc.old != nil {
				old = tc.old
			}
			a := optinAttrs(tc.op, "Service", "services", tc.subresource, "ns", "web", tc.obj, old)
			tc.want.check(t, DenyServiceExternalIPsValidate(a))
		})
	}
}

func TestOptinDenyServiceExternalIPsIgnoresOtherResourcesAndRefusesNonServices(t *testing.T) {
	pod := optinTestPod("p", nil)
	if err := DenyServiceExternalIPsValidate(optinPodAttrs(k8sadmission.Create, "", pod, nil)); err != nil {
		t.Fatal(err)
	}
	a := optinAttrs(k8sadmission.Create, "Pod", "services", "", "ns", "p", pod, nil)
	optinWant{msg: "Internal error occurred: Expected Service resource, got: /v1, Kind=Pod", code: 500, reason: optinInternal}.check(t, DenyServiceExternalIPsValidate(a))
}
