package server

import (
	"fmt"
	"net"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	networkingv1 "k8s.io/api/networking/v1"
	nodev1 "k8s.io/api/node/v1"
	policyv1 "k8s.io/api/policy/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	storagemigrationv1 "k8s.io/api/storagemigration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/duration"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
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
	"/componentstatuses": {
		cells: func(s *Server, obj runtime.Object) []any {
			cs := obj.(*corev1.ComponentStatus)
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
		},
	},
	"admissionregistration.k8s.io/validatingadmissionpolicies": {
		cells: func(s *Server, obj runtime.Object) []any {
			p := obj.(*admissionregistrationv1.ValidatingAdmissionPolicy)
			return []any{p.Name, int64(len(p.Spec.Validations)), paramKindString(p.Spec.ParamKind), s.age(p.CreationTimestamp)}
		},
	},
	"admissionregistration.k8s.io/mutatingadmissionpolicies": {
		cells: func(s *Server, obj runtime.Object) []any {
			p := obj.(*admissionregistrationv1.MutatingAdmissionPolicy)
			return []any{p.Name, int64(len(p.Spec.Mutations)), paramKindString(p.Spec.ParamKind), s.age(p.CreationTimestamp)}
		},
	},
	"admissionregistration.k8s.io/validatingadmissionpolicybindings": {
		cells: func(s *Server, obj runtime.Object) []any {
			b := obj.(*admissionregistrationv1.ValidatingAdmissionPolicyBinding)
			return []any{b.Name, b.Spec.PolicyName, paramRefString(b.Spec.ParamRef), s.age(b.CreationTimestamp)}
		},
	},
	"admissionregistration.k8s.io/mutatingadmissionpolicybindings": {
		cells: func(s *Server, obj runtime.Object) []any {
			b := obj.(*admissionregistrationv1.MutatingAdmissionPolicyBinding)
			return []any{b.Name, b.Spec.PolicyName, paramRefString(b.Spec.ParamRef), s.age(b.CreationTimestamp)}
		},
	},
	"certificates.k8s.io/clustertrustbundles": {
		cells: func(s *Server, obj runtime.Object) []any {
			b := obj.(*certificatesv1.ClusterTrustBundle)
			signer := "<none>"
			if b.Spec.SignerName != "" {
				signer = b.Spec.SignerName
			}
			return []any{b.Name, signer}
		},
	},
	"certificates.k8s.io/podcertificaterequests": {
		cells: func(s *Server, obj runtime.Object) []any {
			r := obj.(*certificatesv1.PodCertificateRequest)
			// Issued, Denied and Failed exclude each other.
			state := "Pending"
			for _, c := range r.Status.Conditions {
				switch c.Type {
				case certificatesv1.PodCertificateRequestConditionTypeIssued, certificatesv1.PodCertificateRequestConditionTypeDenied, certificatesv1.PodCertificateRequestConditionTypeFailed:
					state = c.Type
				}
			}
			return []any{r.Name, r.Spec.PodName, r.Spec.ServiceAccountName, string(r.Spec.NodeName), r.Spec.SignerName, state, selectorString(r.Spec.UnverifiedUserAnnotations)}
		},
	},
	"resource.k8s.io/devicetaintrules": {
		cells: func(s *Server, obj runtime.Object) []any {
			r := obj.(*resourcev1.DeviceTaintRule)
			t := r.Spec.Taint
			added := ""
			if t.TimeAdded != nil {
				added = s.age(*t.TimeAdded)
			}
			return []any{r.Name, t.Key, t.Value, string(t.Effect), added, s.age(r.CreationTimestamp)}
		},
	},
	"resource.k8s.io/resourceclaims": {
		cells: func(s *Server, obj runtime.Object) []any {
			c := obj.(*resourcev1.ResourceClaim)
			var states []string
			if c.DeletionTimestamp != nil {
				states = append(states, "deleted")
			}
			if c.Status.Allocation == nil {
				if c.DeletionTimestamp == nil {
					states = append(states, "pending")
				}
			} else {
				states = append(states, "allocated")
				if len(c.Status.ReservedFor) > 0 {
					states = append(states, "reserved")
				}
			}
			return []any{c.Name, strings.Join(states, ","), s.age(c.CreationTimestamp)}
		},
	},
	"resource.k8s.io/resourceslices": {
		cells: func(s *Server, obj runtime.Object) []any {
			sl := obj.(*resourcev1.ResourceSlice)
			node := ""
			if sl.Spec.NodeName != nil {
				node = *sl.Spec.NodeName
			}
			return []any{sl.Name, node, sl.Spec.Driver, sl.Spec.Pool.Name, s.age(sl.CreationTimestamp)}
		},
	},
	"storage.k8s.io/volumeattachments": {
		cells: func(s *Server, obj runtime.Object) []any {
			va := obj.(*storagev1.VolumeAttachment)
			pv := ""
			if va.Spec.Source.PersistentVolumeName != nil {
				pv = *va.Spec.Source.PersistentVolumeName
			}
			return []any{va.Name, va.Spec.Attacher, pv, va.Spec.NodeName, va.Status.Attached, s.age(va.CreationTimestamp)}
		},
	},
	"storage.k8s.io/volumeattributesclasses": {
		cells: func(s *Server, obj runtime.Object) []any {
			c := obj.(*storagev1.VolumeAttributesClass)
			return []any{c.Name, c.DriverName, s.age(c.CreationTimestamp)}
		},
	},
	"storagemigration.k8s.io/storageversionmigrations": {
		cells: func(s *Server, obj runtime.Object) []any {
			m := obj.(*storagemigrationv1.StorageVersionMigration)
			status := "Unknown"
			for _, c := range m.Status.Conditions {
				if c.Status != metav1.ConditionTrue {
					continue
				}
				switch storagemigrationv1.MigrationConditionType(c.Type) {
				case storagemigrationv1.MigrationRunning, storagemigrationv1.MigrationFailed, storagemigrationv1.MigrationSucceeded:
					status = c.Type
				}
			}
			return []any{m.Name, m.Spec.Resource.String(), status}
		},
	},
	"apiregistration.k8s.io/apiservices": {
		cells: func(s *Server, obj runtime.Object) []any {
			svc := obj.(*apiregistrationv1.APIService)
			service := "Local"
			if ref := svc.Spec.Service; ref != nil {
				service = ref.Namespace + "/" + ref.Name
			}
			available := string(apiregistrationv1.ConditionUnknown)
			for _, c := range svc.Status.Conditions {
				if c.Type != apiregistrationv1.Available {
					continue
				}
				available = string(c.Status)
				if c.Status != apiregistrationv1.ConditionTrue && c.Reason != "" {
					available = fmt.Sprintf("%s (%s)", c.Status, c.Reason)
				}
				break
			}
			return []any{svc.Name, service, available, s.age(svc.CreationTimestamp)}
		},
	},
	"certificates.k8s.io/certificatesigningrequests": {
		cells: func(s *Server, obj runtime.Object) []any {
			csr := obj.(*certificatesv1.CertificateSigningRequest)
			signer := "<none>"
			if csr.Spec.SignerName != "" {
				signer = csr.Spec.SignerName
			}
			requested := "<none>"
			if e := csr.Spec.ExpirationSeconds; e != nil {
				requested = duration.HumanDuration(time.Duration(*e) * time.Second)
			}
			return []any{csr.Name, s.age(csr.CreationTimestamp), signer, csr.Spec.Username, requested, csrCondition(csr)}
		},
	},
	"/resourcequotas": {
		cells: func(s *Server, obj runtime.Object) []any {
			rq := obj.(*corev1.ResourceQuota)
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
			return []any{rq.Name, strings.Join(requests, ", "), strings.Join(limits, ", "), s.age(rq.CreationTimestamp)}
		},
	},
	"/podtemplates": {
		cells: func(s *Server, obj runtime.Object) []any {
			pt := obj.(*corev1.PodTemplate)
			names, images := containerNamesImages(pt.Template.Spec.Containers)
			return []any{pt.Name, names, images, selectorString(pt.Template.Labels)}
		},
	},
	"apps/controllerrevisions": {
		cells: func(s *Server, obj runtime.Object) []any {
			cr := obj.(*appsv1.ControllerRevision)
			controller := "<none>"
			if ref := metav1.GetControllerOf(cr); ref != nil {
				gv, _ := schema.ParseGroupVersion(ref.APIVersion)
				controller = ref.Name
				if gk := gv.WithKind(ref.Kind).GroupKind(); !gk.Empty() {
					controller = strings.ToLower(gk.String()) + "/" + ref.Name
				}
			}
			return []any{cr.Name, controller, cr.Revision, s.age(cr.CreationTimestamp)}
		},
	},
	"node.k8s.io/runtimeclasses": {
		cells: func(s *Server, obj runtime.Object) []any {
			rc := obj.(*nodev1.RuntimeClass)
			return []any{rc.Name, rc.Handler, s.age(rc.CreationTimestamp)}
		},
	},
	"storage.k8s.io/csidrivers": {
		cells: func(s *Server, obj runtime.Object) []any {
			d := obj.(*storagev1.CSIDriver)
			// Defaults: attach required, nothing else, Persistent volumes.
			boolOr := func(b *bool, def bool) bool {
				if b == nil {
					return def
				}
				return *b
			}
			tokens := "<unset>"
			if d.Spec.TokenRequests != nil {
				var audiences []string
				for _, t := range d.Spec.TokenRequests {
					audiences = append(audiences, t.Audience)
				}
				tokens = strings.Join(audiences, ",")
			}
			var modes []string
			for _, m := range d.Spec.VolumeLifecycleModes {
				modes = append(modes, string(m))
			}
			if len(modes) == 0 {
				modes = []string{string(storagev1.VolumeLifecyclePersistent)}
			}
			return []any{d.Name, boolOr(d.Spec.AttachRequired, true), boolOr(d.Spec.PodInfoOnMount, false), boolOr(d.Spec.StorageCapacity, false),
				tokens, boolOr(d.Spec.RequiresRepublish, false), strings.Join(modes, ","), s.age(d.CreationTimestamp)}
		},
	},
	"storage.k8s.io/csinodes": {
		cells: func(s *Server, obj runtime.Object) []any {
			n := obj.(*storagev1.CSINode)
			return []any{n.Name, int64(len(n.Spec.Drivers)), s.age(n.CreationTimestamp)}
		},
	},
	"admissionregistration.k8s.io/mutatingwebhookconfigurations": {
		cells: func(s *Server, obj runtime.Object) []any {
			w := obj.(*admissionregistrationv1.MutatingWebhookConfiguration)
			return []any{w.Name, int64(len(w.Webhooks)), s.age(w.CreationTimestamp)}
		},
	},
	"admissionregistration.k8s.io/validatingwebhookconfigurations": {
		cells: func(s *Server, obj runtime.Object) []any {
			w := obj.(*admissionregistrationv1.ValidatingWebhookConfiguration)
			return []any{w.Name, int64(len(w.Webhooks)), s.age(w.CreationTimestamp)}
		},
	},
	"networking.k8s.io/servicecidrs": {
		cells: func(s *Server, obj runtime.Object) []any {
			sc := obj.(*networkingv1.ServiceCIDR)
			return []any{sc.Name, strings.Join(sc.Spec.CIDRs, ","), s.age(sc.CreationTimestamp)}
		},
	},
	"networking.k8s.io/ipaddresses": {
		// Upstream prints the age too, a cell past the two columns.
		cells: func(s *Server, obj runtime.Object) []any {
			ip := obj.(*networkingv1.IPAddress)
			parent := "<none>"
			if ref := ip.Spec.ParentRef; ref != nil {
				parent = strings.ToLower(schema.GroupResource{Group: ref.Group, Resource: ref.Resource}.String())
				if ref.Namespace != "" {
					parent += "/" + ref.Namespace
				}
				parent += "/" + ref.Name
			}
			return []any{ip.Name, parent, s.age(ip.CreationTimestamp)}
		},
	},
	"flowcontrol.apiserver.k8s.io/flowschemas": {
		cells: func(s *Server, obj runtime.Object) []any { return s.flowSchemaCells(obj.(*flowcontrolv1.FlowSchema)) },
		// A list is ordered as the schemas match: by precedence, then name.
		list: func(s *Server, objs []runtime.Object) ([]int, [][]any) {
			order := make([]int, len(objs))
			for i := range order {
				order[i] = i
			}
			fs := func(i int) *flowcontrolv1.FlowSchema { return objs[i].(*flowcontrolv1.FlowSchema) }
			sort.SliceStable(order, func(a, b int) bool {
				pa, pb := flowSchemaPrecedence(fs(order[a])), flowSchemaPrecedence(fs(order[b]))
				if pa != pb {
					return pa < pb
				}
				return fs(order[a]).Name < fs(order[b]).Name
			})
			cells := make([][]any, len(order))
			for i, idx := range order {
				cells[i] = s.flowSchemaCells(fs(idx))
			}
			return order, cells
		},
	},
	"flowcontrol.apiserver.k8s.io/prioritylevelconfigurations": {
		cells: func(s *Server, obj runtime.Object) []any {
			pl := obj.(*flowcontrolv1.PriorityLevelConfiguration)
			var shares, queues, handSize, queueLength any = "<none>", "<none>", "<none>", "<none>"
			if l := pl.Spec.Limited; l != nil {
				// Defaults: 30 shares; 64 queues, hands of 8, 50 requests a queue.
				shares = int64(30)
				if l.NominalConcurrencyShares != nil {
					shares = int64(*l.NominalConcurrencyShares)
				}
				if q := l.LimitResponse.Queuing; q != nil {
					queues, handSize, queueLength = int64(orDefault(q.Queues, 64)), int64(orDefault(q.HandSize, 8)), int64(orDefault(q.QueueLengthLimit, 50))
				}
			}
			return []any{pl.Name, string(pl.Spec.Type), shares, queues, handSize, queueLength, s.age(pl.CreationTimestamp)}
		},
	},
	"autoscaling/horizontalpodautoscalers": {
		cells: func(s *Server, obj runtime.Object) []any {
			var spec autoscalingv2.HorizontalPodAutoscalerSpec
			var status autoscalingv2.HorizontalPodAutoscalerStatus
			var meta metav1.ObjectMeta
			switch h := obj.(type) {
			case *autoscalingv2.HorizontalPodAutoscaler:
				spec, status, meta = h.Spec, h.Status, h.ObjectMeta
			case *autoscalingv1.HorizontalPodAutoscaler:
				spec, status, meta = hpaV1AsV2(h)
			}
			// Defaults: one replica at least, 80% CPU utilization.
			if len(spec.Metrics) == 0 {
				spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(80)}
			}
			minPods := "1"
			if spec.MinReplicas != nil {
				minPods = strconv.Itoa(int(*spec.MinReplicas))
			}
			return []any{meta.Name, spec.ScaleTargetRef.Kind + "/" + spec.ScaleTargetRef.Name, formatHPAMetrics(spec.Metrics, status.CurrentMetrics),
				minPods, int64(spec.MaxReplicas), int64(status.CurrentReplicas), s.age(meta.CreationTimestamp)}
		},
	},
	"networking.k8s.io/ingresses": {
		cells: func(s *Server, obj runtime.Object) []any {
			ing := obj.(*networkingv1.Ingress)
			class := "<none>"
			if ing.Spec.IngressClassName != nil {
				class = *ing.Spec.IngressClassName
			}
			var hosts []string
			for _, r := range ing.Spec.Rules {
				if r.Host != "" && len(hosts) < 3 {
					hosts = append(hosts, r.Host)
				}
			}
			hostStr := strings.Join(hosts, ",")
			switch {
			case len(hosts) == 0:
				hostStr = "*"
			case len(ing.Spec.Rules) > 3 && len(hosts) == 3:
				hostStr = fmt.Sprintf("%s + %d more...", hostStr, len(ing.Spec.Rules)-3)
			}
			var addrs []string
			for _, in := range ing.Status.LoadBalancer.Ingress {
				if in.IP != "" {
					addrs = append(addrs, in.IP)
				} else if in.Hostname != "" {
					addrs = append(addrs, in.Hostname)
				}
			}
			sort.Strings(addrs)
			ports := "80"
			if len(ing.Spec.TLS) > 0 {
				ports = "80, 443"
			}
			return []any{ing.Name, class, hostStr, strings.Join(slices.Compact(addrs), ","), ports, s.age(ing.CreationTimestamp)}
		},
	},
	"networking.k8s.io/ingressclasses": {
		cells: func(s *Server, obj runtime.Object) []any {
			ic := obj.(*networkingv1.IngressClass)
			name := ic.Name
			if ic.Annotations[networkingv1.AnnotationIsDefaultIngressClass] == "true" {
				name += " (default)"
			}
			params := "<none>"
			if p := ic.Spec.Parameters; p != nil {
				params = p.Kind
				if p.APIGroup != nil {
					params += "." + *p.APIGroup
				}
				params += "/" + p.Name
			}
			return []any{name, ic.Spec.Controller, params, s.age(ic.CreationTimestamp)}
		},
	},
	"networking.k8s.io/networkpolicies": {
		cells: func(s *Server, obj runtime.Object) []any {
			np := obj.(*networkingv1.NetworkPolicy)
			return []any{np.Name, labelSelectorString(&np.Spec.PodSelector), s.age(np.CreationTimestamp)}
		},
	},
	"policy/poddisruptionbudgets": {
		cells: func(s *Server, obj runtime.Object) []any {
			pdb := obj.(*policyv1.PodDisruptionBudget)
			minAvailable, maxUnavailable := "N/A", "N/A"
			if pdb.Spec.MinAvailable != nil {
				minAvailable = pdb.Spec.MinAvailable.String()
			}
			if pdb.Spec.MaxUnavailable != nil {
				maxUnavailable = pdb.Spec.MaxUnavailable.String()
			}
			return []any{pdb.Name, minAvailable, maxUnavailable, int64(pdb.Status.DisruptionsAllowed), s.age(pdb.CreationTimestamp)}
		},
	},
	"storage.k8s.io/storageclasses": {
		cells: func(s *Server, obj runtime.Object) []any {
			return s.storageClassCells(obj.(*storagev1.StorageClass), "")
		},
		// A list marks its effective default class: the most recently
		// created of those annotated as default (on a tie, the first name).
		list: func(s *Server, objs []runtime.Object) ([]int, [][]any) {
			var def *storagev1.StorageClass
			for _, o := range objs {
				sc := o.(*storagev1.StorageClass)
				if sc.Annotations["storageclass.kubernetes.io/is-default-class"] != "true" && sc.Annotations["storageclass.beta.kubernetes.io/is-default-class"] != "true" {
					continue
				}
				if def == nil || sc.CreationTimestamp.After(def.CreationTimestamp.Time) ||
					sc.CreationTimestamp.Equal(&def.CreationTimestamp) && sc.Name < def.Name {
					def = sc
				}
			}
			defName := ""
			if def != nil {
				defName = def.Name
			}
			order := make([]int, len(objs))
			cells := make([][]any, len(objs))
			for i, o := range objs {
				order[i] = i
				cells[i] = s.storageClassCells(o.(*storagev1.StorageClass), defName)
			}
			return order, cells
		},
	},
	"/endpoints": {
		cells: func(s *Server, obj runtime.Object) []any {
			ep := obj.(*corev1.Endpoints)
			return []any{ep.Name, formatEndpoints(ep), s.age(ep.CreationTimestamp)}
		},
	},
	"discovery.k8s.io/endpointslices": {
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
		cells: func(s *Server, obj runtime.Object) []any { return s.eventCells(obj.(*corev1.Event)) },
	},
	"events.k8s.io/events": {
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
		cells: func(s *Server, obj runtime.Object) []any {
			job := obj.(*batchv1.Job)
			names, images := containerNamesImages(job.Spec.Template.Spec.Containers)
			return []any{job.Name, jobStatus(job), jobCompletions(job), s.jobDuration(job), s.age(job.CreationTimestamp), names, images, jobSelector(job)}
		},
	},
	"batch/cronjobs": {
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

// paramKindString prints an admission policy's parameter kind.
func paramKindString(k *admissionregistrationv1.ParamKind) string {
	if k == nil {
		return "<unset>"
	}
	return k.APIVersion + "/" + k.Kind
}

// paramRefString prints an admission policy binding's parameter reference:
// namespace/name ("*" for any namespace), or the selector as Go prints it.
func paramRefString(ref *admissionregistrationv1.ParamRef) string {
	switch {
	case ref == nil:
		return "<unset>"
	case ref.Name != "" && ref.Namespace != "":
		return ref.Namespace + "/" + ref.Name
	case ref.Name != "":
		return "*/" + ref.Name
	case ref.Selector != nil:
		return ref.Selector.String()
	}
	return "<unset>"
}

// csrCondition sums up a CertificateSigningRequest's conditions:
// Denied, Approved or Pending, then Failed and Issued.
func csrCondition(csr *certificatesv1.CertificateSigningRequest) string {
	var approved, denied, failed bool
	for _, c := range csr.Status.Conditions {
		switch c.Type {
		case certificatesv1.CertificateApproved:
			approved = true
		case certificatesv1.CertificateDenied:
			denied = true
		case certificatesv1.CertificateFailed:
			failed = true
		}
	}
	status := "Pending"
	if denied {
		status = "Denied"
	} else if approved {
		status = "Approved"
	}
	if failed {
		status += ",Failed"
	}
	if len(csr.Status.Certificate) > 0 {
		status += ",Issued"
	}
	return status
}

// flowSchemaPrecedence is a schema's matching precedence, 1000 by default.
func flowSchemaPrecedence(fs *flowcontrolv1.FlowSchema) int32 {
	return orDefault(fs.Spec.MatchingPrecedence, 1000)
}

func (s *Server) flowSchemaCells(fs *flowcontrolv1.FlowSchema) []any {
	method := "<none>"
	if fs.Spec.DistinguisherMethod != nil {
		method = string(fs.Spec.DistinguisherMethod.Type)
	}
	missing := "?"
	for _, c := range fs.Status.Conditions {
		if c.Type == flowcontrolv1.FlowSchemaConditionDangling {
			missing = string(c.Status)
			break
		}
	}
	return []any{fs.Name, fs.Spec.PriorityLevelConfiguration.Name, int64(flowSchemaPrecedence(fs)), method, s.age(fs.CreationTimestamp), missing}
}

// orDefault is v, or def when v is zero (unset).
func orDefault(v, def int32) int32 {
	if v == 0 {
		return def
	}
	return v
}

// storageClassCells prints a storage class, marked "(default)" when it is
// the list's effective default; unset fields print as their defaults.
func (s *Server) storageClassCells(sc *storagev1.StorageClass, effectiveDefault string) []any {
	name := sc.Name
	if effectiveDefault != "" && name == effectiveDefault {
		name += " (default)"
	}
	policy := string(corev1.PersistentVolumeReclaimDelete)
	if sc.ReclaimPolicy != nil {
		policy = string(*sc.ReclaimPolicy)
	}
	mode := string(storagev1.VolumeBindingImmediate)
	if sc.VolumeBindingMode != nil {
		mode = string(*sc.VolumeBindingMode)
	}
	expand := sc.AllowVolumeExpansion != nil && *sc.AllowVolumeExpansion
	return []any{name, sc.Provisioner, policy, mode, expand, s.age(sc.CreationTimestamp)}
}

// hpaV1AsV2 reads an autoscaling/v1 HorizontalPodAutoscaler as upstream's
// conversion does: its CPU target and current utilization become metrics.
func hpaV1AsV2(h *autoscalingv1.HorizontalPodAutoscaler) (autoscalingv2.HorizontalPodAutoscalerSpec, autoscalingv2.HorizontalPodAutoscalerStatus, metav1.ObjectMeta) {
	spec := autoscalingv2.HorizontalPodAutoscalerSpec{
		ScaleTargetRef: autoscalingv2.CrossVersionObjectReference{Kind: h.Spec.ScaleTargetRef.Kind, Name: h.Spec.ScaleTargetRef.Name, APIVersion: h.Spec.ScaleTargetRef.APIVersion},
		MinReplicas:    h.Spec.MinReplicas,
		MaxReplicas:    h.Spec.MaxReplicas,
	}
	if t := h.Spec.TargetCPUUtilizationPercentage; t != nil {
		spec.Metrics = []autoscalingv2.MetricSpec{cpuUtilization(*t)}
	}
	status := autoscalingv2.HorizontalPodAutoscalerStatus{CurrentReplicas: h.Status.CurrentReplicas, DesiredReplicas: h.Status.DesiredReplicas}
	if c := h.Status.CurrentCPUUtilizationPercentage; c != nil {
		status.CurrentMetrics = []autoscalingv2.MetricStatus{{
			Type:     autoscalingv2.ResourceMetricSourceType,
			Resource: &autoscalingv2.ResourceMetricStatus{Name: corev1.ResourceCPU, Current: autoscalingv2.MetricValueStatus{AverageUtilization: c}},
		}}
	}
	return spec, status, h.ObjectMeta
}

// cpuUtilization is a CPU average utilization target.
func cpuUtilization(percent int32) autoscalingv2.MetricSpec {
	return autoscalingv2.MetricSpec{
		Type: autoscalingv2.ResourceMetricSourceType,
		Resource: &autoscalingv2.ResourceMetricSource{
			Name:   corev1.ResourceCPU,
			Target: autoscalingv2.MetricTarget{Type: autoscalingv2.UtilizationMetricType, AverageUtilization: &percent},
		},
	}
}

// formatHPAMetrics prints up to two metrics as current/target and how many
// more there are.
func formatHPAMetrics(specs []autoscalingv2.MetricSpec, statuses []autoscalingv2.MetricStatus) string {
	if len(specs) == 0 {
		return "<none>"
	}
	status := func(i int) *autoscalingv2.MetricStatus {
		if i < len(statuses) {
			return &statuses[i]
		}
		return nil
	}
	percent := func(p *int32) string { return fmt.Sprintf("%d%%", *p) }
	var list []string
	for i, spec := range specs {
		st := status(i)
		current := "<unknown>"
		switch {
		case spec.Type == autoscalingv2.ExternalMetricSourceType && spec.External != nil:
			if t := spec.External.Target; t.AverageValue != nil {
				if st != nil && st.External != nil && st.External.Current.AverageValue != nil {
					current = st.External.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, t.AverageValue.String()))
			} else {
				if st != nil && st.External != nil {
					current = st.External.Current.Value.String()
				}
				list = append(list, fmt.Sprintf("%s/%s", current, t.Value.String()))
			}
		case spec.Type == autoscalingv2.PodsMetricSourceType && spec.Pods != nil:
			if st != nil && st.Pods != nil {
				current = st.Pods.Current.AverageValue.String()
			}
			list = append(list, fmt.Sprintf("%s/%s", current, spec.Pods.Target.AverageValue.String()))
		case spec.Type == autoscalingv2.ObjectMetricSourceType && spec.Object != nil:
			if t := spec.Object.Target; t.AverageValue != nil {
				if st != nil && st.Object != nil && st.Object.Current.AverageValue != nil {
					current = st.Object.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s/%s (avg)", current, t.AverageValue.String()))
			} else {
				if st != nil && st.Object != nil {
					current = st.Object.Current.Value.String()
				}
				list = append(list, fmt.Sprintf("%s/%s", current, t.Value.String()))
			}
		case spec.Type == autoscalingv2.ResourceMetricSourceType && spec.Resource != nil:
			r := spec.Resource
			if r.Target.AverageValue != nil {
				if st != nil && st.Resource != nil {
					current = st.Resource.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", r.Name, current, r.Target.AverageValue.String()))
			} else {
				if st != nil && st.Resource != nil && st.Resource.Current.AverageUtilization != nil {
					current = percent(st.Resource.Current.AverageUtilization)
				}
				target := "<auto>"
				if r.Target.AverageUtilization != nil {
					target = percent(r.Target.AverageUtilization)
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", r.Name, current, target))
			}
		case spec.Type == autoscalingv2.ContainerResourceMetricSourceType && spec.ContainerResource != nil:
			r := spec.ContainerResource
			if r.Target.AverageValue != nil {
				if st != nil && st.ContainerResource != nil {
					current = st.ContainerResource.Current.AverageValue.String()
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", r.Name, current, r.Target.AverageValue.String()))
			} else {
				if st != nil && st.ContainerResource != nil && st.ContainerResource.Current.AverageUtilization != nil {
					current = percent(st.ContainerResource.Current.AverageUtilization)
				}
				target := "<auto>"
				if r.Target.AverageUtilization != nil {
					target = percent(r.Target.AverageUtilization)
				}
				list = append(list, fmt.Sprintf("%s: %s/%s", r.Name, current, target))
			}
		default:
			list = append(list, "<unknown type>")
		}
	}
	if len(list) > 2 {
		return fmt.Sprintf("%s + %d more...", strings.Join(list[:2], ", "), len(list)-2)
	}
	return strings.Join(list, ", ")
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
