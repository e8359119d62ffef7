package server

import (
	"encoding/json"
	"fmt"
	coordinationv1 "k8s.io/api/coordination/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/duration"
)

// printer renders one resource's Table rows; the column definitions come
// from the recording of kube-apiserver's (see columnsOf).
type printer struct {
	cells func(s *Server, obj runtime.Object) []any
	// list, when set, prints the rows of a list (a get or a watch event
	// prints one object with cells): the index of the item each row shows
	// and the row's cells. Upstream's list printers of a few resources look
	// at all the items (the default StorageClass) or order them
	// (FlowSchemas).
	list func(s *Server, objs []runtime.Object) (order []int, cells [][]any)
	// conditions, when set, gives a row's conditions (completed pods).
	conditions func(obj runtime.Object) []metav1.TableRowCondition
}

// objectMetaDocs are ObjectMeta's field descriptions, which upstream's
// generated columns (a CRD's Age) carry.
var objectMetaDocs = metav1.ObjectMeta{}.SwaggerDoc()

// createdAtPrinter is upstream's default table convertor (Name, Created At),
// used by resources without a printer of their own.
var createdAtPrinter = printer{
	cells: func(s *Server, obj runtime.Object) []any {
		m, _ := meta.Accessor(obj)
		ts, _ := m.GetCreationTimestamp().MarshalQueryParameter()
		return []any{m.GetName(), ts}
	},
}

// age renders a creation timestamp the way kubectl shows ages.
func (s *Server) age(t metav1.Time) string {
	if t.IsZero() {
		return "<unknown>"
	}
	return duration.HumanDuration(s.now().Sub(t.Time))
}

// printers holds the column layouts fakeplane knows, keyed by group/resource.
// Resources without one get Name and Age.
// bindingPrinter renders RoleBindings and ClusterRoleBindings.
func bindingPrinter() printer {
	return printer{
		cells: func(s *Server, obj runtime.Object) []any {
			var name string
			var ref rbacv1.RoleRef
			var subjects []rbacv1.Subject
			var created metav1.Time
			switch b := obj.(type) {
			case *rbacv1.RoleBinding:
				name, ref, subjects, created = b.Name, b.RoleRef, b.Subjects, b.CreationTimestamp
			case *rbacv1.ClusterRoleBinding:
				name, ref, subjects, created = b.Name, b.RoleRef, b.Subjects, b.CreationTimestamp
			}
			var users, groups, sas []string
			for _, sub := range subjects {
				switch sub.Kind {
				case rbacv1.UserKind:
					users = append(users, sub.Name)
				case rbacv1.GroupKind:
					groups = append(groups, sub.Name)
				case rbacv1.ServiceAccountKind:
					sas = append(sas, sub.Namespace+"/"+sub.Name)
				}
			}
			return []any{name, ref.Kind + "/" + ref.Name, s.age(created), strings.Join(users, ", "), strings.Join(groups, ", "), strings.Join(sas, ", ")}
		},
	}
}

var printers = map[string]printer{
	"rbac.authorization.k8s.io/rolebindings":        bindingPrinter(),
	"rbac.authorization.k8s.io/clusterrolebindings": bindingPrinter(),
	"scheduling.k8s.io/priorityclasses": {
		cells: func(s *Server, obj runtime.Object) []any {
			pc := obj.(*schedulingv1.PriorityClass)
			policy := ""
			if pc.PreemptionPolicy != nil {
				policy = string(*pc.PreemptionPolicy)
			}
			return []any{pc.Name, int64(pc.Value), pc.GlobalDefault, s.age(pc.CreationTimestamp), policy}
		},
	},
	"coordination.k8s.io/leases": {
		cells: func(s *Server, obj runtime.Object) []any {
			l := obj.(*coordinationv1.Lease)
			holder := ""
			if l.Spec.HolderIdentity != nil {
				holder = *l.Spec.HolderIdentity
			}
			return []any{l.Name, holder, s.age(l.CreationTimestamp)}
		},
	},
	"apps/replicasets": {
		cells: func(s *Server, obj runtime.Object) []any {
			rs := obj.(*appsv1.ReplicaSet)
			want := int32(1)
			if rs.Spec.Replicas != nil {
				want = *rs.Spec.Replicas
			}
			names, images := containerNamesImages(rs.Spec.Template.Spec.Containers)
			sel := labelSelectorString(rs.Spec.Selector)
			return []any{rs.Name, int64(want), int64(rs.Status.Replicas), int64(rs.Status.ReadyReplicas), s.age(rs.CreationTimestamp), names, images, sel}
		},
	},
	"/limitranges":                           createdAtPrinter,
	"rbac.authorization.k8s.io/clusterroles": createdAtPrinter,
	"rbac.authorization.k8s.io/roles":        createdAtPrinter,
	"storage.k8s.io/csistoragecapacities":    createdAtPrinter,
	"apiextensions.k8s.io/customresourcedefinitions": {
		cells: func(s *Server, obj runtime.Object) []any {
			crd := obj.(*apiextensionsv1.CustomResourceDefinition)
			var versions []string
			for _, v := range crd.Spec.Versions {
				if !v.Served {
					continue
				}
				if v.Storage {
					versions = append(versions, v.Name+"(storage)")
				} else {
					versions = append(versions, v.Name)
				}
			}
			ts, _ := crd.CreationTimestamp.MarshalQueryParameter()
			established := false
			for _, c := range crd.Status.Conditions {
				if c.Type == apiextensionsv1.Established && c.Status == apiextensionsv1.ConditionTrue {
					established = true
				}
			}
			return []any{crd.Name, string(crd.Spec.Scope), strings.Join(versions, ","), ts, crd.Spec.Group, crd.Spec.Names.Kind, strings.Join(crd.Spec.Names.ShortNames, ","), established}
		},
	},
	"/namespaces": {
		cells: func(s *Server, obj runtime.Object) []any {
			ns := obj.(*corev1.Namespace)
			return []any{ns.Name, string(ns.Status.Phase), s.age(ns.CreationTimestamp)}
		},
	},
	"/configmaps": {
		cells: func(s *Server, obj runtime.Object) []any {
			cm := obj.(*corev1.ConfigMap)
			return []any{cm.Name, int64(len(cm.Data) + len(cm.BinaryData)), s.age(cm.CreationTimestamp)}
		},
	},
	"/secrets": {
		cells: func(s *Server, obj runtime.Object) []any {
			sec := obj.(*corev1.Secret)
			return []any{sec.Name, string(sec.Type), int64(len(sec.Data)), s.age(sec.CreationTimestamp)}
		},
	},
	"/pods": {
		cells: func(s *Server, obj runtime.Object) []any { return s.podCells(obj.(*corev1.Pod)) },
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
	"apps/deployments": {
		cells: func(s *Server, obj runtime.Object) []any {
			d := obj.(*appsv1.Deployment)
			want := int32(1)
			if d.Spec.Replicas != nil {
				want = *d.Spec.Replicas
			}
			names, images := containerNamesImages(d.Spec.Template.Spec.Containers)
			// Unlike other workloads', an empty selector prints empty.
			sel := "<invalid>"
			if selector, err := metav1.LabelSelectorAsSelector(d.Spec.Selector); err == nil {
				sel = selector.String()
			}
			return []any{d.Name, fmt.Sprintf("%d/%d", d.Status.ReadyReplicas, want), int64(d.Status.UpdatedReplicas), int64(d.Status.AvailableReplicas), s.age(d.CreationTimestamp), names, images, sel}
		},
	},
	"/services": {
		cells: func(s *Server, obj runtime.Object) []any {
			svc := obj.(*corev1.Service)
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
			return []any{svc.Name, string(typ), cip, serviceExternalIP(svc, typ), portStr, s.age(svc.CreationTimestamp), selectorString(svc.Spec.Selector)}
		},
	},
}

func selectorString(m map[string]string) string {
	if len(m) == 0 {
		return "<none>"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	parts := make([]string, len(keys))
	for i, k := range keys {
		parts[i] = k + "=" + m[k]
	}
	return strings.Join(parts, ",")
}

func containerNamesImages(cs []corev1.Container) (string, string) {
	var names, images []string
	for _, c := range cs {
		names = append(names, c.Name)
		images = append(images, c.Image)
	}
	return strings.Join(names, ","), strings.Join(images, ",")
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
func (s *Server) podCells(pod *corev1.Pod) []any {
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
		restartStr = fmt.Sprintf("%d (%s ago)", restarts, s.age(metav1.NewTime(lastRestart)))
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
	return []any{pod.Name, fmt.Sprintf("%d/%d", ready, total), reason, restartStr, s.age(pod.CreationTimestamp), ip, node, nominated, gates}
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

// tableFor renders stored objects as a meta.k8s.io Table.
func (s *Server) tableFor(c *call, items [][]byte, lm *metav1.ListMeta) (*metav1.Table, error) {
	if c.res.table != nil {
		return s.crdTable(c, items, lm)
	}
	key := c.res.Group + "/" + c.res.Resource.Resource
	p := printers[key]
	include := metav1.IncludeMetadata
	if v := c.r.URL.Query().Get("includeObject"); v != "" {
		include = metav1.IncludeObjectPolicy(v)
		if include != metav1.IncludeNone && include != metav1.IncludeMetadata && include != metav1.IncludeObject {
			return nil, apierrors.NewBadRequest(fmt.Sprintf("unable to convert to table: includeObject must be one of None, Metadata, Object"))
		}
	}
	t := &metav1.Table{TypeMeta: metav1.TypeMeta{Kind: "Table", APIVersion: "meta.k8s.io/" + c.media.version}, ColumnDefinitions: columnsOf(key), Rows: []metav1.TableRow{}}
	if lm != nil {
		t.ListMeta = *lm
	}
	objs := make([]*object, len(items))
	for i, data := range items {
		o, err := s.decodeForTable(c, i, data)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		objs[i] = o
	}
	if lm == nil && len(objs) == 1 {
		// The Table of one object has the object's resourceVersion.
		t.ResourceVersion = objs[0].meta.GetResourceVersion()
	}
	order, cells := s.tableCells(p, objs, lm != nil)
	for i, idx := range order {
		row := metav1.TableRow{Cells: cells[i]}
		if p.conditions != nil {
			row.Conditions = p.conditions(objs[idx].obj)
		}
		switch include {
		case metav1.IncludeObject:
			row.Object = runtime.RawExtension{Raw: items[idx]}
		case metav1.IncludeMetadata:
			b, err := partialJSON(c.media.version, items[idx])
			if err != nil {
				return nil, apierrors.NewInternalError(err)
			}
			row.Object = runtime.RawExtension{Raw: b}
		}
		t.Rows = append(t.Rows, row)
	}
	return t, nil
}

// tableCells prints objects' rows: the index of the object each row shows
// and its cells. A list goes to the printer's list function when it has one.
func (s *Server) tableCells(p printer, objs []*object, list bool) ([]int, [][]any) {
	if list && p.list != nil {
		typed := make([]runtime.Object, len(objs))
		for i, o := range objs {
			typed[i] = o.obj
		}
		return p.list(s, typed)
	}
	order := make([]int, len(objs))
	cells := make([][]any, len(objs))
	for i, o := range objs {
		order[i] = i
		if p.cells != nil {
			cells[i] = p.cells(s, o.obj)
		} else {
			cells[i] = []any{o.meta.GetName(), s.age(o.meta.GetCreationTimestamp())}
		}
	}
	return order, cells
}

// crdTable renders custom resources with upstream's table convertor for the
// CRD version's additionalPrinterColumns.
func (s *Server) crdTable(c *call, items [][]byte, lm *metav1.ListMeta) (*metav1.Table, error) {
	list := &unstructured.UnstructuredList{Object: map[string]any{"apiVersion": c.res.apiVersion(), "kind": c.res.listKind, "metadata": map[string]any{}}}
	for _, data := range items {
		o, err := c.res.decodeStored(data)
		if err != nil {
			return nil, apierrors.NewInternalError(err)
		}
		list.Items = append(list.Items, *o.obj.(*unstructured.Unstructured))
	}
	var obj runtime.Object = list
	if lm == nil && len(list.Items) == 1 {
		obj = &list.Items[0]
	}
	opts := &metav1.TableOptions{IncludeObject: metav1.IncludeMetadata}
	if v := c.r.URL.Query().Get("includeObject"); v != "" {
		opts.IncludeObject = metav1.IncludeObjectPolicy(v)
	}
	t, err := c.res.table.ConvertToTable(c.ctx(), obj, opts)
	if err != nil {
		return nil, apierrors.NewInternalError(err)
	}
	t.APIVersion, t.Kind = "meta.k8s.io/"+c.media.version, "Table"
	if lm != nil {
		t.ResourceVersion, t.Continue, t.RemainingItemCount = lm.ResourceVersion, lm.Continue, lm.RemainingItemCount
	}
	for i := range t.Rows {
		switch opts.IncludeObject {
		case metav1.IncludeMetadata:
			u := &list.Items[i]
			pom := metav1.PartialObjectMetadata{TypeMeta: metav1.TypeMeta{Kind: "PartialObjectMetadata", APIVersion: "meta.k8s.io/" + c.media.version}}
			pom.ObjectMeta = metaOf(u)
			b, _ := json.Marshal(&pom)
			t.Rows[i].Object = runtime.RawExtension{Raw: b}
		case metav1.IncludeObject:
			t.Rows[i].Object = runtime.RawExtension{Raw: items[i]}
		default:
			t.Rows[i].Object = runtime.RawExtension{}
		}
	}
	return t, nil
}

// metaOf extracts the ObjectMeta of an unstructured object.
func metaOf(u *unstructured.Unstructured) metav1.ObjectMeta {
	var m metav1.ObjectMeta
	if md, ok := u.Object["metadata"].(map[string]any); ok {
		_ = runtime.DefaultUnstructuredConverter.FromUnstructured(md, &m)
	}
	return m
}

// labelSelectorString prints a workload's selector as kubectl shows it:
// "<none>" for a missing or empty one.
func labelSelectorString(ls *metav1.LabelSelector) string {
	return metav1.FormatLabelSelector(ls)
}

// protoUnmarshaler is a built-in type's generated protobuf decoder.
type protoUnmarshaler interface{ Unmarshal([]byte) error }

// decodeForTable decodes the i-th object of a Table: a listed built-in
// object from its cached protobuf message (several times faster than its
// JSON), anything else from its JSON.
func (s *Server) decodeForTable(c *call, i int, data []byte) (*object, error) {
	if c.res.typed != nil && len(c.listed) > i {
		it := c.listed[i]
		if msg, err := s.enc.protoOf(c.res, it.Key, it.Revision, data); err == nil {
			obj := c.res.typed()
			if pu, ok := obj.(protoUnmarshaler); ok && pu.Unmarshal(msg) == nil {
				obj.GetObjectKind().SetGroupVersionKind(c.res.gvk)
				if acc, err := meta.Accessor(obj); err == nil {
					return &object{obj: obj, meta: acc}, nil
				}
			}
		}
	}
	return c.res.decodeStored(data)
}
