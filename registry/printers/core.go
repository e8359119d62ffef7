package printers

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// core returns the printers of the core group's resources (the legacy /api/v1), by resource.
func core() map[string]Printer {
	return map[string]Printer{
		"componentstatuses": {
			cells: typed(func(cs *corev1.ComponentStatus, now time.Time) []any {
				status, message, errText := "Unknown", "", ""
				for _, c := range cs.Conditions {
					if c.Type == corev1.ComponentHealthy {
						status = "Unhealthy"
						if c.Status == corev1.ConditionTrue {
							status = "Healthy"
						}
						message, errText = c.Message, c.Error
						break
					}
				}
				return []any{cs.Name, status, message, errText}
			}),
		},
		"resourcequotas": {
			cells: typed(func(rq *corev1.ResourceQuota, now time.Time) []any {
				names := make([]string, 0, len(rq.Status.Hard))
				for name := range rq.Status.Hard {
					names = append(names, string(name))
				}
				sort.Strings(names)
				var requests, limits []string
				for _, name := range names {
					used, hard := rq.Status.Used[corev1.ResourceName(name)], rq.Status.Hard[corev1.ResourceName(name)]
					entry := fmt.Sprintf("%s: %s/%s", name, used.String(), hard.String())
					if prefix, _, ok := strings.Cut(name, "."); ok && prefix == "limits" {
						limits = append(limits, entry)
					} else {
						requests = append(requests, entry)
					}
				}
				return []any{rq.Name, strings.Join(requests, ", "), strings.Join(limits, ", "), age(now, rq.CreationTimestamp)}
			}),
		},
		"podtemplates": {
			cells: typed(func(pt *corev1.PodTemplate, now time.Time) []any {
				names, images := containerNamesImages(pt.Template.Spec.Containers)
				return []any{pt.Name, names, images, selectorString(pt.Template.Labels)}
			}),
		},
		"endpoints": {
			cells: typed(func(ep *corev1.Endpoints, now time.Time) []any {
				return []any{ep.Name, formatEndpoints(ep), age(now, ep.CreationTimestamp)}
			}),
		},
		"persistentvolumes": {
			cells: typed(func(pv *corev1.PersistentVolume, now time.Time) []any {
				claim := ""
				if ref := pv.Spec.ClaimRef; ref != nil {
					claim = ref.Namespace + "/" + ref.Name
				}
				// Defaults: reclaim policy Retain, phase Pending, volume mode Filesystem.
				policy := pv.Spec.PersistentVolumeReclaimPolicy
				if policy == "" {
					policy = corev1.PersistentVolumeReclaimRetain
				}
				phase := pv.Status.Phase
				if phase == "" {
					phase = corev1.VolumePending
				}
				if pv.DeletionTimestamp != nil {
					phase = "Terminating"
				}
				class := pv.Spec.StorageClassName
				if c, ok := pv.Annotations[corev1.BetaStorageClassAnnotation]; ok {
					class = c
				}
				size := pv.Spec.Capacity[corev1.ResourceStorage]
				return []any{pv.Name, size.String(), accessModesString(pv.Spec.AccessModes), string(policy), string(phase), claim, class,
					orUnset(pv.Spec.VolumeAttributesClassName), pv.Status.Reason, age(now, pv.CreationTimestamp), volumeModeString(pv.Spec.VolumeMode)}
			}),
		},
		"persistentvolumeclaims": {
			cells: typed(func(pvc *corev1.PersistentVolumeClaim, now time.Time) []any {
				phase := pvc.Status.Phase
				if phase == "" {
					phase = corev1.ClaimPending
				}
				if pvc.DeletionTimestamp != nil {
					phase = "Terminating"
				}
				capacity, modes := "", ""
				if pvc.Spec.VolumeName != "" {
					modes = accessModesString(pvc.Status.AccessModes)
					size := pvc.Status.Capacity[corev1.ResourceStorage]
					capacity = size.String()
				}
				class := ""
				if c, ok := pvc.Annotations[corev1.BetaStorageClassAnnotation]; ok {
					class = c
				} else if pvc.Spec.StorageClassName != nil {
					class = *pvc.Spec.StorageClassName
				}
				return []any{pvc.Name, string(phase), pvc.Spec.VolumeName, capacity, modes, class,
					orUnset(pvc.Spec.VolumeAttributesClassName), age(now, pvc.CreationTimestamp), volumeModeString(pvc.Spec.VolumeMode)}
			}),
		},
		"replicationcontrollers": {
			cells: typed(func(rc *corev1.ReplicationController, now time.Time) []any {
				// Defaults: one replica, the selector from the template's labels.
				want := int32(1)
				if rc.Spec.Replicas != nil {
					want = *rc.Spec.Replicas
				}
				var containers []corev1.Container
				selector := rc.Spec.Selector
				if rc.Spec.Template != nil {
					containers = rc.Spec.Template.Spec.Containers
					if len(selector) == 0 {
						selector = rc.Spec.Template.Labels
					}
				}
				names, images := containerNamesImages(containers)
				return []any{rc.Name, int64(want), int64(rc.Status.Replicas), int64(rc.Status.ReadyReplicas), age(now, rc.CreationTimestamp), names, images, selectorString(selector)}
			}),
		},
		"nodes": {
			cells: typed(func(n *corev1.Node, now time.Time) []any {
				// The last Ready condition counts, as upstream's map of
				// conditions by type keeps it.
				status := []string{"Unknown"}
				for _, c := range n.Status.Conditions {
					if c.Type == corev1.NodeReady {
						status[0] = "NotReady"
						if c.Status == corev1.ConditionTrue {
							status[0] = "Ready"
						}
					}
				}
				if n.Spec.Unschedulable {
					status = append(status, "SchedulingDisabled")
				}
				roles := strings.Join(nodeRoles(n), ",")
				if roles == "" {
					roles = "<none>"
				}
				info := n.Status.NodeInfo
				osImage, kernel, crVersion := orUnknown(info.OSImage), orUnknown(info.KernelVersion), orUnknown(info.ContainerRuntimeVersion)
				if info.Architecture != "" {
					kernel += " (" + info.Architecture + ")"
				}
				return []any{n.Name, strings.Join(status, ","), roles, age(now, n.CreationTimestamp), info.KubeletVersion,
					nodeAddress(n, corev1.NodeInternalIP), nodeAddress(n, corev1.NodeExternalIP), osImage, kernel, crVersion}
			}),
		},
		"events":      {cells: typed(eventCells)},
		"limitranges": {cells: createdAt},
		"namespaces": {
			cells: typed(func(ns *corev1.Namespace, now time.Time) []any {
				return []any{ns.Name, string(ns.Status.Phase), age(now, ns.CreationTimestamp)}
			}),
		},
		"configmaps": {
			cells: typed(func(cm *corev1.ConfigMap, now time.Time) []any {
				return []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), age(now, cm.CreationTimestamp)}
			}),
		},
		"secrets": {
			cells: typed(func(sec *corev1.Secret, now time.Time) []any {
				return []any{sec.Name, string(sec.Type), int64(len(sec.Data)), age(now, sec.CreationTimestamp)}
			}),
		},
		"pods": {
			cells: typed(podCells),
			conditions: func(obj runtime.Object) []metav1.TableRowCondition {
				switch obj.(*corev1.Pod).Status.Phase {
				case corev1.PodSucceeded:
					return []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodSucceeded), Message: "The pod has completed successfully."}}
				case corev1.PodFailed:
					return []metav1.TableRowCondition{{Type: metav1.RowCompleted, Status: metav1.ConditionTrue, Reason: string(corev1.PodFailed), Message: "The pod failed."}}
				}
				return nil
			},
		},
		"services": {
			cells: typed(func(svc *corev1.Service, now time.Time) []any {
				typ := svc.Spec.Type
				if typ == "" {
					typ = corev1.ServiceTypeClusterIP
				}
				cip := "<none>"
				if len(svc.Spec.ClusterIPs) > 0 {
					cip = svc.Spec.ClusterIPs[0]
				} else if svc.Spec.ClusterIP != "" {
					cip = svc.Spec.ClusterIP
				}
				var ports []string
				for _, p := range svc.Spec.Ports {
					proto := p.Protocol
					if proto == "" {
						proto = corev1.ProtocolTCP
					}
					if p.NodePort > 0 {
						ports = append(ports, fmt.Sprintf("%d:%d/%s", p.Port, p.NodePort, proto))
					} else {
						ports = append(ports, fmt.Sprintf("%d/%s", p.Port, proto))
					}
				}
				portStr := strings.Join(ports, ",")
				if portStr == "" {
					portStr = "<none>"
				}
				return []any{svc.Name, string(typ), cip, serviceExternalIP(svc, typ), portStr, age(now, svc.CreationTimestamp), selectorString(svc.Spec.Selector)}
			}),
		},
	}
}

// serviceExternalIP prints a service's external addresses: its
// externalIPs, for a LoadBalancer after the load balancer's addresses
// (<pending> while there are none), or an ExternalName's name.
func serviceExternalIP(svc *corev1.Service, typ corev1.ServiceType) string {
	switch typ {
	case corev1.ServiceTypeClusterIP, corev1.ServiceTypeNodePort:
		if len(svc.Spec.ExternalIPs) > 0 {
			return strings.Join(svc.Spec.ExternalIPs, ",")
		}
		return "<none>"
	case corev1.ServiceTypeLoadBalancer:
		var lb []string
		for _, in := range svc.Status.LoadBalancer.Ingress {
			if in.IP != "" {
				lb = append(lb, in.IP)
			} else if in.Hostname != "" {
				lb = append(lb, in.Hostname)
			}
		}
		sort.Strings(lb)
		all := append(slices.Compact(lb), svc.Spec.ExternalIPs...)
		if len(all) == 0 {
			return "<pending>"
		}
		return strings.Join(all, ",")
	case corev1.ServiceTypeExternalName:
		return svc.Spec.ExternalName
	}
	return "<unknown>"
}

// podCells computes a pod row as upstream's pod printer does: ready and
// total containers (restartable init containers, sidecars, count), the
// reason of the first init container not done or of the last container
// with one, restarts with the time since the last, and the wide columns.
func podCells(pod *corev1.Pod, now time.Time) []any {
	restarts, sidecarRestarts := 0, 0
	total := len(pod.Spec.Containers)
	ready := 0
	var lastRestart, lastSidecarRestart time.Time
	reason := string(pod.Status.Phase)
	if pod.Status.Reason != "" {
		reason = pod.Status.Reason
	}
	for _, c := range pod.Status.Conditions {
		if c.Type == corev1.PodScheduled && c.Reason == corev1.PodReasonSchedulingGated {
			reason = corev1.PodReasonSchedulingGated
		}
	}
	sidecars := map[string]bool{}
	for _, c := range pod.Spec.InitContainers {
		if c.RestartPolicy != nil && *c.RestartPolicy == corev1.ContainerRestartPolicyAlways {
			sidecars[c.Name] = true
			total++
		}
	}
	later := func(t *time.Time, cs corev1.ContainerStatus) {
		if term := cs.LastTerminationState.Terminated; term != nil && t.Before(term.FinishedAt.Time) {
			*t = term.FinishedAt.Time
		}
	}
	initializing := false
	for i, cs := range pod.Status.InitContainerStatuses {
		restarts += int(cs.RestartCount)
		later(&lastRestart, cs)
		if sidecars[cs.Name] {
			sidecarRestarts += int(cs.RestartCount)
			later(&lastSidecarRestart, cs)
		}
		term := cs.State.Terminated
		switch {
		case term != nil && term.ExitCode == 0:
			continue
		case sidecars[cs.Name] && cs.Started != nil && *cs.Started:
			if cs.Ready {
				ready++
			}
			continue
		case term != nil:
			switch {
			case term.Reason != "":
				reason = "Init:" + term.Reason
			case term.Signal != 0:
				reason = fmt.Sprintf("Init:Signal:%d", term.Signal)
			default:
				reason = fmt.Sprintf("Init:ExitCode:%d", term.ExitCode)
			}
		case cs.State.Waiting != nil && cs.State.Waiting.Reason != "" && cs.State.Waiting.Reason != "PodInitializing":
			reason = "Init:" + cs.State.Waiting.Reason
		default:
			reason = fmt.Sprintf("Init:%d/%d", i, len(pod.Spec.InitContainers))
		}
		initializing = true
		break
	}
	if !initializing || podConditionTrue(pod, corev1.PodInitialized) {
		restarts, lastRestart = sidecarRestarts, lastSidecarRestart
		hasRunning := false
		errorReason := ""
		for i := len(pod.Status.ContainerStatuses) - 1; i >= 0; i-- {
			cs := pod.Status.ContainerStatuses[i]
			restarts += int(cs.RestartCount)
			later(&lastRestart, cs)
			switch term := cs.State.Terminated; {
			case cs.State.Waiting != nil && cs.State.Waiting.Reason != "":
				reason = cs.State.Waiting.Reason
			case term != nil:
				switch {
				case term.Reason != "":
					reason = term.Reason
				case term.Signal != 0:
					reason = fmt.Sprintf("Signal:%d", term.Signal)
				default:
					reason = fmt.Sprintf("ExitCode:%d", term.ExitCode)
				}
				if term.ExitCode != 0 {
					errorReason = reason
				}
			case cs.Ready && cs.State.Running != nil:
				hasRunning = true
				ready++
			}
		}
		// A pod with a container still running is not Completed.
		if reason == "Completed" {
			switch {
			case hasRunning && podConditionTrue(pod, corev1.PodReady):
				reason = "Running"
			case errorReason != "":
				reason = errorReason
			case hasRunning:
				reason = "NotReady"
			}
		}
	}
	if pod.DeletionTimestamp != nil && pod.Status.Reason == "NodeLost" {
		reason = "Unknown"
	} else if pod.DeletionTimestamp != nil && pod.Status.Phase != corev1.PodSucceeded && pod.Status.Phase != corev1.PodFailed {
		reason = "Terminating"
	}
	restartStr := strconv.Itoa(restarts)
	if restarts != 0 && !lastRestart.IsZero() {
		restartStr = fmt.Sprintf("%d (%s ago)", restarts, age(now, metav1.NewTime(lastRestart)))
	}
	ip := pod.Status.PodIP
	if len(pod.Status.PodIPs) > 0 {
		ip = pod.Status.PodIPs[0].IP
	}
	if ip == "" {
		ip = "<none>"
	}
	node := "<none>"
	if pod.Spec.NodeName != "" {
		node = pod.Spec.NodeName
	}
	nominated := "<none>"
	if pod.Status.NominatedNodeName != "" {
		nominated = pod.Status.NominatedNodeName
	}
	gates := "<none>"
	if n := len(pod.Spec.ReadinessGates); n > 0 {
		ok := 0
		for _, g := range pod.Spec.ReadinessGates {
			if podConditionTrue(pod, g.ConditionType) {
				ok++
			}
		}
		gates = fmt.Sprintf("%d/%d", ok, n)
	}
	return []any{pod.Name, fmt.Sprintf("%d/%d", ready, total), reason, restartStr, age(now, pod.CreationTimestamp), ip, node, nominated, gates}
}

// podConditionTrue reports whether the pod's first condition of a type is
// True.
func podConditionTrue(pod *corev1.Pod, typ corev1.PodConditionType) bool {
	for _, c := range pod.Status.Conditions {
		if c.Type == typ {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// formatEndpoints lists up to three ready addresses (host:port for each
// port of their subset) and how many more there are.
func formatEndpoints(ep *corev1.Endpoints) string {
	if len(ep.Subsets) == 0 {
		return "<none>"
	}
	const max = 3
	var list []string
	count := 0
	for _, ss := range ep.Subsets {
		if len(ss.Ports) == 0 {
			count += len(ss.Addresses)
			for _, a := range ss.Addresses {
				if len(list) < max {
					list = append(list, a.IP)
				}
			}
			continue
		}
		for _, p := range ss.Ports {
			count += len(ss.Addresses)
			for _, a := range ss.Addresses {
				if len(list) < max {
					list = append(list, net.JoinHostPort(a.IP, strconv.Itoa(int(p.Port))))
				}
			}
		}
	}
	ret := strings.Join(list, ",")
	if count > max {
		return fmt.Sprintf("%s + %d more...", ret, count-max)
	}
	return ret
}

// accessModesString abbreviates access modes in upstream's fixed order.
func accessModesString(modes []corev1.PersistentVolumeAccessMode) string {
	has := map[corev1.PersistentVolumeAccessMode]bool{}
	for _, m := range modes {
		has[m] = true
	}
	var out []string
	for _, m := range []struct {
		mode  corev1.PersistentVolumeAccessMode
		short string
	}{{corev1.ReadWriteOnce, "RWO"}, {corev1.ReadOnlyMany, "ROX"}, {corev1.ReadWriteMany, "RWX"}, {corev1.ReadWriteOncePod, "RWOP"}} {
		if has[m.mode] {
			out = append(out, m.short)
		}
	}
	return strings.Join(out, ",")
}

// volumeModeString prints a volume mode, Filesystem by default.
func volumeModeString(m *corev1.PersistentVolumeMode) string {
	if m == nil {
		return string(corev1.PersistentVolumeFilesystem)
	}
	return string(*m)
}

// nodeRoles lists a node's roles from its node-role.kubernetes.io/<role>
// and kubernetes.io/role=<role> labels, sorted.
func nodeRoles(n *corev1.Node) []string {
	seen := map[string]bool{}
	var roles []string
	for k, v := range n.Labels {
		role := ""
		switch {
		case strings.HasPrefix(k, "node-role.kubernetes.io/"):
			role = strings.TrimPrefix(k, "node-role.kubernetes.io/")
		case k == "kubernetes.io/role":
			role = v
		}
		if role != "" && !seen[role] {
			seen[role] = true
			roles = append(roles, role)
		}
	}
	sort.Strings(roles)
	return roles
}

// nodeAddress is the node's first address of a type, or <none>.
func nodeAddress(n *corev1.Node, typ corev1.NodeAddressType) string {
	for _, a := range n.Status.Addresses {
		if a.Type == typ {
			return a.Address
		}
	}
	return "<none>"
}

// eventCells prints an event (core/v1 fields; events.k8s.io/v1 ones are
// mapped onto them as upstream's conversion does).
func eventCells(ev *corev1.Event, now time.Time) []any {
	first := age(now, ev.FirstTimestamp)
	if ev.FirstTimestamp.IsZero() {
		first = age(now, metav1.Time{Time: ev.EventTime.Time})
	}
	last := age(now, ev.LastTimestamp)
	if ev.LastTimestamp.IsZero() {
		last = first
	}
	count := ev.Count
	if ev.Series != nil {
		last = age(now, metav1.Time{Time: ev.Series.LastObservedTime.Time})
		count = ev.Series.Count
	} else if count == 0 {
		// Singleton events of the events.k8s.io API have no count.
		count = 1
	}
	target := strings.ToLower(ev.InvolvedObject.Kind)
	if ev.InvolvedObject.Name != "" {
		target += "/" + ev.InvolvedObject.Name
	}
	component, instance := ev.Source.Component, ev.Source.Host
	if component == "" {
		component = ev.ReportingController
	}
	if instance == "" {
		instance = ev.ReportingInstance
	}
	source := component
	if instance != "" {
		source += ", " + instance
	}
	return []any{last, ev.Type, ev.Reason, target, ev.InvolvedObject.FieldPath, source, strings.TrimSpace(ev.Message), first, int64(count), ev.Name}
}
