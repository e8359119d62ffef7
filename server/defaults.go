package server

import (
	"fmt"
	strategies "github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/registry/strategy"
	"math"
	"reflect"
	"slices"
	"strings"

	appsv1 "k8s.io/api/apps/v1"
	batchv1 "k8s.io/api/batch/v1"
	corev1 "k8s.io/api/core/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/intstr"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/registry/core/service"
	"github.com/fakeplane/fakeplane/store"
)

// Built-in defaulting: the values kube-apiserver's defaulting functions put
// into the built-in types people create most, so that an object read back
// equals what a cluster stores. Covered: Pods (and pod templates of
// Deployments and ReplicaSets), Deployments, ReplicaSets and Services.

// defaults sets the upstream defaults of a decoded object of the resource:
// its strategy's when it has them, else those of applyDefaults.
func (r *resource) defaults(obj runtime.Object) {
	if st, ok := strategies.For(r.gr); ok {
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
	case *corev1.Pod:
		defaultPod(o)
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
	case *appsv1.StatefulSet:
		defaultStatefulSet(o)
	case *appsv1.DaemonSet:
		defaultDaemonSet(o)
	case *batchv1.Job:
		defaultJob(o)
		defaultPodSpec(&o.Spec.Template.Spec)
	case *batchv1.CronJob:
		defaultCronJob(o)
		defaultPodSpec(&o.Spec.JobTemplate.Spec.Template.Spec)
	case *corev1.ReplicationController:
		defaultReplicationController(o)
	case *corev1.PodTemplate:
		defaultPodSpec(&o.Template.Spec)
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

// defaultStatefulSet is upstream's SetDefaults_StatefulSet.
func defaultStatefulSet(o *appsv1.StatefulSet) {
	sp := &o.Spec
	if sp.PodManagementPolicy == "" {
		sp.PodManagementPolicy = appsv1.OrderedReadyPodManagement
	}
	if sp.UpdateStrategy.Type == "" {
		sp.UpdateStrategy.Type = appsv1.RollingUpdateStatefulSetStrategyType
		if sp.UpdateStrategy.RollingUpdate == nil {
			sp.UpdateStrategy.RollingUpdate = &appsv1.RollingUpdateStatefulSetStrategy{}
		}
	}
	if sp.UpdateStrategy.Type == appsv1.RollingUpdateStatefulSetStrategyType && sp.UpdateStrategy.RollingUpdate != nil {
		if sp.UpdateStrategy.RollingUpdate.Partition == nil {
			sp.UpdateStrategy.RollingUpdate.Partition = int32Ptr(0)
		}
		// MaxUnavailableStatefulSet is on in v1.37.
		if sp.UpdateStrategy.RollingUpdate.MaxUnavailable == nil {
			v := intstr.FromInt32(1)
			sp.UpdateStrategy.RollingUpdate.MaxUnavailable = &v
		}
	}
	if sp.PersistentVolumeClaimRetentionPolicy == nil {
		sp.PersistentVolumeClaimRetentionPolicy = &appsv1.StatefulSetPersistentVolumeClaimRetentionPolicy{}
	}
	if sp.PersistentVolumeClaimRetentionPolicy.WhenDeleted == "" {
		sp.PersistentVolumeClaimRetentionPolicy.WhenDeleted = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if sp.PersistentVolumeClaimRetentionPolicy.WhenScaled == "" {
		sp.PersistentVolumeClaimRetentionPolicy.WhenScaled = appsv1.RetainPersistentVolumeClaimRetentionPolicyType
	}
	if sp.Replicas == nil {
		sp.Replicas = int32Ptr(1)
	}
	if sp.RevisionHistoryLimit == nil {
		sp.RevisionHistoryLimit = int32Ptr(10)
	}
	for i := range sp.VolumeClaimTemplates {
		pvc := &sp.VolumeClaimTemplates[i]
		if pvc.APIVersion == "" && pvc.Kind == "" {
			pvc.APIVersion, pvc.Kind = "v1", "PersistentVolumeClaim"
		}
		if pvc.Spec.VolumeMode == nil {
			fs := corev1.PersistentVolumeFilesystem
			pvc.Spec.VolumeMode = &fs
		}
		if pvc.Status.Phase == "" {
			pvc.Status.Phase = corev1.ClaimPending
		}
	}
	defaultPodSpec(&sp.Template.Spec)
}

// defaultDaemonSet is upstream's SetDefaults_DaemonSet.
func defaultDaemonSet(o *appsv1.DaemonSet) {
	us := &o.Spec.UpdateStrategy
	if us.Type == "" {
		us.Type = appsv1.RollingUpdateDaemonSetStrategyType
	}
	if us.Type == appsv1.RollingUpdateDaemonSetStrategyType {
		if us.RollingUpdate == nil {
			us.RollingUpdate = &appsv1.RollingUpdateDaemonSet{}
		}
		if us.RollingUpdate.MaxUnavailable == nil {
			v := intstr.FromInt32(1)
			us.RollingUpdate.MaxUnavailable = &v
		}
		if us.RollingUpdate.MaxSurge == nil {
			v := intstr.FromInt32(0)
			us.RollingUpdate.MaxSurge = &v
		}
	}
	if o.Spec.RevisionHistoryLimit == nil {
		o.Spec.RevisionHistoryLimit = int32Ptr(10)
	}
	defaultPodSpec(&o.Spec.Template.Spec)
}

// defaultJob is upstream's SetDefaults_Job (the selector and its labels
// come at create, see generateJobSelector).
func defaultJob(o *batchv1.Job) {
	sp := &o.Spec
	if sp.Completions == nil && sp.Parallelism == nil {
		sp.Completions = int32Ptr(1)
		sp.Parallelism = int32Ptr(1)
	}
	if sp.Parallelism == nil {
		sp.Parallelism = int32Ptr(1)
	}
	if sp.BackoffLimit == nil {
		if sp.BackoffLimitPerIndex != nil {
			sp.BackoffLimit = int32Ptr(math.MaxInt32)
		} else {
			sp.BackoffLimit = int32Ptr(6)
		}
	}
	if sp.Template.Labels != nil && len(o.Labels) == 0 {
		o.Labels = sp.Template.Labels
	}
	if sp.CompletionMode == nil {
		m := batchv1.NonIndexedCompletion
		sp.CompletionMode = &m
	}
	if sp.Suspend == nil {
		f := false
		sp.Suspend = &f
	}
	if sp.PodReplacementPolicy == nil {
		p := batchv1.TerminatingOrFailed
		if sp.PodFailurePolicy != nil {
			p = batchv1.Failed
		}
		sp.PodReplacementPolicy = &p
	}
	if sp.ManualSelector == nil {
		f := false
		sp.ManualSelector = &f
	}
	if sp.PodFailurePolicy != nil {
		for i := range sp.PodFailurePolicy.Rules {
			for j := range sp.PodFailurePolicy.Rules[i].OnPodConditions {
				if c := &sp.PodFailurePolicy.Rules[i].OnPodConditions[j]; c.Status == "" {
					c.Status = corev1.ConditionTrue
				}
			}
		}
	}
}

// generateJobSelector is what upstream's Job strategy does at create
// unless the selector is manual: the template gets the job-name and
// controller-uid labels and the selector matches the controller uid.
func generateJobSelector(o *batchv1.Job) {
	if o.Spec.ManualSelector != nil && *o.Spec.ManualSelector {
		return
	}
	if o.Spec.Template.Labels == nil {
		o.Spec.Template.Labels = map[string]string{}
	}
	for _, k := range []string{"job-name", batchv1.JobNameLabel} {
		if _, ok := o.Spec.Template.Labels[k]; !ok {
			o.Spec.Template.Labels[k] = o.Name
		}
	}
	for _, k := range []string{"controller-uid", batchv1.ControllerUidLabel} {
		if _, ok := o.Spec.Template.Labels[k]; !ok {
			o.Spec.Template.Labels[k] = string(o.UID)
		}
	}
	if o.Spec.Selector == nil {
		o.Spec.Selector = &metav1.LabelSelector{}
	}
	if o.Spec.Selector.MatchLabels == nil {
		o.Spec.Selector.MatchLabels = map[string]string{}
	}
	if _, ok := o.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel]; !ok {
		o.Spec.Selector.MatchLabels[batchv1.ControllerUidLabel] = string(o.UID)
	}
	// Upstream's defaulting, run again when the stored Job is read back,
	// gives a Job without labels those of its template.
	if len(o.Labels) == 0 {
		o.Labels = map[string]string{}
		for k, v := range o.Spec.Template.Labels {
			o.Labels[k] = v
		}
	}
}

// defaultCronJob is upstream's SetDefaults_CronJob.
func defaultCronJob(o *batchv1.CronJob) {
	sp := &o.Spec
	if sp.ConcurrencyPolicy == "" {
		sp.ConcurrencyPolicy = batchv1.AllowConcurrent
	}
	if sp.Suspend == nil {
		f := false
		sp.Suspend = &f
	}
	if sp.SuccessfulJobsHistoryLimit == nil {
		sp.SuccessfulJobsHistoryLimit = int32Ptr(3)
	}
	if sp.FailedJobsHistoryLimit == nil {
		sp.FailedJobsHistoryLimit = int32Ptr(1)
	}
}

// defaultReplicationController is upstream's SetDefaults_ReplicationController.
func defaultReplicationController(o *corev1.ReplicationController) {
	if t := o.Spec.Template; t != nil && t.Labels != nil {
		if len(o.Spec.Selector) == 0 {
			o.Spec.Selector = t.Labels
		}
		if len(o.Labels) == 0 {
			o.Labels = t.Labels
		}
	}
	if o.Spec.Replicas == nil {
		o.Spec.Replicas = int32Ptr(1)
	}
	if o.Spec.Template != nil {
		defaultPodSpec(&o.Spec.Template.Spec)
	}
}

// defaultPodSpec is upstream's SetDefaults_PodSpec with the defaults of
// everything a pod spec holds (containers, probes, ports, env, volumes).
func defaultPodSpec(s *corev1.PodSpec) {
	if s.ServiceAccountName == "" {
		s.ServiceAccountName = s.DeprecatedServiceAccount //nolint:staticcheck // upstream keeps the alias in sync
	}
	s.DeprecatedServiceAccount = s.ServiceAccountName //nolint:staticcheck
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
	for i := range s.Volumes {
		defaultVolume(&s.Volumes[i])
	}
	for i := range s.InitContainers {
		defaultContainer(&s.InitContainers[i])
	}
	for i := range s.Containers {
		defaultContainer(&s.Containers[i])
	}
	for i := range s.EphemeralContainers {
		c := corev1.Container(s.EphemeralContainers[i].EphemeralContainerCommon)
		defaultContainer(&c)
		s.EphemeralContainers[i].EphemeralContainerCommon = corev1.EphemeralContainerCommon(c)
	}
	roundResources(s.Overhead)
}

// defaultPod adds what upstream's SetDefaults_Pod sets on pods but not on
// pod templates: requests copied from limits, host ports under host
// networking, a negative grace period raised to 1, service links.
func defaultPod(o *corev1.Pod) {
	defaultPodSpec(&o.Spec)
	if g := o.Spec.TerminationGracePeriodSeconds; g != nil && *g < 0 {
		one := int64(1)
		o.Spec.TerminationGracePeriodSeconds = &one
	}
	for _, list := range [][]corev1.Container{o.Spec.Containers, o.Spec.InitContainers} {
		for i := range list {
			r := &list[i].Resources
			if r.Limits == nil {
				continue
			}
			if r.Requests == nil {
				r.Requests = corev1.ResourceList{}
			}
			for k, v := range r.Limits {
				if _, ok := r.Requests[k]; !ok {
					r.Requests[k] = v.DeepCopy()
				}
			}
		}
	}
	if o.Spec.EnableServiceLinks == nil {
		t := true
		o.Spec.EnableServiceLinks = &t
	}
	// SetDefaults_PodStatus: podIP and podIPs agree, podIP winning.
	st := &o.Status
	switch hasIP, hasIPs := st.PodIP != "", len(st.PodIPs) > 0; {
	case hasIP && !hasIPs:
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	case !hasIP && hasIPs:
		st.PodIP = st.PodIPs[0].IP
	case hasIP && hasIPs && st.PodIPs[0].IP != st.PodIP:
		st.PodIPs = []corev1.PodIP{{IP: st.PodIP}}
	}
	if o.Spec.HostNetwork {
		for _, list := range [][]corev1.Container{o.Spec.Containers, o.Spec.InitContainers} {
			for i := range list {
				for j := range list[i].Ports {
					if list[i].Ports[j].HostPort == 0 {
						list[i].Ports[j].HostPort = list[i].Ports[j].ContainerPort
					}
				}
			}
		}
	}
}

// roundResources is upstream's SetDefaults_ResourceList: quantities are
// rounded up to milli scale.
func roundResources(l corev1.ResourceList) {
	for k, v := range l {
		v.RoundUp(-3)
		l[k] = v
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
	for i := range c.Env {
		if f := c.Env[i].ValueFrom; f != nil {
			if f.FieldRef != nil && f.FieldRef.APIVersion == "" {
				f.FieldRef.APIVersion = "v1"
			}
			if f.FileKeyRef != nil && f.FileKeyRef.Optional == nil {
				no := false
				f.FileKeyRef.Optional = &no
			}
		}
	}
	roundResources(c.Resources.Limits)
	roundResources(c.Resources.Requests)
	for _, p := range []*corev1.Probe{c.LivenessProbe, c.ReadinessProbe, c.StartupProbe} {
		if p == nil {
			continue
		}
		if p.TimeoutSeconds == 0 {
			p.TimeoutSeconds = 1
		}
		if p.PeriodSeconds == 0 {
			p.PeriodSeconds = 10
		}
		if p.SuccessThreshold == 0 {
			p.SuccessThreshold = 1
		}
		if p.FailureThreshold == 0 {
			p.FailureThreshold = 3
		}
		defaultHTTPGet(p.HTTPGet)
		if p.GRPC != nil && p.GRPC.Service == nil {
			empty := ""
			p.GRPC.Service = &empty
		}
	}
	if l := c.Lifecycle; l != nil {
		for _, h := range []*corev1.LifecycleHandler{l.PostStart, l.PreStop} {
			if h != nil {
				defaultHTTPGet(h.HTTPGet)
			}
		}
	}
}

func defaultHTTPGet(h *corev1.HTTPGetAction) {
	if h == nil {
		return
	}
	if h.Path == "" {
		h.Path = "/"
	}
	if h.Scheme == "" {
		h.Scheme = corev1.URISchemeHTTP
	}
}

// defaultVolume is upstream's SetDefaults_Volume and the defaults of the
// volume sources.
func defaultVolume(v *corev1.Volume) {
	if reflect.ValueOf(v.VolumeSource).IsZero() {
		v.EmptyDir = &corev1.EmptyDirVolumeSource{}
	}
	mode := func(m **int32) {
		if *m == nil {
			d := int32(0o644)
			*m = &d
		}
	}
	src := &v.VolumeSource
	if src.Secret != nil {
		mode(&src.Secret.DefaultMode)
	}
	if src.ConfigMap != nil {
		mode(&src.ConfigMap.DefaultMode)
	}
	if src.DownwardAPI != nil {
		mode(&src.DownwardAPI.DefaultMode)
		for i := range src.DownwardAPI.Items {
			if f := src.DownwardAPI.Items[i].FieldRef; f != nil && f.APIVersion == "" {
				f.APIVersion = "v1"
			}
		}
	}
	if src.Projected != nil {
		mode(&src.Projected.DefaultMode)
		for _, p := range src.Projected.Sources {
			if p.ServiceAccountToken != nil && p.ServiceAccountToken.ExpirationSeconds == nil {
				hour := int64(3600)
				p.ServiceAccountToken.ExpirationSeconds = &hour
			}
			if p.DownwardAPI != nil {
				for i := range p.DownwardAPI.Items {
					if f := p.DownwardAPI.Items[i].FieldRef; f != nil && f.APIVersion == "" {
						f.APIVersion = "v1"
					}
				}
			}
		}
	}
	if src.HostPath != nil && src.HostPath.Type == nil {
		unset := corev1.HostPathUnset
		src.HostPath.Type = &unset
	}
	if src.ISCSI != nil && src.ISCSI.ISCSIInterface == "" {
		src.ISCSI.ISCSIInterface = "default"
	}
	if r := src.RBD; r != nil {
		if r.RBDPool == "" {
			r.RBDPool = "rbd"
		}
		if r.RadosUser == "" {
			r.RadosUser = "admin"
		}
		if r.Keyring == "" {
			r.Keyring = "/etc/ceph/keyring"
		}
	}
	if s := src.ScaleIO; s != nil {
		if s.StorageMode == "" {
			s.StorageMode = "ThinProvisioned"
		}
		if s.FSType == "" {
			s.FSType = "xfs"
		}
	}
	if a := src.AzureDisk; a != nil {
		if a.CachingMode == nil {
			m := corev1.AzureDataDiskCachingReadWrite
			a.CachingMode = &m
		}
		if a.FSType == nil {
			f := "ext4"
			a.FSType = &f
		}
		if a.ReadOnly == nil {
			f := false
			a.ReadOnly = &f
		}
		if a.Kind == nil {
			k := corev1.AzureSharedBlobDisk
			a.Kind = &k
		}
	}
	if e := src.Ephemeral; e != nil && e.VolumeClaimTemplate != nil && e.VolumeClaimTemplate.Spec.VolumeMode == nil {
		fs := corev1.PersistentVolumeFilesystem
		e.VolumeClaimTemplate.Spec.VolumeMode = &fs
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
	r, _ := s.registry.lookup("scheduling.k8s.io", "v1", "priorityclasses")
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

// dropTypeDependentFields is upstream's: a Service changing type loses the
// fields of its old type the client did not change.
func dropTypeDependentFields(svc, old *corev1.Service) {
	needsClusterIP := func(s *corev1.Service) bool { return s.Spec.Type != corev1.ServiceTypeExternalName }
	needsNodePort := func(s *corev1.Service) bool {
		return s.Spec.Type == corev1.ServiceTypeNodePort || s.Spec.Type == corev1.ServiceTypeLoadBalancer
	}
	if needsClusterIP(old) && !needsClusterIP(svc) {
		if svc.Spec.ClusterIP == old.Spec.ClusterIP && slices.Equal(svc.Spec.ClusterIPs, old.Spec.ClusterIPs) {
			svc.Spec.ClusterIP, svc.Spec.ClusterIPs = "", nil
		}
		if slices.Equal(svc.Spec.IPFamilies, old.Spec.IPFamilies) {
			svc.Spec.IPFamilies = nil
		}
		if reflect.DeepEqual(svc.Spec.IPFamilyPolicy, old.Spec.IPFamilyPolicy) {
			svc.Spec.IPFamilyPolicy = nil
		}
		if reflect.DeepEqual(svc.Spec.InternalTrafficPolicy, old.Spec.InternalTrafficPolicy) {
			svc.Spec.InternalTrafficPolicy = nil
		}
	}
	if needsNodePort(old) && !needsNodePort(svc) {
		same := len(svc.Spec.Ports) == len(old.Spec.Ports)
		oldPorts := map[int32]bool{}
		for _, p := range old.Spec.Ports {
			oldPorts[p.NodePort] = true
		}
		for _, p := range svc.Spec.Ports {
			same = same && (p.NodePort == 0 || oldPorts[p.NodePort])
		}
		if same {
			for i := range svc.Spec.Ports {
				svc.Spec.Ports[i].NodePort = 0
			}
		}
	}
	if service.NeedsHealthCheck(old) && !service.NeedsHealthCheck(svc) && svc.Spec.HealthCheckNodePort == old.Spec.HealthCheckNodePort {
		svc.Spec.HealthCheckNodePort = 0
	}
	if old.Spec.Type == corev1.ServiceTypeLoadBalancer && svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		if a, b := svc.Spec.AllocateLoadBalancerNodePorts, old.Spec.AllocateLoadBalancerNodePorts; a != nil && b != nil && *a == *b {
			svc.Spec.AllocateLoadBalancerNodePorts = nil
		}
		if reflect.DeepEqual(svc.Spec.LoadBalancerClass, old.Spec.LoadBalancerClass) {
			svc.Spec.LoadBalancerClass = nil
		}
	}
	if service.ExternallyAccessible(old) && !service.ExternallyAccessible(svc) && svc.Spec.ExternalTrafficPolicy == old.Spec.ExternalTrafficPolicy {
		svc.Spec.ExternalTrafficPolicy = ""
	}
	if svc.Spec.Type != corev1.ServiceTypeLoadBalancer {
		svc.Status.LoadBalancer = corev1.LoadBalancerStatus{}
	}
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
