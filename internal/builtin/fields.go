package builtin

// Field selector support.
//
// Upstream decides which field selector labels a list or watch may use in
// two places:
//
//   - the field label conversion funcs registered with
//     Scheme.AddFieldLabelConversionFunc in pkg/apis/<group>/<version>/conversion.go,
//     which accept (and possibly rename) a label or reject it with
//     "field label not supported"; a kind without such a func gets
//     runtime.DefaultMetaV1FieldSelectorConversion, which accepts only
//     metadata.name and metadata.namespace;
//   - the GetAttrs / ToSelectableFields funcs in pkg/registry/**/strategy.go
//     (or storage.go), which compute the field values an object is matched
//     against.
//
// The table below records the accepted labels (the conversion funcs are the
// gate). Only these group/versions register conversion funcs among the ones
// served by default: core/v1 (Pod, Node, ReplicationController, Event,
// Namespace, Secret, Service), batch/v1 (Job), certificates.k8s.io/v1
// (CertificateSigningRequest, ClusterTrustBundle, PodCertificateRequest),
// events.k8s.io/v1 (Event) and resource.k8s.io/v1 (ResourceSlice). apps/v1
// registers none, so apps/v1 replicasets accept only the metadata labels even
// though their strategy computes status.replicas.

// fieldLabelSpec describes the field selector labels one group/resource
// accepts in addition to metadata.name (always accepted).
type fieldLabelSpec struct {
	// labels are the extra labels a client may send, in the order upstream's
	// conversion func lists them.
	labels []string
	// aliases maps a label a client may send to the label it is matched
	// against on the stored object, when upstream renames it. A key of
	// aliases that is not in labels is a hidden, backward-compatible alias.
	aliases map[string]string
	// noNamespace is true when the upstream conversion func does not accept
	// metadata.namespace (it lists its labels explicitly and leaves it out).
	noNamespace bool
}

// fieldLabelSpecs is keyed by group/resource; every served version of a
// group/resource shares the same rules.
var fieldLabelSpecs = map[groupResource]fieldLabelSpec{
	// pkg/apis/core/v1/conversion.go AddFieldLabelConversionFunc(Pod).
	// status.podIPs is accepted there (for the downward API) but
	// pod.ToSelectableFields does not set it, so it only matches "".
	{"", "pods"}: {
		labels: []string{
			"spec.nodeName",
			"spec.restartPolicy",
			"spec.schedulerName",
			"spec.serviceAccountName",
			"spec.hostNetwork",
			"status.phase",
			"status.podIP",
			"status.podIPs",
			"status.nominatedNodeName",
		},
		// For old v1 clients that send spec.host.
		aliases: map[string]string{"spec.host": "spec.nodeName"},
	},
	// core/v1 Node: metadata.name and spec.unschedulable only.
	{"", "nodes"}: {
		labels:      []string{"spec.unschedulable"},
		noNamespace: true,
	},
	// core/v1 ReplicationController.
	{"", "replicationcontrollers"}: {
		labels: []string{"status.replicas"},
	},
	// core/v1 AddFieldLabelConversionsForEvent.
	{"", "events"}: {
		labels: []string{
			"involvedObject.kind",
			"involvedObject.namespace",
			"involvedObject.name",
			"involvedObject.uid",
			"involvedObject.apiVersion",
			"involvedObject.resourceVersion",
			"involvedObject.fieldPath",
			"reason",
			"reportingComponent",
			"source",
			"type",
		},
	},
	// core/v1 AddFieldLabelConversionsForNamespace: status.phase and
	// metadata.name only.
	{"", "namespaces"}: {
		labels:      []string{"status.phase"},
		noNamespace: true,
	},
	// core/v1 AddFieldLabelConversionsForSecret.
	{"", "secrets"}: {
		labels: []string{"type"},
	},
	// core/v1 AddFieldLabelConversionsForService.
	{"", "services"}: {
		labels: []string{"spec.clusterIP", "spec.type"},
	},
	// pkg/apis/batch/v1/conversion.go (Job).
	{"batch", "jobs"}: {
		labels: []string{"status.successful"},
	},
	// pkg/apis/certificates/v1/conversion.go: these three funcs list
	// metadata.name but not metadata.namespace (also for the namespaced
	// podcertificaterequests).
	{"certificates.k8s.io", "certificatesigningrequests"}: {
		labels:      []string{"spec.signerName"},
		noNamespace: true,
	},
	{"certificates.k8s.io", "clustertrustbundles"}: {
		labels:      []string{"spec.signerName"},
		noNamespace: true,
	},
	{"certificates.k8s.io", "podcertificaterequests"}: {
		labels:      []string{"spec.signerName", "spec.podName", "spec.nodeName"},
		noNamespace: true,
	},
	// pkg/apis/events/v1/conversion.go: events.k8s.io field names are
	// mapped onto the core Event field set (event.ToSelectableFields).
	{"events.k8s.io", "events"}: {
		labels: []string{
			"reason",
			"regarding.kind",
			"regarding.namespace",
			"regarding.name",
			"regarding.uid",
			"regarding.apiVersion",
			"regarding.resourceVersion",
			"regarding.fieldPath",
			"reportingController",
			"type",
		},
		aliases: map[string]string{
			"regarding.kind":            "involvedObject.kind",
			"regarding.namespace":       "involvedObject.namespace",
			"regarding.name":            "involvedObject.name",
			"regarding.uid":             "involvedObject.uid",
			"regarding.apiVersion":      "involvedObject.apiVersion",
			"regarding.resourceVersion": "involvedObject.resourceVersion",
			"regarding.fieldPath":       "involvedObject.fieldPath",
			"reportingController":       "reportingComponent",
		},
	},
	// pkg/apis/resource/v1/conversion.go (ResourceSlice).
	{"resource.k8s.io", "resourceslices"}: {
		labels:      []string{"spec.nodeName", "spec.driver", "spec.pool.name"},
		noNamespace: true,
	},
}

// fieldLabelsFor returns a fresh copy of the extra field labels of a
// group/resource (nil when it accepts only the metadata labels).
func fieldLabelsFor(group, resource string) []string {
	spec, ok := fieldLabelSpecs[groupResource{group, resource}]
	if !ok {
		return nil
	}
	return cloneStrings(spec.labels)
}

// ConvertFieldLabel reports whether a field selector label is accepted for
// the served resource group/version/resource, and returns the label that
// upstream matches against the stored object's fields (usually the label
// itself; e.g. events.k8s.io "regarding.kind" becomes "involvedObject.kind"
// and pods' legacy "spec.host" becomes "spec.nodeName"). metadata.name is
// accepted everywhere; metadata.namespace everywhere except namespaces,
// nodes, certificatesigningrequests, clustertrustbundles,
// podcertificaterequests and resourceslices, whose upstream conversion funcs
// leave it out. It returns false for unserved resources and unsupported
// labels.
func ConvertFieldLabel(group, version, resource, label string) (string, bool) {
	if _, ok := index[gvrKey{group, version, resource}]; !ok {
		return "", false
	}
	spec := fieldLabelSpecs[groupResource{group, resource}]
	switch label {
	case "metadata.name":
		return label, true
	case "metadata.namespace":
		if spec.noNamespace {
			return "", false
		}
		return label, true
	}
	if to, ok := spec.aliases[label]; ok {
		return to, true
	}
	for _, l := range spec.labels {
		if l == label {
			return label, true
		}
	}
	return "", false
}
