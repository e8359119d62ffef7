package kubelet

import (
	"cmp"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"slices"
	"strings"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// Reasons and messages of the pod conditions and container states a
// kubelet reports.
const (
	reasonPodCompleted           = "PodCompleted"
	reasonReadinessGatesNotReady = "ReadinessGatesNotReady"
	reasonSandboxNotReady        = "PodSandboxNotReady"
	messageSandboxNotReady       = "pod sandbox is not ready"
	reasonCompleted              = "Completed"
)

// placement is what a pod's status takes from where it runs: the node's
// addresses, the pod's addresses, and the container runtime's name.
type placement struct {
	hostIPs []string
	podIPs  []string
	runtime string // the scheme of containerIDs, e.g. "containerd"
}

// ownedByJob reports whether a Job owns pod: the pods kwok's pod-complete
// stage completes once they run.
func ownedByJob(pod *corev1.Pod) bool {
	for _, ref := range pod.OwnerReferences {
		if ref.Kind == "Job" {
			return true
		}
	}
	return false
}

// nextPodStatus is the status the simulated kubelet reports next for a pod
// bound to one of its nodes, as kwok's default ("fast") stages move it: a
// Pending pod starts at once (pod-ready: every container started and ready,
// regular init containers completed, sidecars running), a running pod owned
// by a Job completes (pod-complete). Other running pods keep the status
// they have, whoever wrote it, except that their Ready condition follows
// their readiness gates as a kubelet's does; terminal pods stay as they are.
func nextPodStatus(pod *corev1.Pod, at placement, now metav1.Time) corev1.PodStatus {
	switch pod.Status.Phase {
	case corev1.PodSucceeded, corev1.PodFailed:
		return pod.Status
	case corev1.PodRunning:
		if ownedByJob(pod) {
			return completedStatus(pod, now)
		}
		return gatedReadiness(pod, now)
	}
	return runningStatus(pod, at, now)
}

// gatedReadiness is the status of a running pod with readiness gates once
// its Ready condition follows them: True when its containers are ready and
// every gate's condition is True. Without gates the status is unchanged.
func gatedReadiness(pod *corev1.Pod, now metav1.Time) corev1.PodStatus {
	st := *pod.Status.DeepCopy()
	if len(pod.Spec.ReadinessGates) == 0 {
		return st
	}
	ready := readinessGatesCondition(pod, st.Conditions)
	for i, c := range st.Conditions {
		if c.Type == corev1.ContainersReady && c.Status != corev1.ConditionTrue {
			return st // not ready whatever the gates say
		}
		if c.Type == corev1.PodReady {
			st.Conditions[i] = kubeletCondition(pod, corev1.PodReady, ready.Status, ready.Reason, ready.Message, now)
		}
	}
	return st
}

// runningStatus is the status of pod once all its containers run.
func runningStatus(pod *corev1.Pod, at placement, now metav1.Time) corev1.PodStatus {
	old := &pod.Status
	st := *old.DeepCopy()
	st.Phase = corev1.PodRunning
	st.Reason, st.Message = "", ""
	st.ObservedGeneration = pod.Generation
	st.QOSClass = podQOSClass(pod)
	if st.StartTime == nil {
		st.StartTime = &now
	}
	if len(at.hostIPs) > 0 {
		st.HostIP = at.hostIPs[0]
		st.HostIPs = make([]corev1.HostIP, len(at.hostIPs))
		for i, ip := range at.hostIPs {
			st.HostIPs[i] = corev1.HostIP{IP: ip}
		}
	}
	if len(at.podIPs) > 0 {
		st.PodIP = at.podIPs[0]
		st.PodIPs = make([]corev1.PodIP, len(at.podIPs))
		for i, ip := range at.podIPs {
			st.PodIPs[i] = corev1.PodIP{IP: ip}
		}
	}
	st.InitContainerStatuses = make([]corev1.ContainerStatus, len(pod.Spec.InitContainers))
	for i := range pod.Spec.InitContainers {
		c := &pod.Spec.InitContainers[i]
		cs := newContainerStatus(pod, c, at.runtime, old.InitContainerStatuses)
		if isSidecar(c) {
			cs.State = runningState(old.InitContainerStatuses, c.Name, now)
			cs.Started = ptr.To(true)
		} else {
			cs.State = terminatedState(old.InitContainerStatuses, c.Name, now)
			cs.State.Terminated.ContainerID = cs.ContainerID
			cs.Started = ptr.To(false)
		}
		cs.Ready = true
		st.InitContainerStatuses[i] = cs
	}
	st.ContainerStatuses = make([]corev1.ContainerStatus, len(pod.Spec.Containers))
	for i := range pod.Spec.Containers {
		c := &pod.Spec.Containers[i]
		cs := newContainerStatus(pod, c, at.runtime, old.ContainerStatuses)
		cs.State = runningState(old.ContainerStatuses, c.Name, now)
		cs.Started, cs.Ready = ptr.To(true), true
		st.ContainerStatuses[i] = cs
	}
	sortByName(st.ContainerStatuses)
	if len(st.InitContainerStatuses) == 0 {
		st.InitContainerStatuses = nil
	}
	conds := foreignConditions(old.Conditions)
	ready := readinessGatesCondition(pod, conds)
	ready.Type = corev1.PodReady
	st.Conditions = append(conds,
		kubeletCondition(pod, corev1.PodReadyToStartContainers, corev1.ConditionTrue, "", "", now),
		kubeletCondition(pod, corev1.PodInitialized, corev1.ConditionTrue, "", "", now),
		kubeletCondition(pod, corev1.PodReady, ready.Status, ready.Reason, ready.Message, now),
		kubeletCondition(pod, corev1.ContainersReady, corev1.ConditionTrue, "", "", now),
		kubeletCondition(pod, corev1.PodScheduled, corev1.ConditionTrue, "", "", now),
	)
	return st
}

// completedStatus is the status of a running pod whose containers all
// exited 0: Succeeded, every container (sidecars too) terminated
// Completed, the pod neither ready nor ready to start containers.
func completedStatus(pod *corev1.Pod, now metav1.Time) corev1.PodStatus {
	old := &pod.Status
	st := *old.DeepCopy()
	st.Phase = corev1.PodSucceeded
	st.ObservedGeneration = pod.Generation
	terminate := func(list []corev1.ContainerStatus) {
		for i := range list {
			cs := &list[i]
			if cs.State.Terminated == nil {
				started := now
				if cs.State.Running != nil {
					started = cs.State.Running.StartedAt
				}
				cs.State = corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
					ExitCode: 0, Reason: reasonCompleted, StartedAt: started, FinishedAt: now, ContainerID: cs.ContainerID,
				}}
			}
			cs.Ready, cs.Started = false, ptr.To(false)
		}
	}
	terminate(st.InitContainerStatuses)
	terminate(st.ContainerStatuses)
	st.Conditions = append(foreignConditions(old.Conditions),
		kubeletCondition(pod, corev1.PodReadyToStartContainers, corev1.ConditionFalse, reasonSandboxNotReady, messageSandboxNotReady, now),
		kubeletCondition(pod, corev1.PodInitialized, corev1.ConditionTrue, reasonPodCompleted, "", now),
		kubeletCondition(pod, corev1.PodReady, corev1.ConditionFalse, reasonPodCompleted, "", now),
		kubeletCondition(pod, corev1.ContainersReady, corev1.ConditionFalse, reasonPodCompleted, "", now),
		kubeletCondition(pod, corev1.PodScheduled, corev1.ConditionTrue, "", "", now),
	)
	return st
}

// isSidecar reports whether an init container is a sidecar: one that
// keeps running (restartPolicy Always).
func isSidecar(c *corev1.Container) bool {
	return c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways
}

// kubeletOwned are the pod conditions a kubelet sets; it keeps the others.
var kubeletOwned = []corev1.PodConditionType{
	corev1.PodScheduled, corev1.PodReady, corev1.PodInitialized, corev1.ContainersReady, corev1.PodReadyToStartContainers,
}

// foreignConditions returns copies of the conditions a kubelet does not
// own (readiness gates, DisruptionTarget, ...).
func foreignConditions(conds []corev1.PodCondition) []corev1.PodCondition {
	out := make([]corev1.PodCondition, 0, len(conds)+len(kubeletOwned))
	for _, c := range conds {
		if !slices.Contains(kubeletOwned, c.Type) {
			out = append(out, *c.DeepCopy())
		}
	}
	return out
}

// kubeletCondition is a condition the kubelet reports, observed at the
// pod's generation; its lastTransitionTime stays while its status does.
func kubeletCondition(pod *corev1.Pod, typ corev1.PodConditionType, status corev1.ConditionStatus, reason, message string, now metav1.Time) corev1.PodCondition {
	c := corev1.PodCondition{
		Type: typ, Status: status, Reason: reason, Message: message,
		ObservedGeneration: pod.Generation, LastTransitionTime: now,
	}
	for _, old := range pod.Status.Conditions {
		if old.Type == typ && old.Status == status && !old.LastTransitionTime.IsZero() {
			c.LastTransitionTime = old.LastTransitionTime
		}
	}
	return c
}

// readinessGatesCondition is the Ready condition of a pod whose containers
// are ready: True when every readiness gate's condition is True.
func readinessGatesCondition(pod *corev1.Pod, conds []corev1.PodCondition) corev1.PodCondition {
	var msgs []string
	for _, gate := range pod.Spec.ReadinessGates {
		i := slices.IndexFunc(conds, func(c corev1.PodCondition) bool { return c.Type == gate.ConditionType })
		switch {
		case i < 0:
			msgs = append(msgs, fmt.Sprintf("corresponding condition of pod readiness gate %q does not exist.", string(gate.ConditionType)))
		case conds[i].Status != corev1.ConditionTrue:
			msgs = append(msgs, fmt.Sprintf("the status of pod readiness gate %q is not \"True\", but %v", string(gate.ConditionType), conds[i].Status))
		}
	}
	if len(msgs) > 0 {
		return corev1.PodCondition{Status: corev1.ConditionFalse, Reason: reasonReadinessGatesNotReady, Message: strings.Join(msgs, ", ")}
	}
	return corev1.PodCondition{Status: corev1.ConditionTrue}
}

// newContainerStatus is a container's status without its state: its
// image as the runtime names it, the image's and the container's IDs, its
// read-only volume mounts.
func newContainerStatus(pod *corev1.Pod, c *corev1.Container, runtime string, old []corev1.ContainerStatus) corev1.ContainerStatus {
	image := normalizeImage(c.Image)
	cs := corev1.ContainerStatus{
		Name:        c.Name,
		Image:       image,
		ImageID:     imageID(image),
		ContainerID: runtime + "://" + hashHex(string(pod.UID), c.Name),
	}
	for _, m := range c.VolumeMounts {
		vm := corev1.VolumeMountStatus{Name: m.Name, MountPath: m.MountPath, ReadOnly: m.ReadOnly}
		if m.ReadOnly {
			rro := corev1.RecursiveReadOnlyDisabled
			if m.RecursiveReadOnly != nil && *m.RecursiveReadOnly != corev1.RecursiveReadOnlyDisabled {
				rro = corev1.RecursiveReadOnlyEnabled
			}
			vm.RecursiveReadOnly = &rro
		}
		cs.VolumeMounts = append(cs.VolumeMounts, vm)
	}
	if i := slices.IndexFunc(old, func(s corev1.ContainerStatus) bool { return s.Name == c.Name }); i >= 0 {
		cs.RestartCount = old[i].RestartCount
		cs.LastTerminationState = *old[i].LastTerminationState.DeepCopy()
	}
	return cs
}

// runningState is a container's running state, started when it was first
// reported running.
func runningState(old []corev1.ContainerStatus, name string, now metav1.Time) corev1.ContainerState {
	for _, s := range old {
		if s.Name == name && s.State.Running != nil {
			return *s.State.DeepCopy()
		}
	}
	return corev1.ContainerState{Running: &corev1.ContainerStateRunning{StartedAt: now}}
}

// terminatedState is the state of an init container that ran to
// completion.
func terminatedState(old []corev1.ContainerStatus, name string, now metav1.Time) corev1.ContainerState {
	for _, s := range old {
		if s.Name == name && s.State.Terminated != nil {
			return *s.State.DeepCopy()
		}
	}
	return corev1.ContainerState{Terminated: &corev1.ContainerStateTerminated{
		ExitCode: 0, Reason: reasonCompleted, StartedAt: now, FinishedAt: now,
	}}
}

// sortByName orders container statuses by name, as a kubelet does.
func sortByName(list []corev1.ContainerStatus) {
	slices.SortFunc(list, func(a, b corev1.ContainerStatus) int { return cmp.Compare(a.Name, b.Name) })
}

// normalizeImage names an image as container runtimes report it: with its
// registry (docker.io by default, with library/ for official images) and
// the tag latest when it has neither tag nor digest.
func normalizeImage(image string) string {
	if image == "" {
		return image
	}
	name, rest := image, ""
	if i := strings.IndexByte(name, '@'); i >= 0 {
		name, rest = name[:i], name[i:]
	}
	domain, path, found := strings.Cut(name, "/")
	if !found || (!strings.ContainsAny(domain, ".:") && domain != "localhost" && strings.ToLower(domain) == domain) {
		domain, path = "docker.io", name
	}
	if domain == "docker.io" && !strings.Contains(path, "/") {
		path = "library/" + path
	}
	if rest == "" && !strings.Contains(path[strings.LastIndexByte(path, '/')+1:], ":") {
		path += ":latest"
	}
	return domain + "/" + path + rest
}

// imageID is the ID a runtime reports for a normalized image: its
// repository and digest (a digest made from the name when it has none).
func imageID(image string) string {
	if image == "" {
		return ""
	}
	if strings.Contains(image, "@") {
		return image
	}
	repo := image
	if i := strings.LastIndexByte(image, ':'); i > strings.LastIndexByte(image, '/') {
		repo = image[:i]
	}
	return repo + "@sha256:" + hashHex(image)
}

// hashHex is the hex SHA-256 of parts joined with "/".
func hashHex(parts ...string) string {
	sum := sha256.Sum256([]byte(strings.Join(parts, "/")))
	return hex.EncodeToString(sum[:])
}
