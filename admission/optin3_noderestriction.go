package admission

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"strings"

	authenticationv1 "k8s.io/api/authentication/v1"
	certificatesv1 "k8s.io/api/certificates/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/labels"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/diff"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/component-helpers/storage/ephemeral"
)

// NodeRestrictionPluginName is the name of upstream's NodeRestriction
// plugin (plugin/pkg/admission/noderestriction).
const NodeRestrictionPluginName = "NodeRestriction"

// NodeRestrictionLookups are what upstream's NodeRestriction plugin reads
// from its informers (and its authorizer). Each func answers the object as
// stored; a missing object is answered with (nil, nil) or with any error
// apierrors.IsNotFound recognizes (both are turned into the informer
// lister's 404, e.g. `pod "p" not found`, as upstream answers). Other
// errors are passed on as upstream passes on a lister's. A nil func answers
// every object as missing; a nil Authorizer answers every question with
// no opinion (a denial).
type NodeRestrictionLookups struct {
	// Pod: pod deletion, eviction, TokenRequest and PodCertificateRequest.
	Pod func(namespace, name string) (*corev1.Pod, error)
	// Node: mirror pod creation (owner uid) and PodCertificateRequest.
	Node func(name string) (*corev1.Node, error)
	// ServiceAccount: PodCertificateRequest.
	ServiceAccount func(namespace, name string) (*corev1.ServiceAccount, error)
	// PVC, PV and CSIDriver: the audiences a pod's CSI volumes may request
	// tokens for (TokenRequest, ServiceAccountNodeAudienceRestriction).
	PVC       func(namespace, name string) (*corev1.PersistentVolumeClaim, error)
	PV        func(name string) (*corev1.PersistentVolume, error)
	CSIDriver func(name string) (*storagev1.CSIDriver, error)
	// Authorizer: kube-apiserver's authorizer, asked for the
	// "request-serviceaccounts-token-audience" and
	// "request-serviceaccounts-podcertificate-signer" verbs.
	Authorizer authorizer.UnconditionalAuthorizer
}

// The groups and resources upstream's plugin restricts.
var (
	nrPods                   = schema.GroupResource{Resource: "pods"}
	nrNodes                  = schema.GroupResource{Resource: "nodes"}
	nrPVCs                   = schema.GroupResource{Resource: "persistentvolumeclaims"}
	nrServiceAccounts        = schema.GroupResource{Resource: "serviceaccounts"}
	nrLeases                 = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	nrCSINodes               = schema.GroupResource{Group: "storage.k8s.io", Resource: "csinodes"}
	nrResourceSlices         = schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceslices"}
	nrCSRs                   = schema.GroupResource{Group: "certificates.k8s.io", Resource: "certificatesigningrequests"}
	nrPodCertificateRequests = schema.GroupResource{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}
)

// The feature gates upstream's plugin reads, at their v1.37 defaults.
const (
	nrRecoverVolumeExpansionFailure                  = true  // GA
	nrAllowInsecureKubeletCertificateSigningRequests = false // deprecated, off
	nrServiceAccountNodeAudienceRestriction          = true  // beta, on
	nrPodCertificateRequest                          = true  // GA in 1.37
	nrCSIVolumeHealth                                = false // alpha
)

// nrNodeUserNamePrefix is how a node's user name begins.
const nrNodeUserNamePrefix = "system:node:"

// NodeRestrictionNodeIdentity is upstream's default node identifier: a user
// named system:node:<name> in the system:nodes group is the node <name>
// (which may be empty); anyone else is not a node.
func NodeRestrictionNodeIdentity(u user.Info) (string, bool) {
	if u == nil {
		return "", false
	}
	name, ok := strings.CutPrefix(u.GetName(), nrNodeUserNamePrefix)
	if !ok || !slices.Contains(u.GetGroups(), user.NodesGroup) {
		return "", false
	}
	return name, true
}

// NodeRestrictionAdmit is upstream's NodeRestriction plugin (it is a
// mutating plugin upstream, but mutates nothing): it limits what a kubelet
// (a user NodeRestrictionNodeIdentity recognizes) may create, update or
// delete. Other users, and other operations (connect), are left alone.
// A node user with an empty node name is refused everything. Then, by
// resource:
//
//   - pods: create only mirror pods bound to the node, owned (as
//     controller, without blockOwnerDeletion) by its Node (uid checked),
//     referencing no other API object; delete only pods bound to it;
//     pods/status updates only of pods bound to it, not changing labels nor
//     resource claim statuses; pods/eviction only of pods bound to it; any
//     other pod subresource (binding, ephemeralcontainers, resize...) or
//     operation is refused;
//   - nodes (and their subresources): only its own Node; no configSource on
//     create nor a new one on update; no change of taints or
//     ownerReferences; no setting or changing labels under
//     node-restriction.kubernetes.io/ nor kubernetes.io / k8s.io labels
//     other than the kubelet's own (hostname, zone, region, instance type,
//     os, arch, kubelet.kubernetes.io/ and node.kubernetes.io/);
//   - persistentvolumeclaims: only updates of status, changing nothing but
//     capacity, conditions and allocated resources (and their statuses);
//   - serviceaccounts/token creates: bound to a pod (by name and uid) on
//     the node, for at most one audience, that the pod uses (a projected
//     token, or a CSI driver of one of its volumes) or the node is
//     authorized for;
//   - podcertificaterequests creates: for a real (non-mirror) pod on the
//     node, its service account, and a signer it mounts or the node is
//     authorized for;
//   - leases: only in kube-node-lease, named after the node;
//   - csinodes: only named after the node (status is refused: CSIVolumeHealth
//     is off);
//   - resourceslices: create and delete only with spec.nodeName the node;
//   - certificatesigningrequests creates for the kubelet signers: only with
//     the common name system:node:<node>.
//
// Errors are upstream's: mostly 403 Forbidden via admission.NewForbidden,
// 404s from the lookups passed on, and some plain errors (500s).
func NodeRestrictionAdmit(ctx context.Context, a k8sadmission.Attributes, get NodeRestrictionLookups) error {
	if !optinHandles(a.GetOperation(), k8sadmission.Create, k8sadmission.Update, k8sadmission.Delete) {
		return nil
	}
	nodeName, isNode := NodeRestrictionNodeIdentity(a.GetUserInfo())
	if !isNode {
		return nil
	}
	if nodeName == "" {
		return k8sadmission.NewForbidden(a, fmt.Errorf("could not determine node from user %q", a.GetUserInfo().GetName()))
	}
	nr := nodeRestriction{a: a, node: nodeName, get: get}
	switch a.GetResource().GroupResource() {
	case nrPods:
		switch a.GetSubresource() {
		case "":
			return nr.pod()
		case "status":
			return nr.podStatus()
		case "eviction":
			return nr.podEviction()
		default:
			return nr.forbid("unexpected pod subresource %q, only 'status' and 'eviction' are allowed", a.GetSubresource())
		}
	case nrNodes:
		return nr.nodeWrite()
	case nrPVCs:
		if a.GetSubresource() != "status" {
			return nr.forbid("may only update PVC status")
		}
		return nr.pvcStatus()
	case nrServiceAccounts:
		return nr.serviceAccountToken(ctx)
	case nrPodCertificateRequests:
		return nr.podCertificateRequest(ctx)
	case nrLeases:
		return nr.lease()
	case nrCSINodes:
		return nr.csiNode()
	case nrResourceSlices:
		return nr.resourceSlice()
	case nrCSRs:
		if nrAllowInsecureKubeletCertificateSigningRequests {
			return nil
		}
		return nr.csr()
	}
	return nil
}

// nodeRestriction is one request of node node.
type nodeRestriction struct {
	a    k8sadmission.Attributes
	node string
	get  NodeRestrictionLookups
}

func (nr nodeRestriction) forbid(format string, args ...interface{}) error {
	return k8sadmission.NewForbidden(nr.a, fmt.Errorf(format, args...))
}

func (nr nodeRestriction) forbidErr(err error) error {
	return k8sadmission.NewForbidden(nr.a, err)
}

func (nr nodeRestriction) unexpectedType(obj interface{}) error {
	return nr.forbid("unexpected type %T", obj)
}

// nrLookup calls f, answering a missing object (a nil func, a nil object
// or a NotFound) as upstream's informer listers do: a 404 for the
// singular resource (e.g. `pod "p" not found`).
func nrLookup[T any](gr schema.GroupResource, name string, f func() (*T, error)) (*T, error) {
	if f == nil {
		return nil, apierrors.NewNotFound(gr, name)
	}
	obj, err := f()
	if apierrors.IsNotFound(err) || (err == nil && obj == nil) {
		return nil, apierrors.NewNotFound(gr, name)
	}
	if err != nil {
		return nil, err
	}
	return obj, nil
}

func (nr nodeRestriction) lookupPod(namespace, name string) (*corev1.Pod, error) {
	var f func() (*corev1.Pod, error)
	if nr.get.Pod != nil {
		f = func() (*corev1.Pod, error) { return nr.get.Pod(namespace, name) }
	}
	return nrLookup(schema.GroupResource{Resource: "pod"}, name, f)
}

func (nr nodeRestriction) lookupNode(name string) (*corev1.Node, error) {
	var f func() (*corev1.Node, error)
	if nr.get.Node != nil {
		f = func() (*corev1.Node, error) { return nr.get.Node(name) }
	}
	return nrLookup(schema.GroupResource{Resource: "node"}, name, f)
}

func (nr nodeRestriction) lookupServiceAccount(namespace, name string) (*corev1.ServiceAccount, error) {
	var f func() (*corev1.ServiceAccount, error)
	if nr.get.ServiceAccount != nil {
		f = func() (*corev1.ServiceAccount, error) { return nr.get.ServiceAccount(namespace, name) }
	}
	return nrLookup(schema.GroupResource{Resource: "serviceaccount"}, name, f)
}

func (nr nodeRestriction) lookupPVC(namespace, name string) (*corev1.PersistentVolumeClaim, error) {
	var f func() (*corev1.PersistentVolumeClaim, error)
	if nr.get.PVC != nil {
		f = func() (*corev1.PersistentVolumeClaim, error) { return nr.get.PVC(namespace, name) }
	}
	return nrLookup(schema.GroupResource{Resource: "persistentvolumeclaim"}, name, f)
}

func (nr nodeRestriction) lookupPV(name string) (*corev1.PersistentVolume, error) {
	var f func() (*corev1.PersistentVolume, error)
	if nr.get.PV != nil {
		f = func() (*corev1.PersistentVolume, error) { return nr.get.PV(name) }
	}
	return nrLookup(schema.GroupResource{Resource: "persistentvolume"}, name, f)
}

func (nr nodeRestriction) lookupCSIDriver(name string) (*storagev1.CSIDriver, error) {
	var f func() (*storagev1.CSIDriver, error)
	if nr.get.CSIDriver != nil {
		f = func() (*storagev1.CSIDriver, error) { return nr.get.CSIDriver(name) }
	}
	return nrLookup(schema.GroupResource{Group: "storage.k8s.io", Resource: "csidriver"}, name, f)
}

func (nr nodeRestriction) authorize(ctx context.Context, attrs authorizer.AttributesRecord) (authorizer.Decision, error) {
	if nr.get.Authorizer == nil {
		return authorizer.DecisionNoOpinion, nil
	}
	d, _, err := nr.get.Authorizer.Authorize(ctx, attrs)
	return d, err
}

// --- pods ---

func (nr nodeRestriction) pod() error {
	switch nr.a.GetOperation() {
	case k8sadmission.Create:
		return nr.mirrorPodCreate()
	case k8sadmission.Delete:
		existing, err := nr.lookupPod(nr.a.GetNamespace(), nr.a.GetName())
		if apierrors.IsNotFound(err) {
			return err
		}
		if err != nil {
			return nr.forbidErr(err)
		}
		if existing.Spec.NodeName != nr.node {
			return nr.forbid("node %q can only delete pods with spec.nodeName set to itself", nr.node)
		}
		return nil
	default:
		return nr.forbid("unexpected operation %q, node %q can only create and delete mirror pods", nr.a.GetOperation(), nr.node)
	}
}

func (nr nodeRestriction) mirrorPodCreate() error {
	pod, ok := nr.a.GetObject().(*corev1.Pod)
	if !ok {
		return nr.unexpectedType(nr.a.GetObject())
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; !mirror {
		return nr.forbid("pod does not have %q annotation, node %q can only create mirror pods", corev1.MirrorPodAnnotationKey, nr.node)
	}
	if pod.Spec.NodeName != nr.node {
		return nr.forbid("node %q can only create pods with spec.nodeName set to itself", nr.node)
	}
	switch len(pod.OwnerReferences) {
	case 0:
		return nr.forbid("node %q can only create pods with an owner reference set to itself", nr.node)
	case 1:
	default:
		return nr.forbid("node %q can only create pods with a single owner reference set to itself", nr.node)
	}
	owner := pod.OwnerReferences[0]
	if owner.APIVersion != "v1" || owner.Kind != "Node" || owner.Name != nr.node {
		return nr.forbid("node %q can only create pods with an owner reference set to itself", nr.node)
	}
	if owner.Controller == nil || !*owner.Controller {
		return nr.forbid("node %q can only create pods with a controller owner reference set to itself", nr.node)
	}
	if owner.BlockOwnerDeletion != nil && *owner.BlockOwnerDeletion {
		return nr.forbid("node %q must not set blockOwnerDeletion on an owner reference", nr.node)
	}
	node, err := nr.lookupNode(nr.node)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return nr.forbid("error looking up node %s to verify uid: %v", nr.node, err)
	}
	if owner.UID != node.UID {
		return nr.forbid("node %s UID mismatch: expected %s got %s", nr.node, owner.UID, node.UID)
	}
	refs, what, err := nrMirrorPodAPIReference(pod)
	if err != nil {
		return nr.forbidErr(fmt.Errorf("error checking mirror pod for API references: %w", err))
	}
	if refs {
		return nr.forbid("node %q can not create pods that reference %s", nr.node, what)
	}
	return nil
}

// nrMirrorPodAPIReference reports whether pod refers to an API object (and
// to what), as upstream's podutil.HasAPIObjectReference: a service account,
// a secret or config map anywhere (image pull secrets, containers' env,
// volumes), a resource claim, or a volume of a kind that needs the API; an
// unknown volume kind is an error.
func nrMirrorPodAPIReference(pod *corev1.Pod) (bool, string, error) {
	if pod.Spec.ServiceAccountName != "" {
		return true, "serviceaccounts", nil
	}
	if nrPodNamesAnySecret(pod) {
		return true, "secrets", nil
	}
	if nrPodNamesAnyConfigMap(pod) {
		return true, "configmaps", nil
	}
	if len(pod.Spec.ResourceClaims) > 0 {
		return true, "resourceclaims", nil
	}
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.AWSElasticBlockStore != nil, v.AzureDisk != nil, v.CephFS != nil, v.Cinder != nil,
			v.DownwardAPI != nil, v.EmptyDir != nil, v.FC != nil, v.FlexVolume != nil, v.Flocker != nil, v.GCEPersistentDisk != nil,
			v.GitRepo != nil, v.HostPath != nil, v.Image != nil, v.ISCSI != nil, v.NFS != nil, v.PhotonPersistentDisk != nil,
			v.PortworxVolume != nil, v.Quobyte != nil, v.RBD != nil, v.ScaleIO != nil, v.StorageOS != nil, v.VsphereVolume != nil:
			continue
		case v.ConfigMap != nil:
			return true, "configmaps (via configmap volumes)", nil
		case v.Secret != nil:
			return true, "secrets (via secret volumes)", nil
		case v.CSI != nil:
			return true, "csidrivers (via CSI volumes)", nil
		case v.Glusterfs != nil:
			return true, "endpoints (via glusterFS volumes)", nil
		case v.PersistentVolumeClaim != nil:
			return true, "persistentvolumeclaims", nil
		case v.Ephemeral != nil:
			return true, "persistentvolumeclaims (via ephemeral volumes)", nil
		case v.AzureFile != nil:
			return true, "secrets (via azureFile volumes)", nil
		case v.Projected != nil:
			for _, s := range v.Projected.Sources {
				switch {
				case s.ConfigMap != nil:
					return true, "configmaps (via projected volumes)", nil
				case s.Secret != nil:
					return true, "secrets (via projected volumes)", nil
				case s.ServiceAccountToken != nil:
					return true, "serviceaccounts (via projected volumes)", nil
				case s.ClusterTrustBundle != nil:
					return true, "clustertrustbundles", nil
				case s.PodCertificate != nil:
					return true, "podcertificates", nil
				case s.DownwardAPI != nil:
					continue
				default:
					return true, "", fmt.Errorf("unknown source for projected volume %q", v.Name)
				}
			}
		default:
			return true, "", fmt.Errorf("unknown volume type for volume  %q", v.Name)
		}
	}
	return false, "", nil
}

// nrPodContainers are all of spec's init, regular and ephemeral containers.
func nrPodContainers(spec *corev1.PodSpec) []*corev1.Container {
	var cs []*corev1.Container
	optinVisitContainers(spec, func(c *corev1.Container, _ *field.Path) bool {
		cs = append(cs, c)
		return true
	})
	return cs
}

// nrPodNamesAnySecret reports whether pod names a secret (non-empty) where
// upstream's podutil.VisitPodSecretNames looks.
func nrPodNamesAnySecret(pod *corev1.Pod) bool {
	named := func(s string) bool { return s != "" }
	for _, r := range pod.Spec.ImagePullSecrets {
		if named(r.Name) {
			return true
		}
	}
	for _, c := range nrPodContainers(&pod.Spec) {
		for _, e := range c.EnvFrom {
			if e.SecretRef != nil && named(e.SecretRef.Name) {
				return true
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil && named(e.ValueFrom.SecretKeyRef.Name) {
				return true
			}
		}
	}
	ref := func(r *corev1.LocalObjectReference) bool { return r != nil && named(r.Name) }
	for i := range pod.Spec.Volumes {
		s := &pod.Spec.Volumes[i].VolumeSource
		var found bool
		switch {
		case s.AzureFile != nil:
			found = named(s.AzureFile.SecretName)
		case s.CephFS != nil:
			found = ref(s.CephFS.SecretRef)
		case s.Cinder != nil:
			found = ref(s.Cinder.SecretRef)
		case s.FlexVolume != nil:
			found = ref(s.FlexVolume.SecretRef)
		case s.Projected != nil:
			for _, p := range s.Projected.Sources {
				if p.Secret != nil && named(p.Secret.Name) {
					found = true
				}
			}
		case s.RBD != nil:
			found = ref(s.RBD.SecretRef)
		case s.Secret != nil:
			found = named(s.Secret.SecretName)
		case s.ScaleIO != nil:
			found = ref(s.ScaleIO.SecretRef)
		case s.ISCSI != nil:
			found = ref(s.ISCSI.SecretRef)
		case s.StorageOS != nil:
			found = ref(s.StorageOS.SecretRef)
		case s.CSI != nil:
			found = ref(s.CSI.NodePublishSecretRef)
		}
		if found {
			return true
		}
	}
	return false
}

// nrPodNamesAnyConfigMap reports whether pod names a config map (non-empty)
// where upstream's podutil.VisitPodConfigmapNames looks.
func nrPodNamesAnyConfigMap(pod *corev1.Pod) bool {
	for _, c := range nrPodContainers(&pod.Spec) {
		for _, e := range c.EnvFrom {
			if e.ConfigMapRef != nil && e.ConfigMapRef.Name != "" {
				return true
			}
		}
		for _, e := range c.Env {
			if e.ValueFrom != nil && e.ValueFrom.ConfigMapKeyRef != nil && e.ValueFrom.ConfigMapKeyRef.Name != "" {
				return true
			}
		}
	}
	for _, v := range pod.Spec.Volumes {
		switch {
		case v.Projected != nil:
			for _, p := range v.Projected.Sources {
				if p.ConfigMap != nil && p.ConfigMap.Name != "" {
					return true
				}
			}
		case v.ConfigMap != nil:
			if v.ConfigMap.Name != "" {
				return true
			}
		}
	}
	return false
}

func (nr nodeRestriction) podStatus() error {
	if nr.a.GetOperation() != k8sadmission.Update {
		return nr.forbid("unexpected operation %q", nr.a.GetOperation())
	}
	oldPod, ok := nr.a.GetOldObject().(*corev1.Pod)
	if !ok {
		return nr.unexpectedType(nr.a.GetOldObject())
	}
	if oldPod.Spec.NodeName != nr.node {
		return nr.forbid("node %q can only update pod status for pods with spec.nodeName set to itself", nr.node)
	}
	newPod, ok := nr.a.GetObject().(*corev1.Pod)
	if !ok {
		return nr.unexpectedType(nr.a.GetObject())
	}
	if !labels.Equals(oldPod.Labels, newPod.Labels) {
		return nr.forbid("node %q cannot update labels through pod status", nr.node)
	}
	if !nrClaimStatusesEqual(oldPod.Status.ResourceClaimStatuses, newPod.Status.ResourceClaimStatuses) {
		return nr.forbid("node %q cannot update resource claim statues", nr.node)
	}
	if !nrExtendedClaimStatusEqual(oldPod.Status.ExtendedResourceClaimStatus, newPod.Status.ExtendedResourceClaimStatus) {
		return nr.forbid("node %q cannot update extended resource claim status", nr.node)
	}
	if !slices.EqualFunc(oldPod.Status.NodeAllocatableResourceClaimStatuses, newPod.Status.NodeAllocatableResourceClaimStatuses, nrNodeAllocatableClaimStatusEqual) {
		return nr.forbid("node %q cannot update node allocatable resource claim statuses", nr.node)
	}
	return nil
}

func nrClaimStatusesEqual(x, y []corev1.PodResourceClaimStatus) bool {
	return slices.EqualFunc(x, y, func(a, b corev1.PodResourceClaimStatus) bool {
		if a.Name != b.Name || (a.ResourceClaimName == nil) != (b.ResourceClaimName == nil) {
			return false
		}
		return a.ResourceClaimName == nil || *a.ResourceClaimName == *b.ResourceClaimName
	})
}

func nrExtendedClaimStatusEqual(x, y *corev1.PodExtendedResourceClaimStatus) bool {
	if x == nil || y == nil {
		return x == y
	}
	return x.ResourceClaimName == y.ResourceClaimName && slices.Equal(x.RequestMappings, y.RequestMappings)
}

func nrNodeAllocatableClaimStatusEqual(x, y corev1.NodeAllocatableResourceClaimStatus) bool {
	return x.ResourceClaimName == y.ResourceClaimName &&
		slices.Equal(x.Containers, y.Containers) &&
		slices.EqualFunc(x.Mapping, y.Mapping, func(a, b corev1.NodeAllocatableMappedResources) bool {
			return a.Name == b.Name && resource.QuantityPtrEqual(a.Quantity, b.Quantity)
		}) &&
		slices.EqualFunc(x.Overhead, y.Overhead, func(a, b corev1.NodeAllocatableOverheadResources) bool {
			return a.Name == b.Name && resource.QuantityPtrEqual(a.PerPod, b.PerPod) && resource.QuantityPtrEqual(a.PerContainer, b.PerContainer)
		})
}

func (nr nodeRestriction) podEviction() error {
	if nr.a.GetOperation() != k8sadmission.Create {
		return nr.forbid("unexpected operation %s", nr.a.GetOperation())
	}
	var evictionName string
	switch e := nr.a.GetObject().(type) {
	case *policyv1.Eviction:
		evictionName = e.Name
	case *policyv1beta1.Eviction:
		evictionName = e.Name
	default:
		return nr.unexpectedType(nr.a.GetObject())
	}
	// The request's pod name wins over the eviction's.
	podName := nr.a.GetName()
	if podName == "" {
		if evictionName == "" {
			return nr.forbid("could not determine pod from request data")
		}
		podName = evictionName
	}
	existing, err := nr.lookupPod(nr.a.GetNamespace(), podName)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return nr.forbidErr(err)
	}
	if existing.Spec.NodeName != nr.node {
		return nr.forbid("node %s can only evict pods with spec.nodeName set to itself", nr.node)
	}
	return nil
}

// --- persistentvolumeclaims/status ---

func (nr nodeRestriction) pvcStatus() error {
	if nr.a.GetOperation() != k8sadmission.Update {
		return nr.forbid("unexpected operation %q", nr.a.GetOperation())
	}
	oldPVC, ok := nr.a.GetOldObject().(*corev1.PersistentVolumeClaim)
	if !ok {
		return nr.unexpectedType(nr.a.GetOldObject())
	}
	newPVC, ok := nr.a.GetObject().(*corev1.PersistentVolumeClaim)
	if !ok {
		return nr.unexpectedType(nr.a.GetObject())
	}
	oldPVC, newPVC = nrPVCStatusComparable(oldPVC), nrPVCStatusComparable(newPVC)
	if !apiequality.Semantic.DeepEqual(oldPVC, newPVC) {
		return nr.forbid("node %q is not allowed to update fields other than status.quantity and status.conditions: %v", nr.node, diff.Diff(nrPVCInternalJSON(oldPVC), nrPVCInternalJSON(newPVC)))
	}
	return nil
}

// nrPVCStatusComparable is a copy of pvc without what a node may change
// (and without its resourceVersion, managedFields and type meta, which
// upstream's internal objects do not carry or it ignores).
func nrPVCStatusComparable(pvc *corev1.PersistentVolumeClaim) *corev1.PersistentVolumeClaim {
	pvc = pvc.DeepCopy()
	pvc.TypeMeta = metav1.TypeMeta{}
	pvc.ResourceVersion = ""
	pvc.ManagedFields = nil
	pvc.Status.Capacity = nil
	pvc.Status.Conditions = nil
	if nrRecoverVolumeExpansionFailure {
		pvc.Status.AllocatedResourceStatuses = nil
		pvc.Status.AllocatedResources = nil
	}
	return pvc
}

// The shapes of upstream's internal PersistentVolumeClaim, whose JSON
// (Go field names, no tags) upstream's error message diffs.
type (
	nrPVC struct {
		metav1.TypeMeta
		metav1.ObjectMeta
		Spec   nrPVCSpec
		Status nrPVCStatus
	}
	nrPVCSpec struct {
		AccessModes               []corev1.PersistentVolumeAccessMode
		Selector                  *metav1.LabelSelector
		Resources                 nrResources
		VolumeName                string
		StorageClassName          *string
		VolumeMode                *corev1.PersistentVolumeMode
		DataSource                *nrTypedLocalRef
		DataSourceRef             *nrTypedRef
		VolumeAttributesClassName *string
	}
	nrResources struct {
		Limits   corev1.ResourceList
		Requests corev1.ResourceList
	}
	nrTypedLocalRef struct {
		APIGroup *string
		Kind     string
		Name     string
	}
	nrTypedRef struct {
		APIGroup  *string
		Kind      string
		Name      string
		Namespace *string
	}
	nrPVCStatus struct {
		Phase                            corev1.PersistentVolumeClaimPhase
		AccessModes                      []corev1.PersistentVolumeAccessMode
		Capacity                         corev1.ResourceList
		Conditions                       []nrPVCCondition
		AllocatedResources               corev1.ResourceList
		AllocatedResourceStatuses        map[corev1.ResourceName]corev1.ClaimResourceStatus
		CurrentVolumeAttributesClassName *string
		ModifyVolumeStatus               *nrModifyVolumeStatus
		HealthStatus                     *nrVolumeHealthStatus
	}
	nrPVCCondition struct {
		Type               corev1.PersistentVolumeClaimConditionType
		Status             corev1.ConditionStatus
		LastProbeTime      metav1.Time
		LastTransitionTime metav1.Time
		Reason             string
		Message            string
	}
	nrModifyVolumeStatus struct {
		TargetVolumeAttributesClassName string
		Status                          corev1.PersistentVolumeClaimModifyVolumeStatus
	}
	nrVolumeHealthStatus struct {
		HealthConditions   []nrVolumeHealthCondition
		LastTransitionTime metav1.Time
	}
	nrVolumeHealthCondition struct {
		Status  corev1.VolumeHealthStatusType
		Reason  string
		Message string
	}
)

// nrPVCInternalJSON is pvc in the shape of upstream's internal type, so that
// diff.Diff prints what upstream's does.
func nrPVCInternalJSON(pvc *corev1.PersistentVolumeClaim) *nrPVC {
	out := &nrPVC{TypeMeta: pvc.TypeMeta, ObjectMeta: pvc.ObjectMeta}
	s := pvc.Spec
	out.Spec = nrPVCSpec{
		AccessModes:               s.AccessModes,
		Selector:                  s.Selector,
		Resources:                 nrResources{Limits: s.Resources.Limits, Requests: s.Resources.Requests},
		VolumeName:                s.VolumeName,
		StorageClassName:          s.StorageClassName,
		VolumeMode:                s.VolumeMode,
		VolumeAttributesClassName: s.VolumeAttributesClassName,
	}
	if r := s.DataSource; r != nil {
		out.Spec.DataSource = &nrTypedLocalRef{APIGroup: r.APIGroup, Kind: r.Kind, Name: r.Name}
	}
	if r := s.DataSourceRef; r != nil {
		out.Spec.DataSourceRef = &nrTypedRef{APIGroup: r.APIGroup, Kind: r.Kind, Name: r.Name, Namespace: r.Namespace}
	}
	st := pvc.Status
	out.Status = nrPVCStatus{
		Phase:                            st.Phase,
		AccessModes:                      st.AccessModes,
		Capacity:                         st.Capacity,
		AllocatedResources:               st.AllocatedResources,
		AllocatedResourceStatuses:        st.AllocatedResourceStatuses,
		CurrentVolumeAttributesClassName: st.CurrentVolumeAttributesClassName,
	}
	if st.Conditions != nil {
		out.Status.Conditions = make([]nrPVCCondition, len(st.Conditions))
		for i, c := range st.Conditions {
			out.Status.Conditions[i] = nrPVCCondition{Type: c.Type, Status: c.Status, LastProbeTime: c.LastProbeTime, LastTransitionTime: c.LastTransitionTime, Reason: c.Reason, Message: c.Message}
		}
	}
	if m := st.ModifyVolumeStatus; m != nil {
		out.Status.ModifyVolumeStatus = &nrModifyVolumeStatus{TargetVolumeAttributesClassName: m.TargetVolumeAttributesClassName, Status: m.Status}
	}
	if h := st.HealthStatus; h != nil {
		out.Status.HealthStatus = &nrVolumeHealthStatus{LastTransitionTime: h.LastTransitionTime}
		if h.HealthConditions != nil {
			out.Status.HealthStatus.HealthConditions = make([]nrVolumeHealthCondition, len(h.HealthConditions))
			for i, c := range h.HealthConditions {
				out.Status.HealthStatus.HealthConditions[i] = nrVolumeHealthCondition{Status: c.Status, Reason: c.Reason, Message: c.Message}
			}
		}
	}
	return out
}

// --- nodes ---

func (nr nodeRestriction) nodeWrite() error {
	if nr.a.GetName() != nr.node {
		return nr.forbid("node %q is not allowed to modify node %q", nr.node, nr.a.GetName())
	}
	switch nr.a.GetOperation() {
	case k8sadmission.Create:
		node, ok := nr.a.GetObject().(*corev1.Node)
		if !ok {
			return nr.unexpectedType(nr.a.GetObject())
		}
		if node.Spec.ConfigSource != nil {
			return nr.forbid("node %q is not allowed to create pods with a non-nil configSource", nr.node)
		}
		if forbidden := nrForbiddenLabels(node.Labels, nil); len(forbidden) > 0 {
			return nr.forbid("node %q is not allowed to set the following labels: %s", nr.node, strings.Join(forbidden, ", "))
		}
	case k8sadmission.Update:
		node, ok := nr.a.GetObject().(*corev1.Node)
		if !ok {
			return nr.unexpectedType(nr.a.GetObject())
		}
		oldNode, ok := nr.a.GetOldObject().(*corev1.Node)
		if !ok {
			// Upstream names the new object's type here.
			return nr.unexpectedType(nr.a.GetObject())
		}
		if node.Spec.ConfigSource != nil && !apiequality.Semantic.DeepEqual(node.Spec.ConfigSource, oldNode.Spec.ConfigSource) {
			return nr.forbid("node %q is not allowed to update configSource to a new non-nil configSource", nr.node)
		}
		if !apiequality.Semantic.DeepEqual(node.Spec.Taints, oldNode.Spec.Taints) {
			return nr.forbid("node %q is not allowed to modify taints", nr.node)
		}
		if !apiequality.Semantic.DeepEqual(node.OwnerReferences, oldNode.OwnerReferences) {
			return nr.forbid("node %q is not allowed to modify ownerReferences", nr.node)
		}
		if forbidden := nrForbiddenLabels(node.Labels, oldNode.Labels); len(forbidden) > 0 {
			return nr.forbid("is not allowed to modify labels: %s", strings.Join(forbidden, ", "))
		}
	}
	return nil
}

// nrKubeletLabels and nrKubeletLabelNamespaces are the labels a kubelet may
// set on its Node (k8s.io/kubelet/pkg/apis).
var (
	nrKubeletLabels = sets.New(
		corev1.LabelHostname,
		corev1.LabelTopologyZone,
		corev1.LabelTopologyRegion,
		corev1.LabelFailureDomainBetaZone,
		corev1.LabelFailureDomainBetaRegion,
		corev1.LabelInstanceType,
		corev1.LabelInstanceTypeStable,
		corev1.LabelOSStable,
		corev1.LabelArchStable,
		"beta.kubernetes.io/os",
		"beta.kubernetes.io/arch",
	)
	nrKubeletLabelNamespaces = []string{corev1.LabelNamespaceSuffixKubelet, corev1.LabelNamespaceSuffixNode}
)

// nrLabelNamespace is the prefix of a label key (before its "/"), or "".
func nrLabelNamespace(key string) string {
	if ns, _, ok := strings.Cut(key, "/"); ok {
		return ns
	}
	return ""
}

// nrInLabelNamespace reports whether ns is domain or a subdomain of it.
func nrInLabelNamespace(ns, domain string) bool {
	return ns == domain || strings.HasSuffix(ns, "."+domain)
}

func nrIsKubeletLabel(key string) bool {
	if nrKubeletLabels.Has(key) {
		return true
	}
	ns := nrLabelNamespace(key)
	for _, allowed := range nrKubeletLabelNamespaces {
		if nrInLabelNamespace(ns, allowed) {
			return true
		}
	}
	return false
}

// nrForbiddenLabels are the label keys, sorted, that differ between
// labels and old (set, changed or removed) that a node may not touch.
func nrForbiddenLabels(labels, old map[string]string) []string {
	modified := sets.New[string]()
	for k, v := range labels {
		if ov, ok := old[k]; !ok || ov != v {
			modified.Insert(k)
		}
	}
	for k := range old {
		if _, ok := labels[k]; !ok {
			modified.Insert(k)
		}
	}
	forbidden := sets.New[string]()
	for k := range modified {
		ns := nrLabelNamespace(k)
		if nrInLabelNamespace(ns, corev1.LabelNamespaceNodeRestriction) {
			forbidden.Insert(k)
		}
		kubernetes := nrInLabelNamespace(ns, "kubernetes.io") || nrInLabelNamespace(ns, "k8s.io")
		if kubernetes && !nrIsKubeletLabel(k) {
			forbidden.Insert(k)
		}
	}
	return sets.List(forbidden)
}

// --- serviceaccounts/token ---

func (nr nodeRestriction) serviceAccountToken(ctx context.Context) error {
	if nr.a.GetOperation() != k8sadmission.Create || nr.a.GetSubresource() != "token" {
		return nil
	}
	tr, ok := nr.a.GetObject().(*authenticationv1.TokenRequest)
	if !ok {
		return nr.unexpectedType(nr.a.GetObject())
	}
	ref := tr.Spec.BoundObjectRef
	if ref == nil || ref.APIVersion != "v1" || ref.Kind != "Pod" || ref.Name == "" {
		return nr.forbid("node requested token not bound to a pod")
	}
	if ref.UID == "" {
		return nr.forbid("node requested token with a pod binding without a uid")
	}
	pod, err := nr.lookupPod(nr.a.GetNamespace(), ref.Name)
	if apierrors.IsNotFound(err) {
		return err
	}
	if err != nil {
		return nr.forbidErr(err)
	}
	if ref.UID != pod.UID {
		return nr.forbid("the UID in the bound object reference (%s) does not match the UID in record. The object might have been deleted and then recreated", ref.UID)
	}
	if pod.Spec.NodeName != nr.node {
		return nr.forbid("node requested token bound to a pod scheduled on a different node")
	}
	if nrServiceAccountNodeAudienceRestriction {
		if err := nr.tokenAudience(ctx, tr, pod); err != nil {
			return nr.forbidErr(err)
		}
	}
	return nil
}

// nrAuthzAttributes is the authorization upstream asks for: verb on
// resource/name, in the request's group, version and namespace.
func (nr nodeRestriction) authzAttributes(verb, resource, name string) authorizer.AttributesRecord {
	return authorizer.AttributesRecord{
		User:            nr.a.GetUserInfo(),
		Verb:            verb,
		APIGroup:        nr.a.GetResource().Group,
		APIVersion:      nr.a.GetResource().Version,
		Resource:        resource,
		Namespace:       nr.a.GetNamespace(),
		Name:            name,
		ResourceRequest: true,
	}
}

func (nr nodeRestriction) tokenAudience(ctx context.Context, tr *authenticationv1.TokenRequest, pod *corev1.Pod) error {
	audience := ""
	switch len(tr.Spec.Audiences) {
	case 0:
	case 1:
		audience = tr.Spec.Audiences[0]
	default:
		return fmt.Errorf("node may only request 0 or 1 audiences")
	}
	found, err := nr.podUsesAudience(pod, audience)
	if err != nil {
		return fmt.Errorf("error validating audience %q: %w", audience, err)
	}
	if found {
		return nil
	}
	decision, err := nr.authorize(ctx, nr.authzAttributes("request-serviceaccounts-token-audience", audience, nr.a.GetName()))
	if decision == authorizer.DecisionAllow {
		return nil
	}
	if err != nil {
		return fmt.Errorf("error authorizing %s to request tokens for audience %q: %w", nr.a.GetUserInfo().GetName(), audience, err)
	}
	return fmt.Errorf("%s is not authorized to request tokens for audience %q", nr.a.GetUserInfo().GetName(), audience)
}

// podUsesAudience reports whether a volume of pod projects a token for
// audience, or is served by a CSI driver (directly, via a PVC, ephemeral
// or not, or by CSI migration of an in-tree volume) that requests tokens
// for it. The errors met on the way are returned only when none does.
func (nr nodeRestriction) podUsesAudience(pod *corev1.Pod, audience string) (bool, error) {
	var errs []error
	for i := range pod.Spec.Volumes {
		v := &pod.Spec.Volumes[i]
		if v.Projected != nil {
			for _, src := range v.Projected.Sources {
				if src.ServiceAccountToken != nil && src.ServiceAccountToken.Audience == audience {
					return true, nil
				}
			}
		}
		var driver string
		var err error
		switch {
		case v.Ephemeral != nil && v.Ephemeral.VolumeClaimTemplate != nil:
			driver, err = nr.csiDriverOfPVC(pod.Namespace, ephemeral.VolumeClaimName(pod, v))
		case v.PersistentVolumeClaim != nil:
			driver, err = nr.csiDriverOfPVC(pod.Namespace, v.PersistentVolumeClaim.ClaimName)
		case v.CSI != nil:
			driver = v.CSI.Driver
		default:
			driver, err = nrMigratedInlineCSIDriver(v)
		}
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if driver == "" {
			continue
		}
		has, err := nr.csiDriverRequestsAudience(driver, audience)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if has {
			return true, nil
		}
	}
	return false, utilerrors.NewAggregate(errs)
}

func (nr nodeRestriction) csiDriverOfPVC(namespace, claim string) (string, error) {
	pvc, err := nr.lookupPVC(namespace, claim)
	if err != nil {
		return "", err
	}
	pv, err := nr.lookupPV(pvc.Spec.VolumeName)
	if err != nil {
		return "", err
	}
	if pv.Spec.CSI != nil {
		return pv.Spec.CSI.Driver, nil
	}
	return nrMigratedPVCSIDriver(pv)
}

func (nr nodeRestriction) csiDriverRequestsAudience(driver, audience string) (bool, error) {
	d, err := nr.lookupCSIDriver(driver)
	if err != nil {
		return false, err
	}
	for _, tr := range d.Spec.TokenRequests {
		if tr.Audience == audience {
			return true, nil
		}
	}
	return false, nil
}

// The CSI drivers in-tree volumes migrate to (k8s.io/csi-translation-lib).
const (
	nrCSIAWSEBS    = "ebs.csi.aws.com"
	nrCSIAzureDisk = "disk.csi.azure.com"
	nrCSIAzureFile = "file.csi.azure.com"
	nrCSIGCEPD     = "pd.csi.storage.gke.io"
	nrCSICinder    = "cinder.csi.openstack.org"
	nrCSIPortworx  = "pxd.portworx.com"
	nrCSIVSphere   = "csi.vsphere.vmware.com"
)

func nrAzureDiskKindError(kind *corev1.AzureDataDiskKind) error {
	if kind != nil && !strings.EqualFold(string(*kind), string(corev1.AzureManagedDisk)) {
		return fmt.Errorf("kind(%v) is not supported in csi migration", *kind)
	}
	return nil
}

// nrMigratedInlineCSIDriver is the CSI driver an in-tree inline volume
// migrates to ("" for none), as csi-translation-lib translates it.
func nrMigratedInlineCSIDriver(v *corev1.Volume) (string, error) {
	switch {
	case v.GCEPersistentDisk != nil:
		return nrCSIGCEPD, nil
	case v.AWSElasticBlockStore != nil:
		return nrCSIAWSEBS, nil
	case v.Cinder != nil:
		return nrCSICinder, nil
	case v.AzureDisk != nil:
		if err := nrAzureDiskKindError(v.AzureDisk.Kind); err != nil {
			return "", err
		}
		return nrCSIAzureDisk, nil
	case v.AzureFile != nil:
		return nrCSIAzureFile, nil
	case v.VsphereVolume != nil:
		return nrCSIVSphere, nil
	case v.PortworxVolume != nil:
		return nrCSIPortworx, nil
	}
	return "", nil
}

// nrMigratedPVCSIDriver is the CSI driver an in-tree persistent volume
// migrates to ("" for none), as csi-translation-lib translates it.
func nrMigratedPVCSIDriver(pv *corev1.PersistentVolume) (string, error) {
	s := pv.Spec.PersistentVolumeSource
	switch {
	case s.GCEPersistentDisk != nil:
		return nrCSIGCEPD, nil
	case s.AWSElasticBlockStore != nil:
		return nrCSIAWSEBS, nil
	case s.Cinder != nil:
		return nrCSICinder, nil
	case s.AzureDisk != nil:
		if err := nrAzureDiskKindError(s.AzureDisk.Kind); err != nil {
			return "", err
		}
		return nrCSIAzureDisk, nil
	case s.AzureFile != nil:
		if (s.AzureFile.SecretNamespace == nil || *s.AzureFile.SecretNamespace == "") && (pv.Spec.ClaimRef == nil || pv.Spec.ClaimRef.Namespace == "") {
			return "", fmt.Errorf("could not find a secret namespace in PersistentVolumeSource or ClaimRef")
		}
		return nrCSIAzureFile, nil
	case s.VsphereVolume != nil:
		return nrCSIVSphere, nil
	case s.PortworxVolume != nil:
		return nrCSIPortworx, nil
	}
	return "", nil
}

// --- podcertificaterequests ---

func (nr nodeRestriction) podCertificateRequest(ctx context.Context) error {
	if !nrPodCertificateRequest {
		return nr.forbid("PodCertificateRequest feature gate is disabled")
	}
	if nr.a.GetOperation() != k8sadmission.Create {
		return nr.forbid("unexpected operation %v", nr.a.GetOperation())
	}
	if nr.a.GetSubresource() != "" {
		return nr.forbid("unexpected subresource %v", nr.a.GetSubresource())
	}
	ns := nr.a.GetNamespace()
	req, ok := nr.a.GetObject().(*certificatesv1.PodCertificateRequest)
	if !ok {
		return nr.unexpectedType(nr.a.GetObject())
	}
	spec := req.Spec
	podRef := ns + "/" + spec.PodName
	if string(spec.NodeName) != nr.node {
		return nr.forbid("PodCertificateRequest.Spec.NodeName=%q, which is not the requesting node %q", spec.NodeName, nr.node)
	}
	node, err := nr.lookupNode(string(spec.NodeName))
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("while retrieving node %q named in the PodCertificateRequest: %w", spec.NodeName, err)
	}
	if err != nil {
		return nr.forbid("while retrieving node %q named in the PodCertificateRequest: %w", spec.NodeName, err)
	}
	if node.UID != spec.NodeUID {
		return fmt.Errorf("PodCertificateRequest for pod %q names node UID %q, inconsistent with the running node (%q)", podRef, spec.NodeUID, node.UID)
	}
	pod, err := nr.lookupPod(ns, spec.PodName)
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("while retrieving pod %q named in the PodCertificateRequest: %w", podRef, err)
	}
	if err != nil {
		return nr.forbid("while retrieving pod %q named in the PodCertificateRequest: %w", podRef, err)
	}
	if spec.PodUID != pod.UID {
		return fmt.Errorf("PodCertificateRequest for pod %q contains pod UID (%q) which differs from running pod %q", podRef, spec.PodUID, string(pod.UID))
	}
	if pod.Spec.NodeName != string(spec.NodeName) {
		return nr.forbid("pod %q is not running on node %q named in the PodCertificateRequest", podRef, spec.NodeName)
	}
	if _, mirror := pod.Annotations[corev1.MirrorPodAnnotationKey]; mirror {
		return nr.forbid("pod %q is a mirror pod", podRef)
	}
	if spec.ServiceAccountName != pod.Spec.ServiceAccountName {
		return nr.forbid("PodCertificateRequest for pod %q contains serviceAccountName (%q) that differs from running pod (%q)", podRef, spec.ServiceAccountName, pod.Spec.ServiceAccountName)
	}
	saRef := ns + "/" + spec.ServiceAccountName
	sa, err := nr.lookupServiceAccount(ns, spec.ServiceAccountName)
	if apierrors.IsNotFound(err) {
		return fmt.Errorf("while retrieving service account %q named in the PodCertificateRequest: %w", saRef, err)
	}
	if err != nil {
		return nr.forbid("while retrieving service account %q named in the PodCertificateRequest: %w", saRef, err)
	}
	if spec.ServiceAccountUID != sa.UID {
		return fmt.Errorf("PodCertificateRequest for pod %q names service account UID %q, which differs from the running service account (%q)", podRef, spec.ServiceAccountUID, sa.UID)
	}
	if err := nr.podCertificateSigner(ctx, pod, req); err != nil {
		return nr.forbidErr(err)
	}
	return nil
}

// podCertificateSigner allows a signer the pod mounts a podCertificate
// projection for, or one the node is authorized for.
func (nr nodeRestriction) podCertificateSigner(ctx context.Context, pod *corev1.Pod, req *certificatesv1.PodCertificateRequest) error {
	signer := req.Spec.SignerName
	for _, v := range pod.Spec.Volumes {
		if v.Projected == nil {
			continue
		}
		for _, s := range v.Projected.Sources {
			if s.PodCertificate != nil && s.PodCertificate.SignerName == signer {
				return nil
			}
		}
	}
	// RBAC names cannot hold slashes: the signer is munged as for
	// ClusterTrustBundle names.
	attrs := nr.authzAttributes("request-serviceaccounts-podcertificate-signer", strings.ReplaceAll(signer, "/", ":"), req.Spec.ServiceAccountName)
	decision, err := nr.authorize(ctx, attrs)
	if decision == authorizer.DecisionAllow {
		return nil
	}
	if err != nil {
		return fmt.Errorf("error authorizing %s to request podcertificaterequests for signer %q: %w", nr.a.GetUserInfo().GetName(), signer, err)
	}
	return fmt.Errorf("pod %q does not mount a podCertificate projected volume for signer %q", nr.a.GetNamespace()+"/"+req.Spec.PodName, signer)
}

// --- leases, csinodes, resourceslices, certificatesigningrequests ---

func (nr nodeRestriction) lease() error {
	if nr.a.GetNamespace() != corev1.NamespaceNodeLease {
		return nr.forbid("can only access leases in the %q system namespace", corev1.NamespaceNodeLease)
	}
	name := nr.a.GetName()
	if nr.a.GetOperation() == k8sadmission.Create {
		// A create's name is the object's.
		lease, ok := nr.a.GetObject().(*coordinationv1.Lease)
		if !ok {
			return nr.unexpectedType(nr.a.GetObject())
		}
		name = lease.Name
	}
	if name != nr.node {
		return nr.forbid("can only access node lease with the same name as the requesting node")
	}
	return nil
}

func (nr nodeRestriction) csiNode() error {
	name := nr.a.GetName()
	if nr.a.GetOperation() == k8sadmission.Create {
		accessor, err := meta.Accessor(nr.a.GetObject())
		if err != nil {
			return nr.forbid("unable to access the object name")
		}
		name = accessor.GetName()
	}
	if name != nr.node {
		return nr.forbid("can only access CSINode with the same name as the requesting node")
	}
	if nr.a.GetSubresource() != "status" {
		return nil
	}
	if !nrCSIVolumeHealth {
		return nr.forbid("CSIVolumeHealth feature gate is disabled")
	}
	if nr.a.GetOperation() != k8sadmission.Update {
		return nr.forbid("unexpected operation %q", nr.a.GetOperation())
	}
	oldCSINode, ok := nr.a.GetOldObject().(*storagev1.CSINode)
	if !ok {
		return nr.unexpectedType(nr.a.GetOldObject())
	}
	newCSINode, ok := nr.a.GetObject().(*storagev1.CSINode)
	if !ok {
		return nr.unexpectedType(nr.a.GetObject())
	}
	if !apiequality.Semantic.DeepEqual(oldCSINode.Spec, newCSINode.Spec) {
		return nr.forbid("node %q is not allowed to modify CSINode spec via status", nr.node)
	}
	return nil
}

func (nr nodeRestriction) resourceSlice() error {
	var obj interface{}
	var verb string
	switch nr.a.GetOperation() {
	case k8sadmission.Create:
		obj, verb = nr.a.GetObject(), "create"
	case k8sadmission.Delete:
		obj, verb = nr.a.GetOldObject(), "delete"
	default:
		// Updates are the node authorizer's to check.
		return nil
	}
	slice, ok := obj.(*resourcev1.ResourceSlice)
	if !ok {
		return nr.unexpectedType(obj)
	}
	if slice.Spec.NodeName == nil || *slice.Spec.NodeName != nr.node {
		return nr.forbidErr(errors.New("can only " + verb + " ResourceSlice with the same NodeName as the requesting node"))
	}
	return nil
}

func (nr nodeRestriction) csr() error {
	if nr.a.GetOperation() != k8sadmission.Create {
		return nil
	}
	csr, ok := nr.a.GetObject().(*certificatesv1.CertificateSigningRequest)
	if !ok {
		return nr.unexpectedType(nr.a.GetObject())
	}
	if csr.Spec.SignerName != certificatesv1.KubeletServingSignerName && csr.Spec.SignerName != certificatesv1.KubeAPIServerClientKubeletSignerName {
		return nil
	}
	req, err := parseCertificateRequest(csr.Spec.Request)
	if err != nil {
		return nr.forbidErr(fmt.Errorf("unable to parse csr: %w", err))
	}
	if req.Subject.CommonName != nrNodeUserNamePrefix+nr.node {
		return nr.forbid("can only create a node CSR with CN=system:node:%s", nr.node)
	}
	return nil
}
