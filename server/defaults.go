package server

import (
	"fmt"
	"math/rand/v2"
	"net/netip"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/store"
)

// Built-in defaulting: the values kube-apiserver's defaulting functions put
// into the built-in types people create most, so that an object read back
// equals what a cluster stores. Covered: Pods (and pod templates of
// Deployments and ReplicaSets), Deployments, ReplicaSets and Services.

// applyDefaults sets the upstream defaults of a decoded built-in object.
func applyDefaults(obj runtime.Object) {
	switch o := obj.(type) {
	case *corev1.Pod:
		defaultPodSpec(&o.Spec)
		if o.Spec.EnableServiceLinks == nil {
			t := true
			o.Spec.EnableServiceLinks = &t
		}
	case *appsv1.Deployment:
		if o.Spec.Replicas == nil {
			o.Spec.Replicas = int32Ptr(1)
		}
		if o.Spec.Strategy.Type == "" {
			o.Spec.Strategy.Type = appsv1.RollingUpdateDeploymentStrategyType
		}
		if o.Spec.Strategy.Type == appsv1.RollingUpdateDeploymentStrategyType {
			if o.Spec.Strategy.RollingUpdate == nil {
				o.Spec.Strategy.RollingUpdate = &appsv1.RollingUpdateDeployment{}
			}
			if o.Spec.Strategy.RollingUpdate.MaxUnavailable == nil {
				v := intstr.FromString("25%")
				o.Spec.Strategy.RollingUpdate.MaxUnavailable = &v
			}
			if o.Spec.Strategy.RollingUpdate.MaxSurge == nil {
				v := intstr.FromString("25%")
				o.Spec.Strategy.RollingUpdate.MaxSurge = &v
			}
		}
		if o.Spec.RevisionHistoryLimit == nil {
			o.Spec.RevisionHistoryLimit = int32Ptr(10)
		}
		if o.Spec.ProgressDeadlineSeconds == nil {
			o.Spec.ProgressDeadlineSeconds = int32Ptr(600)
		}
		defaultPodSpec(&o.Spec.Template.Spec)
	case *appsv1.ReplicaSet:
		if o.Spec.Replicas == nil {
			o.Spec.Replicas = int32Ptr(1)
		}
		defaultPodSpec(&o.Spec.Template.Spec)
	case *corev1.Service:
		defaultService(o)
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

func int32Ptr(v int32) *int32 { return &v }

// defaultPodSpec is upstream's SetDefaults_PodSpec and SetDefaults_Container.
func defaultPodSpec(s *corev1.PodSpec) {
	if s.DNSPolicy == "" {
		s.DNSPolicy = corev1.DNSClusterFirst
	}
	if s.RestartPolicy == "" {
		s.RestartPolicy = corev1.RestartPolicyAlways
	}
	if s.SchedulerName == "" {
		s.SchedulerName = corev1.DefaultSchedulerName
	}
	if s.SecurityContext == nil {
		s.SecurityContext = &corev1.PodSecurityContext{}
	}
	if s.TerminationGracePeriodSeconds == nil {
		g := int64(corev1.DefaultTerminationGracePeriodSeconds)
		s.TerminationGracePeriodSeconds = &g
	}
	for i := range s.InitContainers {
		defaultContainer(&s.InitContainers[i])
	}
	for i := range s.Containers {
		defaultContainer(&s.Containers[i])
	}
}

func defaultContainer(c *corev1.Container) {
	if c.ImagePullPolicy == "" {
		c.ImagePullPolicy = corev1.PullIfNotPresent
		if tag := imageTag(c.Image); tag == "" || tag == "latest" {
			c.ImagePullPolicy = corev1.PullAlways
		}
	}
	if c.TerminationMessagePath == "" {
		c.TerminationMessagePath = corev1.TerminationMessagePathDefault
	}
	if c.TerminationMessagePolicy == "" {
		c.TerminationMessagePolicy = corev1.TerminationMessageReadFile
	}
	for i := range c.Ports {
		if c.Ports[i].Protocol == "" {
			c.Ports[i].Protocol = corev1.ProtocolTCP
		}
	}
}

// imageTag returns the tag of an image reference ("" for none or a digest).
func imageTag(image string) string {
	if strings.Contains(image, "@") {
		return "digest"
	}
	name := image
	if i := strings.LastIndex(name, "/"); i >= 0 {
		name = name[i+1:]
	}
	if i := strings.LastIndex(name, ":"); i >= 0 {
		return name[i+1:]
	}
	return ""
}

// defaultService is upstream's SetDefaults_Service (the IP families and the
// ClusterIP come at create, see allocateServiceIP).
func defaultService(s *corev1.Service) {
	if s.Spec.Type == "" {
		s.Spec.Type = corev1.ServiceTypeClusterIP
	}
	if s.Spec.SessionAffinity == "" {
		s.Spec.SessionAffinity = corev1.ServiceAffinityNone
	}
	for i := range s.Spec.Ports {
		p := &s.Spec.Ports[i]
		if p.Protocol == "" {
			p.Protocol = corev1.ProtocolTCP
		}
		if p.TargetPort == intstr.FromInt32(0) || (p.TargetPort.Type == intstr.String && p.TargetPort.StrVal == "") {
			p.TargetPort = intstr.FromInt32(p.Port)
		}
	}
	if s.Spec.Type != corev1.ServiceTypeExternalName && s.Spec.InternalTrafficPolicy == nil {
		p := corev1.ServiceInternalTrafficPolicyCluster
		s.Spec.InternalTrafficPolicy = &p
	}
	if (s.Spec.Type == corev1.ServiceTypeNodePort || s.Spec.Type == corev1.ServiceTypeLoadBalancer) && s.Spec.ExternalTrafficPolicy == "" {
		s.Spec.ExternalTrafficPolicy = corev1.ServiceExternalTrafficPolicyCluster
	}
}

// serviceCIDR is the range ClusterIPs come from (kube-apiserver's default
// --service-cluster-ip-range); .1 is the kubernetes Service's.
var serviceCIDR = netip.MustParsePrefix("10.0.0.0/24")

// allocateServiceIP gives a new Service its ClusterIP and IP families, and
// node ports for NodePort and LoadBalancer Services, as upstream's service
// REST storage does.
func (s *Server) allocateServiceIP(svc *corev1.Service) error {
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
	used := map[string]bool{}
	nodePorts := map[int32]bool{}
	lst, err := s.store.List("/services", store.ListOptions{})
	if err != nil {
		return apierrors.NewInternalError(err)
	}
	for _, it := range lst.Items {
		var other corev1.Service
		if err := jsonUnmarshal(it.Value, &other); err == nil {
			used[other.Spec.ClusterIP] = true
			for _, p := range other.Spec.Ports {
				nodePorts[p.NodePort] = true
			}
		}
	}
	switch svc.Spec.ClusterIP {
	case corev1.ClusterIPNone:
		svc.Spec.ClusterIPs = []string{corev1.ClusterIPNone}
	case "":
		ip, err := freeIP(used)
		if err != nil {
			return err
		}
		svc.Spec.ClusterIP = ip
		svc.Spec.ClusterIPs = []string{ip}
	default:
		if used[svc.Spec.ClusterIP] {
			return apierrors.NewInvalid(schema.GroupKind{Kind: "Service"}, svc.Name, field.ErrorList{
				field.Invalid(field.NewPath("spec", "clusterIPs"), []string{svc.Spec.ClusterIP}, fmt.Sprintf("failed to allocate IP %s: provided IP is already allocated", svc.Spec.ClusterIP)),
			})
		}
		if len(svc.Spec.ClusterIPs) == 0 {
			svc.Spec.ClusterIPs = []string{svc.Spec.ClusterIP}
		}
	}
	if svc.Spec.Type == corev1.ServiceTypeNodePort || svc.Spec.Type == corev1.ServiceTypeLoadBalancer {
		for i := range svc.Spec.Ports {
			if svc.Spec.Ports[i].NodePort != 0 {
				continue
			}
			for tries := 0; tries < 10000; tries++ {
				p := int32(30000 + rand.IntN(2768))
				if !nodePorts[p] {
					nodePorts[p] = true
					svc.Spec.Ports[i].NodePort = p
					break
				}
			}
		}
	}
	return nil
}

// freeIP picks a random unused address of the service CIDR.
func freeIP(used map[string]bool) (string, error) {
	first := serviceCIDR.Addr().As4()
	var free []string
	for i := 2; i < 255; i++ {
		a := netip.AddrFrom4([4]byte{first[0], first[1], first[2], byte(i)}).String()
		if !used[a] {
			free = append(free, a)
		}
	}
	if len(free) == 0 {
		return "", apierrors.NewInternalError(fmt.Errorf("failed to allocate a serviceIP: range is full"))
	}
	return free[rand.IntN(len(free))], nil
}

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
	if pod.Spec.Priority == nil {
		var p int32
		pod.Spec.Priority = &p
	}
	if pod.Spec.PreemptionPolicy == nil {
		pp := corev1.PreemptLowerPriority
		pod.Spec.PreemptionPolicy = &pp
	}
	return nil
}

// keepAllocatedServiceFields carries what was allocated at create into a
// Service update that omits it, as upstream's service storage does.
func keepAllocatedServiceFields(svc, old *corev1.Service) {
	if svc.Spec.ClusterIP == "" && svc.Spec.Type != corev1.ServiceTypeExternalName {
		svc.Spec.ClusterIP = old.Spec.ClusterIP
		svc.Spec.ClusterIPs = old.Spec.ClusterIPs
	}
	if len(svc.Spec.IPFamilies) == 0 {
		svc.Spec.IPFamilies = old.Spec.IPFamilies
	}
	if svc.Spec.IPFamilyPolicy == nil {
		svc.Spec.IPFamilyPolicy = old.Spec.IPFamilyPolicy
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
