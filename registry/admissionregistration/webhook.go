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
