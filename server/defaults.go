package server

import (
	"fmt"

	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/registry/core/service"
	"github.com/fakeplane/fakeplane/registry/strategy"
	"github.com/fakeplane/fakeplane/store"
)

// Built-in defaulting: the values kube-apiserver's defaulting functions put
// into the built-in types people create most, so that an object read back
// equals what a cluster stores, for the built-in types whose strategy does
// not default them yet (pods and workloads default in their strategies,
// registry/core/pod and the others).

// defaults sets the upstream defaults of a decoded object of the resource:
// its strategy's when it has them, else those of applyDefaults.
func (r *resource) defaults(obj runtime.Object) {
	if st, ok := registry.For(r.gr); ok {
		if d, ok := st.(strategy.Defaulter); ok {
			d.Default(obj)
			return
		}
	}
	applyDefaults(obj)
}

// applyDefaults sets the upstream defaults of a decoded built-in object.
func applyDefaults(obj runtime.Object) {
	applyMoreDefaults(obj)
	switch o := obj.(type) {
	case *corev1.Secret:
		// Upstream's conversion to the internal type writes stringData
		// over data; the type defaults to Opaque.
		for k, v := range o.StringData {
			if o.Data == nil {
				o.Data = map[string][]byte{}
			}
			o.Data[k] = []byte(v)
		}
		o.StringData = nil
		if o.Type == "" {
			o.Type = corev1.SecretTypeOpaque
		}
	}
}

// allocateServiceIP gives a new Service its ClusterIP and IP families, and
// node ports for NodePort and LoadBalancer Services, as upstream's service
// REST storage does.
func (s *Server) allocateServiceIP(c *call, svc *corev1.Service) error {
	return s.allocateService(c, svc, nil)
}

// allocateService allocates a Service's ClusterIP and ports; on update
// (old set) what old holds stays its own and the rest is allocated anew.
// What it picks is reserved for the request until its commit (see
// serviceAllocator).
func (s *Server) allocateService(c *call, svc, old *corev1.Service) error {
	if svc.Spec.Type == corev1.ServiceTypeExternalName {
		return nil
	}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = []corev1.IPFamily{corev1.IPv4Protocol}
	}
	if svc.Spec.IPFamilyPolicy == nil {
		p := corev1.IPFamilyPolicySingleStack
		svc.Spec.IPFamilyPolicy = &p
	}
	r := s.alloc.newReservation(svc.Namespace, svc.Name)
	c.reservations = append(c.reservations, r)
	if old != nil {
		// What the Service held before is still its own.
		if old.Spec.Type != corev1.ServiceTypeExternalName && svc.Spec.ClusterIP == old.Spec.ClusterIP {
			goto ports
		}
	}
	switch svc.Spec.ClusterIP {
	case corev1.ClusterIPNone:
		svc.Spec.ClusterIPs = []string{corev1.ClusterIPNone}
	case "":
		ip, ok := s.alloc.pickIP(r)
		if !ok {
			return apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: range is full"))
		}
		svc.Spec.ClusterIP = ip
		svc.Spec.ClusterIPs = []string{ip}
	default:
		if _, ok := s.alloc.reserve(r, ipItem(svc.Spec.ClusterIP)); !ok {
			return apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "clusterIPs"), []string{svc.Spec.ClusterIP}, fmt.Sprintf("failed to allocate IP %s: provided IP is already allocated", svc.Spec.ClusterIP)),
			})
		}
		if len(svc.Spec.ClusterIPs) == 0 {
			svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		}
	}
ports:
	// The node ports asked for must be free and in the range; the others
	// are picked (upstream's port allocator). A port is claimed once per
	// request, as upstream's allocation operation does.
	claimed := map[int32]bool{}
	invalid := func(fld *field.Path, port int32, msg string) error {
		return apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{field.Invalid(fld, port, msg)})
	}
	claim := func(fld *field.Path, port *int32) error {
		if *port != 0 {
			if *port < nodePortMin || *port > nodePortMax {
				return invalid(fld, *port, fmt.Sprintf("provided port is not in the valid range. The range of valid ports is %d-%d", nodePortMin, nodePortMax))
			}
			if _, ok := s.alloc.reserve(r, portItem(*port)); !ok || claimed[*port] {
				return invalid(fld, *port, "provided port is already allocated")
			}
			claimed[*port] = true
			return nil
		}
		for range 100 {
			p, ok := s.alloc.pickPort(r)
			if !ok {
				break
			}
			if !claimed[p] && !s.heldByOld(old, p) {
				claimed[p] = true
				*port = p
				return nil
			}
		}
		return apierrors.NewInternalError(fmt.Errorf("failed to allocate a nodePort: range is full"))
	}
	lb := svc.Spec.Type == corev1.ServiceTypeLoadBalancer
	if svc.Spec.Type == corev1.ServiceTypeNodePort || lb && (svc.Spec.AllocateLoadBalancerNodePorts == nil || *svc.Spec.AllocateLoadBalancerNodePorts) {
		// A port number serving two protocols shares its node port.
		shared := map[int32]int32{}
		for i := range svc.Spec.Ports {
			p := &svc.Spec.Ports[i]
			if p.NodePort == 0 {
				if np, ok := shared[p.Port]; ok {
					p.NodePort = np
					continue
				}
			} else if np, ok := shared[p.Port]; ok && np == p.NodePort {
				continue
			}
			if err := claim(field.NewPath("spec", "ports").Index(i).Child("nodePort"), &p.NodePort); err != nil {
				return err
			}
			shared[p.Port] = p.NodePort
		}
	}
	if service.NeedsHealthCheck(svc) {
		if err := claim(field.NewPath("spec", "healthCheckNodePort"), &svc.Spec.HealthCheckNodePort); err != nil {
			return err
		}
	}
	return nil
}

// heldByOld reports whether the Service's previous state uses node port p
// (picked ports must be new: a kept port is asked for explicitly).
func (s *Server) heldByOld(old *corev1.Service, p int32) bool {
	if old == nil {
		return false
	}
	for _, it := range serviceItems(old) {
		if it == portItem(p) {
			return true
		}
	}
	return false
}

// The node port range of kube-apiserver's default --service-node-port-range.
const (
	nodePortMin = 30000
	nodePortMax = 32767
)

// kubeAPIAccessVolume is the projected volume the ServiceAccount admission
// plugin adds to pods, and where it mounts it.
func kubeAPIAccessVolume() (corev1.Volume, corev1.VolumeMount) {
	name := "kube-api-access-" + utilrand.String(5)
	exp := int64(3607)
	mode := int32(0o644)
	vol := corev1.Volume{Name: name, VolumeSource: corev1.VolumeSource{Projected: &corev1.ProjectedVolumeSource{
		DefaultMode: &mode,
		Sources: []corev1.VolumeProjection{
			{ServiceAccountToken: &corev1.ServiceAccountTokenProjection{ExpirationSeconds: &exp, Path: "token"}},
			{ConfigMap: &corev1.ConfigMapProjection{LocalObjectReference: corev1.LocalObjectReference{Name: RootCAConfigMapName}, Items: []corev1.KeyToPath{{Key: "ca.crt", Path: "ca.crt"}}}},
			{DownwardAPI: &corev1.DownwardAPIProjection{Items: []corev1.DownwardAPIVolumeFile{{Path: "namespace", FieldRef: &corev1.ObjectFieldSelector{APIVersion: "v1", FieldPath: "metadata.namespace"}}}}},
		},
	}}}
	return vol, corev1.VolumeMount{Name: name, ReadOnly: true, MountPath: "/var/run/secrets/kubernetes.io/serviceaccount"}
}

// admitPod applies what kube-apiserver's admission plugins add to a new pod:
// the ServiceAccount (which must exist) and its API access volume, the
// default not-ready/unreachable tolerations, and the priority.
func (s *Server) admitPod(c *call, pod *corev1.Pod) error {
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = pod.Spec.DeprecatedServiceAccount
	}
	if pod.Spec.ServiceAccountName == "" {
		pod.Spec.ServiceAccountName = "default"
	}
	pod.Spec.DeprecatedServiceAccount = pod.Spec.ServiceAccountName
	sa, err := saGetter{s}.ServiceAccount(pod.Namespace, pod.Spec.ServiceAccountName)
	if err != nil {
		return apierrors.NewForbidden(c.res.gr, pod.Name, fmt.Errorf("error looking up service account %s/%s: serviceaccount %q not found", pod.Namespace, pod.Spec.ServiceAccountName, pod.Spec.ServiceAccountName))
	}
	automount := true
	if sa.AutomountServiceAccountToken != nil {
		automount = *sa.AutomountServiceAccountToken
	}
	if pod.Spec.AutomountServiceAccountToken != nil {
		automount = *pod.Spec.AutomountServiceAccountToken
	}
	if automount {
		vol, mount := kubeAPIAccessVolume()
		pod.Spec.Volumes = append(pod.Spec.Volumes, vol)
		for _, list := range [][]corev1.Container{pod.Spec.InitContainers, pod.Spec.Containers} {
			for i := range list {
				mounted := false
				for _, m := range list[i].VolumeMounts {
					if m.MountPath == mount.MountPath {
						mounted = true
					}
				}
				if !mounted {
					list[i].VolumeMounts = append(list[i].VolumeMounts, mount)
				}
			}
		}
	}
	for _, key := range []string{corev1.TaintNodeNotReady, corev1.TaintNodeUnreachable} {
		has := false
		for _, t := range pod.Spec.Tolerations {
			if (t.Key == key || t.Key == "") && (t.Effect == corev1.TaintEffectNoExecute || t.Effect == "") {
				has = true
			}
		}
		if !has {
			secs := int64(300)
			pod.Spec.Tolerations = append(pod.Spec.Tolerations, corev1.Toleration{Key: key, Operator: corev1.TolerationOpExists, Effect: corev1.TaintEffectNoExecute, TolerationSeconds: &secs})
		}
	}
	return s.admitPodPriority(c, pod)
}

// admitPodPriority is upstream's Priority admission plugin on create: the
// priority and preemption policy come from the pod's PriorityClass, or the
// global default one, or are 0 and PreemptLowerPriority.
func (s *Server) admitPodPriority(c *call, pod *corev1.Pod) error {
	r, _ := s.served.lookup("scheduling.k8s.io", "v1", "priorityclasses")
	lst, err := s.store.List(r.bucket, store.ListOptions{})
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	var class *schedulingv1.PriorityClass
	for _, it := range lst.Items {
		pc := &schedulingv1.PriorityClass{}
		if jsonUnmarshal(it.Value, pc) != nil {
			continue
		}
		if pod.Spec.PriorityClassName != "" && pc.Name == pod.Spec.PriorityClassName ||
			pod.Spec.PriorityClassName == "" && pc.GlobalDefault && (class == nil || pc.Value < class.Value) {
			class = pc
		}
	}
	if class == nil && pod.Spec.PriorityClassName != "" {
		return apierrors.NewForbidden(c.res.gr, pod.Name, fmt.Errorf("no PriorityClass with name %s was found", pod.Spec.PriorityClassName))
	}
	var priority int32
	policy := corev1.PreemptLowerPriority
	if class != nil {
		pod.Spec.PriorityClassName = class.Name
		priority = class.Value
		if class.PreemptionPolicy != nil {
			policy = *class.PreemptionPolicy
		}
	}
	if pod.Spec.Priority != nil && *pod.Spec.Priority != priority {
		return apierrors.NewForbidden(c.res.gr, pod.Name, fmt.Errorf("the integer value of priority (%d) must not be provided in pod spec; priority admission controller computed %d from the given PriorityClass name", *pod.Spec.Priority, priority))
	}
	pod.Spec.Priority = &priority
	if pod.Spec.PreemptionPolicy != nil && *pod.Spec.PreemptionPolicy != policy {
		return apierrors.NewForbidden(c.res.gr, pod.Name, fmt.Errorf("the string value of PreemptionPolicy (%s) must not be provided in pod spec; priority admission controller computed %s from the given PriorityClass name", *pod.Spec.PreemptionPolicy, policy))
	}
	pod.Spec.PreemptionPolicy = &policy
	return nil
}

// keepAllocatedServiceFields carries what was allocated at create into a
// Service update that omits it, as upstream's service storage does.
func keepAllocatedServiceFields(svc, old *corev1.Service) {
	if service.NeedsHealthCheck(svc) && service.NeedsHealthCheck(old) && svc.Spec.HealthCheckNodePort == 0 {
		svc.Spec.HealthCheckNodePort = old.Spec.HealthCheckNodePort
	}
	if svc.Spec.Type == corev1.ServiceTypeExternalName || old.Spec.Type == corev1.ServiceTypeExternalName {
		return
	}
	if svc.Spec.ClusterIP == "" {
		svc.Spec.ClusterIP = old.Spec.ClusterIP
		svc.Spec.ClusterIPs = old.Spec.ClusterIPs
	}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = old.Spec.IPFamilies
	}
	if svc.Spec.IPFamilyPolicy == nil {
		svc.Spec.IPFamilyPolicy = old.Spec.IPFamilyPolicy
	}
	if svc.Spec.Type != corev1.ServiceTypeNodePort && svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		return
	}
	for i := range svc.Spec.Ports {
		if svc.Spec.Ports[i].NodePort != 0 {
			continue
		}
		for _, op := range old.Spec.Ports {
			if op.Port == svc.Spec.Ports[i].Port && op.Protocol == svc.Spec.Ports[i].Protocol {
				svc.Spec.Ports[i].NodePort = op.NodePort
			}
		}
	}
}
