package fakeplane_test

import (
	"strings"
	"testing"

	"github.com/fakeplane/fakeplane"
)

// Messages of upstream's name rules that the tests below expect.
const (
	fcSubdomain = `a lowercase RFC 1123 subdomain must consist of lower case alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	fcCaseless  = `an RFC 1123 subdomain must consist of alphanumeric characters, '-' or '.', and must start and end with an alphanumeric character (e.g. 'Example.com', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?(\.[a-z0-9]([-a-z0-9]*[a-z0-9])?)*')`
	fcLabel     = `a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')`
	fcVerbs     = `supported values: "create", "delete", "deletecollection", "get", "list", "patch", "proxy", "update", "watch"`
)

// TestFlowSchemaSpecValidation checks the rules of FlowSchemas (their spec,
// the fixed spec of the mandatory schemas, the status) against the answers
// of a real v1.37 kube-apiserver (recorded with refplane): every message
// is the one it answered.
func TestFlowSchemaSpecValidation(t *testing.T) {
	t.Parallel()
	fss := "/apis/flowcontrol.apiserver.k8s.io/v1/flowschemas"
	const invalid = `FlowSchema.flowcontrol.apiserver.k8s.io "h44-a" is invalid: `
	const user = `"subjects":[{"kind":"User","user":{"name":"u"}}]`
	runWriteCases(t, fakeplane.Start(t), []writeCase{
		{"the matching precedence is at most 10000", "POST", fss, `{"metadata":{"name":"h44-a"},"spec":{"priorityLevelConfiguration":{"name":"global-default"},"matchingPrecedence":20000}}`, 422,
			invalid + `spec.matchingPrecedence: Invalid value: 20000: must not be greater than 10000`},
		{"only the exempt schema has precedence 1", "POST", fss, `{"metadata":{"name":"h44-a"},"spec":{"priorityLevelConfiguration":{"name":"global-default"},"matchingPrecedence":1}}`, 422,
			invalid + `spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1`},
		{"a priority level is required", "POST", fss, `{"metadata":{"name":"h44-a"},"spec":{"priorityLevelConfiguration":{"name":""}}}`, 422,
			invalid + `spec.priorityLevelConfiguration.name: Required value: must reference a priority level`},
		{"an unknown distinguisher method shows whole", "POST", fss, `{"metadata":{"name":"h44-a"},"spec":{"priorityLevelConfiguration":{"name":"x"},"distinguisherMethod":{"type":"Foo"}}}`, 422,
			invalid + `spec.distinguisherMethod.type: Unsupported value: {"Type":"Foo"}: supported values: "ByNamespace", "ByUser"`},
		{"a rule has subjects and rules", "POST", fss, `{"metadata":{"name":"h44-a"},"spec":{"priorityLevelConfiguration":{"name":"x"},"rules":[{}]}}`, 422,
			invalid + `[spec.rules[0].subjects: Required value: subjects must contain at least one value, spec.rules[0]: Required value: at least one of resourceRules and nonResourceRules has to be non-empty]`},
		{"a subject gives what its kind names", "POST", fss, `{"metadata":{"name":"h44-a"},"spec":{"priorityLevelConfiguration":{"name":"x"},"rules":[{"subjects":[{"kind":"ServiceAccount"},{"kind":"User","group":{"name":"g"}},{"kind":"Foo"},{"kind":"ServiceAccount","serviceAccount":{"name":"*","namespace":"Bad_NS"}}],"nonResourceRules":[{"verbs":["*"],"nonResourceURLs":["*"]}]}]}}`, 422,
			invalid + `[spec.rules[0].subjects[0].serviceAccount: Required value: serviceAccount is required when subject kind is 'ServiceAccount', spec.rules[0].subjects[1].user: Required value: user is required when subject kind is 'User', spec.rules[0].subjects[1].group: Forbidden: group is forbidden when subject kind is not 'Group', spec.rules[0].subjects[2].kind: Unsupported value: "Foo": supported values: "Group", "ServiceAccount", "User", spec.rules[0].subjects[3].serviceAccount.namespace: Invalid value: "Bad_NS": ` + fcLabel + `]`},
		{"resource rules name verbs, groups, resources and namespaces", "POST", fss, `{"metadata":{"name":"h44-a"},"spec":{"priorityLevelConfiguration":{"name":"x"},"rules":[{` + user + `,"resourceRules":[{},{"verbs":["*","get"],"apiGroups":["*","apps"],"resources":["pods"],"clusterScope":true},{"verbs":["get","foo"],"apiGroups":["apps"],"resources":["pods"],"namespaces":["Bad_NS"]}]}]}}`, 422,
			invalid + `[spec.rules[0].resourceRules[0].verbs: Required value: verbs must contain at least one value, spec.rules[0].resourceRules[0].apiGroups: Required value: resource rules must supply at least one api group, spec.rules[0].resourceRules[0].resources: Required value: resource rules must supply at least one resource, spec.rules[0].resourceRules[0].namespaces: Required value: resource rules that are not cluster scoped must supply at least one namespace, spec.rules[0].resourceRules[1].verbs: Invalid value: ["*","get"]: if '*' is present, must not specify other verbs, spec.rules[0].resourceRules[1].apiGroups: Invalid value: ["*","apps"]: if '*' is present, must not specify other api groups, spec.rules[0].resourceRules[2].verbs: Unsupported value: ["get","foo"]: ` + fcVerbs + `, spec.rules[0].resourceRules[2].namespaces[0]: Invalid value: "Bad_NS": each member of this list must be '*' or a DNS-1123 label; ` + fcLabel + `]`},
		{"non-resource URLs", "POST", fss, `{"metadata":{"name":"h44-a"},"spec":{"priorityLevelConfiguration":{"name":"x"},"rules":[{` + user + `,"nonResourceRules":[{"verbs":["get"],"nonResourceURLs":["noslash","/a//b","/a*","/a/*","/"]}]}]}}`, 422,
			invalid + `[spec.rules[0].nonResourceRules[0].nonResourceURLs[0]: Invalid value: "noslash": must start with slash, spec.rules[0].nonResourceRules[0].nonResourceURLs[1]: Invalid value: "/a//b": must not contain double slash, spec.rules[0].nonResourceRules[0].nonResourceURLs[2]: Invalid value: "/a*": wildcard can only do suffix matching]`},
		{"metadata errors come first", "POST", fss, `{"metadata":{"name":"Bad_Name"},"spec":{"priorityLevelConfiguration":{"name":"x"},"matchingPrecedence":-5}}`, 422,
			`FlowSchema.flowcontrol.apiserver.k8s.io "Bad_Name" is invalid: [metadata.name: Invalid value: "Bad_Name": ` + fcSubdomain + `, spec.matchingPrecedence: Invalid value: -5: must be a positive value]`},
		{"a schema without a precedence gets the default", "POST", fss, `{"metadata":{"name":"h44-fs1"},"spec":{"priorityLevelConfiguration":{"name":"global-default"},"rules":[{` + user + `,"resourceRules":[{"verbs":["get"],"apiGroups":[""],"resources":["pods"],"namespaces":["default"]}]}]}}`, 201, ""},
		{"an update is validated as a create", "PUT", fss + "/h44-fs1", `{"metadata":{"name":"h44-fs1"},"spec":{"priorityLevelConfiguration":{"name":"global-default"},"matchingPrecedence":1,"distinguisherMethod":{"type":"ByWhat"}}}`, 422,
			`FlowSchema.flowcontrol.apiserver.k8s.io "h44-fs1" is invalid: [spec.matchingPrecedence: Invalid value: 1: only the schema named 'exempt' may have matchingPrecedence 1, spec.distinguisherMethod.type: Unsupported value: {"Type":"ByWhat"}: supported values: "ByNamespace", "ByUser"]`},
		{"a write to /status checks the conditions", "PUT", fss + "/h44-fs1/status", `{"metadata":{"name":"h44-fs1"},"spec":{"priorityLevelConfiguration":{"name":"global-default"},"matchingPrecedence":20000},"status":{"conditions":[{"type":""},{"type":"A","status":"True"},{"type":"A"}]}}`, 422,
			`FlowSchema.flowcontrol.apiserver.k8s.io "h44-fs1" is invalid: [status.conditions[0].type: Required value, status.conditions[2].type: Duplicate value: "A"]`},
		{"the exempt schema's spec is fixed", "PUT", fss + "/exempt", `{"metadata":{"name":"exempt"},"spec":{"priorityLevelConfiguration":{"name":"exempt"},"matchingPrecedence":1}}`, 422,
			`FlowSchema.flowcontrol.apiserver.k8s.io "exempt" is invalid: spec: Invalid value: {"PriorityLevelConfiguration":{"Name":"exempt"},"MatchingPrecedence":1,"DistinguisherMethod":null,"Rules":null}: spec of 'exempt' must equal the fixed value`},
		{"so is the catch-all schema's", "PUT", fss + "/catch-all", `{"metadata":{"name":"catch-all"},"spec":{"priorityLevelConfiguration":{"name":"catch-all"},"matchingPrecedence":10000}}`, 422,
			`FlowSchema.flowcontrol.apiserver.k8s.io "catch-all" is invalid: spec: Invalid value: {"PriorityLevelConfiguration":{"Name":"catch-all"},"MatchingPrecedence":10000,"DistinguisherMethod":null,"Rules":null}: spec of 'catch-all' must equal the fixed value`},
	})
}

// TestPriorityLevelConfigurationSpecValidation checks the rules of
// PriorityLevelConfigurations (their spec, declarative union rules
// answered last, the mandatory levels' fixed spec, the status) against the
// answers of a real v1.37 kube-apiserver (recorded with refplane): every
// message is the one it answered.
func TestPriorityLevelConfigurationSpecValidation(t *testing.T) {
	t.Parallel()
	pls := "/apis/flowcontrol.apiserver.k8s.io/v1/prioritylevelconfigurations"
	const invalid = `PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "h44-a" is invalid: `
	const exemptOnly = "must be 'Exempt' if and only if `name` is 'exempt'"
	runWriteCases(t, fakeplane.Start(t), []writeCase{
		{"shares and percents are in range", "POST", pls, `{"metadata":{"name":"h44-a"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":-1,"lendablePercent":101,"borrowingLimitPercent":-1,"limitResponse":{"type":"Reject"}}}}`, 422,
			invalid + `[spec.limited.nominalConcurrencyShares: Invalid value: -1: must be a non-negative integer, spec.limited.lendablePercent: Invalid value: 101: must be between 0 and 100, inclusive, spec.limited.borrowingLimitPercent: Invalid value: -1: if specified, must be a non-negative integer]`},
		{"Queue needs queuing", "POST", pls, `{"metadata":{"name":"h44-a"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue"}}}}`, 422,
			invalid + `spec.limited.limitResponse.queuing: Required value`},
		{"an unknown limit response type takes no queuing", "POST", pls, `{"metadata":{"name":"h44-a"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Foo","queuing":{}}}}}`, 422,
			invalid + `[spec.limited.limitResponse.type: Unsupported value: "Foo": supported values: "Queue", "Reject", spec.limited.limitResponse.queuing: Forbidden]`},
		{"a type is required and its members forbidden without one", "POST", pls, `{"metadata":{"name":"h44-a"},"spec":{"limited":{"limitResponse":{"type":"Reject"}},"exempt":{}}}`, 422,
			invalid + `[spec.exempt: Forbidden, spec.limited: Forbidden, spec.type: Required value]`},
		{"only the exempt level is Exempt, and limited is validated anyway", "POST", pls, `{"metadata":{"name":"h44-a"},"spec":{"type":"Exempt","limited":{"limitResponse":{}}}}`, 422,
			invalid + `[spec.type: Invalid value: "Exempt": ` + exemptOnly + `, spec.limited: Forbidden, spec.limited.limitResponse.type: Required value]`},
		{"shuffle sharding can deal the hand", "POST", pls, `{"metadata":{"name":"h44-a"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue","queuing":{"queues":10000000,"handSize":8}}}}}`, 422,
			invalid + `spec.limited.limitResponse.queuing.handSize: Invalid value: 8: required entropy bits of deckSize 10000000 and handSize 8 should not be greater than 60`},
		{"the round-trip annotation is refused after the metadata errors", "POST", pls, `{"metadata":{"name":"Bad_N","annotations":{"flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares":""}},"spec":{"limited":{"limitResponse":{"type":"Reject"}}}}`, 422,
			`PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "Bad_N" is invalid: [metadata.name: Invalid value: "Bad_N": ` + fcSubdomain + `, metadata.annotations: Forbidden: annotation 'flowcontrol.k8s.io/v1beta3-preserve-zero-concurrency-shares' is forbidden, spec.limited: Forbidden, spec.type: Required value]`},
		{"a defaulted level is valid", "POST", pls, `{"metadata":{"name":"h44-pl1"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Queue","queuing":{"queues":16}}}}}`, 201, ""},
		{"an update checks the limit response", "PUT", pls + "/h44-pl1", `{"metadata":{"name":"h44-pl1"},"spec":{"type":"Limited","limited":{"limitResponse":{"type":"Reject","queuing":{"queues":16}}}}}`, 422,
			`PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "h44-pl1" is invalid: spec.limited.limitResponse.queuing: Forbidden`},
		{"a write to /status checks the conditions", "PUT", pls + "/h44-pl1/status", `{"metadata":{"name":"h44-pl1"},"spec":{"type":"Exempt"},"status":{"conditions":[{"type":""},{"type":"A","status":"True"},{"type":"A"}]}}`, 422,
			`PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "h44-pl1" is invalid: [status.conditions[0].type: Required value, status.conditions[2].type: Duplicate value: "A"]`},
		{"the exempt level stays Exempt", "PUT", pls + "/exempt", `{"metadata":{"name":"exempt"},"spec":{"type":"Limited","exempt":{"nominalConcurrencyShares":0,"lendablePercent":0}}}`, 422,
			`PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "exempt" is invalid: [spec.type: Invalid value: "Limited": ` + exemptOnly + `, spec: Invalid value: {"Type":"Limited","Limited":null,"Exempt":{"NominalConcurrencyShares":0,"LendablePercent":0}}: spec of 'exempt' except the 'spec.exempt' field must equal the fixed value, spec.exempt: Forbidden, spec.limited: Required value]`},
		{"the catch-all level's spec is fixed", "PUT", pls + "/catch-all", `{"metadata":{"name":"catch-all"},"spec":{"type":"Limited","limited":{"nominalConcurrencyShares":6,"lendablePercent":0,"limitResponse":{"type":"Reject"}}}}`, 422,
			`PriorityLevelConfiguration.flowcontrol.apiserver.k8s.io "catch-all" is invalid: spec: Invalid value: {"Type":"Limited","Limited":{"NominalConcurrencyShares":6,"LimitResponse":{"Type":"Reject","Queuing":null},"LendablePercent":0,"BorrowingLimitPercent":null},"Exempt":null}: spec of 'catch-all' must equal the fixed value`},
		{"but the exempt level's exempt may change", "PUT", pls + "/exempt", `{"metadata":{"name":"exempt"},"spec":{"type":"Exempt","exempt":{"nominalConcurrencyShares":7,"lendablePercent":10}}}`, 200, ""},
	})
}

// TestVolumeAttachmentSpecValidation checks the rules of VolumeAttachments
// (the attacher, whose declarative errors come last, the source, the node,
// an immutable spec, the status) against the answers of a real v1.37
// kube-apiserver (recorded with refplane): every message is the one it
// answered.
func TestVolumeAttachmentSpecValidation(t *testing.T) {
	t.Parallel()
	vas := "/apis/storage.k8s.io/v1/volumeattachments"
	const invalid = `VolumeAttachment.storage.k8s.io "h44-a" is invalid: `
	runWriteCases(t, fakeplane.Start(t), []writeCase{
		{"an empty spec", "POST", vas, `{"metadata":{"name":"h44-a"},"spec":{}}`, 422,
			invalid + `[spec.source: Required value: must specify exactly one of inlineVolumeSpec and persistentVolumeName, spec.nodeName: Invalid value: "": ` + fcSubdomain + `, spec.attacher: Required value]`},
		{"names are DNS subdomains, the attacher's in any case", "POST", vas, `{"metadata":{"name":"h44-a"},"spec":{"attacher":"Bad_Attacher","nodeName":"Bad_Node","source":{"persistentVolumeName":""}}}`, 422,
			invalid + `[spec.source.persistentVolumeName: Required value: must specify non empty persistentVolumeName, spec.nodeName: Invalid value: "Bad_Node": ` + fcSubdomain + `, spec.source.persistentVolumeName: Invalid value: "": ` + fcSubdomain + `, spec.attacher: Invalid value: "Bad_Attacher": ` + fcCaseless + `]`},
		{"an attacher has at most 63 characters", "POST", vas, `{"metadata":{"name":"h44-a"},"spec":{"attacher":"` + strings.Repeat("a", 64) + `","nodeName":"n1","source":{"persistentVolumeName":"Bad_PV"}}}`, 422,
			invalid + `[spec.source.persistentVolumeName: Invalid value: "Bad_PV": ` + fcSubdomain + `, spec.attacher: Too long: may not be more than 63 characters]`},
		{"one source", "POST", vas, `{"metadata":{"name":"h44-a"},"spec":{"attacher":"csi.example.com","nodeName":"n1","source":{"persistentVolumeName":"pv","inlineVolumeSpec":{}}}}`, 422,
			invalid + `spec.source: Forbidden: must specify exactly one of inlineVolumeSpec and persistentVolumeName`},
		{"an inline volume is a csi volume", "POST", vas, `{"metadata":{"name":"h44-a"},"spec":{"attacher":"csi.example.com","nodeName":"n1","source":{"inlineVolumeSpec":{}}}}`, 422,
			invalid + `[spec.source.inlineVolumeSpec.csi: Required value: has to be specified in the context of inline volumes, spec.source.inlineVolumeSpec.accessModes: Required value, spec.source.inlineVolumeSpec: Required value: must specify a volume type]`},
		{"a valid attachment", "POST", vas, `{"metadata":{"name":"h44-va1"},"spec":{"attacher":"csi.example.com","nodeName":"n1","source":{"persistentVolumeName":"pv"}}}`, 201, ""},
		{"the spec is immutable", "PUT", vas + "/h44-va1", `{"metadata":{"name":"h44-va1","resourceVersion":"RV"},"spec":{"attacher":"csi.example.com","nodeName":"n2","source":{"persistentVolumeName":"pv"}}}`, 422,
			`VolumeAttachment.storage.k8s.io "h44-va1" is invalid: spec: Invalid value: null: field is immutable`},
		{"a write to /status checks the status", "PUT", vas + "/h44-va1/status", `{"metadata":{"name":"h44-va1","resourceVersion":"RV"},"spec":{"attacher":"csi.example.com","nodeName":"n1","source":{"persistentVolumeName":"pv"}},"status":{"attached":true,"attachError":{"message":"` + strings.Repeat("m", 1025) + `","errorCode":-1}}}`, 422,
			`VolumeAttachment.storage.k8s.io "h44-va1" is invalid: [status.attachError.message: Too long: may not be more than 1024 bytes, status.attachError.errorCode: Invalid value: -1: must be between 0 and 2147483647, inclusive]`},
		{"and takes a valid one", "PUT", vas + "/h44-va1/status", `{"metadata":{"name":"h44-va1","resourceVersion":"RV"},"spec":{"attacher":"csi.example.com","nodeName":"n1","source":{"persistentVolumeName":"pv"}},"status":{"attached":true,"attachError":{"message":"m","errorCode":5}}}`, 200, ""},
	})
}

// TestCSINodeSpecValidation checks the rules of CSINodes (each driver's
// name, node ID, allocatable count and topology keys, a driver's entry kept
// by updates but for its count) against the answers of a real v1.37
// kube-apiserver (recorded with refplane): every message is the one it
// answered.
func TestCSINodeSpecValidation(t *testing.T) {
	t.Parallel()
	cns := "/apis/storage.k8s.io/v1/csinodes"
	const invalid = `CSINode.storage.k8s.io "h44-a" is invalid: `
	longID := strings.Repeat("n", 257)
	runWriteCases(t, fakeplane.Start(t), []writeCase{
		{"a driver has a name and a node ID", "POST", cns, `{"metadata":{"name":"h44-a"},"spec":{"drivers":[{}]}}`, 422,
			invalid + `[spec.drivers[0].name: Required value, spec.drivers[0].nodeID: Required value]`},
		{"each driver's fields, a topology key's errors at the driver", "POST", cns, `{"metadata":{"name":"h44-a"},"spec":{"drivers":[{"name":"d.io","nodeID":"x","topologyKeys":["a","a","example.com/b/c"],"allocatable":{"count":-1}},{"name":"d.io","nodeID":"` + longID + `"}]}}`, 422,
			invalid + `[spec.drivers[0].allocatable.count: Invalid value: -1: must be greater than or equal to 0, spec.drivers[0]: Duplicate value: "a", spec.drivers[0]: Invalid value: "example.com/b/c": a valid label key must consist of alphanumeric characters, '-', '_' or '.', and must start and end with an alphanumeric character (e.g. 'MyName',  or 'my.name',  or '123-abc', regex used for validation is '([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]') with an optional DNS subdomain prefix and '/' (e.g. 'example.com/MyName'), spec.drivers[1].nodeID: Invalid value: "` + longID + `": must be 256 characters or less, spec.drivers[1].name: Duplicate value: "d.io"]`},
		{"no drivers is valid", "POST", cns, `{"metadata":{"name":"h44-a"},"spec":{}}`, 201, ""},
		{"a valid CSINode", "POST", cns, `{"metadata":{"name":"h44-cn1"},"spec":{"drivers":[{"name":"d.io","nodeID":"n1","topologyKeys":["k"],"allocatable":{"count":3}}]}}`, 201, ""},
		{"a driver's node ID is kept", "PUT", cns + "/h44-cn1", `{"metadata":{"name":"h44-cn1","resourceVersion":"RV"},"spec":{"drivers":[{"name":"d.io","nodeID":"n2","topologyKeys":["k"],"allocatable":{"count":5}}]}}`, 422,
			`CSINode.storage.k8s.io "h44-cn1" is invalid: spec.drivers: Invalid value: {"Name":"d.io","NodeID":"n2","TopologyKeys":["k"],"Allocatable":null}: field is immutable`},
		{"its allocatable count may change", "PUT", cns + "/h44-cn1", `{"metadata":{"name":"h44-cn1","resourceVersion":"RV"},"spec":{"drivers":[{"name":"d.io","nodeID":"n1","topologyKeys":["k"],"allocatable":{"count":5}}]}}`, 200, ""},
	})
}

// TestIPAddressSpecValidation checks the rules of IPAddresses (a name that
// is an IP address in canonical form, a generateName taken as the name, a
// parent reference required, whose declarative errors come last, and kept
// by updates) against the answers of a real v1.37 kube-apiserver (recorded
// with refplane): every message is the one it answered.
func TestIPAddressSpecValidation(t *testing.T) {
	t.Parallel()
	ips := "/apis/networking.k8s.io/v1/ipaddresses"
	const parent = `"spec":{"parentRef":{"resource":"services","name":"s","namespace":"default"}}`
	const notIP = `must be a valid IP address, (e.g. 10.9.8.7 or 2001:db8::ffff)`
	runWriteCases(t, fakeplane.Start(t), []writeCase{
		{"a name is an IP address", "POST", ips, `{"metadata":{"name":"abc"},` + parent + `}`, 422,
			`IPAddress.networking.k8s.io "abc" is invalid: metadata.name: Invalid value: "abc": ` + notIP},
		{"in canonical form", "POST", ips, `{"metadata":{"name":"2001:db8:0::1"},` + parent + `}`, 422,
			`IPAddress.networking.k8s.io "2001:db8:0::1" is invalid: metadata.name: Invalid value: "2001:db8:0::1": must be in canonical form ("2001:db8::1")`},
		{"without leading zeros", "POST", ips, `{"metadata":{"name":"192.168.001.2"},` + parent + `}`, 422,
			`IPAddress.networking.k8s.io "192.168.001.2" is invalid: metadata.name: Invalid value: "192.168.001.2": must not have leading 0s`},
		{"a parent is required, after the name's errors", "POST", ips, `{"metadata":{"name":"abc"}}`, 422,
			`IPAddress.networking.k8s.io "abc" is invalid: [metadata.name: Invalid value: "abc": ` + notIP + `, spec.parentRef: Required value]`},
		{"a parent names a resource and an object", "POST", ips, `{"metadata":{"name":"10.250.0.7"},"spec":{"parentRef":{}}}`, 422,
			`IPAddress.networking.k8s.io "10.250.0.7" is invalid: [spec.parentRef.resource: Required value, spec.parentRef.name: Required value]`},
		{"a parent's fields are path segments", "POST", ips, `{"metadata":{"name":"10.250.0.7"},"spec":{"parentRef":{"group":"Bad_G","resource":"a/b","name":"..","namespace":"x%y"}}}`, 422,
			`IPAddress.networking.k8s.io "10.250.0.7" is invalid: [spec.parentRef.group: Invalid value: "Bad_G": ` + fcSubdomain + `, spec.parentRef.resource: Invalid value: "a/b": may not contain '/', spec.parentRef.name: Invalid value: "..": may not be '..', spec.parentRef.namespace: Invalid value: "x%y": may not contain '%']`},
		{"a generateName is the name", "POST", ips, `{"metadata":{"generateName":"abc"},` + parent + `}`, 422,
			`IPAddress.networking.k8s.io "abc" is invalid: [metadata.generateName: Invalid value: "abc": ` + notIP + `, metadata.name: Invalid value: "abc": ` + notIP + `]`},
		{"an address generated so", "POST", ips, `{"metadata":{"generateName":"10.250.0.7"},` + parent + `}`, 201, ""},
		{"a valid address", "POST", ips, `{"metadata":{"name":"10.250.44.7"},"spec":{"parentRef":{"resource":"services","name":"h44","namespace":"default"}}}`, 201, ""},
		{"the parent is kept", "PUT", ips + "/10.250.44.7", `{"metadata":{"name":"10.250.44.7"},"spec":{"parentRef":{"resource":"services","name":"other","namespace":"default"}}}`, 422,
			`IPAddress.networking.k8s.io "10.250.44.7" is invalid: spec.parentRef: Invalid value: null: field is immutable`},
		{"and not removed", "PUT", ips + "/10.250.44.7", `{"metadata":{"name":"10.250.44.7"},"spec":{}}`, 422,
			`IPAddress.networking.k8s.io "10.250.44.7" is invalid: [spec.parentRef: Required value, spec.parentRef: Invalid value: null: field is immutable]`},
		{"an update that keeps it", "PUT", ips + "/10.250.44.7", `{"metadata":{"name":"10.250.44.7","labels":{"a":"b"}},"spec":{"parentRef":{"resource":"services","name":"h44","namespace":"default"}}}`, 200, ""},
	})
}
