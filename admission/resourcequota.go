package admission

import (
	"fmt"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/resource"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	quota "k8s.io/apiserver/pkg/quota/v1"
	resourcehelper "k8s.io/component-helpers/resource"
)

// QuotaUsage is what obj, an object of resource gr, uses of what a
// ResourceQuota can limit: its object count (count/<resource>.<group>,
// and the legacy names pods, services, configmaps, secrets,
// persistentvolumeclaims, replicationcontrollers, resourcequotas), a
// running pod's requests and limits, a Service's load balancers and node
// ports, a claim's storage (also per storage class). kube-controller-
// manager's and kube-apiserver's quota evaluators count the same.
func QuotaUsage(gr schema.GroupResource, obj runtime.Object) corev1.ResourceList {
	one := resource.MustParse("1")
	count := "count/" + gr.Resource
	if gr.Group != "" {
		count += "." + gr.Group
	}
	usage := corev1.ResourceList{corev1.ResourceName(count): one.DeepCopy()}
	if gr.Group != "" {
		return usage
	}
	switch o := obj.(type) {
	case *corev1.Pod:
		if o.Status.Phase == corev1.PodSucceeded || o.Status.Phase == corev1.PodFailed {
			// A terminated pod uses nothing but its object count.
			return usage
		}
		usage[corev1.ResourcePods] = one.DeepCopy()
		opts := resourcehelper.PodResourcesOptions{}
		for name, q := range resourcehelper.PodRequests(o, opts) {
			usage[corev1.ResourceName("requests."+string(name))] = q.DeepCopy()
			if name == corev1.ResourceCPU || name == corev1.ResourceMemory || name == corev1.ResourceEphemeralStorage {
				usage[name] = q.DeepCopy()
			}
		}
		for name, q := range resourcehelper.PodLimits(o, opts) {
			usage[corev1.ResourceName("limits."+string(name))] = q.DeepCopy()
		}
	case *corev1.Service:
		usage[corev1.ResourceServices] = one.DeepCopy()
		switch o.Spec.Type {
		case corev1.ServiceTypeLoadBalancer:
			usage[corev1.ResourceServicesLoadBalancers] = one.DeepCopy()
			fallthrough
		case corev1.ServiceTypeNodePort:
			ports := int64(len(o.Spec.Ports))
			if o.Spec.Type == corev1.ServiceTypeLoadBalancer && o.Spec.AllocateLoadBalancerNodePorts != nil && !*o.Spec.AllocateLoadBalancerNodePorts {
				ports = 0
			}
			usage[corev1.ResourceServicesNodePorts] = *resource.NewQuantity(ports, resource.DecimalSI)
		}
	case *corev1.PersistentVolumeClaim:
		usage[corev1.ResourcePersistentVolumeClaims] = one.DeepCopy()
		storage := o.Spec.Resources.Requests[corev1.ResourceStorage]
		usage[corev1.ResourceRequestsStorage] = storage.DeepCopy()
		if o.Spec.StorageClassName != nil && *o.Spec.StorageClassName != "" {
			class := *o.Spec.StorageClassName + ".storageclass.storage.k8s.io/"
			usage[corev1.ResourceName(class+"requests.storage")] = storage.DeepCopy()
			usage[corev1.ResourceName(class+"persistentvolumeclaims")] = one.DeepCopy()
		}
	case *corev1.ConfigMap:
		usage[corev1.ResourceConfigMaps] = one.DeepCopy()
	case *corev1.Secret:
		usage[corev1.ResourceSecrets] = one.DeepCopy()
	case *corev1.ReplicationController:
		usage[corev1.ResourceReplicationControllers] = one.DeepCopy()
	case *corev1.ResourceQuota:
		usage[corev1.ResourceQuotas] = one.DeepCopy()
	}
	return usage
}

// QuotaTracks reports whether a quota's hard limits name anything obj (of
// resource gr) uses, and obj is in the quota's scopes.
func QuotaTracks(q *corev1.ResourceQuota, gr schema.GroupResource, obj runtime.Object) bool {
	if len(quota.Mask(QuotaUsage(gr, obj), quota.ResourceNames(q.Spec.Hard))) == 0 && !constrainsPod(q, obj) {
		return false
	}
	ok, _ := QuotaScopesMatch(q, gr, obj)
	return ok
}

// constrainsPod reports whether obj is a pod whose containers must state
// what q limits (a pod that states nothing uses nothing of it, and is
// refused for that).
func constrainsPod(q *corev1.ResourceQuota, obj runtime.Object) bool {
	if _, ok := obj.(*corev1.Pod); !ok {
		return false
	}
	for name := range q.Spec.Hard {
		if _, ok := podQuotaRequired[name]; ok {
			return true
		}
	}
	return false
}

// podQuotaRequired are the quota names for which every container of a pod
// must state a request (requests.*) or limit (limits.*).
var podQuotaRequired = map[corev1.ResourceName]struct {
	limit bool
	name  corev1.ResourceName
}{
	corev1.ResourceCPU:            {false, corev1.ResourceCPU},
	corev1.ResourceMemory:         {false, corev1.ResourceMemory},
	corev1.ResourceRequestsCPU:    {false, corev1.ResourceCPU},
	corev1.ResourceRequestsMemory: {false, corev1.ResourceMemory},
	corev1.ResourceLimitsCPU:      {true, corev1.ResourceCPU},
	corev1.ResourceLimitsMemory:   {true, corev1.ResourceMemory},
}

// AdmitQuota is kube-apiserver's ResourceQuota plugin on the creation of
// obj (of resource gr), or its update from old (nil on a create): with used
// the current usage of each of the namespace's quotas (what their
// status.used says once up to date), it refuses a write that would take a
// quota over its hard limits, or a new pod whose containers do not state
// the requests and limits a quota limits. Quotas whose scopes obj is not
// in are left out. The error is what follows `<resource> "<name>" is
// forbidden: ` in upstream's answer.
func AdmitQuota(gr schema.GroupResource, obj, old runtime.Object, quotas []corev1.ResourceQuota, used []corev1.ResourceList) error {
	delta, order := quotaCharge(gr, obj, old, quotas)
	// As upstream's checkRequest: first every quota's constraints, then
	// every quota's limits.
	var charged []int
	for _, i := range order {
		q := &quotas[i]
		if in, err := QuotaScopesMatch(q, gr, obj); err != nil {
			return fmt.Errorf("failed quota: %s: %w", q.Name, err)
		} else if !in {
			continue
		}
		if pod, ok := obj.(*corev1.Pod); ok && old == nil {
			if err := podConstraints(pod, quota.ResourceNames(q.Spec.Hard)); err != nil {
				return fmt.Errorf("failed quota: %s: %w", q.Name, err)
			}
		}
		if len(quota.Mask(delta, quota.ResourceNames(q.Spec.Hard))) > 0 {
			charged = append(charged, i)
		}
	}
	for _, i := range charged {
		q := &quotas[i]
		hard := q.Spec.Hard
		requested := quota.Mask(delta, quota.ResourceNames(hard))
		newUsage := quota.Add(used[i], requested)
		masked := quota.Mask(newUsage, quota.ResourceNames(requested))
		if ok, exceeded := quota.LessThanOrEqual(masked, hard); !ok {
			return fmt.Errorf("exceeded quota: %s, requested: %s, used: %s, limited: %s", q.Name,
				prettyResources(quota.Mask(requested, exceeded)), prettyResources(quota.Mask(used[i], exceeded)), prettyResources(quota.Mask(hard, exceeded)))
		}
	}
	return nil
}

// podConstraints is upstream's pod evaluator's Constraints: each container
// must request (or limit) what the quota limits of cpu and memory.
func podConstraints(pod *corev1.Pod, hard []corev1.ResourceName) error {
	missing := map[string][]string{}
	for _, list := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
		for _, c := range list {
			for _, h := range hard {
				req, ok := podQuotaRequired[h]
				if !ok {
					continue
				}
				have := c.Resources.Requests
				if req.limit {
					have = c.Resources.Limits
				}
				if _, ok := have[req.name]; !ok {
					missing[string(h)] = append(missing[string(h)], c.Name)
				}
			}
		}
	}
	if len(missing) == 0 {
		return nil
	}
	names := make([]string, 0, len(missing))
	for n := range missing {
		names = append(names, n)
	}
	sort.Strings(names)
	msgs := make([]string, 0, len(names))
	for _, n := range names {
		cs := missing[n]
		sort.Strings(cs)
		msgs = append(msgs, fmt.Sprintf("%s for: %s", n, strings.Join(dedup(cs), ",")))
	}
	return fmt.Errorf("must specify %s", strings.Join(msgs, "; "))
}

// dedup drops repeated entries of a sorted list.
func dedup(s []string) []string {
	var out []string
	for i, x := range s {
		if i == 0 || x != s[i-1] {
			out = append(out, x)
		}
	}
	return out
}

// prettyResources is upstream's prettyPrint: name=value, sorted, joined
// by commas.
func prettyResources(l corev1.ResourceList) string {
	parts := make([]string, 0, len(l))
	for _, name := range sortedNames(l) {
		q := l[name]
		parts = append(parts, string(name)+"="+q.String())
	}
	return strings.Join(parts, ",")
}

// QuotaStatus is the status a quota has given the usage of its namespace
// (the sum of QuotaUsage over its objects): hard is spec.hard, used the
// usage of what hard names, zero where nothing is used.
func QuotaStatus(q *corev1.ResourceQuota, usage corev1.ResourceList) corev1.ResourceQuotaStatus {
	st := corev1.ResourceQuotaStatus{Hard: corev1.ResourceList{}, Used: corev1.ResourceList{}}
	for name, v := range q.Spec.Hard {
		st.Hard[name] = v.DeepCopy()
		if u, ok := usage[name]; ok {
			st.Used[name] = u.DeepCopy()
		} else {
			st.Used[name] = *resource.NewQuantity(0, v.Format)
		}
	}
	return st
}

// AdmitQuotaByStatus is kube-apiserver's ResourceQuota plugin as it runs
// without kube-controller-manager's resource quota controller (envtest's
// shape): a quota limits what its status.hard names (nothing until someone
// writes its status), charged against its status.used. It refuses what
// AdmitQuota refuses, with status.hard as the limits and status.used as
// the usage, and a write a quota tracks while its status.used lacks one
// of the names of its status.hard that the resource uses ("status unknown
// for quota"). Otherwise it returns, for each quota the write charges, its
// status.used with the charge added (upstream's plugin writes it to the
// quota before the object is stored); nil for the others.
func AdmitQuotaByStatus(gr schema.GroupResource, obj, old runtime.Object, quotas []corev1.ResourceQuota) ([]corev1.ResourceList, error) {
	delta, order := quotaCharge(gr, obj, old, quotas)
	var charged []int
	for _, i := range order {
		q := &quotas[i]
		var restricted []string
		for name := range q.Status.Hard {
			if quotaNameCovers(string(name), gr) {
				restricted = append(restricted, string(name))
			}
		}
		if len(restricted) == 0 {
			continue
		}
		if in, err := QuotaScopesMatch(q, gr, obj); err != nil {
			return nil, fmt.Errorf("failed quota: %s: %w", q.Name, err)
		} else if !in {
			continue
		}
		sort.Strings(restricted)
		if pod, ok := obj.(*corev1.Pod); ok && old == nil {
			names := make([]corev1.ResourceName, len(restricted))
			for j, n := range restricted {
				names[j] = corev1.ResourceName(n)
			}
			if err := podConstraints(pod, names); err != nil {
				return nil, fmt.Errorf("failed quota: %s: %w", q.Name, err)
			}
		}
		for _, n := range restricted {
			if _, ok := q.Status.Used[corev1.ResourceName(n)]; !ok {
				return nil, fmt.Errorf("status unknown for quota: %s, resources: %s", q.Name, strings.Join(restricted, ","))
			}
		}
		charged = append(charged, i)
	}
	out := make([]corev1.ResourceList, len(quotas))
	for _, i := range charged {
		q := &quotas[i]
		requested := quota.Mask(delta, quota.ResourceNames(q.Status.Hard))
		if len(requested) == 0 {
			continue
		}
		newUsage := quota.Add(q.Status.Used, requested)
		masked := quota.Mask(newUsage, quota.ResourceNames(requested))
		if ok, exceeded := quota.LessThanOrEqual(masked, q.Status.Hard); !ok {
			return nil, fmt.Errorf("exceeded quota: %s, requested: %s, used: %s, limited: %s", q.Name,
				prettyResources(quota.Mask(requested, exceeded)), prettyResources(quota.Mask(q.Status.Used, exceeded)), prettyResources(quota.Mask(q.Status.Hard, exceeded)))
		}
		out[i] = newUsage
	}
	return out, nil
}

// quotaNameCovers reports whether kube-apiserver's quota evaluator of
// resource gr matches the quota resource name (its MatchingResources):
// the object count count/<resource>[.<group>], and the legacy and compute
// names each core resource's evaluator knows.
func quotaNameCovers(name string, gr schema.GroupResource) bool {
	count := "count/" + gr.Resource
	if gr.Group != "" {
		count += "." + gr.Group
	}
	if name == count {
		return true
	}
	if gr.Group != "" {
		return false
	}
	switch gr.Resource {
	case "pods":
		switch name {
		case "pods", "cpu", "memory", "ephemeral-storage":
			return true
		}
		return (strings.HasPrefix(name, "requests.") && name != "requests.storage") ||
			strings.HasPrefix(name, "limits.") || strings.HasPrefix(name, "hugepages-")
	case "services":
		return name == "services" || name == "services.loadbalancers" || name == "services.nodeports"
	case "persistentvolumeclaims":
		return name == "persistentvolumeclaims" || name == "requests.storage" || strings.Contains(name, ".storageclass.storage.k8s.io/")
	case "configmaps", "secrets", "replicationcontrollers", "resourcequotas":
		return name == gr.Resource
	}
	return false
}

// quotaCharge is what a write of obj over old (nil on a create) adds to a
// quota's usage (nothing it frees), and the order upstream's plugin looks
// at the quotas in: by name.
func quotaCharge(gr schema.GroupResource, obj, old runtime.Object, quotas []corev1.ResourceQuota) (corev1.ResourceList, []int) {
	delta := QuotaUsage(gr, obj)
	if old != nil {
		delta = quota.RemoveZeros(quota.SubtractWithNonNegativeResult(delta, QuotaUsage(gr, old)))
	}
	order := make([]int, len(quotas))
	for i := range order {
		order[i] = i
	}
	sort.Slice(order, func(a, b int) bool { return quotas[order[a]].Name < quotas[order[b]].Name })
	return delta, order
}
