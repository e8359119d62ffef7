package server

import (
	"fmt"
	"net"
	"sort"
	"strconv"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// Printers of built-in resources, cell for cell what kube-apiserver's
// printers answer. kube-apiserver prints the objects it stores, after its
// defaulting; fakeplane does not default every field it prints, so the
// printers read a missing field as the default upstream would have stored.

func init() {
	for k, p := range builtinPrinters {
		printers[k] = p
	}
}

var builtinPrinters = map[string]printer{
	"/endpoints": {
		columns: endpointsColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			ep := obj.(*corev1.Endpoints)
			return []any{ep.Name, formatEndpoints(ep), s.age(ep.CreationTimestamp)}
		},
	},
	"discovery.k8s.io/endpointslices": {
		columns: endpointSliceColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			es := obj.(*discoveryv1.EndpointSlice)
			var ports, addrs []string
			for _, p := range es.Ports {
				switch {
				case p.Port != nil:
					ports = append(ports, strconv.Itoa(int(*p.Port)))
				case p.Name != nil:
					ports = append(ports, *p.Name)
				default:
					// A port's name defaults to "" upstream.
					ports = append(ports, "")
				}
			}
			for _, e := range es.Endpoints {
				addrs = append(addrs, e.Addresses...)
			}
			return []any{es.Name, string(es.AddressType), firstThree(ports), firstThree(addrs), s.age(es.CreationTimestamp)}
		},
	},
	"/persistentvolumes": {
		columns: persistentVolumeColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			pv := obj.(*corev1.PersistentVolume)
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
				orUnset(pv.Spec.VolumeAttributesClassName), pv.Status.Reason, s.age(pv.CreationTimestamp), volumeModeString(pv.Spec.VolumeMode)}
		},
	},
	"/persistentvolumeclaims": {
		columns: persistentVolumeClaimColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			pvc := obj.(*corev1.PersistentVolumeClaim)
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
				orUnset(pvc.Spec.VolumeAttributesClassName), s.age(pvc.CreationTimestamp), volumeModeString(pvc.Spec.VolumeMode)}
		},
	},
	"/replicationcontrollers": {
		columns: replicationControllerColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			rc := obj.(*corev1.ReplicationController)
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
			return []any{rc.Name, int64(want), int64(rc.Status.Replicas), int64(rc.Status.ReadyReplicas), s.age(rc.CreationTimestamp), names, images, selectorString(selector)}
		},
	},
	"/nodes": {
		columns: nodeColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			n := obj.(*corev1.Node)
			var status []string
			for _, c := range n.Status.Conditions {
				if c.Type == corev1.NodeReady {
					if c.Status == corev1.ConditionTrue {
						status = append(status, "Ready")
					} else {
						status = append(status, "NotReady")
					}
					break
				}
			}
			if len(status) == 0 {
				status = append(status, "Unknown")
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
			return []any{n.Name, strings.Join(status, ","), roles, s.age(n.CreationTimestamp), info.KubeletVersion,
				nodeAddress(n, corev1.NodeInternalIP), nodeAddress(n, corev1.NodeExternalIP), osImage, kernel, crVersion}
		},
	},
	"/events": {
		columns: eventColumns,
		cells:   func(s *Server, obj runtime.Object) []any { return s.eventCells(obj.(*corev1.Event)) },
	},
	"events.k8s.io/events": {
		columns: eventColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			ev := obj.(*eventsv1.Event)
			ce := &corev1.Event{
				ObjectMeta: ev.ObjectMeta, InvolvedObject: ev.Regarding, Reason: ev.Reason, Message: ev.Note,
				Source: ev.DeprecatedSource, FirstTimestamp: ev.DeprecatedFirstTimestamp, LastTimestamp: ev.DeprecatedLastTimestamp,
				Count: ev.DeprecatedCount, Type: ev.Type, EventTime: ev.EventTime,
				ReportingController: ev.ReportingController, ReportingInstance: ev.ReportingInstance,
			}
			if ev.Series != nil {
				ce.Series = &corev1.EventSeries{Count: ev.Series.Count, LastObservedTime: ev.Series.LastObservedTime}
			}
			return s.eventCells(ce)
		},
	},
	"apps/statefulsets": {
		columns: statefulSetColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			ss := obj.(*appsv1.StatefulSet)
			want := int32(1)
			if ss.Spec.Replicas != nil {
				want = *ss.Spec.Replicas
			}
			names, images := containerNamesImages(ss.Spec.Template.Spec.Containers)
			return []any{ss.Name, fmt.Sprintf("%d/%d", ss.Status.ReadyReplicas, want), s.age(ss.CreationTimestamp), names, images}
		},
	},
	"apps/daemonsets": {
		columns: daemonSetColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			ds := obj.(*appsv1.DaemonSet)
			st := ds.Status
			names, images := containerNamesImages(ds.Spec.Template.Spec.Containers)
			return []any{ds.Name, int64(st.DesiredNumberScheduled), int64(st.CurrentNumberScheduled), int64(st.NumberReady),
				int64(st.UpdatedNumberScheduled), int64(st.NumberAvailable), selectorString(ds.Spec.Template.Spec.NodeSelector),
				s.age(ds.CreationTimestamp), names, images, labelSelectorString(ds.Spec.Selector)}
		},
	},
	"batch/jobs": {
		columns: jobColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			job := obj.(*batchv1.Job)
			names, images := containerNamesImages(job.Spec.Template.Spec.Containers)
			return []any{job.Name, jobStatus(job), jobCompletions(job), s.jobDuration(job), s.age(job.CreationTimestamp), names, images, jobSelector(job)}
		},
	},
	"batch/cronjobs": {
		columns: cronJobColumns,
		cells: func(s *Server, obj runtime.Object) []any {
			cj := obj.(*batchv1.CronJob)
			tz := "<none>"
			if cj.Spec.TimeZone != nil {
				tz = *cj.Spec.TimeZone
			}
			// spec.suspend defaults to false.
			suspend := "False"
			if cj.Spec.Suspend != nil && *cj.Spec.Suspend {
				suspend = "True"
			}
			last := "<none>"
			if cj.Status.LastScheduleTime != nil {
				last = s.age(*cj.Status.LastScheduleTime)
			}
			tmpl := cj.Spec.JobTemplate.Spec
			names, images := containerNamesImages(tmpl.Template.Spec.Containers)
			return []any{cj.Name, cj.Spec.Schedule, tz, suspend, int64(len(cj.Status.Active)), last, s.age(cj.CreationTimestamp), names, images, labelSelectorString(tmpl.Selector)}
		},
	},
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

// firstThree joins up to three items, saying how many more there are;
// "<unset>" when there are none.
func firstThree(items []string) string {
	if len(items) > 3 {
		return fmt.Sprintf("%s + %d more...", strings.Join(items[:3], ","), len(items)-3)
	}
	if len(items) == 0 {
		return "<unset>"
	}
	return strings.Join(items, ",")
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

func orUnset(s *string) string {
	if s == nil {
		return "<unset>"
	}
	return *s
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

func orUnknown(s string) string {
	if s == "" {
		return "<unknown>"
	}
	return s
}

// eventCells prints an event (core/v1 fields; events.k8s.io/v1 ones are
// mapped onto them as upstream's conversion does).
func (s *Server) eventCells(ev *corev1.Event) []any {
	first := s.age(ev.FirstTimestamp)
	if ev.FirstTimestamp.IsZero() {
		first = s.age(metav1.Time{Time: ev.EventTime.Time})
	}
	last := s.age(ev.LastTimestamp)
	if ev.LastTimestamp.IsZero() {
		last = first
	}
	count := ev.Count
	if ev.Series != nil {
		last = s.age(metav1.Time{Time: ev.Series.LastObservedTime.Time})
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

// jobCompletions is "succeeded/completions", with parallelism and
// completions defaulted as upstream does (both 1 when neither is set).
func jobCompletions(job *batchv1.Job) string {
	if job.Spec.Completions != nil {
		return fmt.Sprintf("%d/%d", job.Status.Succeeded, *job.Spec.Completions)
	}
	if job.Spec.Parallelism != nil && *job.Spec.Parallelism > 1 {
		return fmt.Sprintf("%d/1 of %d", job.Status.Succeeded, *job.Spec.Parallelism)
	}
	return fmt.Sprintf("%d/1", job.Status.Succeeded)
}

// jobDuration is how long the job ran: until completion, or until now.
func (s *Server) jobDuration(job *batchv1.Job) string {
	switch {
	case job.Status.StartTime == nil:
		return ""
	case job.Status.CompletionTime == nil:
		return duration.HumanDuration(s.now().Sub(job.Status.StartTime.Time))
	}
	return duration.HumanDuration(job.Status.CompletionTime.Sub(job.Status.StartTime.Time))
}

// jobStatus names the first of the job's states that holds, in upstream's
// order of precedence.
func jobStatus(job *batchv1.Job) string {
	has := func(t batchv1.JobConditionType) bool {
		for _, c := range job.Status.Conditions {
			if c.Type == t {
				return c.Status == "True"
			}
		}
		return false
	}
	switch {
	case has(batchv1.JobComplete):
		return "Complete"
	case has(batchv1.JobFailed):
		return "Failed"
	case job.DeletionTimestamp != nil:
		return "Terminating"
	case has(batchv1.JobSuspended):
		return "Suspended"
	case has(batchv1.JobFailureTarget):
		return "FailureTarget"
	case has(batchv1.JobSuccessCriteriaMet):
		return "SuccessCriteriaMet"
	}
	return "Running"
}

// jobSelector prints a job's selector. kube-apiserver generates one
// (batch.kubernetes.io/controller-uid=<uid>) for jobs created without
// manualSelector; fakeplane stores none, so it is printed as generated.
func jobSelector(job *batchv1.Job) string {
	if job.Spec.Selector == nil && (job.Spec.ManualSelector == nil || !*job.Spec.ManualSelector) {
		return batchv1.ControllerUidLabel + "=" + string(job.UID)
	}
	return labelSelectorString(job.Spec.Selector)
}

var statefulSetColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Ready", "string", "", "Number of the pod with ready state", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
}

var daemonSetColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Desired", "integer", "", "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/", 0),
	col("Current", "integer", "", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/", 0),
	col("Ready", "integer", "", "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.", 0),
	col("Up-to-date", "integer", "", "The total number of nodes that are running updated daemon pod", 0),
	col("Available", "integer", "", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)", 0),
	col("Node Selector", "string", "", "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
	col("Selector", "string", "", "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
}

var jobColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Status", "string", "", "Status of the job.", 0),
	col("Completions", "string", "", "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.", 0),
	col("Duration", "string", "", "Time required to complete the job.", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
	col("Selector", "string", "", "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
}

var cronJobColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Schedule", "string", "", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.", 0),
	col("Timezone", "string", "", "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones", 0),
	col("Suspend", "boolean", "", "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.", 0),
	col("Active", "integer", "", "A list of pointers to currently running jobs.", 0),
	col("Last Schedule", "string", "", "Information when was the last time the job was successfully scheduled.", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
	col("Selector", "string", "", "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
}

var nodeColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Status", "string", "", "The status of the node", 0),
	col("Roles", "string", "", "The roles of the node", 0),
	ageColumn,
	col("Version", "string", "", "Kubelet Version reported by the node.", 0),
	col("Internal-IP", "string", "", "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).", 1),
	col("External-IP", "string", "", "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).", 1),
	col("OS-Image", "string", "", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1),
	col("Kernel-Version", "string", "", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
	col("Container-Runtime", "string", "", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1),
}

var eventColumns = []metav1.TableColumnDefinition{
	col("Last Seen", "string", "", "The time at which the most recent occurrence of this event was recorded.", 0),
	col("Type", "string", "", "Type of this event (Normal, Warning), new types could be added in the future", 0),
	col("Reason", "string", "", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.", 0),
	col("Object", "string", "", "The object that this event is about.", 0),
	col("Subobject", "string", "", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.", 1),
	col("Source", "string", "", "The component reporting this event. Should be a short machine understandable string.", 1),
	col("Message", "string", "", "A human-readable description of the status of this operation.", 0),
	col("First Seen", "string", "", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1),
	col("Count", "string", "", "The number of times this event has occurred.", 1),
	col("Name", "string", "name", objectMetaDocs["name"], 1),
}

var endpointsColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Endpoints", "string", "", "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.", 0),
	ageColumn,
}

var endpointSliceColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("AddressType", "string", "", "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name. (Deprecated) The EndpointSlice controller only generates, and kube-proxy only processes, slices of addressType \"IPv4\" and \"IPv6\". No semantics are defined for the \"FQDN\" type.", 0),
	col("Ports", "string", "", "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. Each slice may include a maximum of 100 ports. Services always have at least 1 port, so EndpointSlices generated by the EndpointSlice controller will likewise always have at least 1 port. EndpointSlices used for other purposes may have an empty ports list.", 0),
	col("Endpoints", "string", "", "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.", 0),
	ageColumn,
}

var persistentVolumeColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Capacity", "string", "", "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity", 0),
	col("Access Modes", "string", "", "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes", 0),
	col("Reclaim Policy", "string", "", "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming", 0),
	col("Status", "string", "", "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase", 0),
	col("Claim", "string", "", "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding", 0),
	col("StorageClass", "string", "", "StorageClass of the pv", 0),
	col("VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pv", 0),
	col("Reason", "string", "", "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.", 0),
	ageColumn,
	col("VolumeMode", "string", "", "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.", 1),
}

var persistentVolumeClaimColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Status", "string", "", "phase represents the current phase of PersistentVolumeClaim.", 0),
	col("Volume", "string", "", "volumeName is the binding reference to the PersistentVolume backing this claim.", 0),
	col("Capacity", "string", "", "capacity represents the actual resources of the underlying volume.", 0),
	col("Access Modes", "string", "", "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1", 0),
	col("StorageClass", "string", "", "StorageClass of the pvc", 0),
	col("VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pvc", 0),
	ageColumn,
	col("VolumeMode", "string", "", "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.", 1),
}

var replicationControllerColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Desired", "integer", "", "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller", 0),
	col("Current", "integer", "", "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller", 0),
	col("Ready", "integer", "", "The number of ready replicas for this replication controller.", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
	col("Selector", "string", "", "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
}
