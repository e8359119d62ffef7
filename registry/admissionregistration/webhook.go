// Package admissionregistration holds what the strategies of
// admissionregistration.k8s.io share: the webhook defaults of upstream's
// pkg/apis/admissionregistration/v1, used by the webhook configuration
// strategies (pkg/registry/admissionregistration/<resource> upstream).
package admissionregistration

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
)

// DefaultWebhook is upstream's SetDefaults_ValidatingWebhook (and the
// common part of SetDefaults_MutatingWebhook), SetDefaults_Rule and
// SetDefaults_ServiceReference.
func DefaultWebhook(failure **admissionregistrationv1.FailurePolicyType, match **admissionregistrationv1.MatchPolicyType,
	nsSel, objSel **metav1.LabelSelector, timeout **int32, rules []admissionregistrationv1.RuleWithOperations,
	cc *admissionregistrationv1.WebhookClientConfig) {
	if *failure == nil {
		p := admissionregistrationv1.Fail
		*failure = &p
	}
	if *match == nil {
		p := admissionregistrationv1.Equivalent
		*match = &p
	}
	if *nsSel == nil {
		*nsSel = &metav1.LabelSelector{}
	}
	if *objSel == nil {
		*objSel = &metav1.LabelSelector{}
	}
	if *timeout == nil {
		*timeout = ptr.To[int32](10)
	}
	for i := range rules {
		if rules[i].Scope == nil {
			s := admissionregistrationv1.AllScopes
			rules[i].Scope = &s
		}
	}
	if cc.Service != nil && cc.Service.Port == nil {
		cc.Service.Port = ptr.To[int32](443)
	}
}

// DefaultMatchResources is upstream's SetDefaults_MatchResources with
// SetDefaults_Rule on its rules, for policies and their bindings; m may
// be nil.
func DefaultMatchResources(m *admissionregistrationv1.MatchResources) {
	if m == nil {
		return
	}
	if m.MatchPolicy == nil {
		m.MatchPolicy = ptr.To(admissionregistrationv1.Equivalent)
	}
	if m.NamespaceSelector == nil {
		m.NamespaceSelector = &metav1.LabelSelector{}
	}
	if m.ObjectSelector == nil {
		m.ObjectSelector = &metav1.LabelSelector{}
	}
	for _, rules := range [][]admissionregistrationv1.NamedRuleWithOperations{m.ResourceRules, m.ExcludeResourceRules} {
		for i := range rules {
			if rules[i].Scope == nil {
				rules[i].Scope = ptr.To(admissionregistrationv1.AllScopes)
			}
		}
	}
}

// DefaultFailurePolicy is the policies' failurePolicy default, Fail.
func DefaultFailurePolicy(p **admissionregistrationv1.FailurePolicyType) {
	if *p == nil {
		*p = ptr.To(admissionregistrationv1.Fail)
	}
}
