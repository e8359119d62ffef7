package auth

import (
	"context"
	"errors"
	"fmt"
	"strings"

	rbacv1 "k8s.io/api/rbac/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/selection"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// nodeUserPrefix is the prefix of a node's user name (system:node:NAME).
const nodeUserPrefix = "system:node:"

// NodeIdentity is the node a user is, as kube-apiserver's default node
// identifier tells: a user named system:node:NAME in the group
// system:nodes is node NAME (isNode with an empty name when NAME is empty);
// any other user is no node.
func NodeIdentity(u user.Info) (name string, isNode bool) {
	if u == nil || !strings.HasPrefix(u.GetName(), nodeUserPrefix) {
		return "", false
	}
	for _, g := range u.GetGroups() {
		if g == user.NodesGroup {
			return strings.TrimPrefix(u.GetName(), nodeUserPrefix), true
		}
	}
	return "", false
}

// NodeAuthorizer is kube-apiserver's Node authorizer (--authorization-mode
// Node): it authorizes kubelets, and only them, to what their node needs.
// A node reads the Secrets, ConfigMaps, claims, volumes and
// ServiceAccount tokens of the pods bound to it (graph), its own Node,
// Lease and CSINode, pods by spec.nodeName, and the ResourceSlices,
// VolumeAttachments and PodCertificateRequests of its node; anything else
// is granted only by rules, the bootstrap system:node ClusterRole's, as
// upstream's static node rules. It answers no opinion otherwise, with
// upstream's reason, for the next authorizer.
type NodeAuthorizer struct {
	graph *NodeGraph
	rules []rbacv1.PolicyRule
}

// NewNodeAuthorizer returns the Node authorizer over graph, granting
// rules to every node for the resources it does not partition.
func NewNodeAuthorizer(graph *NodeGraph, rules []rbacv1.PolicyRule) *NodeAuthorizer {
	return &NodeAuthorizer{graph: graph, rules: rules}
}

// The resources the Node authorizer partitions by node.
var (
	nodeSecrets         = schema.GroupResource{Resource: "secrets"}
	nodeConfigMaps      = schema.GroupResource{Resource: "configmaps"}
	nodePVCs            = schema.GroupResource{Resource: "persistentvolumeclaims"}
	nodePVs             = schema.GroupResource{Resource: "persistentvolumes"}
	nodeResourceClaims  = schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceclaims"}
	nodeVAs             = schema.GroupResource{Group: "storage.k8s.io", Resource: "volumeattachments"}
	nodeServiceAccounts = schema.GroupResource{Resource: "serviceaccounts"}
	nodeLeases          = schema.GroupResource{Group: "coordination.k8s.io", Resource: "leases"}
	nodeCSINodes        = schema.GroupResource{Group: "storage.k8s.io", Resource: "csinodes"}
	nodeResourceSlices  = schema.GroupResource{Group: "resource.k8s.io", Resource: "resourceslices"}
	nodeNodes           = schema.GroupResource{Resource: "nodes"}
	nodePods            = schema.GroupResource{Resource: "pods"}
	nodePCRs            = schema.GroupResource{Group: "certificates.k8s.io", Resource: "podcertificaterequests"}
)

// Authorize decides a request as upstream's Node authorizer does.
func (r *NodeAuthorizer) Authorize(_ context.Context, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	node, isNode := NodeIdentity(attrs.GetUser())
	if !isNode {
		return authorizer.DecisionNoOpinion, "", nil
	}
	if node == "" {
		return authorizer.DecisionNoOpinion, fmt.Sprintf("unknown node for user %q", attrs.GetUser().GetName()), nil
	}
	if attrs.IsResourceRequest() {
		switch (schema.GroupResource{Group: attrs.GetAPIGroup(), Resource: attrs.GetResource()}) {
		case nodeSecrets:
			return r.readNamespaced(node, nodeKindSecret, attrs)
		case nodeConfigMaps:
			return r.readNamespaced(node, nodeKindConfigMap, attrs)
		case nodePVCs:
			if attrs.GetSubresource() == "status" {
				return r.statusUpdate(node, nodeKindPVC, attrs)
			}
			return r.get(node, nodeKindPVC, attrs)
		case nodePVs:
			return r.get(node, nodeKindPV, attrs)
		case nodeResourceClaims:
			return r.get(node, nodeKindResourceClaim, attrs)
		case nodeVAs:
			return r.get(node, nodeKindVolumeAttachment, attrs)
		case nodeServiceAccounts:
			// KubeletServiceAccountTokenForCredentialProviders and
			// PodCertificateRequest are on in v1.37: a node may get
			// the ServiceAccounts of its pods.
			if attrs.GetVerb() == "get" && attrs.GetSubresource() == "" {
				return r.readNamespaced(node, nodeKindServiceAccount, attrs)
			}
			return r.createToken(node, attrs)
		case nodeLeases:
			return nodeLease(node, attrs)
		case nodeCSINodes:
			return nodeCSINode(node, attrs)
		case nodeResourceSlices:
			return r.resourceSlice(node, attrs)
		case nodeNodes:
			return nodeNode(node, attrs)
		case nodePods:
			return r.pod(node, attrs)
		case nodePCRs:
			return r.podCertificateRequest(node, attrs)
		}
	}
	for i := range r.rules {
		if RuleAllows(attrs, &r.rules[i]) {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// statusUpdate allows a node to update or patch the status of an object
// of its pods.
func (r *NodeAuthorizer) statusUpdate(node, kind string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	switch attrs.GetVerb() {
	case "update", "patch":
	default:
		return authorizer.DecisionNoOpinion, "can only get/update/patch this type", nil
	}
	if attrs.GetSubresource() != "status" {
		return authorizer.DecisionNoOpinion, "can only update status subresource", nil
	}
	return r.related(node, kind, attrs)
}

// get allows a node to get an object related to it.
func (r *NodeAuthorizer) get(node, kind string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.GetVerb() != "get" {
		return authorizer.DecisionNoOpinion, "can only get individual resources of this type", nil
	}
	if attrs.GetSubresource() != "" {
		return authorizer.DecisionNoOpinion, "cannot get subresource", nil
	}
	return r.related(node, kind, attrs)
}

// readNamespaced allows a node to get, list or watch (by name) a
// namespaced object related to it.
func (r *NodeAuthorizer) readNamespaced(node, kind string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	switch attrs.GetVerb() {
	case "get", "list", "watch":
	default:
		return authorizer.DecisionNoOpinion, "can only read resources of this type", nil
	}
	if attrs.GetSubresource() != "" {
		return authorizer.DecisionNoOpinion, "cannot read subresource", nil
	}
	if attrs.GetNamespace() == "" {
		return authorizer.DecisionNoOpinion, "can only read namespaced object of this type", nil
	}
	return r.related(node, kind, attrs)
}

// related allows the request when its object is related to node.
func (r *NodeAuthorizer) related(node, kind string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.GetName() == "" {
		return authorizer.DecisionNoOpinion, "No Object name found", nil
	}
	if !r.graph.related(node, kind, attrs.GetNamespace(), attrs.GetName()) {
		return authorizer.DecisionNoOpinion, noRelationship(node), nil
	}
	return authorizer.DecisionAllow, "", nil
}

// noRelationship is the reason a node is refused an object of another.
func noRelationship(node string) string {
	return fmt.Sprintf("no relationship found between node '%s' and this object", node)
}

// createToken allows a node to create a token for the ServiceAccount of
// one of its pods.
func (r *NodeAuthorizer) createToken(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.GetVerb() != "create" || attrs.GetName() == "" {
		return authorizer.DecisionNoOpinion, "can only create tokens for individual service accounts", nil
	}
	if attrs.GetSubresource() != "token" {
		return authorizer.DecisionNoOpinion, "can only create token subresource of serviceaccount", nil
	}
	if !r.graph.related(node, nodeKindServiceAccount, attrs.GetNamespace(), attrs.GetName()) {
		return authorizer.DecisionNoOpinion, noRelationship(node), nil
	}
	return authorizer.DecisionAllow, "", nil
}

// nodeLease allows a node its own Lease in kube-node-lease.
func nodeLease(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	switch attrs.GetVerb() {
	case "get", "create", "update", "patch", "delete":
	default:
		return authorizer.DecisionNoOpinion, "can only get, create, update, patch, or delete a node lease", nil
	}
	if attrs.GetNamespace() != "kube-node-lease" {
		return authorizer.DecisionNoOpinion, `can only access leases in the "kube-node-lease" system namespace`, nil
	}
	if attrs.GetVerb() != "create" && attrs.GetName() != node {
		return authorizer.DecisionNoOpinion, "can only access node lease with the same name as the requesting node", nil
	}
	return authorizer.DecisionAllow, "", nil
}

// nodeCSINode allows a node its own CSINode (not its status: the
// CSIVolumeHealth feature is off in v1.37).
func nodeCSINode(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	switch attrs.GetSubresource() {
	case "":
		switch attrs.GetVerb() {
		case "get", "create", "update", "patch", "delete":
		default:
			return authorizer.DecisionNoOpinion, "can only get, create, update, patch, or delete a CSINode", nil
		}
	case "status":
		return authorizer.DecisionNoOpinion, "CSINode status access requires CSIVolumeHealth feature", nil
	default:
		return authorizer.DecisionNoOpinion, "cannot authorize CSINode subresources", nil
	}
	if attrs.GetVerb() != "create" && attrs.GetName() != node {
		return authorizer.DecisionNoOpinion, "can only access CSINode with the same name as the requesting node", nil
	}
	return authorizer.DecisionAllow, "", nil
}

// resourceSlice allows a node to create ResourceSlices, to change those of
// its node, and to list them by spec.nodeName.
func (r *NodeAuthorizer) resourceSlice(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.GetSubresource() != "" {
		return authorizer.DecisionNoOpinion, "cannot authorize ResourceSlice subresources", nil
	}
	switch attrs.GetVerb() {
	case "create":
		return authorizer.DecisionAllow, "", nil
	case "get", "update", "patch", "delete":
		return r.related(node, nodeKindResourceSlice, attrs)
	case "watch", "list", "deletecollection":
		if selectsNode(attrs, "spec.nodeName", node) {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "can only list/watch/deletecollection resourceslices with nodeName field selector", nil
	}
	return authorizer.DecisionNoOpinion, "only the following verbs are allowed for a ResourceSlice: get, watch, list, create, update, patch, delete, deletecollection", nil
}

// podCertificateRequest allows a node to create PodCertificateRequests,
// and to read those of its node.
func (r *NodeAuthorizer) podCertificateRequest(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	if attrs.GetSubresource() != "" {
		return authorizer.DecisionNoOpinion, "nodes may not access the status subresource of PodCertificateRequests", nil
	}
	switch attrs.GetVerb() {
	case "create":
		return authorizer.DecisionAllow, "", nil
	case "get":
		return r.related(node, nodeKindPodCertificateRequest, attrs)
	case "list", "watch":
		if selectsNode(attrs, "spec.nodeName", node) {
			return authorizer.DecisionAllow, "", nil
		}
		return authorizer.DecisionNoOpinion, "can only list/watch podcertificaterequests with nodeName field selector", nil
	}
	return authorizer.DecisionNoOpinion, fmt.Sprintf("nodes may not %s podcertificaterequests", attrs.GetVerb()), nil
}

// nodeNode allows a node to create and change Nodes, to read its own, and
// to update its status.
func nodeNode(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	switch attrs.GetSubresource() {
	case "":
		switch attrs.GetVerb() {
		case "create", "update", "patch":
			return authorizer.DecisionAllow, "", nil
		case "get", "list", "watch":
			switch attrs.GetName() {
			case node:
				return authorizer.DecisionAllow, "", nil
			case "":
				return authorizer.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read all nodes, only its own Node object", node), nil
			default:
				return authorizer.DecisionNoOpinion, fmt.Sprintf("node '%s' cannot read '%s', only its own Node object", node, attrs.GetName()), nil
			}
		}
	case "status":
		switch attrs.GetVerb() {
		case "update", "patch":
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// pod allows a node to read its pods (one by name, or all by
// spec.nodeName), to create and delete mirror pods, to update pods'
// status and to evict pods.
func (r *NodeAuthorizer) pod(node string, attrs authorizer.Attributes) (authorizer.Decision, string, error) {
	switch attrs.GetSubresource() {
	case "":
		switch attrs.GetVerb() {
		case "get":
			return r.get(node, nodeKindPod, attrs)
		case "list", "watch":
			if selectsNode(attrs, "spec.nodeName", node) {
				return authorizer.DecisionAllow, "", nil
			}
			if attrs.GetName() != "" {
				return r.related(node, nodeKindPod, attrs)
			}
			return authorizer.DecisionNoOpinion, "can only list/watch pods with spec.nodeName field selector", nil
		case "create", "delete":
			return authorizer.DecisionAllow, "", nil
		}
	case "status":
		switch attrs.GetVerb() {
		case "update", "patch":
			return authorizer.DecisionAllow, "", nil
		}
	case "eviction":
		if attrs.GetVerb() == "create" {
			return authorizer.DecisionAllow, "", nil
		}
	}
	return authorizer.DecisionNoOpinion, "", nil
}

// selectsNode reports whether the request's field selector has
// field=node.
func selectsNode(attrs authorizer.Attributes, field, node string) bool {
	reqs, _ := attrs.GetFieldSelector()
	for _, req := range reqs {
		if req.Field == field && req.Operator == selection.Equals && req.Value == node {
			return true
		}
	}
	return false
}

// errNodeRules is RulesFor's answer for a node.
var errNodeRules = errors.New("node authorizer does not support user rule resolution")

// RulesFor says a node's rules are not enumerated, as upstream's: their
// list is incomplete, with an error; for anyone else it has none.
func (r *NodeAuthorizer) RulesFor(_ context.Context, u user.Info, _ string) ([]authorizer.ResourceRuleInfo, []authorizer.NonResourceRuleInfo, bool, error) {
	if _, isNode := NodeIdentity(u); isNode {
		return nil, nil, true, errNodeRules
	}
	return nil, nil, false, nil
}

// ConditionsAwareAuthorize returns Authorize's decision; the Node
// authorizer has no conditions.
func (r *NodeAuthorizer) ConditionsAwareAuthorize(ctx context.Context, attrs authorizer.Attributes) authorizer.ConditionsAwareDecision {
	return authorizer.ConditionsAwareDecisionFromParts(r.Authorize(ctx, attrs))
}

// EvaluateConditions is not supported by the Node authorizer and fails
// closed.
func (r *NodeAuthorizer) EvaluateConditions(context.Context, authorizer.ConditionsAwareDecision, authorizer.ConditionsData) (authorizer.Decision, string, error) {
	return authorizer.DecisionDeny, "", authorizer.ErrorConditionEvaluationNotSupported
}
