package fakeplane_test

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
)

// The messages below come from upstream's source (k8s.io/kubernetes
// v1.37.2, plugin/pkg/admission/limitranger and storage/storageclass),
// not from a live kube-apiserver run.

func TestAdmissionLimitRanger(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	if _, err := client.CoreV1().LimitRanges("default").Create(ctx, &corev1.LimitRange{
		ObjectMeta: metav1.ObjectMeta{Name: "limits"},
		Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
			Type:           corev1.LimitTypeContainer,
			Default:        corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("500m"), corev1.ResourceMemory: resource.MustParse("256Mi")},
			DefaultRequest: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("100m")},
			Max:            corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("1")},
		}, {
			Type: corev1.LimitTypePersistentVolumeClaim,
			Max:  corev1.ResourceList{corev1.ResourceStorage: resource.MustParse("1Gi")},
		}}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	// Defaults fill what the pod leaves out, and are recorded.
	pod, err := client.CoreV1().Pods("default").Create(ctx, testPod("defaulted", nil), metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	res := pod.Spec.Containers[0].Resources
	if res.Limits.Cpu().String() != "500m" || res.Limits.Memory().String() != "256Mi" || res.Requests.Cpu().String() != "100m" || res.Requests.Memory().String() != "256Mi" {
		t.Fatalf("resources = %v", res)
	}
	if got, want := pod.Annotations["kubernetes.io/limit-ranger"], "LimitRanger plugin set: cpu, memory request for container app; cpu, memory limit for container app"; got != want {
		t.Fatalf("annotation = %q, want %q", got, want)
	}
	cases := []struct {
		name string
		make func() error
		want string
	}{{
		name: "container over max",
		make: func() error {
			p := testPod("big", nil)
			p.Spec.Containers[0].Resources.Limits = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("2")}
			_, err := client.CoreV1().Pods("default").Create(ctx, p, metav1.CreateOptions{})
			return err
		},
		want: `pods "big" is forbidden: maximum cpu usage per Container is 1, but limit is 2`,
	}, {
		name: "claim over max",
		make: func() error {
			_, err := client.CoreV1().PersistentVolumeClaims("default").Create(ctx, testClaim("big", "2Gi", nil), metav1.CreateOptions{})
			return err
		},
		want: `persistentvolumeclaims "big" is forbidden: maximum storage usage per PersistentVolumeClaim is 1Gi, but request is 2Gi`,
	}}
	for _, tc := range cases {
		err := tc.make()
		if !apierrors.IsForbidden(err) || err.Error() != tc.want {
			t.Errorf("%s: got %v, want 403 %s", tc.name, err, tc.want)
		}
	}
}

// testClaim is a PersistentVolumeClaim of size, in class (nil: none named).
func testClaim(name, size string, class *string) *corev1.PersistentVolumeClaim {
	return &corev1.PersistentVolumeClaim{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PersistentVolumeClaimSpec{
			AccessModes:      []corev1.PersistentVolumeAccessMode{corev1.ReadWriteOnce},
			Resources:        corev1.VolumeResourceRequirements{Requests: corev1.ResourceList{corev1.ResourceStorage: resource.MustParse(size)}},
			StorageClassName: class,
		},
	}
}

func TestAdmissionDefaultStorageClass(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	for _, sc := range []*storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "slow"}, Provisioner: "example.com/slow"},
		{ObjectMeta: metav1.ObjectMeta{Name: "standard", Annotations: map[string]string{"storageclass.kubernetes.io/is-default-class": "true"}}, Provisioner: "example.com/standard"},
	} {
		if _, err := client.StorageV1().StorageClasses().Create(ctx, sc, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	cases := []struct {
		name  string
		class *string
		want  string
	}{
		{name: "unnamed", want: "standard"},
		{name: "named", class: ptr.To("slow"), want: "slow"},
		{name: "none", class: ptr.To(""), want: ""},
	}
	for _, tc := range cases {
		pvc, err := client.CoreV1().PersistentVolumeClaims("default").Create(ctx, testClaim(tc.name, "1Gi", tc.class), metav1.CreateOptions{})
		if err != nil {
			t.Fatal(err)
		}
		if pvc.Spec.StorageClassName == nil || *pvc.Spec.StorageClassName != tc.want {
			t.Errorf("%s: storageClassName = %v, want %q", tc.name, pvc.Spec.StorageClassName, tc.want)
		}
	}
}

func TestAdmissionResourceQuota(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	if _, err := client.CoreV1().ResourceQuotas("default").Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "compute"},
		Spec: corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{
			corev1.ResourcePods:        resource.MustParse("2"),
			corev1.ResourceRequestsCPU: resource.MustParse("1"),
			"count/deployments.apps":   resource.MustParse("0"),
		}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	used := func() string {
		q, err := client.CoreV1().ResourceQuotas("default").Get(ctx, "compute", metav1.GetOptions{})
		if err != nil {
			t.Fatal(err)
		}
		return q.Status.Used.Pods().String() + " pods, " + q.Status.Used.Name(corev1.ResourceRequestsCPU, resource.DecimalSI).String() + " cpu"
	}
	if got := used(); got != "0 pods, 0 cpu" {
		t.Fatalf("used at start: %s", got)
	}
	withCPU := func(name, cpu string) *corev1.Pod {
		p := testPod(name, nil)
		p.Spec.Containers[0].Resources.Requests = corev1.ResourceList{corev1.ResourceCPU: resource.MustParse(cpu)}
		return p
	}
	cases := []struct {
		name     string
		pod      *corev1.Pod
		want     string // "" for created
		wantUsed string
	}{
		{name: "no request", pod: testPod("bare", nil), want: `pods "bare" is forbidden: failed quota: compute: must specify requests.cpu for: app`, wantUsed: "0 pods, 0 cpu"},
		{name: "first", pod: withCPU("p1", "400m"), wantUsed: "1 pods, 400m cpu"},
		{name: "second", pod: withCPU("p2", "400m"), wantUsed: "2 pods, 800m cpu"},
		{name: "over", pod: withCPU("p3", "400m"), want: `pods "p3" is forbidden: exceeded quota: compute, requested: pods=1,requests.cpu=400m, used: pods=2,requests.cpu=800m, limited: pods=2,requests.cpu=1`, wantUsed: "2 pods, 800m cpu"},
	}
	for _, tc := range cases {
		_, err := client.CoreV1().Pods("default").Create(ctx, tc.pod, metav1.CreateOptions{})
		switch {
		case tc.want == "" && err != nil:
			t.Fatalf("%s: %v", tc.name, err)
		case tc.want != "" && (!apierrors.IsForbidden(err) || err.Error() != tc.want):
			t.Fatalf("%s: got %v, want 403 %s", tc.name, err, tc.want)
		}
		if got := used(); got != tc.wantUsed {
			t.Fatalf("%s: used %s, want %s", tc.name, got, tc.wantUsed)
		}
	}
	// Object counts of any resource.
	_, err := client.AppsV1().Deployments("default").Create(ctx, newDeployment("d", 1), metav1.CreateOptions{})
	if want := `deployments.apps "d" is forbidden: exceeded quota: compute, requested: count/deployments.apps=1, used: count/deployments.apps=0, limited: count/deployments.apps=0`; err == nil || err.Error() != want {
		t.Fatalf("deployment: got %v, want %s", err, want)
	}
	// Deleting a pod gives its share back.
	if err := client.CoreV1().Pods("default").Delete(ctx, "p1", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := used(); got != "1 pods, 400m cpu" {
		t.Fatalf("used after delete: %s", got)
	}
	if _, err := client.CoreV1().Pods("default").Create(ctx, withCPU("p3", "400m"), metav1.CreateOptions{}); err != nil {
		t.Fatalf("within the quota again: %v", err)
	}
}

func TestAdmissionResourceQuotaOnUpdate(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	client := kubernetesClient(t, cp)
	ctx := context.Background()
	if _, err := client.CoreV1().ResourceQuotas("default").Create(ctx, &corev1.ResourceQuota{
		ObjectMeta: metav1.ObjectMeta{Name: "lb"},
		Spec:       corev1.ResourceQuotaSpec{Hard: corev1.ResourceList{corev1.ResourceServicesLoadBalancers: resource.MustParse("0")}},
	}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	svc, err := client.CoreV1().Services("default").Create(ctx, &corev1.Service{
		ObjectMeta: metav1.ObjectMeta{Name: "web"},
		Spec:       corev1.ServiceSpec{Ports: []corev1.ServicePort{{Port: 80}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	svc.Spec.Type = corev1.ServiceTypeLoadBalancer
	_, err = client.CoreV1().Services("default").Update(ctx, svc, metav1.UpdateOptions{})
	if want := `services "web" is forbidden: exceeded quota: lb, requested: services.loadbalancers=1, used: services.loadbalancers=0, limited: services.loadbalancers=0`; !apierrors.IsForbidden(err) || err.Error() != want {
		t.Fatalf("got %v, want %s", err, want)
	}
}
