package flowschema

import (
	"context"
	"testing"

	flowcontrolv1 "k8s.io/api/flowcontrol/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane/internal/validate/validatetest"
)

// flowSchema returns a valid FlowSchema named name, changed by edit.
func flowSchema(name string, edit func(*flowcontrolv1.FlowSchemaSpec)) *flowcontrolv1.FlowSchema {
	fs := &flowcontrolv1.FlowSchema{
		ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: flowcontrolv1.FlowSchemaSpec{
			PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "global-default"},
			MatchingPrecedence:         500,
			Rules: []flowcontrolv1.PolicyRulesWithSubjects{{
				Subjects:         []flowcontrolv1.Subject{{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "u"}}},
				NonResourceRules: []flowcontrolv1.NonResourcePolicyRule{{Verbs: []string{"get"}, NonResourceURLs: []string{"/healthz"}}},
			}},
		},
	}
	if edit != nil {
		edit(&fs.Spec)
	}
	return fs
}

// TestFlowSchemaValidation checks upstream's rules for a FlowSchema's spec
// with upstream's messages (those a v1.37 kube-apiserver answered).
func TestFlowSchemaValidation(t *testing.T) {
	const (
		subdomain = "a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')"
		label     = "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')"
		verbs     = `supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"`
	)
	user := flowcontrolv1.Subject{Kind: flowcontrolv1.SubjectKindUser, User: &flowcontrolv1.UserSubject{Name: "u"}}
	for _, tc := range []struct {
		name string
		fs   *flowcontrolv1.FlowSchema
		want []string
	}{
		{name: "a valid schema", fs: flowSchema("s", nil)},
		{name: "the matching precedence is at most 10000", fs: flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) { s.MatchingPrecedence = 20000 }),
			want: []string{"spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000"}},
		{name: "the matching precedence is positive", fs: flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) { s.MatchingPrecedence = -1 }),
			want: []string{"spec.matchingPrecedence: Invalid value: -1: must be a positive value"}},
		{name: "only exempt has precedence 1", fs: flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) { s.MatchingPrecedence = 1 }),
			want: []string{"spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1"}},
		{name: "a priority level is required", fs: flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) { s.PriorityLevelConfiguration.Name = "" }),
			want: []string{"spec.priorityLevelConfiguration.name: Required value: must reference a priority level"}},
		{name: "the priority level's name is a DNS subdomain", fs: flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) { s.PriorityLevelConfiguration.Name = "Bad_Name" }),
			want: []string{`spec.priorityLevelConfiguration.name: Invalid value: "Bad_Name": ` + subdomain}},
		{name: "the distinguisher method shows whole", fs: flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) {
			s.DistinguisherMethod = &flowcontrolv1.FlowDistinguisherMethod{Type: "Foo"}
		}), want: []string{`spec.distinguisherMethod.type: Unsupported value: {"Type":"Foo"}: supported values: "ByNamespace", "ByUser"`}},
		{name: "a rule has subjects and rules", fs: flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) { s.Rules = []flowcontrolv1.PolicyRulesWithSubjects{{}} }),
			want: []string{
				"spec.rules[0].subjects: Required value: subjects must contain at least one value",
				"spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty",
			}},
		{name: "a subject gives what its kind names and nothing else", fs: flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) {
			s.Rules[0].Subjects = []flowcontrolv1.Subject{
				{Kind: flowcontrolv1.SubjectKindServiceAccount},
				{Kind: flowcontrolv1.SubjectKindUser, Group: &flowcontrolv1.GroupSubject{Name: "g"}},
				{Kind: flowcontrolv1.SubjectKindGroup, User: &flowcontrolv1.UserSubject{Name: "u"}, ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Name: "s", Namespace: "n"}},
				{Kind: "Foo"},
				{Kind: flowcontrolv1.SubjectKindGroup, Group: &flowcontrolv1.GroupSubject{}},
				{Kind: flowcontrolv1.SubjectKindServiceAccount, ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Name: "Bad_SA"}},
				{Kind: flowcontrolv1.SubjectKindServiceAccount, ServiceAccount: &flowcontrolv1.ServiceAccountSubject{Name: "*", Namespace: "Bad_NS"}},
			}
		}), want: []string{
			"spec.rules[0].subjects[0].serviceAccount: Required value: serviceAccount is required when subject kind is 'ServiceAccount'",
			"spec.rules[0].subjects[1].user: Required value: user is required when subject kind is 'User'",
			"spec.rules[0].subjects[1].group: Forbidden: group is forbidden when subject kind is not 'Group'",
			"spec.rules[0].subjects[2].group: Required value: group is required when subject kind is 'Group'",
			"spec.rules[0].subjects[2].serviceAccount: Forbidden: serviceAccount is forbidden when subject kind is not 'ServiceAccount'",
			"spec.rules[0].subjects[2].user: Forbidden: user is forbidden when subject kind is not 'User'",
			`spec.rules[0].subjects[3].kind: Unsupported value: "Foo": supported values: "Group", "ServiceAccount", "User"`,
			"spec.rules[0].subjects[4].group.name: Required value",
			`spec.rules[0].subjects[5].serviceAccount.name: Invalid value: "Bad_SA": ` + subdomain,
			"spec.rules[0].subjects[5].serviceAccount.namespace: Required value: must specify namespace for service account",
			`spec.rules[0].subjects[6].serviceAccount.namespace: Invalid value: "Bad_NS": ` + label,
		}},
		{name: "resource rules name verbs, groups, resources and namespaces", fs: flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) {
			s.Rules = []flowcontrolv1.PolicyRulesWithSubjects{{Subjects: []flowcontrolv1.Subject{user}, ResourceRules: []flowcontrolv1.ResourcePolicyRule{
				{},
				{Verbs: []string{"*", "get"}, APIGroups: []string{"*", "apps"}, Resources: []string{"*", "pods"}, Namespaces: []string{"*", "a"}},
				{Verbs: []string{"get", "foo"}, APIGroups: []string{"apps"}, Resources: []string{"pods"}, Namespaces: []string{"Bad_NS"}},
				{Verbs: []string{"get"}, APIGroups: []string{"*"}, Resources: []string{"*"}, ClusterScope: true},
			}}}
		}), want: []string{
			"spec.rules[0].resourceRules[0].verbs: Required value: verbs must contain at least one value",
			"spec.rules[0].resourceRules[0].apiGroups: Required value: resource rules must supply at least one api group",
			"spec.rules[0].resourceRules[0].resources: Required value: resource rules must supply at least one resource",
			"spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace",
			`spec.rules[0].resourceRules[1].verbs: Invalid value: ["*","get"]: if '*' is present, must not specify other verbs`,
			`spec.rules[0].resourceRules[1].apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other api groups`,
			`spec.rules[0].resourceRules[1].resources: Invalid value: ["*","pods"]: if '*' is present, must not specify other resources`,
			`spec.rules[0].resourceRules[1].namespaces: Invalid value: ["*","a"]: if '*' is present, must not specify other namespaces`,
			`spec.rules[0].resourceRules[2].verbs: Unsupported value: ["get","foo"]: ` + verbs,
			`spec.rules[0].resourceRules[2].namespaces[0]: Invalid value: "Bad_NS": each member of this list must be '*' or a DNS-1123 label; ` + label,
		}},
		{name: "non-resource URLs start with a slash and end in a wildcard if any", fs: flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) {
			s.Rules[0].NonResourceRules = []flowcontrolv1.NonResourcePolicyRule{
				{},
				{Verbs: []string{"*", "get"}, NonResourceURLs: []string{"*", "/a"}},
				{Verbs: []string{"list"}, NonResourceURLs: []string{"", "noslash", "/a b", "/a//b", "/a*", "/*/x", "/a/*", "/", "/healthz/**"}},
			}
		}), want: []string{
			"spec.rules[0].nonResourceRules[0].verbs: Required value: verbs must contain at least one value",
			"spec.rules[0].nonResourceRules[0].nonResourceURLs: Required value: nonResourceURLs must contain at least one value",
			`spec.rules[0].nonResourceRules[1].verbs: Invalid value: ["*","get"]: if '*' is present, must not specify other verbs`,
			`spec.rules[0].nonResourceRules[1].nonResourceURLs: Invalid value: ["*","/a"]: if '*' is present, must not specify other non-resource URLs`,
			`spec.rules[0].nonResourceRules[2].nonResourceURLs[0]: Invalid value: "": must not be empty`,
			`spec.rules[0].nonResourceRules[2].nonResourceURLs[1]: Invalid value: "noslash": must start with slash`,
			`spec.rules[0].nonResourceRules[2].nonResourceURLs[2]: Invalid value: "/a b": must not contain white-space`,
			`spec.rules[0].nonResourceRules[2].nonResourceURLs[3]: Invalid value: "/a//b": must not contain double slash`,
			`spec.rules[0].nonResourceRules[2].nonResourceURLs[4]: Invalid value: "/a*": wildcard can only do suffix matching`,
			`spec.rules[0].nonResourceRules[2].nonResourceURLs[5]: Invalid value: "/*/x": wildcard can only do suffix matching`,
			`spec.rules[0].nonResourceRules[2].nonResourceURLs[8]: Invalid value: "/healthz/**": wildcard can only do suffix matching`,
		}},
		{name: "the mandatory exempt schema's spec is fixed, shown in its internal form", fs: flowSchema("exempt", func(s *flowcontrolv1.FlowSchemaSpec) {
			*s = flowcontrolv1.FlowSchemaSpec{PriorityLevelConfiguration: flowcontrolv1.PriorityLevelConfigurationReference{Name: "exempt"}, MatchingPrecedence: 1}
		}), want: []string{`spec: Invalid value: {"PriorityLevelConfiguration":{"Name":"exempt"},"MatchingPrecedence":1,"DistinguisherMethod":null,"Rules":null}: spec of 'exempt' must equal the fixed value`}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), tc.fs), tc.want)
			validatetest.ExpectErrors(t, Strategy.ValidateUpdate(context.Background(), tc.fs, flowSchema(tc.fs.Name, nil)), tc.want)
		})
	}
}

// TestFlowSchemaMatchingPrecedenceDefault checks the v1 default of an
// omitted matching precedence, 1000, which makes a schema without one
// valid.
func TestFlowSchemaMatchingPrecedenceDefault(t *testing.T) {
	fs := flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) { s.MatchingPrecedence = 0 })
	Strategy.Default(fs)
	if fs.Spec.MatchingPrecedence != 1000 {
		t.Errorf("matchingPrecedence %d, want 1000", fs.Spec.MatchingPrecedence)
	}
	validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), fs), nil)
}

// TestFlowSchemaStatusValidation checks that a write to /status checks the
// conditions alone: a type each, no type twice.
func TestFlowSchemaStatusValidation(t *testing.T) {
	fs := flowSchema("s", func(s *flowcontrolv1.FlowSchemaSpec) { s.MatchingPrecedence = 20000 })
	fs.Status.Conditions = []flowcontrolv1.FlowSchemaCondition{{}, {Type: "A"}, {Type: "A"}}
	validatetest.ExpectErrors(t, Strategy.ValidateStatusUpdate(context.Background(), fs, flowSchema("s", nil)), []string{
		"status.conditions[0].type: Required value",
		`status.conditions[2].type: Duplicate value: "A"`,
	})
}

// TestBootstrapFlowSchemasAreValid checks that the FlowSchemas fakeplane
// creates at start (captured from kube-apiserver) pass the validation, the
// mandatory ones included.
func TestBootstrapFlowSchemasAreValid(t *testing.T) {
	objs := validatetest.BootstrapObjects[flowcontrolv1.FlowSchema](t, "FlowSchema")
	for i := range objs {
		fs := &objs[i]
		Strategy.Default(fs)
		validatetest.ExpectErrors(t, Strategy.Validate(context.Background(), fs), nil)
		validatetest.ExpectErrors(t, Strategy.ValidateUpdate(context.Background(), fs, fs), nil)
	}
	if len(objs) != 11 {
		t.Errorf("%d bootstrap FlowSchemas, want 11", len(objs))
	}
}
