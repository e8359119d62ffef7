package printers

import (
	"time"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
)

// admissionregistration returns the printers of the admissionregistration.k8s.io group's resources, by resource.
func admissionregistration() map[string]Printer {
	return map[string]Printer{
		"validatingadmissionpolicies": {
			cells: typed(func(p *admissionregistrationv1.ValidatingAdmissionPolicy, now time.Time) []any {
				return []any{p.Name, int64(len(p.Spec.Validations)), paramKindString(p.Spec.ParamKind), age(now, p.CreationTimestamp)}
			}),
		},
		"mutatingadmissionpolicies": {
			cells: typed(func(p *admissionregistrationv1.MutatingAdmissionPolicy, now time.Time) []any {
				return []any{p.Name, int64(len(p.Spec.Mutations)), paramKindString(p.Spec.ParamKind), age(now, p.CreationTimestamp)}
			}),
		},
		"validatingadmissionpolicybindings": {
			cells: typed(func(b *admissionregistrationv1.ValidatingAdmissionPolicyBinding, now time.Time) []any {
				return []any{b.Name, b.Spec.PolicyName, paramRefString(b.Spec.ParamRef), age(now, b.CreationTimestamp)}
			}),
		},
		"mutatingadmissionpolicybindings": {
			cells: typed(func(b *admissionregistrationv1.MutatingAdmissionPolicyBinding, now time.Time) []any {
				return []any{b.Name, b.Spec.PolicyName, paramRefString(b.Spec.ParamRef), age(now, b.CreationTimestamp)}
			}),
		},
		"mutatingwebhookconfigurations": {
			cells: typed(func(w *admissionregistrationv1.MutatingWebhookConfiguration, now time.Time) []any {
				return []any{w.Name, int64(len(w.Webhooks)), age(now, w.CreationTimestamp)}
			}),
		},
		"validatingwebhookconfigurations": {
			cells: typed(func(w *admissionregistrationv1.ValidatingWebhookConfiguration, now time.Time) []any {
				return []any{w.Name, int64(len(w.Webhooks)), age(now, w.CreationTimestamp)}
			}),
		},
	}
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
