// Package schedulers is the seed walkthrough "Configure Multiple
// Schedulers": pods name their scheduler in spec.schedulerName; the
// control plane's default scheduler binds its own, a pod for my-scheduler
// stays Pending until a scheduler with that profile runs, and the events
// say who scheduled each pod.
package schedulers

import (
	"context"
	"slices"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/kubernetes"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/examples/internal/walkthrough"
	"github.com/fakeplane/fakeplane/scheduler"
)

func TestMultipleSchedulers(t *testing.T) {
	// Two simulated nodes, as the walkthrough recommends, and the
	// built-in default-scheduler. RBAC is on (the default).
	cp := fakeplane.Start(t, fakeplane.WithNodes(2))
	admin := kubernetes.NewForConfigOrDie(cp.RESTConfig())
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()

	walkthrough.Run(t, cp, []walkthrough.Step{
		{Args: []string{"create", "-f", "my-scheduler.yaml"}, Stdout: `(?s)serviceaccount/my-scheduler created.*configmap/my-scheduler-config created`},
		{Args: []string{"create", "-f", "pod1.yaml"}, Stdout: `^pod/no-annotation created$`},
		{Args: []string{"create", "-f", "pod2.yaml"}, Stdout: `^pod/annotation-default-scheduler created$`},
		{Args: []string{"create", "-f", "pod3.yaml"}, Stdout: `^pod/annotation-second-scheduler created$`},
	})

	// The default scheduler binds the first two.
	for _, name := range []string{"no-annotation", "annotation-default-scheduler"} {
		p := waitFor(t, admin, name, func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
		if p.Spec.SchedulerName != "default-scheduler" {
			t.Errorf("%s: schedulerName %q, want the API server's default", name, p.Spec.SchedulerName)
		}
		if by := scheduledBy(t, admin, name); by != "default-scheduler" {
			t.Errorf("%s was scheduled by %q, want default-scheduler", name, by)
		}
	}
	// No scheduler owns annotation-second-scheduler yet: it stays Pending,
	// with no PodScheduled condition and no event.
	pending, err := admin.CoreV1().Pods("default").Get(ctx, "annotation-second-scheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if pending.Spec.NodeName != "" || pending.Status.Phase != corev1.PodPending || len(pending.Status.Conditions) != 0 {
		t.Fatalf("annotation-second-scheduler before my-scheduler runs: node %q phase %q conditions %+v", pending.Spec.NodeName, pending.Status.Phase, pending.Status.Conditions)
	}
	if evs := eventsAbout(t, admin, "annotation-second-scheduler"); len(evs) != 0 {
		t.Fatalf("events about annotation-second-scheduler before my-scheduler runs: %+v", evs)
	}

	// "If RBAC is enabled on your cluster, you must update the
	// system:kube-scheduler cluster role": add my-scheduler to the Lease
	// names kube-scheduler may get and update (kubectl edit does GET, then
	// PATCH; an update is the same change).
	role, err := admin.RbacV1().ClusterRoles().Get(ctx, "system:kube-scheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i, r := range role.Rules {
		if slices.Contains(r.Resources, "leases") && slices.Contains(r.ResourceNames, "kube-scheduler") {
			role.Rules[i].ResourceNames = append(r.ResourceNames, "my-scheduler")
		}
	}
	if _, err := admin.RbacV1().ClusterRoles().Update(ctx, role, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}

	// What the seed's Deployment runs: kube-scheduler with the
	// ConfigMap's configuration, as the ServiceAccount my-scheduler.
	cm, err := admin.CoreV1().ConfigMaps("kube-system").Get(ctx, "my-scheduler-config", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	cfg, err := scheduler.LoadConfig([]byte(cm.Data["my-scheduler-config.yaml"]))
	if err != nil {
		t.Fatal(err)
	}
	saConfig, err := cp.ServiceAccountConfig("kube-system", "my-scheduler")
	if err != nil {
		t.Fatal(err)
	}
	mySched, err := scheduler.New(kubernetes.NewForConfigOrDie(saConfig), cfg, scheduler.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := mySched.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(mySched.Stop)

	// "Once ... our new scheduler starts running, the
	// annotation-second-scheduler pod gets scheduled as well."
	waitFor(t, admin, "annotation-second-scheduler", func(p *corev1.Pod) bool { return p.Spec.NodeName != "" })
	if by := scheduledBy(t, admin, "annotation-second-scheduler"); by != "my-scheduler" {
		t.Errorf("annotation-second-scheduler was scheduled by %q, want my-scheduler", by)
	}
	lease, err := admin.CoordinationV1().Leases("kube-system").Get(ctx, "my-scheduler", metav1.GetOptions{})
	if err != nil {
		t.Fatalf("my-scheduler's leader-election Lease: %v", err)
	}
	if lease.Spec.HolderIdentity == nil || !strings.Contains(*lease.Spec.HolderIdentity, "_") {
		t.Errorf("my-scheduler's Lease holder = %v, want hostname_uuid", lease.Spec.HolderIdentity)
	}

	// The simulated kubelet runs the bound pods, as the nodes of a
	// cluster do.
	for _, name := range []string{"no-annotation", "annotation-default-scheduler", "annotation-second-scheduler"} {
		waitFor(t, admin, name, func(p *corev1.Pod) bool { return p.Status.Phase == corev1.PodRunning })
	}
	// "look at the "Scheduled" entries in the event logs to verify that the
	// pods were scheduled by the desired schedulers".
	walkthrough.Run(t, cp, []walkthrough.Step{
		{Args: []string{"get", "pods"}, Stdout: `(?s)annotation-default-scheduler\s+1/1\s+Running.*annotation-second-scheduler\s+1/1\s+Running.*no-annotation\s+1/1\s+Running`},
		{Args: []string{"get", "events", "--field-selector", "reason=Scheduled", "-o", "custom-columns=OBJECT:.involvedObject.name,FROM:.reportingComponent"},
			Stdout: `(?s)annotation-default-scheduler\s+default-scheduler.*annotation-second-scheduler\s+my-scheduler.*no-annotation\s+default-scheduler`},
	})
}

// waitFor polls a pod in default until cond holds.
func waitFor(t *testing.T, client kubernetes.Interface, name string, cond func(*corev1.Pod) bool) *corev1.Pod {
	t.Helper()
	var last *corev1.Pod
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		p, err := client.CoreV1().Pods("default").Get(ctx, name, metav1.GetOptions{})
		last = p
		return err == nil && cond(p), err
	})
	if err != nil {
		t.Fatalf("pod %s: %v (last: %+v)", name, err, last.Status)
	}
	return last
}

// eventsAbout lists the events.k8s.io/v1 events regarding a pod.
func eventsAbout(t *testing.T, client kubernetes.Interface, pod string) []string {
	t.Helper()
	list, err := client.EventsV1().Events("default").List(context.Background(), metav1.ListOptions{FieldSelector: fields.OneTermEqualSelector("regarding.name", pod).String()})
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, e := range list.Items {
		out = append(out, e.Reason+": "+e.Note)
	}
	return out
}

// scheduledBy waits for the pod's Scheduled event and returns its
// reportingController: the scheduler name of the profile that bound it.
func scheduledBy(t *testing.T, client kubernetes.Interface, pod string) string {
	t.Helper()
	var by string
	err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 30*time.Second, true, func(ctx context.Context) (bool, error) {
		list, err := client.EventsV1().Events("default").List(ctx, metav1.ListOptions{FieldSelector: fields.Set{"regarding.name": pod, "reason": "Scheduled"}.String()})
		if err != nil || len(list.Items) == 0 {
			return false, err
		}
		by = list.Items[0].ReportingController
		return true, nil
	})
	if err != nil {
		t.Fatalf("no Scheduled event for %s: %v", pod, err)
	}
	return by
}
