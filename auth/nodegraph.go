package auth

import (
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"sync"

	certificatesv1 "k8s.io/api/certificates/v1"
	corev1 "k8s.io/api/core/v1"
	resourcev1 "k8s.io/api/resource/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/component-helpers/storage/ephemeral"
	"k8s.io/dynamic-resource-allocation/resourceclaim"

	"github.com/fakeplane/fakeplane/internal/objectrefs"
	"github.com/fakeplane/fakeplane/store"
)

// The store buckets the Node authorizer's graph follows.
const (
	bucketPods                   = "/pods"
	bucketPersistentVolumes      = "/persistentvolumes"
	bucketVolumeAttachments      = "storage.k8s.io/volumeattachments"
	bucketResourceSlices         = "resource.k8s.io/resourceslices"
	bucketPodCertificateRequests = "certificates.k8s.io/podcertificaterequests"
)

// nodeGraphBuckets are the buckets NodeGraph follows, in the order Load
// reads them.
var nodeGraphBuckets = []string{bucketPods, bucketPersistentVolumes, bucketVolumeAttachments, bucketResourceSlices, bucketPodCertificateRequests}

// The kinds of objects the Node authorizer relates to a node, as its graph
// names its vertex types (in its messages).
const (
	nodeKindPod                   = "pod"
	nodeKindSecret                = "secret"
	nodeKindConfigMap             = "configmap"
	nodeKindServiceAccount        = "serviceAccount"
	nodeKindPVC                   = "pvc"
	nodeKindPV                    = "pv"
	nodeKindResourceClaim         = "resourceclaim"
	nodeKindVolumeAttachment      = "volumeattachment"
	nodeKindResourceSlice         = "resourceslice"
	nodeKindPodCertificateRequest = "podcertificaterequest"
)

// nodePod is what the graph keeps of a pod bound to a node: the node and,
// unless it is a mirror pod, the objects of its namespace it refers to.
type nodePod struct {
	node string
	// refs are the kind/name of the objects it refers to.
	refs map[string]bool
}

// nodePV is what the graph keeps of a PersistentVolume with a claim: the
// claim and the secrets a kubelet mounting it reads.
type nodePV struct {
	claim   types.NamespacedName
	secrets []types.NamespacedName
}

// NodeGraph holds what kube-apiserver's Node authorizer relates to each
// node: the pods bound to it and what they refer to (Secrets, ConfigMaps,
// their ServiceAccount, PersistentVolumeClaims, ephemeral volumes'
// claims, ResourceClaims), the PersistentVolumes of those claims and the
// secrets those volumes use, and the VolumeAttachments, ResourceSlices and
// PodCertificateRequests naming it. Load fills it from the store; Observe,
// called as each write commits (in revision order), keeps it in step, so a
// kubelet's request that follows its pod's binding is authorized. It is
// safe for concurrent use.
type NodeGraph struct {
	mu sync.RWMutex
	// pods by ns/name, and the ns/name of each node's pods.
	pods   map[string]*nodePod
	onNode map[string]map[string]bool
	// pvs by name.
	pvs map[string]*nodePV
	// nodeOf is the node of each VolumeAttachment, ResourceSlice and
	// PodCertificateRequest, by kind/ns/name.
	nodeOf map[string]string
}

// NewNodeGraph returns an empty graph.
func NewNodeGraph() *NodeGraph {
	return &NodeGraph{pods: map[string]*nodePod{}, onNode: map[string]map[string]bool{}, pvs: map[string]*nodePV{}, nodeOf: map[string]string{}}
}

// Load adds the objects stored in st to the graph. Call it before the first
// write that Observe is told of.
func (g *NodeGraph) Load(st store.Interface) error {
	for _, b := range nodeGraphBuckets {
		lst, err := st.List(b, store.ListOptions{})
		if err != nil {
			return fmt.Errorf("list %s: %w", b, err)
		}
		for _, it := range lst.Items {
			g.Observe(b, it.Key, nil, it.Value, false)
		}
	}
	return nil
}

// Observe records a committed write to key in bucket, as RBACCache.Observe
// does; writes to buckets the graph does not follow are ignored.
func (g *NodeGraph) Observe(bucket, key string, obj runtime.Object, data []byte, deleted bool) {
	if !slices.Contains(nodeGraphBuckets, bucket) {
		return
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	switch bucket {
	case bucketPods:
		g.deletePod(key)
		if p, ok := decodeFor[corev1.Pod](obj, data, deleted); ok && p.Spec.NodeName != "" {
			g.addPod(key, p)
		}
	case bucketPersistentVolumes:
		delete(g.pvs, key)
		if pv, ok := decodeFor[corev1.PersistentVolume](obj, data, deleted); ok && pv.Spec.ClaimRef != nil {
			g.pvs[key] = &nodePV{claim: types.NamespacedName{Namespace: pv.Spec.ClaimRef.Namespace, Name: pv.Spec.ClaimRef.Name}, secrets: objectrefs.VolumeKubeletSecrets(pv)}
		}
	case bucketVolumeAttachments:
		g.setNode(nodeKindVolumeAttachment+"/"+key, func() (string, bool) {
			va, ok := decodeFor[storagev1.VolumeAttachment](obj, data, deleted)
			if !ok {
				return "", false
			}
			return va.Spec.NodeName, true
		})
	case bucketResourceSlices:
		g.setNode(nodeKindResourceSlice+"/"+key, func() (string, bool) {
			s, ok := decodeFor[resourcev1.ResourceSlice](obj, data, deleted)
			if !ok || s.Spec.NodeName == nil {
				return "", false
			}
			return *s.Spec.NodeName, true
		})
	case bucketPodCertificateRequests:
		g.setNode(nodeKindPodCertificateRequest+"/"+key, func() (string, bool) {
			r, ok := decodeFor[certificatesv1.PodCertificateRequest](obj, data, deleted)
			if !ok {
				return "", false
			}
			return string(r.Spec.NodeName), true
		})
	}
}

// decodeFor is the committed object as a T: obj when the write path had
// it, else decoded from data; false when it was deleted or does not
// decode.
func decodeFor[T any](obj runtime.Object, data []byte, deleted bool) (*T, bool) {
	if deleted {
		return nil, false
	}
	if o, ok := any(obj).(*T); ok && o != nil {
		return o, true
	}
	o := new(T)
	if err := json.Unmarshal(data, o); err != nil {
		return nil, false
	}
	return o, true
}

// setNode records (or, when nodeOf says none, forgets) the node of the
// object at key.
func (g *NodeGraph) setNode(key string, nodeOf func() (string, bool)) {
	if node, ok := nodeOf(); ok && node != "" {
		g.nodeOf[key] = node
		return
	}
	delete(g.nodeOf, key)
}

// addPod records the pod at key, bound to p.Spec.NodeName, with what it
// refers to (nothing for a mirror pod, as upstream's graph). g.mu is held.
func (g *NodeGraph) addPod(key string, p *corev1.Pod) {
	np := &nodePod{node: p.Spec.NodeName, refs: map[string]bool{}}
	if _, mirror := p.Annotations[corev1.MirrorPodAnnotationKey]; !mirror {
		if sa := p.Spec.ServiceAccountName; sa != "" {
			np.refs[nodeKindServiceAccount+"/"+sa] = true
		}
		for _, s := range objectrefs.PodSecretNames(&p.Spec) {
			np.refs[nodeKindSecret+"/"+s] = true
		}
		for _, c := range objectrefs.PodConfigMapNames(&p.Spec) {
			np.refs[nodeKindConfigMap+"/"+c] = true
		}
		for i := range p.Spec.Volumes {
			v := &p.Spec.Volumes[i]
			switch {
			case v.PersistentVolumeClaim != nil:
				np.refs[nodeKindPVC+"/"+v.PersistentVolumeClaim.ClaimName] = true
			case v.Ephemeral != nil:
				np.refs[nodeKindPVC+"/"+ephemeral.VolumeClaimName(p, v)] = true
			}
		}
		for name := range resourceclaim.PodClaims(p) {
			np.refs[nodeKindResourceClaim+"/"+name] = true
		}
	}
	g.pods[key] = np
	if g.onNode[np.node] == nil {
		g.onNode[np.node] = map[string]bool{}
	}
	g.onNode[np.node][key] = true
}

// deletePod forgets the pod at key. g.mu is held.
func (g *NodeGraph) deletePod(key string) {
	np := g.pods[key]
	if np == nil {
		return
	}
	delete(g.pods, key)
	delete(g.onNode[np.node], key)
	if len(g.onNode[np.node]) == 0 {
		delete(g.onNode, np.node)
	}
}

// related reports whether the object of kind (one of the nodeKind
// constants) at namespace/name is related to node, as upstream's
// hasPathFrom finds a path from it to the node in its graph.
func (g *NodeGraph) related(node, kind, namespace, name string) bool {
	g.mu.RLock()
	defer g.mu.RUnlock()
	switch kind {
	case nodeKindPod:
		np := g.pods[namespace+"/"+name]
		return np != nil && np.node == node
	case nodeKindPV:
		pv := g.pvs[name]
		return pv != nil && g.refersFromNode(node, pv.claim.Namespace, nodeKindPVC+"/"+pv.claim.Name)
	case nodeKindVolumeAttachment, nodeKindResourceSlice:
		return g.nodeOf[kind+"/"+name] == node
	case nodeKindPodCertificateRequest:
		return g.nodeOf[kind+"/"+namespace+"/"+name] == node
	case nodeKindSecret:
		if g.refersFromNode(node, namespace, kind+"/"+name) {
			return true
		}
		// A secret of a volume bound to a claim a pod of the node uses.
		secret := types.NamespacedName{Namespace: namespace, Name: name}
		for _, pv := range g.pvs {
			if slices.Contains(pv.secrets, secret) && g.refersFromNode(node, pv.claim.Namespace, nodeKindPVC+"/"+pv.claim.Name) {
				return true
			}
		}
		return false
	}
	return g.refersFromNode(node, namespace, kind+"/"+name)
}

// refersFromNode reports whether a pod of node in namespace refers to ref
// (kind/name). g.mu is held.
func (g *NodeGraph) refersFromNode(node, namespace, ref string) bool {
	for key := range g.onNode[node] {
		if ns, _, _ := strings.Cut(key, "/"); ns == namespace && g.pods[key].refs[ref] {
			return true
		}
	}
	return false
}
