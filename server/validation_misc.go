package server

import (
	"fmt"
	"github.com/fakeplane/fakeplane/internal/validate"
	"slices"
	"strings"
	"time"

	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	eventsv1 "k8s.io/api/events/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apiequality "k8s.io/apimachinery/pkg/api/equality"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	"k8s.io/apimachinery/pkg/api/validation/path"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
	netutils "k8s.io/utils/net"
)

// Leases (pkg/apis/coordination/validation), Events
// (pkg/apis/core/validation/events.go) and RBAC objects
// (pkg/apis/rbac/validation) as upstream validates them.

var leaseStrategies = []coordinationv1.CoordinatedLeaseStrategy{coordinationv1.OldestEmulationVersion}

func validateLease(l *coordinationv1.Lease) field.ErrorList {
	var errs field.ErrorList
	spec := field.NewPath("spec")
	if d := l.Spec.LeaseDurationSeconds; d != nil && *d <= 0 {
		errs = append(errs, field.Invalid(spec.Child("leaseDurationSeconds"), d, "must be greater than 0"))
	}
	if t := l.Spec.LeaseTransitions; t != nil && *t < 0 {
		errs = append(errs, field.Invalid(spec.Child("leaseTransitions"), t, "must be greater than or equal to 0"))
	}
	if st := l.Spec.Strategy; st != nil {
		fld := spec.Child("strategy").Child("strategy")
		if !strings.Contains(string(*st), "/") {
			if !slices.Contains(leaseStrategies, *st) {
				errs = append(errs, field.NotSupported(fld, *st, leaseStrategies))
			}
		} else {
			for _, msg := range validation.IsQualifiedName(string(*st)) {
				errs = append(errs, field.Invalid(fld, *st, msg))
			}
		}
	}
	if p := l.Spec.PreferredHolder; p != nil && *p != "" && (l.Spec.Strategy == nil || *l.Spec.Strategy == "") {
		errs = append(errs, field.Forbidden(spec.Child("preferredHolder"), "may only be specified if `strategy` is defined"))
	}
	return errs
}

// Upstream's limits of an Event's fields.
const (
	eventReportingInstanceLimit = 128
	eventActionLimit            = 128
	eventReasonLimit            = 128
	eventNoteLimit              = 1024
)

// eventFields are an Event's fields under the names upstream's internal
// type (and so its messages) gives them.
type eventFields struct {
	namespace, involvedNamespace           string
	eventTime                              time.Time
	reportingController, reportingInstance string
	action, reason, message, eventType     string
	firstTimestamp, lastTimestamp          time.Time
	count                                  int32
	sourceComponent, sourceHost            string
	series                                 bool
	seriesCount                            int32
	seriesLastObserved                     time.Time
}

// legacyValidateEvent is upstream's legacyValidateEvent; controllerField
// names the reporting controller as the request's version does.
func legacyValidateEvent(e eventFields, controllerField string) field.ErrorList {
	var errs field.ErrorList
	ns := field.NewPath("involvedObject", "namespace")
	if e.eventTime.IsZero() {
		if e.involvedNamespace == "" {
			if e.namespace != metav1.NamespaceNone && e.namespace != metav1.NamespaceDefault {
				errs = append(errs, field.Invalid(ns, e.involvedNamespace, "does not match event.namespace"))
			}
		} else if e.namespace != e.involvedNamespace {
			errs = append(errs, field.Invalid(ns, e.involvedNamespace, "does not match event.namespace"))
		}
		return errs
	}
	if e.involvedNamespace == "" && e.namespace != metav1.NamespaceDefault && e.namespace != metav1.NamespaceSystem {
		errs = append(errs, field.Invalid(ns, e.involvedNamespace, "does not match event.namespace"))
	}
	if e.reportingController == "" {
		errs = append(errs, field.Required(field.NewPath(controllerField), ""))
	}
	for _, msg := range validation.IsQualifiedName(e.reportingController) {
		errs = append(errs, field.Invalid(field.NewPath(controllerField), e.reportingController, msg))
	}
	limit := func(v, name string, max int, required bool) {
		if required && v == "" {
			errs = append(errs, field.Required(field.NewPath(name), ""))
		}
		if len(v) > max {
			errs = append(errs, field.Invalid(field.NewPath(name), "", fmt.Sprintf("can have at most %v characters", max)))
		}
	}
	limit(e.reportingInstance, "reportingInstance", eventReportingInstanceLimit, true)
	limit(e.action, "action", eventActionLimit, true)
	limit(e.reason, "reason", eventReasonLimit, true)
	limit(e.message, "message", eventNoteLimit, false)
	return errs
}

func coreEventFields(e *corev1.Event) eventFields {
	return eventFields{
		namespace: e.Namespace, involvedNamespace: e.InvolvedObject.Namespace, eventTime: e.EventTime.Time,
		reportingController: e.ReportingController, reportingInstance: e.ReportingInstance,
		action: e.Action, reason: e.Reason, message: e.Message, eventType: e.Type,
	}
}

func eventsV1Fields(e *eventsv1.Event) eventFields {
	f := eventFields{
		namespace: e.Namespace, involvedNamespace: e.Regarding.Namespace, eventTime: e.EventTime.Time,
		reportingController: e.ReportingController, reportingInstance: e.ReportingInstance,
		action: e.Action, reason: e.Reason, message: e.Note, eventType: e.Type,
		firstTimestamp: e.DeprecatedFirstTimestamp.Time, lastTimestamp: e.DeprecatedLastTimestamp.Time,
		count: e.DeprecatedCount, sourceComponent: e.DeprecatedSource.Component, sourceHost: e.DeprecatedSource.Host,
	}
	if e.Series != nil {
		f.series, f.seriesCount, f.seriesLastObserved = true, e.Series.Count, e.Series.LastObservedTime.Time
	}
	return f
}

func validateEventSeries(e eventFields) field.ErrorList {
	var errs field.ErrorList
	if e.series {
		if e.seriesCount < 2 {
			errs = append(errs, field.Invalid(field.NewPath("series.count"), "", "should be at least 2"))
		}
		if e.seriesLastObserved.IsZero() {
			errs = append(errs, field.Required(field.NewPath("series.lastObservedTime"), ""))
		}
	}
	return errs
}

// validateEventsV1Create is upstream's ValidateEventCreate for
// events.k8s.io/v1: the legacy rules and the strict ones.
func validateEventsV1Create(e *eventsv1.Event) field.ErrorList {
	f := eventsV1Fields(e)
	errs := legacyValidateEvent(f, "reportingController")
	errs = append(errs, validateEventSeries(f)...)
	if f.eventTime.IsZero() {
		errs = append(errs, field.Required(field.NewPath("eventTime"), ""))
	}
	if f.eventType != corev1.EventTypeNormal && f.eventType != corev1.EventTypeWarning {
		errs = append(errs, field.Invalid(field.NewPath("type"), "", "has invalid value: "+f.eventType))
	}
	if !f.firstTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("firstTimestamp"), "", "needs to be unset"))
	}
	if !f.lastTimestamp.IsZero() {
		errs = append(errs, field.Invalid(field.NewPath("lastTimestamp"), "", "needs to be unset"))
	}
	if f.count != 0 {
		errs = append(errs, field.Invalid(field.NewPath("count"), "", "needs to be unset"))
	}
	if f.sourceComponent != "" || f.sourceHost != "" {
		errs = append(errs, field.Invalid(field.NewPath("source"), "", "needs to be unset"))
	}
	return errs
}

// validateEventsV1Update is upstream's ValidateEventUpdate for
// events.k8s.io/v1: only the series may change.
func validateEventsV1Update(n, p *eventsv1.Event) field.ErrorList {
	nf := eventsV1Fields(n)
	errs := legacyValidateEvent(nf, "reportingController")
	if !apiequality.Semantic.DeepEqual(n.Series, p.Series) {
		errs = append(errs, validateEventSeries(nf)...)
	}
	imm := func(nv, pv any, name string) {
		errs = append(errs, validate.ImmutableField(nv, pv, field.NewPath(name))...)
	}
	imm(validate.InternalValue(n.Regarding), validate.InternalValue(p.Regarding), "involvedObject")
	imm(n.Reason, p.Reason, "reason")
	imm(n.Note, p.Note, "message")
	imm(validate.InternalValue(n.DeprecatedSource), validate.InternalValue(p.DeprecatedSource), "source")
	imm(n.DeprecatedFirstTimestamp, p.DeprecatedFirstTimestamp, "firstTimestamp")
	imm(n.DeprecatedLastTimestamp, p.DeprecatedLastTimestamp, "lastTimestamp")
	imm(n.DeprecatedCount, p.DeprecatedCount, "count")
	imm(n.Type, p.Type, "type")
	if !n.EventTime.Truncate(time.Microsecond).UTC().Equal(p.EventTime.Truncate(time.Microsecond).UTC()) {
		imm(n.EventTime, p.EventTime, "eventTime")
	}
	imm(n.Action, p.Action, "action")
	imm(validate.InternalValue(n.Related), validate.InternalValue(p.Related), "related")
	imm(n.ReportingController, p.ReportingController, "reportingController")
	imm(n.ReportingInstance, p.ReportingInstance, "reportingInstance")
	return errs
}

// validatePolicyRule is upstream's ValidatePolicyRule.
func validatePolicyRule(r rbacv1.PolicyRule, namespaced bool, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	if len(r.NonResourceURLs) > 0 {
		if namespaced {
			errs = append(errs, field.Invalid(fld.Child("nonResourceURLs"), r.NonResourceURLs, "namespaced rules cannot apply to non-resource URLs"))
		}
		if len(r.APIGroups) > 0 || len(r.Resources) > 0 || len(r.ResourceNames) > 0 {
			errs = append(errs, field.Invalid(fld.Child("nonResourceURLs"), r.NonResourceURLs, "rules cannot apply to both regular resources and non-resource URLs"))
		}
		return errs
	}
	if len(r.APIGroups) == 0 {
		errs = append(errs, field.Required(fld.Child("apiGroups"), "resource rules must supply at least one api group"))
	}
	if len(r.Resources) == 0 {
		errs = append(errs, field.Required(fld.Child("resources"), "resource rules must supply at least one resource"))
	}
	return errs
}

// validateRules validates a role's rules; upstream checks the verbs
// declaratively, so their errors come last.
func validateRules(rules []rbacv1.PolicyRule, namespaced bool) field.ErrorList {
	var errs, declarative field.ErrorList
	for i, r := range rules {
		errs = append(errs, validatePolicyRule(r, namespaced, field.NewPath("rules").Index(i))...)
		if len(r.Verbs) == 0 {
			declarative = append(declarative, field.Required(field.NewPath("rules").Index(i).Child("verbs"), ""))
		}
	}
	return append(errs, declarative...)
}

func validateClusterRole(r *rbacv1.ClusterRole) field.ErrorList {
	errs := validateRules(r.Rules, false)
	if r.AggregationRule != nil {
		sels := field.NewPath("aggregationRule", "clusterRoleSelectors")
		if len(r.AggregationRule.ClusterRoleSelectors) == 0 {
			errs = append(errs, field.Required(sels, "at least one clusterRoleSelector required if aggregationRule is non-nil"))
		}
		for i := range r.AggregationRule.ClusterRoleSelectors {
			sel := &r.AggregationRule.ClusterRoleSelectors[i]
			errs = append(errs, metav1validation.ValidateLabelSelector(sel, metav1validation.LabelSelectorValidationOptions{}, sels.Index(i))...)
			if _, err := metav1.LabelSelectorAsSelector(sel); err != nil {
				errs = append(errs, field.Invalid(sels.Index(i), nil, "invalid label selector."))
			}
		}
	}
	return errs
}

// validateRoleRef is upstream's RoleRef rules of a binding.
func validateRoleRef(ref rbacv1.RoleRef, kinds []string) field.ErrorList {
	var errs field.ErrorList
	if ref.APIGroup != rbacv1.GroupName {
		errs = append(errs, field.NotSupported(field.NewPath("roleRef", "apiGroup"), ref.APIGroup, []string{rbacv1.GroupName}))
	}
	if !slices.Contains(kinds, ref.Kind) {
		errs = append(errs, field.NotSupported(field.NewPath("roleRef", "kind"), ref.Kind, kinds))
	}
	if ref.Name != "" {
		for _, msg := range path.IsValidPathSegmentName(ref.Name) {
			errs = append(errs, field.Invalid(field.NewPath("roleRef", "name"), ref.Name, msg))
		}
	}
	return errs
}

// validateBinding validates a binding's roleRef and subjects; the names
// are required declaratively upstream, those errors come last (subjects
// first, in the v1 type's order).
func validateBinding(ref rbacv1.RoleRef, kinds []string, subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	errs := validateRoleRef(ref, kinds)
	errs = append(errs, validateSubjects(subjects, namespaced)...)
	for i, s := range subjects {
		if s.Name == "" {
			errs = append(errs, field.Required(field.NewPath("subjects").Index(i).Child("name"), ""))
		}
	}
	if ref.Name == "" {
		errs = append(errs, field.Required(field.NewPath("roleRef", "name"), ""))
	}
	return errs
}

// validateSubjects is upstream's ValidateRoleBindingSubject for each subject.
func validateSubjects(subjects []rbacv1.Subject, namespaced bool) field.ErrorList {
	var errs field.ErrorList
	for i, s := range subjects {
		fld := field.NewPath("subjects").Index(i)
		switch s.Kind {
		case rbacv1.ServiceAccountKind:
			if s.Name != "" {
				for _, msg := range apimachineryvalidation.NameIsDNSSubdomain(s.Name, false) {
					errs = append(errs, field.Invalid(fld.Child("name"), s.Name, msg))
				}
			}
			if s.APIGroup != "" {
				errs = append(errs, field.NotSupported(fld.Child("apiGroup"), s.APIGroup, []string{""}))
			}
			if !namespaced && s.Namespace == "" {
				errs = append(errs, field.Required(fld.Child("namespace"), ""))
			}
		case rbacv1.UserKind, rbacv1.GroupKind:
			if s.APIGroup != rbacv1.GroupName {
				errs = append(errs, field.NotSupported(fld.Child("apiGroup"), s.APIGroup, []string{rbacv1.GroupName}))
			}
		default:
			errs = append(errs, field.NotSupported(fld.Child("kind"), s.Kind, []string{rbacv1.ServiceAccountKind, rbacv1.UserKind, rbacv1.GroupKind}))
		}
	}
	return errs
}

// validateNode is the part of upstream's ValidateNode (old nil) and
// ValidateNodeUpdate about taints, resource quantities, pod CIDRs and the
// provider ID. (Upstream reports taints under metadata.taints.)
func validateNode(n, old *corev1.Node) field.ErrorList {
	var errs field.ErrorList
	if old == nil && len(n.Spec.Taints) > 0 {
		errs = append(errs, validateNodeTaints(n.Spec.Taints)...)
	}
	for _, l := range []struct {
		list corev1.ResourceList
		name string
	}{{n.Status.Capacity, "capacity"}, {n.Status.Allocatable, "allocatable"}} {
		for _, k := range validate.ResourceNames(l.list) {
			errs = append(errs, validate.Quantity(k, l.list[corev1.ResourceName(k)], field.NewPath("status", l.name, k))...)
		}
	}
	cidrs := field.NewPath("spec", "podCIDRs")
	if old == nil && len(n.Spec.PodCIDRs) > 0 {
		for i, c := range n.Spec.PodCIDRs {
			errs = append(errs, validation.IsValidCIDRForLegacyField(cidrs.Index(i), c, false, nil)...)
		}
		if len(n.Spec.PodCIDRs) > 1 {
			dual, err := netutils.IsDualStackCIDRStrings(n.Spec.PodCIDRs)
			if err != nil {
				errs = append(errs, field.InternalError(cidrs, fmt.Errorf("invalid PodCIDRs. failed to check with dual stack with error:%v", err)))
			}
			if !dual || len(n.Spec.PodCIDRs) > 2 {
				errs = append(errs, field.Invalid(cidrs, n.Spec.PodCIDRs, "may specify no more than one CIDR for each IP family"))
			}
		}
	}
	if old == nil {
		return errs
	}
	seen := map[corev1.NodeAddress]bool{}
	for i, a := range n.Status.Addresses {
		if seen[a] {
			errs = append(errs, field.Duplicate(field.NewPath("status", "addresses").Index(i), validate.InternalValue(a)))
		}
		seen[a] = true
	}
	if len(old.Spec.PodCIDRs) > 0 {
		const msg = `node updates may not change podCIDR except from "" to valid`
		if len(old.Spec.PodCIDRs) != len(n.Spec.PodCIDRs) {
			errs = append(errs, field.Forbidden(cidrs, msg))
		} else {
			for i, c := range old.Spec.PodCIDRs {
				if c != n.Spec.PodCIDRs[i] {
					errs = append(errs, field.Forbidden(cidrs, msg))
				}
			}
		}
	}
	if o, p := old.Spec.ProviderID, n.Spec.ProviderID; o != "" && p != "" && o != p {
		errs = append(errs, field.Invalid(field.NewPath("spec", "providerID"), nil, "field cannot be modified once set"))
	} else if o != "" && p == "" {
		errs = append(errs, field.Invalid(field.NewPath("spec", "providerID"), nil, "field cannot be cleared once set"))
	}
	if len(n.Spec.Taints) > 0 {
		errs = append(errs, validateNodeTaints(n.Spec.Taints)...)
	}
	if n.Spec.DoNotUseExternalID != old.Spec.DoNotUseExternalID {
		errs = append(errs, field.Forbidden(field.NewPath("spec", "externalID"), "may not be updated"))
	}
	return errs
}

// validateNodeTaints is upstream's validateNodeTaints.
func validateNodeTaints(ts []corev1.Taint) field.ErrorList {
	var errs field.ErrorList
	fld := field.NewPath("metadata", "taints")
	seen := map[corev1.TaintEffect]map[string]bool{}
	for i, t := range ts {
		idx := fld.Index(i)
		errs = append(errs, metav1validation.ValidateLabelName(t.Key, idx.Child("key"))...)
		if msgs := validation.IsValidLabelValue(t.Value); len(msgs) > 0 {
			errs = append(errs, field.Invalid(idx.Child("value"), t.Value, strings.Join(msgs, ";")))
		}
		switch t.Effect {
		case "":
			errs = append(errs, field.Required(idx.Child("effect"), ""))
		case corev1.TaintEffectNoSchedule, corev1.TaintEffectPreferNoSchedule, corev1.TaintEffectNoExecute:
		default:
			errs = append(errs, field.NotSupported(idx.Child("effect"), t.Effect, []string{"NoSchedule", "PreferNoSchedule", "NoExecute"}))
		}
		if seen[t.Effect][t.Key] {
			d := field.Duplicate(idx, validate.InternalValue(t))
			d.Detail = "taints must be unique by key and effect pair"
			errs = append(errs, d)
			continue
		}
		if seen[t.Effect] == nil {
			seen[t.Effect] = map[string]bool{}
		}
		seen[t.Effect][t.Key] = true
	}
	return errs
}

var standardQuotaResources = []string{"cpu", "memory", "ephemeral-storage", "requests.cpu", "requests.memory",
	"requests.storage", "requests.ephemeral-storage", "limits.cpu", "limits.memory", "limits.ephemeral-storage",
	"pods", "resourcequotas", "services", "replicationcontrollers", "secrets", "persistentvolumeclaims",
	"configmaps", "services.nodeports", "services.loadbalancers"}

var quotaScopes = []corev1.ResourceQuotaScope{corev1.ResourceQuotaScopeTerminating, corev1.ResourceQuotaScopeNotTerminating,
	corev1.ResourceQuotaScopeBestEffort, corev1.ResourceQuotaScopeNotBestEffort, corev1.ResourceQuotaScopePriorityClass,
	corev1.ResourceQuotaScopeCrossNamespacePodAffinity, corev1.ResourceQuotaScopeVolumeAttributesClass}

// validateResourceQuota is the part of upstream's ValidateResourceQuotaSpec
// about the hard limits' names and values and the scopes' values and
// conflicts (not which scope fits which resource, nor the scope selector).
func validateResourceQuota(q *corev1.ResourceQuota) field.ErrorList {
	var errs field.ErrorList
	hard := field.NewPath("spec", "hard")
	for _, k := range validate.ResourceNames(q.Spec.Hard) {
		kf := hard.Key(k)
		var nameErrs field.ErrorList
		for _, msg := range validation.IsQualifiedName(k) {
			nameErrs = append(nameErrs, field.Invalid(kf, k, msg))
		}
		if len(nameErrs) == 0 && !strings.Contains(k, "/") && !validate.StandardResourceNames.Has(k) &&
			!strings.HasPrefix(k, "hugepages-") && !strings.HasPrefix(k, "requests.hugepages-") {
			nameErrs = append(nameErrs, field.Invalid(kf, k, "must be a standard resource type or fully qualified"))
		}
		if !strings.Contains(k, "/") && !slices.Contains(standardQuotaResources, k) &&
			!strings.HasPrefix(k, "hugepages-") && !strings.HasPrefix(k, "requests.hugepages-") {
			nameErrs = append(nameErrs, field.Invalid(kf, k, "must be a standard resource for quota"))
		}
		errs = append(errs, nameErrs...)
		errs = append(errs, validate.Quantity(k, q.Spec.Hard[corev1.ResourceName(k)], kf)...)
	}
	if len(q.Spec.Scopes) > 0 {
		sf := field.NewPath("spec", "scopes")
		set := map[corev1.ResourceQuotaScope]bool{}
		for _, sc := range q.Spec.Scopes {
			if !slices.Contains(quotaScopes, sc) {
				errs = append(errs, field.Invalid(sf, q.Spec.Scopes, "unsupported scope"))
			}
			set[sc] = true
		}
		if set[corev1.ResourceQuotaScopeBestEffort] && set[corev1.ResourceQuotaScopeNotBestEffort] ||
			set[corev1.ResourceQuotaScopeTerminating] && set[corev1.ResourceQuotaScopeNotTerminating] {
			errs = append(errs, field.Invalid(sf, q.Spec.Scopes, "conflicting scopes"))
		}
	}
	return errs
}
