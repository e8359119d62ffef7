package fakeplane_test

import (
	"testing"

	"github.com/fakeplane/fakeplane"
)

// The answers below are refplane's (kube-apiserver v1.37.2) to the same
// requests.

// TestJobPoliciesAndDeclarativeFormatsAsKubeAPIServer creates Jobs whose
// pod failure, success and pod replacement policies and manager break
// upstream's rules, a ReplicationController whose generateName upstream
// does not check and one whose name is too long, and a RuntimeClass whose
// handler is: the declarative formats' messages count bytes.
func TestJobPoliciesAndDeclarativeFormatsAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t)
	runRecordedCreates(t, cp, []recordedCreate{
		{
			name: "SuccessPolicyNeedsIndexed", path: "/apis/batch/v1/namespaces/default/jobs",
			body:     `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j1"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"nginx"}]}},"successPolicy":{"rules":[{"succeededCount":1}]}}}`,
			wantCode: 422, wantCauses: []string{"spec.successPolicy FieldValueInvalid"},
			wantMessage: "Job.batch \"j1\" is invalid: spec.successPolicy: Invalid value: {\"Rules\":[{\"SucceededIndexes\":null,\"SucceededCount\":1}]}: requires indexed completion mode",
		},
		{
			name: "SuccessPolicyWithoutRules", path: "/apis/batch/v1/namespaces/default/jobs",
			body:     `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j2"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"nginx"}]}},"completionMode":"Indexed","completions":3,"successPolicy":{"rules":[]}}}`,
			wantCode: 422, wantCauses: []string{"spec.successPolicy.rules FieldValueRequired"},
			wantMessage: "Job.batch \"j2\" is invalid: spec.successPolicy.rules: Required value: at least one rules must be specified when the successPolicy is specified",
		},
		{
			name: "SuccessPolicyRules", path: "/apis/batch/v1/namespaces/default/jobs",
			body:     `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j3"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"nginx"}]}},"completionMode":"Indexed","completions":3,"successPolicy":{"rules":[{},{"succeededIndexes":"0-9","succeededCount":5},{"succeededIndexes":"1,0","succeededCount":-1}]}}}`,
			wantCode: 422, wantCauses: []string{"spec.successPolicy.rules[0] FieldValueRequired", "spec.successPolicy.rules[1].succeededIndexes FieldValueInvalid", "spec.successPolicy.rules[1].succeededCount FieldValueInvalid", "spec.successPolicy.rules[1].succeededCount FieldValueInvalid", "spec.successPolicy.rules[2].succeededIndexes FieldValueInvalid", "spec.successPolicy.rules[2].succeededCount FieldValueInvalid"},
			wantMessage: "Job.batch \"j3\" is invalid: [spec.successPolicy.rules[0]: Required value: at least one of succeededCount or succeededIndexes must be specified, spec.successPolicy.rules[1].succeededIndexes: Invalid value: \"0-9\": error parsing succeededIndexes: too large index: \"9\", spec.successPolicy.rules[1].succeededCount: Invalid value: 5: must be less than or equal to 3 (the number of specified completions), spec.successPolicy.rules[1].succeededCount: Invalid value: 5: must be less than or equal to 0 (the number of indexes in the specified succeededIndexes field), spec.successPolicy.rules[2].succeededIndexes: Invalid value: \"1,0\": error parsing succeededIndexes: non-increasing order, previous: 1, current: 0, spec.successPolicy.rules[2].succeededCount: Invalid value: -1: must be greater than or equal to 0]",
		},
		{
			name: "ManagedByAndReplacementPolicy", path: "/apis/batch/v1/namespaces/default/jobs",
			body:     `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j4"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"nginx"}]}},"managedBy":"bad","podReplacementPolicy":"Bad"}}`,
			wantCode: 422, wantCauses: []string{"spec.managedBy FieldValueInvalid", "spec.podReplacementPolicy FieldValueNotSupported"},
			wantMessage: "Job.batch \"j4\" is invalid: [spec.managedBy: Invalid value: \"bad\": must be a domain-prefixed path (such as \"acme.io/foo\"), spec.podReplacementPolicy: Unsupported value: \"Bad\": supported values: \"Failed\", \"TerminatingOrFailed\"]",
		},
		{
			name: "ManagedByTooLong", path: "/apis/batch/v1/namespaces/default/jobs",
			body:     `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j5"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"nginx"}]}},"managedBy":"a.com/xxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxxx"}}`,
			wantCode: 422, wantCauses: []string{"spec.managedBy FieldValueTooLong"},
			wantMessage: "Job.batch \"j5\" is invalid: spec.managedBy: Too long: may not be more than 63 bytes",
		},
		{
			name: "PodFailurePolicyRules", path: "/apis/batch/v1/namespaces/default/jobs",
			body:     `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j6"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"nginx"}]}},"podReplacementPolicy":"TerminatingOrFailed","podFailurePolicy":{"rules":[{"action":"FailIndex","onPodConditions":[{"type":"a b","status":"Maybe"},{"type":"X"}],"onExitCodes":{"operator":"NotIn","values":[3,3,1],"containerName":"zz"}}]}}}`,
			wantCode: 422, wantCauses: []string{"spec.podFailurePolicy.rules[0].action FieldValueInvalid", "spec.podFailurePolicy.rules[0].onExitCodes.containerName FieldValueInvalid", "spec.podFailurePolicy.rules[0].onExitCodes.values[1] FieldValueDuplicate", "spec.podFailurePolicy.rules[0].onExitCodes.values FieldValueInvalid", "spec.podFailurePolicy.rules[0].onPodConditions[0].type FieldValueInvalid", "spec.podFailurePolicy.rules[0].onPodConditions[0].status FieldValueNotSupported", "spec.podFailurePolicy.rules[0] FieldValueInvalid", "spec.podReplacementPolicy FieldValueNotSupported"},
			wantMessage: "Job.batch \"j6\" is invalid: [spec.podFailurePolicy.rules[0].action: Invalid value: \"FailIndex\": requires the backoffLimitPerIndex to be set, spec.podFailurePolicy.rules[0].onExitCodes.containerName: Invalid value: \"zz\": must be one of the container or initContainer names in the pod template, spec.podFailurePolicy.rules[0].onExitCodes.values[1]: Duplicate value: 3, spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: [3,3,1]: must be ordered, spec.podFailurePolicy.rules[0].onPodConditions[0].type: Invalid value: \"a b\": name part must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]'), spec.podFailurePolicy.rules[0].onPodConditions[0].status: Unsupported value: \"Maybe\": supported values: \"False\", \"True\", \"Unknown\", spec.podFailurePolicy.rules[0]: Invalid value: specifying both OnExitCodes and OnPodConditions is not supported, spec.podReplacementPolicy: Unsupported value: \"TerminatingOrFailed\": supported values: \"Failed\"]",
		},
		{
			name: "PodFailurePolicyEmptyRule", path: "/apis/batch/v1/namespaces/default/jobs",
			body:     `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j7"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"nginx"}]}},"podFailurePolicy":{"rules":[{}]}}}`,
			wantCode: 422, wantCauses: []string{"spec.podFailurePolicy.rules[0].action FieldValueRequired", "spec.podFailurePolicy.rules[0] FieldValueInvalid"},
			wantMessage: "Job.batch \"j7\" is invalid: [spec.podFailurePolicy.rules[0].action: Required value: valid values: [\"Count\" \"FailIndex\" \"FailJob\" \"Ignore\"], spec.podFailurePolicy.rules[0]: Invalid value: specifying one of OnExitCodes and OnPodConditions is required]",
		},
		{
			name: "PodFailurePolicyExitCodes", path: "/apis/batch/v1/namespaces/default/jobs",
			body:     `{"apiVersion":"batch/v1","kind":"Job","metadata":{"name":"j8"},"spec":{"template":{"spec":{"restartPolicy":"Never","containers":[{"name":"c","image":"nginx"}]}},"podFailurePolicy":{"rules":[{"action":"Bad","onExitCodes":{"operator":"In","values":[]}},{"action":"Count","onExitCodes":{"operator":"","values":[0]}}]}}}`,
			wantCode: 422, wantCauses: []string{"spec.podFailurePolicy.rules[0].action FieldValueNotSupported", "spec.podFailurePolicy.rules[0].onExitCodes.values FieldValueInvalid", "spec.podFailurePolicy.rules[1].onExitCodes.operator FieldValueRequired"},
			wantMessage: "Job.batch \"j8\" is invalid: [spec.podFailurePolicy.rules[0].action: Unsupported value: \"Bad\": supported values: \"Count\", \"FailIndex\", \"FailJob\", \"Ignore\", spec.podFailurePolicy.rules[0].onExitCodes.values: Invalid value: []: at least one value is required, spec.podFailurePolicy.rules[1].onExitCodes.operator: Required value: valid values: [\"In\" \"NotIn\"]]",
		},
		{
			name: "RCGenerateNameUnchecked", path: "/api/v1/namespaces/default/replicationcontrollers",
			body:     `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"generateName":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},"spec":{"selector":{"a":"b"},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
			wantCode: 201,
		},
		{
			name: "RCNameTooLongCountsBytes", path: "/api/v1/namespaces/default/replicationcontrollers",
			body:     `{"apiVersion":"v1","kind":"ReplicationController","metadata":{"name":"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa"},"spec":{"selector":{"a":"b"},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"i"}]}}}}`,
			wantCode: 422, wantCauses: []string{"metadata.name FieldValueInvalid"},
			wantMessage: "ReplicationController \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\" is invalid: metadata.name: Invalid value: \"aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa\": must be no more than 253 bytes",
		},
		{
			name: "RuntimeClassHandlerTooLongCountsBytes", path: "/apis/node.k8s.io/v1/runtimeclasses",
			body:     `{"apiVersion":"node.k8s.io/v1","kind":"RuntimeClass","metadata":{"name":"rc2"},"handler":"hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh"}`,
			wantCode: 422, wantCauses: []string{"handler FieldValueInvalid"},
			wantMessage: "RuntimeClass.node.k8s.io \"rc2\" is invalid: handler: Invalid value: \"hhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhhh\": must be no more than 63 bytes",
		},
	})
}
