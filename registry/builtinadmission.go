package registry

// The compiled-in admission plugins of kube-apiserver's default list that
// look at more than a new pod or claim (registry/admission.go has those):
// each is a builtinPlugin over upstream's admission.Attributes, run on
// every create, update and delete the API makes (subresources included),
// in kube-apiserver's plugin order, before the webhooks and policies.

import (
	"errors"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apiserver/pkg/admission"

	admissionplugins "github.com/fakeplane/fakeplane/admission"
)

// builtinPlugin is one compiled-in admission plugin. handles says, before
// any attributes are built, whether it looks at an operation on a
// resource's subresource ("" for the resource itself). admit may change
// the attributes' object; validate may only refuse. Either may be nil.
// Their errors reach the client as they are when they are API statuses,
// else as upstream's admission handler wraps them (403 Forbidden).
type builtinPlugin struct {
	name     string
	handles  func(op admission.Operation, gr schema.GroupResource, subresource string) bool
	admit    func(s *Registry, c *Request, a admission.Attributes) error
	validate func(s *Registry, c *Request, a admission.Attributes) error
}

// builtinPlugins are the plugins in kube-apiserver's order
// (pkg/kubeapiserver/options/plugins.go, AllOrderedPlugins).
var builtinPlugins = []builtinPlugin{
	// NamespaceLifecycle refuses to delete the namespaces a cluster cannot
	// do without (its other half, on writes into a namespace, is
	// admitNamespace).
	{name: "NamespaceLifecycle", handles: handlesOn("", "namespaces", "", admission.Delete), admit: admitImmortalNamespaces},
	{name: "LimitPodHardAntiAffinityTopology", handles: handlesOn("", "pods", "", admission.Create, admission.Update), validate: optin(admissionplugins.LimitPodHardAntiAffinityTopologyValidate)},
	// LimitRanger checks a resize (its other halves run with the pod
	// defaults, admitPod, and validateBuiltinCreate).
	{name: "LimitRanger", handles: handlesOn("", "pods", "resize", admission.Update), validate: validateResizeLimits},
	// The ServiceAccount plugin's validating half (its mutating half runs
	// with the other pod defaults, admitPod).
	{name: "ServiceAccount", handles: handlesMountableSecrets, validate: validateMountableSecrets},
	{name: "NodeRestriction", handles: handlesNodeRestriction, admit: admitNodeRestriction},
	// TaintNodesByCondition taints a new node not ready.
	{name: "TaintNodesByCondition", handles: handlesOn("", "nodes", "", admission.Create), admit: admitNodeNotReadyTaint},
	{name: "AlwaysPullImages", handles: handlesOn("", "pods", "", admission.Create, admission.Update),
		admit: optin(admissionplugins.AlwaysPullImagesAdmit), validate: optin(admissionplugins.AlwaysPullImagesValidate)},
	{name: "ImagePolicyWebhook", handles: handlesImagePolicy, validate: validateImagePolicy},
	{name: admissionplugins.PodSecurityPluginName, handles: admissionplugins.PodSecurityHandles, validate: validatePodSecurity},
	{name: "PodNodeSelector", handles: handlesOn("", "pods", "", admission.Create),
		admit: optinWithNamespace(admitPodNodeSelector), validate: optinWithNamespace(validatePodNodeSelector)},
	// Priority keeps a pod's priority on update (on create it runs with
	// the other pod defaults, admitPod) and allows one default
	// PriorityClass.
	{name: "Priority", handles: handlesOn("", "pods", "", admission.Update), admit: admitPodPriorityUpdate},
	{name: "Priority", handles: handlesOn("scheduling.k8s.io", "priorityclasses", "", admission.Create, admission.Update), validate: validateDefaultPriorityClass},
	// On create it runs with the other pod defaults (admitPod); on update
	// it adds back the default tolerations a new spec drops.
	{name: "DefaultTolerationSeconds", handles: handlesOn("", "pods", "", admission.Update), admit: admitDefaultTolerationSeconds},
	{name: "PodTolerationRestriction", handles: handlesOn("", "pods", "", admission.Create, admission.Update),
		admit: optinWithNamespace(admitPodTolerationRestriction), validate: optinWithNamespace(validatePodTolerationRestriction)},
	{name: "EventRateLimit", handles: handlesOn("", "events", "", admission.Create, admission.Update), validate: validateEventRateLimit},
	{name: "ExtendedResourceToleration", handles: handlesOn("", "pods", "", admission.Create, admission.Update), admit: optin(admissionplugins.ExtendedResourceTolerationAdmit)},
	{name: "StorageObjectInUseProtection", handles: handlesStorageProtection, admit: admitStorageProtection},
	{name: "OwnerReferencesPermissionEnforcement", handles: handlesWrites, validate: validateOwnerReferences},
	{name: "PersistentVolumeClaimResize", handles: handlesOn("", "persistentvolumeclaims", "", admission.Update), validate: validateClaimResize},
	{name: "RuntimeClass", handles: handlesOn("", "pods", "", admission.Create), admit: admitRuntimeClass, validate: validateRuntimeClass},
	{name: "CertificateApproval", handles: handlesOn("certificates.k8s.io", "certificatesigningrequests", "approval", admission.Update), validate: validateCertificateApproval},
	{name: "CertificateSigning", handles: handlesOn("certificates.k8s.io", "certificatesigningrequests", "status", admission.Update), validate: validateCertificateSigning},
	{name: "ClusterTrustBundleAttest", handles: handlesOn("certificates.k8s.io", "clustertrustbundles", "", admission.Create, admission.Update), validate: validateClusterTrustBundleAttest},
	{name: "CertificateSubjectRestriction", handles: handlesOn("certificates.k8s.io", "certificatesigningrequests", "", admission.Create), validate: validateCertificateSubjectRestriction},
	{name: "DefaultIngressClass", handles: handlesOn("networking.k8s.io", "ingresses", "", admission.Create), admit: admitDefaultIngressClass},
	{name: "DenyServiceExternalIPs", handles: handlesOn("", "services", "", admission.Create, admission.Update), validate: optin(admissionplugins.DenyServiceExternalIPsValidate)},
	{name: "PodTopologyLabels", handles: handlesPodTopologyLabels, admit: admitPodTopologyLabels},
	{name: "NodeDeclaredFeatureValidator", handles: handlesOn("", "pods", "resize", admission.Update), validate: validateResizeNodeFeatures},
	{name: "PodResizeValidator", handles: handlesOn("", "pods", "resize", admission.Update), validate: validateResizeNode},
}

// runBuiltinPlugins runs the mutating (validate false) or validating
// (validate true) half of the built-in plugins on a write of o (nil on a
// delete) over old (nil on a create). What the mutating half changes is in
// o afterwards.
func (s *Registry) runBuiltinPlugins(c *Request, validate bool, op admission.Operation, o, old *Object, dry bool) error {
	return s.runBuiltin(c, validate, op, func() (admission.Attributes, error) {
		t, err := targetOf(c, o, old)
		if err != nil {
			return nil, err
		}
		if t.name == "" && old != nil {
			t.name = old.Meta.GetName()
		}
		return admissionAttributes(c, op, t, operationOptions(c, op, dry, nil), dry), nil
	})
}

// runBuiltin runs one half of the built-in plugins that handle op on the
// request's resource, with the attributes that attrsOf builds at most
// once.
func (s *Registry) runBuiltin(c *Request, validate bool, op admission.Operation, attrsOf func() (admission.Attributes, error)) error {
	if c.Res == nil || c.unadmitted() {
		return nil
	}
	gr, sub := c.Res.GR, c.subresource()
	var attrs admission.Attributes
	for i := range builtinPlugins {
		p := &builtinPlugins[i]
		f := p.admit
		if validate {
			f = p.validate
		}
		if f == nil || !s.builtinOn[i] || !p.handles(op, gr, sub) {
			continue
		}
		if attrs == nil {
			var err error
			if attrs, err = attrsOf(); err != nil {
				return admissionErr(err)
			}
		}
		if err := f(s, c, attrs); err != nil {
			return builtinAdmissionErr(attrs, err)
		}
	}
	return nil
}

// builtinAdmissionErr is what a client gets for a built-in plugin's
// error: an API status as it is, anything else as upstream's
// admission.NewForbidden makes of it.
func builtinAdmissionErr(a admission.Attributes, err error) error {
	if _, ok := err.(apierrors.APIStatus); ok {
		return err
	}
	return admission.NewForbidden(a, err)
}

// immortalNamespaces are the namespaces NamespaceLifecycle does not let
// anyone delete.
var immortalNamespaces = map[string]bool{metav1.NamespaceDefault: true, metav1.NamespaceSystem: true, metav1.NamespacePublic: true}

// admitImmortalNamespaces is NamespaceLifecycle's refusal to delete an
// immortal namespace: 403 "this namespace may not be deleted", dry run or
// not.
func admitImmortalNamespaces(_ *Registry, _ *Request, a admission.Attributes) error {
	if immortalNamespaces[a.GetName()] {
		return errors.New("this namespace may not be deleted")
	}
	return nil
}

// handlesImagePolicy says ImagePolicyWebhook looks at writes of pods and
// of their ephemeral containers.
func handlesImagePolicy(op admission.Operation, gr schema.GroupResource, sub string) bool {
	return (op == admission.Create || op == admission.Update) && gr.Group == "" && gr.Resource == "pods" && (sub == "" || sub == "ephemeralcontainers")
}

// handlesWrites says a plugin looks at every create and update.
func handlesWrites(op admission.Operation, _ schema.GroupResource, _ string) bool {
	return op == admission.Create || op == admission.Update
}

// handlesNodeRestriction says NodeRestriction looks at every create,
// update and delete (it leaves what users other than nodes do alone).
func handlesNodeRestriction(op admission.Operation, _ schema.GroupResource, _ string) bool {
	return op == admission.Create || op == admission.Update || op == admission.Delete
}
