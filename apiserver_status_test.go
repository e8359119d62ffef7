package fakeplane_test

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	apimeta "k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestFlowSchemaDanglingConditionAsKubeAPIServer: kube-apiserver's priority
// and fairness config consumer applies each FlowSchema's Dangling
// condition to its status, as the field manager
// api-priority-and-fairness-config-consumer-v1. The reasons, messages and
// managedFields entry are kube-apiserver v1.37's (recorded from refplane).
func TestFlowSchemaDanglingConditionAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	fss := cs.FlowcontrolV1().FlowSchemas()
	for _, fs := range []*flowcontrolv1.FlowSchema{
		{ObjectMeta: metav1.ObjectMeta{Name: "to-missing"}, Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "later"}, MatchingPrecedence: 500}},
		{ObjectMeta: metav1.ObjectMeta{Name: "to-global"}, Spec: flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "global-default"}, MatchingPrecedence: 501}},
	} {
		if _, err := fss.Create(ctx, fs, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	condition := func(name string) (c flowcontrolv1.FlowSchemaCondition, manager string) {
		fs, err := fss.Get(ctx, name, metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		for _, c := range fs.Status.Conditions {
			if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
				for _, e := range fs.ManagedFields {
					if e.Subresource == "status" && e.Operation == metav1.ManagedFieldsOperationApply {
						manager = e.Manager
					}
				}
				return c, manager
			}
		}
		return flowcontrolv1.FlowSchemaCondition{}, ""
	}
	for _, tc := range []struct {
		name, status, reason, message string
	}{
		{"to-missing", "True", "NotFound", `This FlowSchema references the PriorityLevelConfiguration object named "later" but there is no such object`},
		{"to-global", "False", "Found", `This FlowSchema references the PriorityLevelConfiguration object named "global-default" and it exists`},
		{"exempt", "False", "Found", `This FlowSchema references the PriorityLevelConfiguration object named "exempt" and it exists`},
	} {
		var got flowcontrolv1.FlowSchemaCondition
		var manager string
		waitFor(t, func() bool { got, manager = condition(tc.name); return got.Reason == tc.reason })
		if string(got.Status) != tc.status || got.Message != tc.message || got.LastTransitionTime.IsZero() || manager != "api-priority-and-fairness-config-consumer-v1" {
			t.Errorf("%s: condition %+v by %q", tc.name, got, manager)
		}
	}
	// The bootstrap FlowSchemas are the config producer's.
	exempt, err := fss.Get(ctx, "exempt", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	var managers []string
	for _, e := range exempt.ManagedFields {
		managers = append(managers, e.Manager+"/"+string(e.Operation)+"/"+e.Subresource)
	}
	if want := "api-priority-and-fairness-config-consumer-v1/Apply/status api-priority-and-fairness-config-producer-v1/Update/"; strings.Join(managers, " ") != want {
		t.Errorf("exempt's managers %v, want %s", managers, want)
	}
	// The level created, the condition turns.
	pl := &flowcontrolv1.PriorityLevelConfiguration{
		ObjectMeta: metav1.ObjectMeta{Name: "later"},
		Spec: flowcontrolv1.PriorityLevelConfigurationSpec{Type: flowcontrolv1.PriorityLevelEnablementLimited, Limited: &flowcontrolv1.LimitedPriorityLevelConfiguration{
			LimitResponse: flowcontrolv1.LimitResponse{Type: flowcontrolv1.LimitResponseTypeReject},
		}},
	}
	if _, err := cs.FlowcontrolV1().PriorityLevelConfigurations().Create(ctx, pl, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(t, func() bool { c, _ := condition("to-missing"); return c.Reason == "Found" && c.Status == "False" })
}

// TestDefaultServiceCIDRReadyAsKubeAPIServer: kube-apiserver's default
// ServiceCIDR controller applies Ready=True to the "kubernetes"
// ServiceCIDR's status as the field manager
// kubernetes-service-cidr-controller, without a reason (recorded from
// refplane). kube-controller-manager's service-cidr-controller, which
// would apply its own message over it, is off.
func TestDefaultServiceCIDRReadyAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithControllers("*", "-service-cidr-controller"))
	cs := clientset(t, cp)
	ctx := ctxT(t)
	var sc *networkingv1.ServiceCIDR
	waitFor(t, func() bool {
		var err error
		sc, err = cs.NetworkingV1().ServiceCIDRs().Get(ctx, "kubernetes", metav1.GetOptions{})
		return err == nil && len(sc.Status.Conditions) == 1
	})
	c := sc.Status.Conditions[0]
	if c.Type != "Ready" || c.Status != metav1.ConditionTrue || c.Reason != "" || c.Message != "Kubernetes default Service CIDR is ready" || c.LastTransitionTime.IsZero() {
		t.Errorf("condition %+v", c)
	}
	var entry *metav1.ManagedFieldsEntry
	for i, e := range sc.ManagedFields {
		if e.Subresource == "status" {
			entry = &sc.ManagedFields[i]
		}
	}
	const fields = `{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:status":{},"f:type":{}}}}}`
	if entry == nil || entry.Manager != "kubernetes-service-cidr-controller" || entry.Operation != metav1.ManagedFieldsOperationApply || string(entry.FieldsV1.Raw) != fields {
		t.Errorf("status entry %+v", entry)
	}
}

// TestLegacyTokenTrackingConfigMap: kube-apiserver records in kube-system
// the day (UTC, on the control plane's clock) it began tracking legacy
// service account tokens, as refplane shows.
func TestLegacyTokenTrackingConfigMap(t *testing.T) {
	t.Parallel()
	day := time.Date(2030, 1, 2, 23, 30, 0, 0, time.FixedZone("x", -2*3600)) // 2030-01-03 in UTC
	cp := fakeplane.Start(t, fakeplane.WithClock(func() time.Time { return day }))
	cm, err := clientset(t, cp).CoreV1().ConfigMaps("kube-system").Get(ctxT(t), "kube-apiserver-legacy-service-account-token-tracking", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if got := cm.Data["since"]; got != "2030-01-03" || len(cm.Data) != 1 {
		t.Errorf("data %v, want since 2030-01-03", cm.Data)
	}
	if len(cm.ManagedFields) != 1 || cm.ManagedFields[0].Manager != "kube-apiserver" {
		t.Errorf("managedFields %+v", cm.ManagedFields)
	}
}

// TestKubernetesServiceAsKubeAPIServer: the kubernetes Service's create by
// kube-apiserver records its address and IP family policy, not the address
// list and families allocation fills in after it (recorded from refplane).
func TestKubernetesServiceAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	svc, err := clientset(t, cp).CoreV1().Services("default").Get(ctxT(t), "kubernetes", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(svc.ManagedFields) != 1 {
		t.Fatalf("managedFields %+v", svc.ManagedFields)
	}
	const fields = `{"f:metadata":{"f:labels":{".":{},"f:component":{},"f:provider":{}}},"f:spec":{"f:clusterIP":{},"f:internalTrafficPolicy":{},"f:ipFamilyPolicy":{},"f:ports":{".":{},"k:{\"port\":443,\"protocol\":\"TCP\"}":{".":{},"f:name":{},"f:port":{},"f:protocol":{},"f:targetPort":{}}},"f:sessionAffinity":{},"f:type":{}}}`
	if e := svc.ManagedFields[0]; e.Manager != "kube-apiserver" || e.Operation != metav1.ManagedFieldsOperationUpdate || string(e.FieldsV1.Raw) != fields {
		t.Errorf("managedFields entry %s %s %s, want kube-apiserver Update %s", e.Manager, e.Operation, e.FieldsV1.Raw, fields)
	}
	if svc.Spec.ClusterIP != "10.0.0.1" || len(svc.Spec.ClusterIPs) != 1 || svc.Spec.ClusterIPs[0] != "10.0.0.1" || len(svc.Spec.IPFamilies) != 1 || svc.Spec.IPFamilies[0] != corev1.IPv4Protocol {
		t.Errorf("spec %+v", svc.Spec)
	}
}

// TestServiceCIDRsAsKubeControllerManager: kube-controller-manager's
// service-cidr-controller gives every ServiceCIDR, the default one too, its
// finalizer and applies its Ready condition ("Kubernetes Service CIDR is
// ready", over kube-apiserver's on the default one), as the field managers
// kube-controller-manager and service-cidr-controller; a deleted
// ServiceCIDR that an allocated address depends on alone is Ready=False,
// Terminating, and goes ten seconds after its deletion once nothing does.
// The objects are those refplane's kube-controller-manager wrote.
func TestServiceCIDRsAsKubeControllerManager(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	cs := clientset(t, cp)
	ctx := ctxT(t)
	if _, err := cs.NetworkingV1().ServiceCIDRs().Create(ctx, &networkingv1.ServiceCIDR{
		ObjectMeta: metav1.ObjectMeta{Name: "extra"}, Spec: networkingv1.ServiceCIDRSpec{CIDRs: []string{"10.200.0.0/24"}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ready := func(name, status, reason, message string) {
		t.Helper()
		var sc *networkingv1.ServiceCIDR
		waitFor(t, func() bool {
			var err error
			sc, err = cs.NetworkingV1().ServiceCIDRs().Get(ctx, name, metav1.GetOptions{})
			c := apimeta.FindStatusCondition(sc.Status.Conditions, "Ready")
			return err == nil && c != nil && string(c.Status) == status && c.Reason == reason && c.Message == message
		})
		if !slices.Equal(sc.Finalizers, []string{"networking.k8s.io/service-cidr-finalizer"}) {
			t.Errorf("%s: finalizers %v", name, sc.Finalizers)
		}
		managers := map[string]string{}
		for _, e := range sc.ManagedFields {
			managers[e.Manager+"/"+string(e.Operation)+"/"+e.Subresource] = string(e.FieldsV1.Raw)
		}
		if got := managers["service-cidr-controller/Apply/status"]; got != `{"f:status":{"f:conditions":{"k:{\"type\":\"Ready\"}":{".":{},"f:lastTransitionTime":{},"f:message":{},"f:reason":{},"f:status":{},"f:type":{}}}}}` {
			t.Errorf("%s: the controller's status entry %s", name, got)
		}
		if got := managers["kube-controller-manager/Update/"]; got != `{"f:metadata":{"f:finalizers":{".":{},"v:\"networking.k8s.io/service-cidr-finalizer\"":{}}}}` {
			t.Errorf("%s: the finalizer's entry %s", name, got)
		}
	}
	ready("kubernetes", "True", "", "Kubernetes Service CIDR is ready")
	ready("extra", "True", "", "Kubernetes Service CIDR is ready")
	// Services take addresses from it, asked for or not (kube-apiserver's
	// allocator picks a ready range at random).
	svc := func(name, ip string) (*corev1.Service, error) {
		return cs.CoreV1().Services("default").Create(ctx, &corev1.Service{ObjectMeta: metav1.ObjectMeta{Name: name},
			Spec: corev1.ServiceSpec{ClusterIP: ip, Ports: []corev1.ServicePort{{Port: 80}}}}, metav1.CreateOptions{})
	}
	if s, err := svc("in-extra", "10.200.0.5"); err != nil || s.Spec.ClusterIP != "10.200.0.5" {
		t.Fatalf("a Service in the new range: %v %v", err, s)
	}
	fromExtra := false
	for i := 0; i < 64 && !fromExtra; i++ {
		s, err := svc(fmt.Sprintf("any-%d", i), "")
		if err != nil {
			t.Fatal(err)
		}
		fromExtra = strings.HasPrefix(s.Spec.ClusterIP, "10.200.0.")
	}
	if !fromExtra {
		t.Error("64 Services, none from the new range")
	}
	for i := 0; i < 64; i++ {
		if err := cs.CoreV1().Services("default").Delete(ctx, fmt.Sprintf("any-%d", i), metav1.DeleteOptions{}); err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
	}
	// An address allocated in it, and in no other, holds its deletion;
	// while it is deleted, it takes no more.
	if err := cs.NetworkingV1().ServiceCIDRs().Delete(ctx, "extra", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	ready("extra", "False", "Terminating", "There are still IPAddresses referencing the ServiceCIDR, please remove them or create a new ServiceCIDR")
	if _, err := svc("late", "10.200.0.9"); err == nil || !strings.Contains(err.Error(), "failed to allocate IP 10.200.0.9: the provided network does not match the current range") {
		t.Errorf("a Service in a deleted range: %v", err)
	}
	if err := cs.CoreV1().Services("default").Delete(ctx, "in-extra", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	eventuallyT(t, "the ServiceCIDR gone", func(ctx context.Context) (bool, error) {
		_, err := cs.NetworkingV1().ServiceCIDRs().Get(ctx, "extra", metav1.GetOptions{})
		return apierrors.IsNotFound(err), nil
	})
}
