package admission

import (
	"context"
	"errors"
	"fmt"
	"sync"

	admissionv1 "k8s.io/api/admission/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/warning"
	psadmission "k8s.io/pod-security-admission/admission"
	psconfig "k8s.io/pod-security-admission/admission/api"
	psload "k8s.io/pod-security-admission/admission/api/load"
	psapi "k8s.io/pod-security-admission/api"
	psmetrics "k8s.io/pod-security-admission/metrics"
	"k8s.io/pod-security-admission/policy"
)

// PodSecurityPluginName is the name kube-apiserver gives the plugin.
const PodSecurityPluginName = "PodSecurity"

// PodSecurity is kube-apiserver's PodSecurity admission plugin
// (plugin/pkg/admission/security/podsecurity), a validating plugin around
// upstream's k8s.io/pod-security-admission library with kube-apiserver's
// default configuration: every mode privileged at the latest version and no
// exemptions (fakeplane has no --admission-control-config-file, so neither
// can be changed). The namespaces' pod-security.kubernetes.io labels choose
// the levels: a pod that breaks the enforced one is refused, one that
// breaks the warned one gets a Warning header, and so does a pod controller
// (Deployment, Job, ...) whose template would; a namespace whose enforce
// label tightens gets warnings naming its existing pods that break it.
//
// A PodSecurity has no mutable state of its own; the namespace getter and
// the pod lister read the control plane's store.
type PodSecurity struct {
	delegate *psadmission.Admission
}

// podSecurityDefaults are what every PodSecurity shares: upstream's default
// configuration and the evaluator of the default checks, both immutable
// once built, so one process builds them once.
var podSecurityDefaults = sync.OnceValues(func() (*podSecurityShared, error) {
	// As the plugin loads a missing configuration file: the defaulted
	// v1 PodSecurityConfiguration.
	cfg, err := psload.LoadFromReader(nil)
	if err != nil {
		return nil, fmt.Errorf("%s: default configuration: %w", PodSecurityPluginName, err)
	}
	// The emulated version is the binary's, so the evaluator knows every
	// check up to the latest one (upstream passes nil in that case).
	ev, err := policy.NewEvaluator(policy.DefaultChecks(), nil)
	if err != nil {
		return nil, fmt.Errorf("%s: evaluator: %w", PodSecurityPluginName, err)
	}
	return &podSecurityShared{config: cfg, evaluator: ev}, nil
})

// WarmPodSecurity builds what every PodSecurity of the process shares, if
// no PodSecurity has yet: a control plane's first start calls it on a core
// that is otherwise idle, so that its first namespace create does not.
func WarmPodSecurity() {
	_, _ = podSecurityDefaults()
}

// podSecurityShared is what podSecurityDefaults builds.
type podSecurityShared struct {
	config    *psconfig.PodSecurityConfiguration
	evaluator policy.Evaluator
}

// NewPodSecurity builds the plugin over a control plane's namespaces and
// pods, with cfg (nil: kube-apiserver's default configuration; see
// ReadPluginConfig). metrics records its decisions; nil records nothing. A
// configuration upstream's plugin refuses is refused with its error.
func NewPodSecurity(namespaces psadmission.NamespaceGetter, pods psadmission.PodLister, metrics psmetrics.Recorder, cfg *psconfig.PodSecurityConfiguration) (*PodSecurity, error) {
	shared, err := podSecurityDefaults()
	if err != nil {
		return nil, err
	}
	if cfg == nil {
		cfg = shared.config
	}
	if metrics == nil {
		metrics = noPodSecurityMetrics{}
	}
	d := &psadmission.Admission{
		Configuration:    cfg,
		Evaluator:        shared.evaluator,
		Metrics:          metrics,
		PodSpecExtractor: psadmission.DefaultPodSpecExtractor{},
		NamespaceGetter:  namespaces,
		PodLister:        pods,
	}
	if err := d.CompleteConfiguration(); err != nil {
		return nil, fmt.Errorf("%s configuration error: %w", PodSecurityPluginName, err)
	}
	if err := d.ValidateConfiguration(); err != nil {
		return nil, fmt.Errorf("%s invalid: %w", PodSecurityPluginName, err)
	}
	return &PodSecurity{delegate: d}, nil
}

// PodSecurityHandles says whether the plugin looks at an operation on a
// resource's subresource ("" for the resource itself): creates and updates
// of pods, namespaces and the pod controllers upstream's
// DefaultPodSpecExtractor knows. Upstream's library ignores every status
// write and every subresource of a namespace or pod controller; the pod
// subresources it evaluates or ignores it decides itself.
func PodSecurityHandles(op k8sadmission.Operation, gr schema.GroupResource, subresource string) bool {
	if op != k8sadmission.Create && op != k8sadmission.Update {
		return false
	}
	switch {
	case gr == podsResource:
		return subresource != "status"
	case gr == namespacesResource || (psadmission.DefaultPodSpecExtractor{}).HasPodSpec(gr):
		return subresource == ""
	}
	return false
}

// The resources the plugin looks at besides the pod controllers.
var (
	podsResource       = corev1.Resource("pods")
	namespacesResource = corev1.Resource("namespaces")
)

// Validate admits a write as upstream's plugin does: the library's
// warnings go to the request's warning recorder (Warning headers) and its
// audit annotations to the audit event; a refusal is upstream's status (403
// for a pod that breaks the enforced level, 422 for a namespace with an
// invalid label, ...). The attributes' objects must be the v1 types.
func (p *PodSecurity) Validate(ctx context.Context, a k8sadmission.Attributes) error {
	gr := a.GetResource().GroupResource()
	if gr != podsResource && gr != namespacesResource && !p.delegate.PodSpecExtractor.HasPodSpec(gr) {
		return nil
	}
	result := p.delegate.Validate(ctx, podSecurityAttributes{a})
	for _, w := range result.Warnings {
		warning.AddWarning(ctx, "", w)
	}
	if len(result.AuditAnnotations) > 0 {
		kv := make([]string, 0, 2*len(result.AuditAnnotations))
		for k, v := range result.AuditAnnotations {
			kv = append(kv, psapi.AuditAnnotationPrefix+k, v)
		}
		audit.AddAuditAnnotations(ctx, kv...)
	}
	if result.Allowed {
		return nil
	}
	// As upstream: a generic refusal, with the library's message, reason,
	// details and code where it gives them.
	err := k8sadmission.NewForbidden(a, errors.New("Not allowed by PodSecurity"))
	var se *apierrors.StatusError
	if !errors.As(err, &se) {
		return err
	}
	if r := result.Result; r != nil {
		if r.Message != "" {
			se.ErrStatus.Message = r.Message
		}
		if r.Reason != "" {
			se.ErrStatus.Reason = r.Reason
		}
		if r.Details != nil {
			se.ErrStatus.Details = r.Details
		}
		if r.Code != 0 {
			se.ErrStatus.Code = r.Code
		}
	}
	return se
}

// podSecurityAttributes are the library's attributes over the apiserver's:
// the objects are already the v1 types it wants.
type podSecurityAttributes struct{ k8sadmission.Attributes }

// GetOperation is the operation as the library names it.
func (a podSecurityAttributes) GetOperation() admissionv1.Operation {
	return admissionv1.Operation(a.Attributes.GetOperation())
}

// GetObject is the object being written, already a v1 type.
func (a podSecurityAttributes) GetObject() (runtime.Object, error) {
	return a.Attributes.GetObject(), nil
}

// GetOldObject is the object before the update, already a v1 type.
func (a podSecurityAttributes) GetOldObject() (runtime.Object, error) {
	return a.Attributes.GetOldObject(), nil
}

// GetUserName is the requesting user's name.
func (a podSecurityAttributes) GetUserName() string {
	if u := a.GetUserInfo(); u != nil {
		return u.GetName()
	}
	return ""
}

// noPodSecurityMetrics records nothing.
type noPodSecurityMetrics struct{}

// RecordEvaluation implements metrics.Recorder.
func (noPodSecurityMetrics) RecordEvaluation(psmetrics.Decision, psapi.LevelVersion, psmetrics.Mode, psapi.Attributes) {
}

// RecordExemption implements metrics.Recorder.
func (noPodSecurityMetrics) RecordExemption(psapi.Attributes) {}

// RecordError implements metrics.Recorder.
func (noPodSecurityMetrics) RecordError(bool, psapi.Attributes) {}
