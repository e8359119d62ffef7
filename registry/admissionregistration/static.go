package admissionregistration

import (
	"fmt"
	"slices"
	"strings"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// StaticConfigSuffix ends the names upstream reserves for the admission
// configurations kube-apiserver loads from manifest files
// (ManifestBasedAdmissionControlConfig, beta and on in v1.37).
const StaticConfigSuffix = ".static.k8s.io"

// staticSuffixMessage is what upstream says of a name with the suffix.
var staticSuffixMessage = fmt.Sprintf("names ending with %q are reserved for static manifest-based configurations and cannot be managed via the API", StaticConfigSuffix)

// ValidateStaticSuffix is upstream's ValidateStaticSuffix: the error of a
// new webhook configuration, policy or binding whose metadata.name ends
// with StaticConfigSuffix.
func ValidateStaticSuffix(name string) field.ErrorList {
	if !strings.HasSuffix(name, StaticConfigSuffix) {
		return nil
	}
	return field.ErrorList{field.Invalid(field.NewPath("metadata", "name"), name, staticSuffixMessage)}
}

// StaticSuffixWarnings is upstream's WarningsForStaticSuffix: the warning
// of an update of an object whose name ends with StaticConfigSuffix (one
// created before the feature was on).
func StaticSuffixWarnings(name string) []string {
	if !strings.HasSuffix(name, StaticConfigSuffix) {
		return nil
	}
	return []string{"metadata.name: " + staticSuffixMessage}
}

// webhookExcluded are the resources admission webhooks never see
// (upstream's exclusion.Excluded): the reviews that are not persisted.
var webhookExcluded = sets.New(
	schema.GroupResource{Group: "authentication.k8s.io", Resource: "selfsubjectreviews"},
	schema.GroupResource{Group: "authentication.k8s.io", Resource: "tokenreviews"},
	schema.GroupResource{Group: "authorization.k8s.io", Resource: "localsubjectaccessreviews"},
	schema.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectaccessreviews"},
	schema.GroupResource{Group: "authorization.k8s.io", Resource: "selfsubjectrulesreviews"},
	schema.GroupResource{Group: "authorization.k8s.io", Resource: "subjectaccessreviews"},
)

// WebhookRuleWarnings is upstream's WarningsForValidatingWebhookRules and
// WarningsForMutatingWebhookRules (ExcludeAdmissionWebhookVirtualResources,
// beta and on in v1.37): a warning for each resource that webhooks never
// see and that a rule names without a wildcard, once per rule, in the
// order the rule's groups and resources give.
func WebhookRuleWarnings(hooks []Webhook) []string {
	var warnings []string
	for i, h := range hooks {
		rules := field.NewPath("webhooks").Index(i).Child("rules")
		for j, r := range h.Rules {
			if slices.Contains(r.APIGroups, "*") || slices.Contains(r.Resources, "*") {
				// What a wildcard means for them is left to the reader.
				continue
			}
			seen := sets.New[schema.GroupResource]()
			for _, g := range r.APIGroups {
				for _, res := range r.Resources {
					gr := schema.GroupResource{Group: g, Resource: res}
					if webhookExcluded.Has(gr) && !seen.Has(gr) {
						seen.Insert(gr)
						warnings = append(warnings, fmt.Sprintf("%s: %s is excluded from admission webhooks; this rule will have no effect", rules.Index(j), gr))
					}
				}
			}
		}
	}
	return warnings
}
