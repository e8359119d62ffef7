package kubelet

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane/internal/qos"
)

func pendingPod(mutate func(*corev1.Pod)) *corev1.Pod {
	p := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "ns", UID: "uid-1", Generation: 1},
		Spec: corev1.PodSpec{NodeName: "node-0", Containers: []corev1.Container{
			{Name: "web", Image: "nginx"},
			{Name: "app", Image: "registry.example.com/team/app:v2",
				VolumeMounts: []corev1.VolumeMount{{Name: "token", MountPath: "/var/run/secrets", ReadOnly: true}}},
		}},
		Status: corev1.PodStatus{Phase: corev1.PodPending, QOSClass: corev1.PodQOSBestEffort, Conditions: []corev1.PodCondition{
			{Type: corev1.PodScheduled, Status: corev1.ConditionTrue, LastTransitionTime: metav1.NewTime(time.Unix(10, 0))},
		}},
	}
	if mutate != nil {
		mutate(p)
	}
	return p
}

func condition(st corev1.PodStatus, typ corev1.PodConditionType) *corev1.PodCondition {
	for i := range st.Conditions {
		if st.Conditions[i].Type == typ {
			return &st.Conditions[i]
		}
	}
	return nil
}

func TestNextPodStatusIsWhatAKubeletReports(t *testing.T) {
	now := metav1.NewTime(time.Unix(1000, 0))
	at := placement{hostIPs: []string{"10.89.0.2"}, podIPs: []string{"10.128.0.2"}, runtime: "containerd"}
	type check func(t *testing.T, st corev1.PodStatus)
	phase := func(want corev1.PodPhase) check {
		return func(t *testing.T, st corev1.PodStatus) {
			if st.Phase != want {
				t.Errorf("phase %q, want %q", st.Phase, want)
			}
		}
	}
	conds := func(want map[corev1.PodConditionType]string) check {
		return func(t *testing.T, st corev1.PodStatus) {
			for typ, w := range want {
				c := condition(st, typ)
				if c == nil || string(c.Status)+"/"+c.Reason != w {
					t.Errorf("condition %s = %+v, want %s", typ, c, w)
				}
			}
		}
	}
	running := conds(map[corev1.PodConditionType]string{
		corev1.PodReadyToStartContainers: "True/", corev1.PodInitialized: "True/", corev1.PodReady: "True/",
		corev1.ContainersReady: "True/", corev1.PodScheduled: "True/",
	})
	for _, tc := range []struct {
		name   string
		pod    *corev1.Pod
		checks []check
	}{
		{"a plain pod runs with ready containers and its addresses", pendingPod(nil), []check{phase(corev1.PodRunning), running,
			func(t *testing.T, st corev1.PodStatus) {
				if st.PodIP != "10.128.0.2" || len(st.PodIPs) != 1 || st.HostIP != "10.89.0.2" || len(st.HostIPs) != 1 || st.StartTime == nil || st.QOSClass != corev1.PodQOSBestEffort || st.ObservedGeneration != 1 {
					t.Errorf("status %+v", st)
				}
				if len(st.ContainerStatuses) != 2 || st.ContainerStatuses[0].Name != "app" {
					t.Fatalf("container statuses not sorted by name: %+v", st.ContainerStatuses)
				}
				app, web := st.ContainerStatuses[0], st.ContainerStatuses[1]
				if web.Image != "docker.io/library/nginx:latest" || web.ImageID[:len("docker.io/library/nginx@sha256:")] != "docker.io/library/nginx@sha256:" {
					t.Errorf("web image %q id %q", web.Image, web.ImageID)
				}
				if app.Image != "registry.example.com/team/app:v2" || len(app.ContainerID) != len("containerd://")+64 {
					t.Errorf("app image %q containerID %q", app.Image, app.ContainerID)
				}
				for _, cs := range st.ContainerStatuses {
					if !cs.Ready || !ptr.Deref(cs.Started, false) || cs.RestartCount != 0 || cs.State.Running == nil || !cs.State.Running.StartedAt.Equal(&now) {
						t.Errorf("container %+v", cs)
					}
				}
				if len(app.VolumeMounts) != 1 || app.VolumeMounts[0].RecursiveReadOnly == nil || *app.VolumeMounts[0].RecursiveReadOnly != corev1.RecursiveReadOnlyDisabled {
					t.Errorf("volume mounts %+v", app.VolumeMounts)
				}
				if c := condition(st, corev1.PodScheduled); !c.LastTransitionTime.Equal(ptr.To(metav1.NewTime(time.Unix(10, 0)))) {
					t.Errorf("PodScheduled's transition time changed: %v", c.LastTransitionTime)
				}
			}}},
		{"regular init containers complete in order and sidecars keep running", pendingPod(func(p *corev1.Pod) {
			p.Spec.InitContainers = []corev1.Container{{Name: "migrate", Image: "busybox"}, {Name: "proxy", Image: "envoy", RestartPolicy: ptr.To(corev1.ContainerRestartPolicyAlways)}}
		}), []check{phase(corev1.PodRunning), running, func(t *testing.T, st corev1.PodStatus) {
			if len(st.InitContainerStatuses) != 2 || st.InitContainerStatuses[0].Name != "migrate" {
				t.Fatalf("init statuses %+v", st.InitContainerStatuses)
			}
			mig, proxy := st.InitContainerStatuses[0], st.InitContainerStatuses[1]
			if term := mig.State.Terminated; term == nil || term.Reason != "Completed" || term.ExitCode != 0 || !mig.Ready || ptr.Deref(mig.Started, true) || term.ContainerID != mig.ContainerID {
				t.Errorf("init container %+v", mig)
			}
			if proxy.State.Running == nil || !proxy.Ready || !ptr.Deref(proxy.Started, false) {
				t.Errorf("sidecar %+v", proxy)
			}
		}}},
		{"a readiness gate not yet true keeps the pod unready", pendingPod(func(p *corev1.Pod) {
			p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/lb"}}
		}), []check{phase(corev1.PodRunning), conds(map[corev1.PodConditionType]string{
			corev1.PodReady: "False/ReadinessGatesNotReady", corev1.ContainersReady: "True/",
		})}},
		{"a running pod a Job owns completes", pendingPod(func(p *corev1.Pod) {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "j", UID: "j1", Controller: ptr.To(true)}}
			p.Status = runningStatus(p, at, metav1.NewTime(time.Unix(900, 0)))
		}), []check{phase(corev1.PodSucceeded), conds(map[corev1.PodConditionType]string{
			corev1.PodReady: "False/PodCompleted", corev1.ContainersReady: "False/PodCompleted", corev1.PodInitialized: "True/PodCompleted",
			corev1.PodReadyToStartContainers: "False/PodSandboxNotReady",
		}), func(t *testing.T, st corev1.PodStatus) {
			for _, cs := range st.ContainerStatuses {
				term := cs.State.Terminated
				if term == nil || term.Reason != "Completed" || term.ExitCode != 0 || cs.Ready || ptr.Deref(cs.Started, true) || term.StartedAt.Unix() != 900 || !term.FinishedAt.Equal(&now) {
					t.Errorf("container %+v", cs)
				}
			}
		}}},
		{"a pending pod a Job owns first runs", pendingPod(func(p *corev1.Pod) {
			p.OwnerReferences = []metav1.OwnerReference{{APIVersion: "batch/v1", Kind: "Job", Name: "j", UID: "j1"}}
		}), []check{phase(corev1.PodRunning), running}},
		{"a terminal pod stays as it is", pendingPod(func(p *corev1.Pod) { p.Status.Phase = corev1.PodFailed }), []check{phase(corev1.PodFailed),
			func(t *testing.T, st corev1.PodStatus) {
				if len(st.ContainerStatuses) != 0 {
					t.Errorf("a failed pod got container statuses %+v", st.ContainerStatuses)
				}
			}}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			st := nextPodStatus(tc.pod, at, now)
			for _, c := range tc.checks {
				c(t, st)
			}
			// Reporting again changes nothing: one write per transition.
			again := tc.pod.DeepCopy()
			again.Status = st
			if st.Phase == corev1.PodRunning && ownedByJob(again) {
				return
			}
			later := metav1.NewTime(now.Add(time.Minute))
			if next := nextPodStatus(again, at, later); !equalStatus(next, st) {
				t.Errorf("a second sync rewrites the status:\n%+v\n%+v", st, next)
			}
		})
	}
}

func TestARunningPodsStatusIsLeftToItsWritersButItsGates(t *testing.T) {
	now := metav1.NewTime(time.Unix(1000, 0))
	at := placement{hostIPs: []string{"10.89.0.2"}, podIPs: []string{"10.128.0.2"}, runtime: "containerd"}
	// A test marks a running pod unready by writing its status.
	p := pendingPod(nil)
	p.Status = runningStatus(p, at, now)
	condition(p.Status, corev1.PodReady).Status = corev1.ConditionFalse
	if next := nextPodStatus(p, at, now); !equalStatus(next, p.Status) {
		t.Errorf("the kubelet rewrote a running pod's status: %+v", next.Conditions)
	}
	// A readiness gate an external controller sets True makes it Ready.
	gated := pendingPod(func(p *corev1.Pod) {
		p.Spec.ReadinessGates = []corev1.PodReadinessGate{{ConditionType: "example.com/lb"}}
	})
	gated.Status = runningStatus(gated, at, now)
	if c := condition(gated.Status, corev1.PodReady); c.Status != corev1.ConditionFalse {
		t.Fatalf("Ready before the gate: %+v", c)
	}
	gated.Status.Conditions = append(gated.Status.Conditions, corev1.PodCondition{Type: "example.com/lb", Status: corev1.ConditionTrue})
	later := metav1.NewTime(now.Add(time.Minute))
	next := nextPodStatus(gated, at, later)
	if c := condition(next, corev1.PodReady); c.Status != corev1.ConditionTrue || c.Reason != "" || !c.LastTransitionTime.Equal(&later) {
		t.Errorf("Ready once the gate is True: %+v", c)
	}
}

func equalStatus(a, b corev1.PodStatus) bool {
	return equality.Semantic.DeepEqual(a, b)
}

func TestQOSClassAsUpstreamComputesIt(t *testing.T) {
	rl := func(cpu, mem string) corev1.ResourceList {
		l := corev1.ResourceList{}
		if cpu != "" {
			l[corev1.ResourceCPU] = resource.MustParse(cpu)
		}
		if mem != "" {
			l[corev1.ResourceMemory] = resource.MustParse(mem)
		}
		return l
	}
	ctr := func(req, lim corev1.ResourceList) corev1.Container {
		return corev1.Container{Name: "c", Resources: corev1.ResourceRequirements{Requests: req, Limits: lim}}
	}
	for _, tc := range []struct {
		name string
		spec corev1.PodSpec
		want corev1.PodQOSClass
	}{
		{"no resources is BestEffort", corev1.PodSpec{Containers: []corev1.Container{ctr(nil, nil)}}, corev1.PodQOSBestEffort},
		{"equal requests and limits of cpu and memory is Guaranteed", corev1.PodSpec{Containers: []corev1.Container{ctr(rl("1", "1Gi"), rl("1", "1Gi"))}}, corev1.PodQOSGuaranteed},
		{"a request below its limit is Burstable", corev1.PodSpec{Containers: []corev1.Container{ctr(rl("500m", "1Gi"), rl("1", "1Gi"))}}, corev1.PodQOSBurstable},
		{"cpu alone is Burstable", corev1.PodSpec{Containers: []corev1.Container{ctr(rl("1", ""), rl("1", ""))}}, corev1.PodQOSBurstable},
		{"a Guaranteed container next to a BestEffort one is Burstable", corev1.PodSpec{Containers: []corev1.Container{ctr(rl("1", "1Gi"), rl("1", "1Gi")), ctr(nil, nil)}}, corev1.PodQOSBurstable},
		{"init containers count", corev1.PodSpec{InitContainers: []corev1.Container{ctr(rl("1", ""), nil)}, Containers: []corev1.Container{ctr(nil, nil)}}, corev1.PodQOSBurstable},
		{"pod-level resources decide when set", corev1.PodSpec{Resources: &corev1.ResourceRequirements{Requests: rl("2", "2Gi"), Limits: rl("2", "2Gi")}, Containers: []corev1.Container{ctr(nil, nil)}}, corev1.PodQOSGuaranteed},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := qos.Compute(&corev1.Pod{Spec: tc.spec}); got != tc.want {
				t.Errorf("QoS %s, want %s", got, tc.want)
			}
			stored := &corev1.Pod{Spec: tc.spec, Status: corev1.PodStatus{QOSClass: "Stored"}}
			if got := podQOSClass(stored); got != "Stored" {
				t.Errorf("the stored class is not kept: %s", got)
			}
		})
	}
}

func TestPodIPsAreDistinctPerNodeAndReused(t *testing.T) {
	ips := newPodIPs()
	ips.reserve("node-0", "old", "10.128.0.2")
	a, ok1 := ips.allocate("node-0", "a", "10.128.0.0/24")
	b, ok2 := ips.allocate("node-0", "b", "10.128.0.0/24")
	again, _ := ips.allocate("node-0", "a", "10.128.0.0/24")
	other, _ := ips.allocate("node-1", "c", "10.128.1.0/24")
	if !ok1 || !ok2 || a != "10.128.0.3" || b != "10.128.0.4" || again != a || other != "10.128.1.2" {
		t.Fatalf("got %s %s %s %s", a, b, again, other)
	}
	ips.release("node-0", "a")
	if c, _ := ips.allocate("node-0", "d", "10.128.0.0/24"); c != a {
		t.Errorf("a released IP is not reused: %s", c)
	}
	small := newPodIPs()
	var got []string
	for _, uid := range []string{"1", "2", "3"} {
		if ip, ok := small.allocate("n", types.UID(uid), "10.0.0.0/30"); ok {
			got = append(got, ip)
		}
	}
	if len(got) != 1 || got[0] != "10.0.0.2" {
		t.Errorf("a /30 gives %v, want only 10.0.0.2 (not the broadcast address)", got)
	}
}

func TestNormalizeImageAsARuntimeReportsIt(t *testing.T) {
	for in, want := range map[string]string{
		"nginx":                        "docker.io/library/nginx:latest",
		"nginx:1.27":                   "docker.io/library/nginx:1.27",
		"bitnami/redis":                "docker.io/bitnami/redis:latest",
		"registry.k8s.io/pause:3.10":   "registry.k8s.io/pause:3.10",
		"localhost:5000/app":           "localhost:5000/app:latest",
		"nginx@sha256:" + hashHex("x"): "docker.io/library/nginx@sha256:" + hashHex("x"),
	} {
		if got := normalizeImage(in); got != want {
			t.Errorf("normalizeImage(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestPlacementGivesEachPodItsAddresses(t *testing.T) {
	s := New(Config{})
	l := &podLifecycle{s: s, ips: newPodIPs(), due: map[string]time.Time{}}
	node := NewNode(0)
	node.Status.NodeInfo.ContainerRuntimeVersion = "cri-o://1.31"
	for _, tc := range []struct {
		name        string
		pod         *corev1.Pod
		wantPodIP   string
		wantRuntime string
	}{
		{"a pod takes the first free IP of the node's pod CIDR", pendingPod(nil), "10.128.0.2", "cri-o"},
		{"the same pod keeps it", pendingPod(nil), "10.128.0.2", "cri-o"},
		{"another pod takes the next", pendingPod(func(p *corev1.Pod) { p.UID = "uid-2" }), "10.128.0.3", "cri-o"},
		{"a host-network pod has the node's IP", pendingPod(func(p *corev1.Pod) { p.UID = "uid-3"; p.Spec.HostNetwork = true }), "10.89.0.2", "cri-o"},
		{"a pod reported before keeps its IP", pendingPod(func(p *corev1.Pod) {
			p.UID = "uid-4"
			p.Status.PodIPs = []corev1.PodIP{{IP: "10.128.0.77"}}
		}), "10.128.0.77", "cri-o"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			at, err := l.placement(node, tc.pod)
			if err != nil {
				t.Fatal(err)
			}
			if len(at.podIPs) != 1 || at.podIPs[0] != tc.wantPodIP || len(at.hostIPs) != 1 || at.hostIPs[0] != "10.89.0.2" || at.runtime != tc.wantRuntime {
				t.Errorf("placement %+v, want pod IP %s on host 10.89.0.2 with %s", at, tc.wantPodIP, tc.wantRuntime)
			}
		})
	}
}
