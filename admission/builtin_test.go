package admission_test

import (
	"fmt"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"

	"github.com/fakeplane/fakeplane/admission"
)

// The messages below come from upstream's source (k8s.io/kubernetes
// v1.37.2, plugin/pkg/admission/limitranger and k8s.io/apiserver v0.37.2,
// pkg/admission/plugin/resourcequota), not from a live run.

func resources(kv ...string) corev1.ResourceList {
	l := corev1.ResourceList{}
	for i := 0; i < len(kv); i += 2 {
		l[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return l
}

func podWith(requests, limits corev1.ResourceList) *corev1.Pod {
	return &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "app", Resources: corev1.ResourceRequirements{Requests: requests, Limits: limits}}}},
	}
}

func TestValidatePodResourcesRefusesWhatTheLimitRangeForbids(t *testing.T) {
	ranges := []corev1.LimitRange{{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type:                 corev1.LimitTypeContainer,
		Min:                  resources("cpu", "100m"),
		Max:                  resources("memory", "1Gi"),
		MaxLimitRequestRatio: resources("cpu", "2"),
	}, {
		Type: corev1.LimitTypePod,
		Max:  resources("cpu", "2"),
	}}}}}
	cases := []struct {
		name      string
		req, lim  corev1.ResourceList
		wantError string
	}{
		{name: "within", req: resources("cpu", "200m", "memory", "1Gi"), lim: resources("cpu", "300m", "memory", "1Gi")},
		{name: "under min", req: resources("cpu", "50m"), lim: resources("cpu", "100m", "memory", "1Gi"), wantError: "minimum cpu usage per Container is 100m, but request is 50m"},
		{name: "no request", lim: resources("memory", "1Gi"), wantError: "[minimum cpu usage per Container is 100m.  No request is specified, cpu max limit to request ratio per Container is 2, but no request is specified or request is 0, maximum cpu usage per Pod is 2.  No limit is specified]"},
		{name: "ratio", req: resources("cpu", "100m"), lim: resources("cpu", "400m", "memory", "1Gi"), wantError: "cpu max limit to request ratio per Container is 2, but provided ratio is 4.000000"},
		{name: "over max", req: resources("cpu", "1"), lim: resources("cpu", "1", "memory", "2Gi"), wantError: "maximum memory usage per Container is 1Gi, but limit is 2Gi"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := admission.ValidatePodResources(podWith(tc.req, tc.lim), ranges)
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantError {
				t.Fatalf("got %q, want %q", got, tc.wantError)
			}
		})
	}
}

func TestDefaultPodResourcesFillsWhatIsMissingAndAnnotates(t *testing.T) {
	ranges := []corev1.LimitRange{{Spec: corev1.LimitRangeSpec{Limits: []corev1.LimitRangeItem{{
		Type:           corev1.LimitTypeContainer,
		Default:        resources("cpu", "1", "memory", "1Gi"),
		DefaultRequest: resources("cpu", "500m"),
	}}}}}
	pod := podWith(nil, resources("memory", "2Gi"))
	admission.DefaultPodResources(pod, ranges)
	res := pod.Spec.Containers[0].Resources
	if res.Limits.Cpu().String() != "1" || res.Limits.Memory().String() != "2Gi" || res.Requests.Cpu().String() != "500m" {
		t.Fatalf("resources = %+v", res)
	}
	if got, want := pod.Annotations[admission.LimitRangerAnnotation], "LimitRanger plugin set: cpu request for container app; cpu limit for container app"; got != want {
		t.Fatalf("annotation %q, want %q", got, want)
	}
}

func TestAdmitQuotaRefusesOverTheHardLimits(t *testing.T) {
	pods := schema.GroupResource{Resource: "pods"}
	quotas := []corev1.ResourceQuota{{ObjectMeta: metav1.ObjectMeta{Name: "q"}, Spec: corev1.ResourceQuotaSpec{Hard: resources("pods", "2", "limits.memory", "1Gi")}}}
	cases := []struct {
		name      string
		pod       *corev1.Pod
		used      corev1.ResourceList
		wantError string
	}{
		{name: "fits", pod: podWith(nil, resources("memory", "512Mi")), used: resources("pods", "1", "limits.memory", "512Mi")},
		{name: "too many", pod: podWith(nil, resources("memory", "1Mi")), used: resources("pods", "2", "limits.memory", "0"), wantError: "exceeded quota: q, requested: pods=1, used: pods=2, limited: pods=2"},
		{name: "no limit", pod: podWith(nil, nil), used: resources("pods", "0", "limits.memory", "0"), wantError: "failed quota: q: must specify limits.memory for: app"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			err := admission.AdmitQuota(pods, tc.pod, nil, quotas, []corev1.ResourceList{tc.used})
			got := ""
			if err != nil {
				got = err.Error()
			}
			if got != tc.wantError {
				t.Fatalf("got %q, want %q", got, tc.wantError)
			}
		})
	}
}

func TestQuotaUsageOfATerminatedPodIsItsCount(t *testing.T) {
	pod := podWith(resources("cpu", "1"), nil)
	pod.Status.Phase = corev1.PodSucceeded
	u := admission.QuotaUsage(schema.GroupResource{Resource: "pods"}, pod)
	if len(u) != 1 || u.Name("count/pods", resource.DecimalSI).Value() != 1 {
		t.Fatalf("usage = %v", u)
	}
}

// A claim that names no class gets the newest default StorageClass.
func ExampleDefaultStorageClass() {
	now := time.Now()
	classes := []storagev1.StorageClass{
		{ObjectMeta: metav1.ObjectMeta{Name: "old", CreationTimestamp: metav1.NewTime(now.Add(-time.Hour)), Annotations: map[string]string{admission.IsDefaultStorageClassAnnotation: "true"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "new", CreationTimestamp: metav1.NewTime(now), Annotations: map[string]string{admission.IsDefaultStorageClassAnnotation: "true"}}},
		{ObjectMeta: metav1.ObjectMeta{Name: "fast"}},
	}
	pvc := &corev1.PersistentVolumeClaim{}
	admission.DefaultStorageClass(pvc, classes)
	fmt.Println(*pvc.Spec.StorageClassName)
	// Output: new
}
