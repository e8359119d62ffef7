package fakeplane_test

import (
	"context"
	"fmt"
	"maps"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// Scoped ResourceQuotas and concurrent creates against one quota. The
// scopes' semantics are upstream's quota evaluators'
// (pkg/quota/v1/evaluator/core); the messages were compared with
// kube-apiserver v1.37.2 (refplane).

func TestResourceQuotaScopes(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	if _, err := client.SchedulingV1().PriorityClasses().Create(ctx, &schedulingv1.PriorityClass{
		ObjectMeta: metav1.ObjectMeta{Name: "high"}, Value: 1000}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, q := range []*corev1.ResourceQuota{
		{ObjectMeta: metav1.ObjectMeta{Name: "best-effort"}, Spec: corev1.ResourceQuotaSpec{
			Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("1")}, Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeBestEffort}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "terminating"}, Spec: corev1.ResourceQuotaSpec{
			Hard: corev1.ResourceList{corev1.ResourcePods: resource.MustParse("0")}, Scopes: []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeTerminating}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "high-priority"}, Spec: corev1.ResourceQuotaSpec{
			Hard: corev1.ResourceList{corev1.ResourceRequestsCPU: resource.MustParse("1")},
			ScopeSelector: &corev1.ScopeSelector{MatchExpressions: []corev1.ScopedResourceSelectorRequirement{{
				ScopeName: corev1.ResourceQuotaScopePriorityClass, Operator: corev1.ScopeSelectorOpIn, Values: []string{"high"}}}}}},
	} {
		if _, err := client.CoreV1().ResourceQuotas("default").Create(ctx, q, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	withCPU := func(name, cpu string) *corev1.Pod {
		p := testPod(name, nil)
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		return p
	}
	cases := []struct {
		name string
		pod  *corev1.Pod
		want string // "" for created
	}{
		{"a best-effort pod counts against the BestEffort quota", testPod("be-1", nil), ""},
		{"a second best-effort pod is over it", testPod("be-2", nil),
			`pods "be-2" is forbidden: exceeded quota: best-effort, requested: pods=1, used: pods=1, limited: pods=1`},
		{"a burstable pod is outside the BestEffort scope", withCPU("burstable", "100m"), ""},
		{"a pod with an active deadline is in the Terminating scope", func() *corev1.Pod {
			p := withCPU("deadline", "100m")
			p.Spec.ActiveDeadlineSeconds = ptr.To[int64](60)
			return p
		}(), `pods "deadline" is forbidden: exceeded quota: terminating, requested: pods=1, used: pods=0, limited: pods=0`},
		{"a pod of PriorityClass high must state its cpu request", func() *corev1.Pod {
			p := testPod("high-bare", nil)
			p.Spec.PriorityClassName = "high"
			return p
		}(), `pods "high-bare" is forbidden: failed quota: high-priority: must specify requests.cpu for: app`},
		{"a pod of PriorityClass high is charged", func() *corev1.Pod {
			p := withCPU("high-1", "800m")
			p.Spec.PriorityClassName = "high"
			return p
		}(), ""},
		{"past the high-priority quota", func() *corev1.Pod {
			p := withCPU("high-2", "300m")
			p.Spec.PriorityClassName = "high"
			return p
		}(), `pods "high-2" is forbidden: exceeded quota: high-priority, requested: requests.cpu=300m, used: requests.cpu=800m, limited: requests.cpu=1`},
		{"a pod without the priority class is not", withCPU("low", "900m"), ""},
	}
	for _, tc := range cases {
		_, err := client.CoreV1().Pods("default").Create(ctx, tc.pod, metav1.CreateOptions{})
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s: %v", tc.name, err)
		case tc.want != "" && (!apierrors.IsForbidden(err) || err.Error() != tc.want):
			t.Errorf("%s: got %v, want 403 %s", tc.name, err, tc.want)
		}
	}
	// status.used counts only what is in scope.
	for name, want := range map[string]string{"best-effort": "1", "terminating": "0"} {
		eventually(t, "used of "+name, func() error {
			q, err := client.CoreV1().ResourceQuotas("default").Get(ctx, name, metav1.GetOptions{})
			if err != nil {
				return err
			}
			if got := q.Status.Used.Pods().String(); got != want {
				return fmt.Errorf("used pods %s, want %s", got, want)
			}
			return nil
		})
	}
	eventually(t, "used of high-priority", func() error {
		q, err := client.CoreV1().ResourceQuotas("default").Get(ctx, "high-priority", metav1.GetOptions{})
		if err != nil {
			return err
		}
		if got := q.Status.Used.Name(corev1.ResourceRequestsCPU, resource.DecimalSI).String(); got != "800m" {
			return fmt.Errorf("used cpu %s, want 800m", got)
		}
		return nil
	})
}

func TestResourceQuotaHoldsUnderConcurrentCreates(t *testing.T) {
	t.Parallel()
	// The resource quota controller alone, so that spec.hard limits at
	// once (without it, only what a quota's status says does).
	cp := fakeplane.Start(t, fakeplane.WithControllers("resourcequota-controller"))
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	const limit, writers = 5, 20
	if _, err := client.CoreV1().ResourceQuotas("default").Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "configs"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceConfigMaps: *resource.NewQuantity(limit, resource.DecimalSI)}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	created, refused := 0, 0
	for i := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, err := client.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("cm-%d", i)}}, metav1.CreateOptions{})
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				created++
			case apierrors.IsForbidden(err):
				refused++
			default:
				t.Errorf("create %d: %v", i, err)
			}
		}()
	}
	wg.Wait()
	if created != limit || refused != writers-limit {
		t.Fatalf("created %d, refused %d; want %d and %d", created, refused, limit, writers-limit)
	}
	lst, err := client.CoreV1().ConfigMaps("default").List(ctx, metav1.ListOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if len(lst.Items) != limit {
		t.Fatalf("%d ConfigMaps stored, want %d", len(lst.Items), limit)
	}
}

// TestResourceQuotaAppliesFromItsCreate checks that a quota created in a
// namespace where writes went without one applies to the very next write,
// and that once it is deleted writes go without it again: the server
// remembers namespaces without quotas only until quotas change.
// (PodTemplates, which no controller creates.)
func TestResourceQuotaAppliesFromItsCreate(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	ns := newBatchNamespace(t, client, "quota-from-create")
	create := func(name string) error {
		_, err := client.CoreV1().PodTemplates(ns).Create(ctx, &corev1.PodTemplate{
			ObjectMeta: metav1.ObjectMeta{Name: name},
			Template:   corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}}},
		}, metav1.CreateOptions{})
		return err
	}
	// Two writes without a quota (the namespace is looked at, found
	// without one, twice).
	for _, name := range []string{"a", "b"} {
		if err := create(name); err != nil {
			t.Fatal(err)
		}
	}
	// At most 2 PodTemplates, and there are 2 already.
	if _, err := client.CoreV1().ResourceQuotas(ns).Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "templates"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{"count/podtemplates": resource.MustParse("2")}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	err := create("c")
	if want := `podtemplates "c" is forbidden: exceeded quota: templates, requested: count/podtemplates=1, used: count/podtemplates=2, limited: count/podtemplates=2`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("create over the new quota: got %v, want 403 %s", err, want)
	}
	if err := client.CoreV1().ResourceQuotas(ns).Delete(ctx, "templates", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, name := range []string{"c", "d"} {
		if err := create(name); err != nil {
			t.Fatalf("create %s once the quota is deleted: %v", name, err)
		}
	}
}

// A ResourceQuota's managedFields name who wrote its status, as on
// refplane: the resource quota controller its hard limits and first usage
// (kube-controller-manager), quota admission what a create charged
// (kube-apiserver), and the controller again what a delete gave back. The
// field sets are refplane's, recorded for the same writes.
func TestResourceQuotaStatusManagers(t *testing.T) {
	t.Parallel()
	ns := "quota-managers"
	client := startWithQuota(t, ns, corev1.ResourceList{"pods": resource.MustParse("2"), "count/podtemplates": resource.MustParse("5")})
	ctx := context.Background()
	statusManagers := func(used string) map[string]string {
		t.Helper()
		var out map[string]string
		eventuallyT(t, "quota used "+used, func(ctx context.Context) (bool, error) {
			q, err := client.CoreV1().ResourceQuotas(ns).Get(ctx, "q", metav1.GetOptions{})
			if err != nil {
				return false, err
			}
			got := q.Status.Used["count/podtemplates"]
			if q.Status.Used == nil || got.String() != used {
				return false, nil
			}
			out = fieldsByManager(q.ManagedFields)
			return true, nil
		})
		return out
	}
	statusManagers("0")
	if _, err := client.CoreV1().PodTemplates(ns).Create(ctx, &corev1.PodTemplate{
		ObjectMeta: metav1.ObjectMeta{Name: "a"},
		Template:   corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	spec := `{"f:spec":{"f:hard":{".":{},"f:count/podtemplates":{},"f:pods":{}}}}`
	want := map[string]string{
		"kubectl-create ":                spec,
		"kube-controller-manager status": `{"f:status":{"f:hard":{".":{},"f:count/podtemplates":{},"f:pods":{}},"f:used":{".":{},"f:pods":{}}}}`,
		"kube-apiserver status":          `{"f:status":{"f:used":{"f:count/podtemplates":{}}}}`,
	}
	if got := statusManagers("1"); !maps.Equal(got, want) {
		t.Errorf("managedFields after the create:\n got %v\nwant %v", got, want)
	}
	if err := client.CoreV1().PodTemplates(ns).Delete(ctx, "a", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	want = map[string]string{
		"kubectl-create ":                spec,
		"kube-controller-manager status": `{"f:status":{"f:hard":{".":{},"f:count/podtemplates":{},"f:pods":{}},"f:used":{".":{},"f:count/podtemplates":{},"f:pods":{}}}}`,
	}
	if got := statusManagers("0"); !maps.Equal(got, want) {
		t.Errorf("managedFields after the delete:\n got %v\nwant %v", got, want)
	}
}

// What quota admission charged stays kube-apiserver's in the quota's
// managedFields while other writes in the namespace (which the controller
// recounts after) commit beside it: a recount never records a charged
// write's usage, found in the store before that write's own refresh, as
// kube-controller-manager's.
func TestResourceQuotaChargesStayKubeAPIServersUnderConcurrentWrites(t *testing.T) {
	t.Parallel()
	ns := "quota-concurrent-managers"
	client := startWithQuota(t, ns, corev1.ResourceList{"count/podtemplates": resource.MustParse("100")})
	ctx := context.Background()
	var wg sync.WaitGroup
	errs := make(chan error, 80)
	for i := range 40 {
		wg.Go(func() {
			_, err := client.CoreV1().PodTemplates(ns).Create(ctx, &corev1.PodTemplate{
				ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("t%d", i)},
				Template:   corev1.PodTemplateSpec{Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Image: "app"}}}},
			}, metav1.CreateOptions{})
			errs <- err
		})
		wg.Go(func() {
			_, err := client.CoreV1().ConfigMaps(ns).Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("c%d", i)}}, metav1.CreateOptions{})
			errs <- err
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		if err != nil {
			t.Fatal(err)
		}
	}
	q, err := client.CoreV1().ResourceQuotas(ns).Get(ctx, "q", metav1.GetOptions{})
	if err != nil {
		t.Fatal(err)
	}
	used := q.Status.Used["count/podtemplates"]
	if used.Value() != 40 {
		t.Fatalf("used %v, want 40", q.Status.Used)
	}
	for _, e := range q.ManagedFields {
		fields := string(e.FieldsV1.Raw)
		switch e.Manager {
		case "kube-apiserver":
			if fields != `{"f:status":{"f:used":{"f:count/podtemplates":{}}}}` {
				t.Errorf("kube-apiserver's fields %s, want status.used's count/podtemplates", fields)
			}
		case "kube-controller-manager":
			if strings.Contains(fields, `"f:used":{".":{},"f:count/podtemplates"`) {
				t.Errorf("kube-controller-manager's fields %s took a charge of quota admission's", fields)
			}
		}
	}
}

// startWithQuota starts a control plane with the namespace ns and in it the
// ResourceQuota q of hard, created by the field manager kubectl-create.
func startWithQuota(t *testing.T, ns string, hard corev1.ResourceList) kubernetes.Interface {
	t.Helper()
	client := kubernetesClient(t, fakeplane.Start(t))
	newBatchNamespace(t, client, ns)
	if _, err := client.CoreV1().ResourceQuotas(ns).Create(context.Background(), &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "q"},
		Spec:       corev1.ResourceQuotaSpec{Hard: hard},
	}, metav1.CreateOptions{FieldManager: "kubectl-create"}); err != nil {
		t.Fatal(err)
	}
	return client
}
