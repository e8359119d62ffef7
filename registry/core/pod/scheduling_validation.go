package pod

import (
	"fmt"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apimachineryvalidation "k8s.io/apimachinery/pkg/api/validation"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	metav1validation "k8s.io/apimachinery/pkg/apis/meta/v1/validation"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"

	"github.com/fakeplane/fakeplane/internal/validate"
)

// The rules of kube-apiserver v1.37's pod validation for what the
// scheduler and the kubelet's DNS read: affinity, topology spread
// constraints, DNS config, readiness and scheduling gates, image pull
// secrets, with upstream's messages and order.

// Upstream's limits on a pod's DNS config.
const (
	maxDNSNameservers     = 3
	maxDNSSearchPaths     = 32
	maxDNSSearchListChars = 2048
)

// isNotPositiveMsg is upstream's message for a field that must be positive.
const isNotPositiveMsg = "must be greater than zero"

// validateSchedulingFields runs, in upstream's order, the checks of the
// pod spec fields this file covers (those upstream makes after the node
// selector and security context).
func validateSchedulingFields(s *corev1.PodSpec, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateImagePullSecrets(s.ImagePullSecrets, fld.Child("imagePullSecrets"))...)
	errs = append(errs, validateAffinity(s.Affinity, fld.Child("affinity"))...)
	errs = append(errs, validateDNSConfig(s.DNSConfig, s.DNSPolicy, fld.Child("dnsConfig"))...)
	errs = append(errs, validateReadinessGates(s.ReadinessGates, fld.Child("readinessGates"))...)
	errs = append(errs, validateSchedulingGates(s.SchedulingGates, fld.Child("schedulingGates"))...)
	errs = append(errs, validateTopologySpreadConstraints(s.TopologySpreadConstraints, fld.Child("topologySpreadConstraints"))...)
	return errs
}

// validateImagePullSecrets allows a name only.
func validateImagePullSecrets(secrets []corev1.LocalObjectReference, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, s := range secrets {
		if s != (corev1.LocalObjectReference{Name: s.Name}) {
			errs = append(errs, field.Invalid(fld.Index(i), s, "only name may be set"))
		}
	}
	return errs
}

// validateAffinity is upstream's validateAffinity for a new pod: label
// values in selectors and required node affinity must be valid.
func validateAffinity(a *corev1.Affinity, fld *field.Path) field.ErrorList {
	if a == nil {
		return nil
	}
	var errs field.ErrorList
	if na := a.NodeAffinity; na != nil {
		nfld := fld.Child("nodeAffinity")
		if req := na.RequiredDuringSchedulingIgnoredDuringExecution; req != nil {
			errs = append(errs, validate.NodeSelector(req, nfld.Child("requiredDuringSchedulingIgnoredDuringExecution"))...)
		}
		for i, term := range na.PreferredDuringSchedulingIgnoredDuringExecution {
			tfld := nfld.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(i)
			if term.Weight <= 0 || term.Weight > 100 {
				errs = append(errs, field.Invalid(tfld.Child("weight"), term.Weight, "must be in the range 1-100"))
			}
			errs = append(errs, validate.NodeSelectorTerm(term.Preference, true, tfld.Child("preference"))...)
		}
	}
	if pa := a.PodAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, fld.Child("podAffinity"))...)
	}
	if pa := a.PodAntiAffinity; pa != nil {
		errs = append(errs, validatePodAffinityTerms(pa.RequiredDuringSchedulingIgnoredDuringExecution, pa.PreferredDuringSchedulingIgnoredDuringExecution, fld.Child("podAntiAffinity"))...)
	}
	return errs
}

// validatePodAffinityTerms checks the required and preferred terms of pod
// affinity or anti-affinity.
func validatePodAffinityTerms(required []corev1.PodAffinityTerm, preferred []corev1.WeightedPodAffinityTerm, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, term := range required {
		errs = append(errs, validatePodAffinityTerm(term, fld.Child("requiredDuringSchedulingIgnoredDuringExecution").Index(i))...)
	}
	for j, term := range preferred {
		tfld := fld.Child("preferredDuringSchedulingIgnoredDuringExecution").Index(j)
		if term.Weight <= 0 || term.Weight > 100 {
			errs = append(errs, field.Invalid(tfld.Child("weight"), term.Weight, "must be in the range 1-100"))
		}
		errs = append(errs, validatePodAffinityTerm(term.PodAffinityTerm, tfld.Child("podAffinityTerm"))...)
	}
	return errs
}

// validatePodAffinityTerm checks one pod affinity term.
func validatePodAffinityTerm(term corev1.PodAffinityTerm, fld *field.Path) field.ErrorList {
	opts := metav1validation.LabelSelectorValidationOptions{}
	var errs field.ErrorList
	errs = append(errs, metav1validation.ValidateLabelSelector(term.LabelSelector, opts, fld.Child("labelSelector"))...)
	errs = append(errs, metav1validation.ValidateLabelSelector(term.NamespaceSelector, opts, fld.Child("namespaceSelector"))...)
	for _, name := range term.Namespaces {
		for _, msg := range apimachineryvalidation.ValidateNamespaceName(name, false) {
			errs = append(errs, field.Invalid(fld.Child("namespace"), name, msg))
		}
	}
	errs = append(errs, validateMatchAndMismatchLabelKeys(fld, term.MatchLabelKeys, term.MismatchLabelKeys, term.LabelSelector)...)
	if term.TopologyKey == "" {
		errs = append(errs, field.Required(fld.Child("topologyKey"), "can not be empty"))
	}
	return append(errs, metav1validation.ValidateLabelName(term.TopologyKey, fld.Child("topologyKey"))...)
}

// validateMatchAndMismatchLabelKeys checks matchLabelKeys and
// mismatchLabelKeys: label names, given only with a label selector, not
// both in matchLabelKeys and the selector, not in both lists.
func validateMatchAndMismatchLabelKeys(fld *field.Path, match, mismatch []string, sel *metav1.LabelSelector) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, validateLabelKeys(fld.Child("matchLabelKeys"), match, sel)...)
	errs = append(errs, validateLabelKeys(fld.Child("mismatchLabelKeys"), mismatch, sel)...)
	if sel != nil {
		index := map[string]int{}
		for i, k := range match {
			index[k] = i
		}
		keys := sets.New[string]()
		for k := range sel.MatchLabels {
			keys.Insert(k)
		}
		for _, e := range sel.MatchExpressions {
			if i, ok := index[e.Key]; ok && keys.Has(e.Key) {
				errs = append(errs, field.Invalid(fld.Index(i), e.Key, "exists in both matchLabelKeys and labelSelector"))
			}
			keys.Insert(e.Key)
		}
	}
	mismatched := sets.New(mismatch...)
	for i, k := range match {
		if mismatched.Has(k) {
			errs = append(errs, field.Invalid(fld.Child("matchLabelKeys").Index(i), k, "exists in both matchLabelKeys and mismatchLabelKeys"))
		}
	}
	return errs
}

// validateLabelKeys checks a list of label keys that needs a selector.
func validateLabelKeys(fld *field.Path, keys []string, sel *metav1.LabelSelector) field.ErrorList {
	if len(keys) == 0 {
		return nil
	}
	if sel == nil {
		return field.ErrorList{field.Forbidden(fld, "must not be specified when labelSelector is not set")}
	}
	var errs field.ErrorList
	for i, k := range keys {
		errs = append(errs, metav1validation.ValidateLabelName(k, fld.Index(i))...)
	}
	return errs
}

// validateDNSConfig is upstream's validatePodDNSConfig.
func validateDNSConfig(c *corev1.PodDNSConfig, policy corev1.DNSPolicy, fld *field.Path) field.ErrorList {
	if policy == corev1.DNSNone {
		if c == nil {
			return field.ErrorList{field.Required(fld, fmt.Sprintf("must provide `dnsConfig` when `dnsPolicy` is %s", corev1.DNSNone))}
		}
		if len(c.Nameservers) == 0 {
			return field.ErrorList{field.Required(fld.Child("nameservers"), fmt.Sprintf("must provide at least one DNS nameserver when `dnsPolicy` is %s", corev1.DNSNone))}
		}
	}
	if c == nil {
		return nil
	}
	var errs field.ErrorList
	if len(c.Nameservers) > maxDNSNameservers {
		errs = append(errs, field.Invalid(fld.Child("nameservers"), c.Nameservers, fmt.Sprintf("must not have more than %v nameservers", maxDNSNameservers)))
	}
	for i, ns := range c.Nameservers {
		// StrictIPCIDRValidation is on (beta) in v1.37.
		errs = append(errs, validate.LegacyIP(fld.Child("nameservers").Index(i), ns, nil)...)
	}
	if len(c.Searches) > maxDNSSearchPaths {
		errs = append(errs, field.Invalid(fld.Child("searches"), c.Searches, fmt.Sprintf("must not have more than %v search paths", maxDNSSearchPaths)))
	}
	if len(strings.Join(c.Searches, " ")) > maxDNSSearchListChars {
		errs = append(errs, field.Invalid(fld.Child("searches"), c.Searches, fmt.Sprintf("must not have more than %v characters (including spaces) in the search list", maxDNSSearchListChars)))
	}
	for i, search := range c.Searches {
		if search == "." {
			continue
		}
		search = strings.TrimSuffix(search, ".")
		for _, msg := range validation.IsDNS1123SubdomainWithUnderscore(search) {
			errs = append(errs, field.Invalid(fld.Child("searches").Index(i), search, msg))
		}
	}
	for i, o := range c.Options {
		if o.Name == "" {
			errs = append(errs, field.Required(fld.Child("options").Index(i), "must not be empty"))
		}
	}
	return errs
}

// validateReadinessGates checks the gates' condition types.
func validateReadinessGates(gates []corev1.PodReadinessGate, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	for i, g := range gates {
		errs = append(errs, metav1validation.ValidateLabelName(string(g.ConditionType), fld.Index(i).Child("conditionType"))...)
	}
	return errs
}

// validateSchedulingGates checks the gates' names, which must be unique.
func validateSchedulingGates(gates []corev1.PodSchedulingGate, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	seen := sets.New[string]()
	for i, g := range gates {
		errs = append(errs, metav1validation.ValidateLabelName(g.Name, fld.Index(i))...)
		if seen.Has(g.Name) {
			errs = append(errs, field.Duplicate(fld.Index(i), g.Name))
		}
		seen.Insert(g.Name)
	}
	return errs
}

// validateTopologySpreadConstraints is upstream's
// validateTopologySpreadConstraints for a new pod.
func validateTopologySpreadConstraints(cs []corev1.TopologySpreadConstraint, fld *field.Path) field.ErrorList {
	var errs field.ErrorList
	actions := []string{string(corev1.DoNotSchedule), string(corev1.ScheduleAnyway)}
	policies := []string{string(corev1.NodeInclusionPolicyHonor), string(corev1.NodeInclusionPolicyIgnore)}
	for i, c := range cs {
		cfld := fld.Index(i)
		if c.MaxSkew <= 0 {
			errs = append(errs, field.Invalid(cfld.Child("maxSkew"), int64(c.MaxSkew), isNotPositiveMsg))
		}
		if c.TopologyKey == "" {
			errs = append(errs, field.Required(cfld.Child("topologyKey"), "can not be empty"))
		}
		if c.WhenUnsatisfiable != corev1.DoNotSchedule && c.WhenUnsatisfiable != corev1.ScheduleAnyway {
			errs = append(errs, field.NotSupported(cfld.Child("whenUnsatisfiable"), c.WhenUnsatisfiable, actions))
		}
		for _, rest := range cs[i+1:] {
			if c.TopologyKey == rest.TopologyKey && c.WhenUnsatisfiable == rest.WhenUnsatisfiable {
				errs = append(errs, field.Duplicate(cfld.Child("{topologyKey, whenUnsatisfiable}"), fmt.Sprintf("{%v, %v}", c.TopologyKey, c.WhenUnsatisfiable)))
				break
			}
		}
		if c.MinDomains != nil {
			if *c.MinDomains <= 0 {
				errs = append(errs, field.Invalid(cfld.Child("minDomains"), int64(*c.MinDomains), isNotPositiveMsg))
			}
			if c.WhenUnsatisfiable != corev1.DoNotSchedule {
				errs = append(errs, field.Invalid(cfld.Child("minDomains"), *c.MinDomains, fmt.Sprintf("can only use minDomains if whenUnsatisfiable=%s, not %s", corev1.DoNotSchedule, c.WhenUnsatisfiable)))
			}
		}
		for _, p := range []struct {
			name   string
			policy *corev1.NodeInclusionPolicy
		}{{"nodeAffinityPolicy", c.NodeAffinityPolicy}, {"nodeTaintsPolicy", c.NodeTaintsPolicy}} {
			if p.policy != nil && *p.policy != corev1.NodeInclusionPolicyHonor && *p.policy != corev1.NodeInclusionPolicyIgnore {
				errs = append(errs, field.NotSupported(cfld.Child(p.name), *p.policy, policies))
			}
		}
		// MatchLabelKeysInPodTopologySpreadSelectorMerge is on in v1.37.
		errs = append(errs, validateMatchAndMismatchLabelKeys(cfld, c.MatchLabelKeys, nil, c.LabelSelector)...)
		errs = append(errs, metav1validation.ValidateLabelSelector(c.LabelSelector, metav1validation.LabelSelectorValidationOptions{}, cfld.Child("labelSelector"))...)
	}
	return errs
}
