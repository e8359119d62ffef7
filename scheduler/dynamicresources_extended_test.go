package scheduler

import (
	"testing"

	"github.com/go-logr/logr"
	corev1 "k8s.io/api/core/v1"
	resourceapi "k8s.io/api/resource/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	resourcelisters "k8s.io/client-go/listers/resource/v1"
	"k8s.io/client-go/tools/cache"
	"k8s.io/dynamic-resource-allocation/deviceclass/extendedresourcecache"
	"k8s.io/utils/ptr"
)

// gpuClass is DeviceClass gpu, backing example.com/gpu (and, implicitly,
// deviceclass.resource.kubernetes.io/gpu) with gpu.example.com's devices.
func gpuClass() *resourceapi.DeviceClass {
	return &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "gpu"}, Spec: resourceapi.DeviceClassSpec{
		ExtendedResourceName: ptr.To("example.com/gpu"),
		Selectors:            []resourceapi.DeviceSelector{{CEL: &resourceapi.CELDeviceSelector{Expression: `device.driver == "gpu.example.com"`}}},
	}}
}

// classCache is upstream's extended resource cache holding classes.
func classCache(classes ...*resourceapi.DeviceClass) *extendedresourcecache.ExtendedResourceCache {
	c := extendedresourcecache.NewExtendedResourceCache(logr.Discard())
	for _, dc := range classes {
		c.OnAdd(dc, true)
	}
	return c
}

// asking is a container asking for the resources (name, quantity pairs).
func asking(name string, kv ...string) corev1.Container {
	rl := corev1.ResourceList{}
	for i := 0; i+1 < len(kv); i += 2 {
		rl[corev1.ResourceName(kv[i])] = resource.MustParse(kv[i+1])
	}
	return corev1.Container{Name: name, Image: "pause", Resources: corev1.ResourceRequirements{Requests: rl}}
}

// mapping is a container's resource served by a request.
func mapping(container, res, request string) corev1.ContainerExtendedResourceRequest {
	return corev1.ContainerExtendedResourceRequest{ContainerName: container, ResourceName: res, RequestName: request}
}

// exactly is a request of count devices of class gpu.
func exactly(name string, count int64) resourceapi.DeviceRequest {
	return resourceapi.DeviceRequest{Name: name, Exactly: &resourceapi.ExactDeviceRequest{DeviceClassName: "gpu", AllocationMode: resourceapi.DeviceAllocationModeExactCount, Count: count}}
}

// TestExtendedRequestsAreKubeSchedulers: the requests of the claim of a
// pod's extended resources and the mappings of its containers, as
// upstream's createRequestsAndMappings (the multi case recorded on
// refplane's kube-scheduler v1.37.2).
func TestExtendedRequestsAreKubeSchedulers(t *testing.T) {
	always := corev1.ContainerRestartPolicyAlways
	sidecar := asking("side", "example.com/gpu", "1")
	sidecar.RestartPolicy = &always
	const gpu = "example.com/gpu"
	for _, tc := range []struct {
		name         string
		init, main   []corev1.Container
		wantRequests []resourceapi.DeviceRequest
		wantMappings []corev1.ContainerExtendedResourceRequest
	}{{
		name:         "one container",
		main:         []corev1.Container{asking("c", gpu, "2")},
		wantRequests: []resourceapi.DeviceRequest{exactly("container-0-request-0", 2)},
		wantMappings: []corev1.ContainerExtendedResourceRequest{mapping("c", gpu, "container-0-request-0")},
	}, {
		name:         "refplane's: an init container served by the next container's request",
		init:         []corev1.Container{asking("init", gpu, "1", "cpu", "10m")},
		main:         []corev1.Container{asking("a", gpu, "1"), asking("b", gpu, "1")},
		wantRequests: []resourceapi.DeviceRequest{exactly("container-1-request-0", 1), exactly("container-2-request-0", 1)},
		wantMappings: []corev1.ContainerExtendedResourceRequest{
			mapping("a", gpu, "container-1-request-0"), mapping("b", gpu, "container-2-request-0"), mapping("init", gpu, "container-1-request-0"),
		},
	}, {
		name: "an init container asking for more than the containers: the rest at its resource's index",
		init: []corev1.Container{asking("init", "cpu", "10m", gpu, "3")},
		main: []corev1.Container{asking("a", gpu, "1")},
		wantRequests: []resourceapi.DeviceRequest{
			exactly("container-0-request-1", 2), exactly("container-1-request-0", 1),
		},
		wantMappings: []corev1.ContainerExtendedResourceRequest{
			mapping("a", gpu, "container-1-request-0"), mapping("init", gpu, "container-1-request-0"), mapping("init", gpu, "container-0-request-1"),
		},
	}, {
		name:         "two init containers: the largest request serves both",
		init:         []corev1.Container{asking("i1", gpu, "1"), asking("i2", gpu, "2")},
		main:         []corev1.Container{asking("c", "cpu", "1")},
		wantRequests: []resourceapi.DeviceRequest{exactly("container-1-request-0", 2)},
		wantMappings: []corev1.ContainerExtendedResourceRequest{
			mapping("i1", gpu, "container-1-request-0"), mapping("i2", gpu, "container-1-request-0"),
		},
	}, {
		name:         "a sidecar runs with the init containers after it: it serves none of them",
		init:         []corev1.Container{sidecar, asking("after", gpu, "1")},
		main:         []corev1.Container{asking("c", gpu, "0")},
		wantRequests: []resourceapi.DeviceRequest{exactly("container-0-request-0", 1), exactly("container-1-request-0", 1)},
		wantMappings: []corev1.ContainerExtendedResourceRequest{
			mapping("side", gpu, "container-0-request-0"), mapping("after", gpu, "container-1-request-0"),
		},
	}, {
		name:         "a sidecar that starts after an init container serves it",
		init:         []corev1.Container{asking("before", gpu, "1"), sidecar},
		wantRequests: []resourceapi.DeviceRequest{exactly("container-1-request-0", 1)},
		wantMappings: []corev1.ContainerExtendedResourceRequest{
			mapping("side", gpu, "container-1-request-0"), mapping("before", gpu, "container-1-request-0"),
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			pod := &corev1.Pod{Spec: corev1.PodSpec{InitContainers: tc.init, Containers: tc.main}}
			reqs, mappings := extendedRequests(pod, map[corev1.ResourceName]int64{gpu: 1}, classCache(gpuClass()))
			if !equality.Semantic.DeepEqual(reqs, tc.wantRequests) {
				t.Errorf("requests %+v, want %+v", reqs, tc.wantRequests)
			}
			if !equality.Semantic.DeepEqual(mappings, tc.wantMappings) {
				t.Errorf("mappings %+v, want %+v", mappings, tc.wantMappings)
			}
		})
	}
}

// TestDRAExtendedResourceNames: extended resource names and implicit
// DeviceClass names may be backed by DRA; native ones may not.
func TestDRAExtendedResourceNames(t *testing.T) {
	for name, want := range map[corev1.ResourceName]bool{
		"example.com/gpu": true, "deviceclass.resource.kubernetes.io/gpu": true,
		"cpu": false, "hugepages-2Mi": false, "kubernetes.io/foo": false, "requests.example.com/gpu": false, "example.com/Bad Name": false,
	} {
		if got := isDRAExtendedResourceName(name); got != want {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
}

// TestNodeResourcesFitLeavesDRABackedResourcesToDRA: NodeResourcesFit
// does not count an extended resource a DeviceClass backs on a node that
// does not advertise it, and counts it as before on one that does, or
// when no DeviceClass backs it (upstream's shouldDelegateResourceToDRA).
func TestNodeResourcesFitLeavesDRABackedResourcesToDRA(t *testing.T) {
	classes := classCache(gpuClass())
	plain := &nodeInfo{}
	plain.setNode(testNode("plain", 4, 110, nil))
	plugged := testNode("plugged", 4, 110, nil)
	plugged.Status.Allocatable["example.com/gpu"] = resource.MustParse("1")
	withPlugin := &nodeInfo{}
	withPlugin.setNode(plugged)
	for _, tc := range []struct {
		name    string
		res     string
		n       *nodeInfo
		classes deviceClassResolver
		want    string
	}{
		{"backed by DRA, not advertised", "example.com/gpu", plain, classes, ""},
		{"implicit class name", "deviceclass.resource.kubernetes.io/gpu", plain, classes, ""},
		{"advertised by a device plugin", "example.com/gpu", withPlugin, classes, "Insufficient example.com/gpu"},
		{"no class backs it", "example.com/tpu", plain, classes, "Insufficient example.com/tpu"},
		{"no DRA watched", "example.com/gpu", plain, nil, "Insufficient example.com/gpu"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			req := resourcesOf(corev1.ResourceList{corev1.ResourceName(tc.res): resource.MustParse("2")})
			reasons, _ := insufficient(req, tc.n, tc.classes)
			got := ""
			if len(reasons) > 0 {
				got = reasons[0]
			}
			if got != tc.want {
				t.Errorf("reasons %v, want %q", reasons, tc.want)
			}
		})
	}
}

// TestDeviceClassEventsRequeueExtendedResourcePods: NodeResourcesFit's
// hint for DeviceClass events (upstream's isSchedulableAfterDeviceClassEvent).
func TestDeviceClassEventsRequeueExtendedResourcePods(t *testing.T) {
	pod := testPod("", func(p *corev1.Pod) { p.Spec.Containers[0] = asking("c", "example.com/gpu", "1") })
	implicit := testPod("", func(p *corev1.Pod) { p.Spec.Containers[0] = asking("c", "deviceclass.resource.kubernetes.io/gpu", "1") })
	other := &resourceapi.DeviceClass{ObjectMeta: metav1.ObjectMeta{Name: "other"}}
	renamed := gpuClass()
	renamed.Spec.ExtendedResourceName = ptr.To("example.com/tpu")
	add := func(dc *resourceapi.DeviceClass) clusterEvent {
		return clusterEvent{resource: resDeviceClass, action: actAdd, newObj: dc}
	}
	update := func(old, cur *resourceapi.DeviceClass) clusterEvent {
		return clusterEvent{resource: resDeviceClass, action: actUpdate, oldObj: old, newObj: cur}
	}
	for _, tc := range []struct {
		name string
		pod  *corev1.Pod
		e    clusterEvent
		want bool
	}{
		{"a class naming the pod's resource comes", pod, add(gpuClass()), true},
		{"a class implicitly naming it comes", implicit, add(gpuClass()), true},
		{"another class comes", pod, add(other), false},
		{"a class changes to name it", pod, update(renamed, gpuClass()), true},
		{"a class changes away from it", pod, update(gpuClass(), renamed), false},
		{"a class changes, not its name", pod, update(gpuClass(), gpuClass()), false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := queued(t, NodeResourcesFit, tc.pod, tc.e); got != tc.want {
				t.Errorf("queued %v, want %v", got, tc.want)
			}
		})
	}
}

// fixedSlices are ResourceSlices as the tracker lists them.
type fixedSlices []*resourceapi.ResourceSlice

func (s fixedSlices) ListPatchedResourceSlices() ([]*resourceapi.ResourceSlice, error) { return s, nil }

// draScheduler is an offline scheduler of one node, node-0, whose DRA
// driver gpu.example.com has devices gpu-0 and gpu-1 of class gpu, with the
// claims given.
func draScheduler(t *testing.T, claims ...*resourceapi.ResourceClaim) *Scheduler {
	t.Helper()
	s := offlineScheduler(t, []*corev1.Node{testNode("node-0", 4, 110, nil)})
	claimIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{cache.NamespaceIndex: cache.MetaNamespaceIndexFunc})
	for _, c := range claims {
		_ = claimIdx.Add(c)
	}
	classIdx := cache.NewIndexer(cache.MetaNamespaceKeyFunc, cache.Indexers{})
	_ = classIdx.Add(gpuClass())
	s.handle.draClaims = newDRAClaims(resourcelisters.NewResourceClaimLister(claimIdx))
	s.handle.draClasses = resourcelisters.NewDeviceClassLister(classIdx)
	s.handle.draSlices = fixedSlices{{ObjectMeta: metav1.ObjectMeta{Name: "node-0-gpu"}, Spec: resourceapi.ResourceSliceSpec{
		Driver: "gpu.example.com", NodeName: ptr.To("node-0"), Pool: resourceapi.ResourcePool{Name: "node-0", Generation: 1, ResourceSliceCount: 1},
		Devices: []resourceapi.Device{{Name: "gpu-0"}, {Name: "gpu-1"}},
	}}}
	s.handle.draCEL = newDRACELCache()
	s.handle.draExtended = classCache(gpuClass())
	return s
}

// gpuPodAsking is a pod of one container "c" asking for n example.com/gpu.
func gpuPodAsking(n string) *corev1.Pod {
	return testPod("", func(p *corev1.Pod) { p.Spec.Containers[0] = asking("c", "example.com/gpu", n) })
}

// TestDynamicResourcesAllocatesExtendedResources: a pod asking for
// example.com/gpu, which node-0 does not advertise, is scheduled there
// with an in-memory claim whose node variant asks for the devices, and
// Reserve counts them as taken under the claim's made-up UID; asking for
// more devices than there are is "cannot allocate all claims"; a claim
// left from an earlier cycle fails the node, and PostFilter's message
// says it is deleted.
func TestDynamicResourcesAllocatesExtendedResources(t *testing.T) {
	s := draScheduler(t)
	prof := s.profiles[DefaultSchedulerName]
	nodes := s.cache.snapshot()
	pod := gpuPodAsking("1")
	state := newCycleState(nodes)
	host, fe := s.schedulePod(prof, state, pod, nodes)
	if fe != nil {
		t.Fatalf("no node: %v", fe)
	}
	ds := state.data[draStateKey].(*draState)
	ext := ds.extendedClaim()
	if host != "node-0" || ext == nil || ext.Name != extendedClaimInMemName || ext.GenerateName != pod.Name+"-extended-resources-" ||
		ext.Annotations[resourceapi.ExtendedResourceClaimAnnotation] != "true" || len(ext.OwnerReferences) != 1 || ext.OwnerReferences[0].UID != pod.UID ||
		!ptr.Deref(ext.OwnerReferences[0].Controller, false) || ext.Spec.Devices.Requests != nil {
		t.Fatalf("host %q, claim %+v", host, ext)
	}
	nc := ds.ext.nodes["node-0"]
	if nc == nil || !equality.Semantic.DeepEqual(nc.claim.Spec.Devices.Requests, []resourceapi.DeviceRequest{exactly("container-0-request-0", 1)}) {
		t.Fatalf("node-0's claim %+v", nc)
	}
	if err := prof.dra.reserve(state, host); err != nil {
		t.Fatal(err)
	}
	if !s.handle.draClaims.pending(ext.UID) {
		t.Error("the allocation is not in flight under the in-memory claim's UID")
	}
	taken, err := s.handle.draClaims.allocatedState()
	if err != nil {
		t.Fatal(err)
	}
	if taken.AllocatedDevices.Len() != 1 {
		t.Errorf("devices taken %v, want one", taken.AllocatedDevices)
	}

	// The next pod finds one device left.
	state = newCycleState(nodes)
	if _, fe := s.schedulePod(prof, state, gpuPodAsking("2"), nodes); fe == nil || fe.Error() != "0/1 nodes are available: 1 cannot allocate all claims." {
		t.Errorf("two more: %v", fe)
	}

	// A claim left from an earlier cycle.
	stalePod := gpuPodAsking("1")
	stale := &resourceapi.ResourceClaim{ObjectMeta: metav1.ObjectMeta{Name: stalePod.Name + "-extended-resources-abcde", Namespace: "default", UID: types.UID("stale"),
		Annotations:     map[string]string{resourceapi.ExtendedResourceClaimAnnotation: "true"},
		OwnerReferences: []metav1.OwnerReference{{APIVersion: "v1", Kind: "Pod", Name: stalePod.Name, UID: stalePod.UID, Controller: ptr.To(true)}}},
		Spec: resourceapi.ResourceClaimSpec{Devices: resourceapi.DeviceClaim{Requests: []resourceapi.DeviceRequest{exactly("container-0-request-0", 1)}}}}
	s = draScheduler(t, stale)
	prof = s.profiles[DefaultSchedulerName]
	state = newCycleState(nodes)
	_, fe = s.schedulePod(prof, state, stalePod, nodes)
	if fe == nil || fe.Error() != "0/1 nodes are available: 1 cannot schedule extended resource claim." {
		t.Fatalf("stale claim: %v", fe)
	}
	if got := state.data[draStateKey].(*draState).extendedClaim(); got == nil || got.UID != "stale" {
		t.Errorf("the cycle's claim %+v, want the stale one", got)
	}
}

// TestDynamicResourcesLeavesAdvertisedExtendedResources: on a node that
// advertises the resource, DynamicResources has nothing to allocate for it
// and Reserve nothing to do; a resource the node neither advertises nor
// gets through DRA is "cannot fit resource" (as upstream's, should
// NodeResourcesFit be disabled).
func TestDynamicResourcesLeavesAdvertisedExtendedResources(t *testing.T) {
	s := draScheduler(t)
	prof := s.profiles[DefaultSchedulerName]
	node := testNode("node-0", 4, 110, nil)
	node.Status.Allocatable["example.com/gpu"] = resource.MustParse("4")
	s.cache.setNode(node)
	nodes := s.cache.snapshot()
	state := newCycleState(nodes)
	host, fe := s.schedulePod(prof, state, gpuPodAsking("2"), nodes)
	if fe != nil || host != "node-0" {
		t.Fatalf("host %q, %v", host, fe)
	}
	ds := state.data[draStateKey].(*draState)
	if nc, ok := ds.ext.nodes["node-0"]; ok || nc != nil {
		t.Errorf("node-0's claim %+v, want none", nc)
	}
	if err := prof.dra.reserve(state, host); err != nil {
		t.Fatal(err)
	}
	if len(ds.allocations) != 0 {
		t.Errorf("allocations %+v, want none", ds.allocations)
	}

	tpu := gpuPodAsking("1")
	tpu.Spec.Containers = append(tpu.Spec.Containers, asking("t", "example.com/tpu", "1"))
	n := &nodeInfo{}
	n.setNode(testNode("node-0", 4, 110, nil))
	state = newCycleState(nodes)
	if st := prof.dra.PreFilter(state, tpu); !st.ok() {
		t.Fatal(st.message())
	}
	if st := prof.dra.Filter(state, tpu, n); st.ok() || st.message() != "cannot fit resource" || st.code != unresolvable {
		t.Errorf("an unknown resource: %+v", st)
	}
}
