package server

import metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

// Column definitions of the built-in printers: names, types, priorities and
// descriptions exactly as kube-apiserver v1.37 answers them.

var statefulSetColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Ready", "string", "", "Number of the pod with ready state", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
}

var daemonSetColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Desired", "integer", "", "The total number of nodes that should be running the daemon pod (including nodes correctly running the daemon pod). More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/", 0),
	col("Current", "integer", "", "The number of nodes that are running at least 1 daemon pod and are supposed to run the daemon pod. More info: https://kubernetes.io/docs/concepts/workloads/controllers/daemonset/", 0),
	col("Ready", "integer", "", "numberReady is the number of nodes that should be running the daemon pod and have one or more of the daemon pod running with a Ready Condition.", 0),
	col("Up-to-date", "integer", "", "The total number of nodes that are running updated daemon pod", 0),
	col("Available", "integer", "", "The number of nodes that should be running the daemon pod and have one or more of the daemon pod running and available (ready for at least spec.minReadySeconds)", 0),
	col("Node Selector", "string", "", "NodeSelector is a selector which must be true for the pod to fit on a node. Selector which must match a node's labels for the pod to be scheduled on that node. More info: https://kubernetes.io/docs/concepts/configuration/assign-pod-node/", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
	col("Selector", "string", "", "A label query over pods that are managed by the daemon set. Must match in order to be controlled. It must match the pod template's labels. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
}

var jobColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Status", "string", "", "Status of the job.", 0),
	col("Completions", "string", "", "The number of pods which reached phase Succeeded. The value increases monotonically for a given spec. However, it may decrease in reaction to scale down of elastic indexed jobs.", 0),
	col("Duration", "string", "", "Time required to complete the job.", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
	col("Selector", "string", "", "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
}

var cronJobColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Schedule", "string", "", "The schedule in Cron format, see https://en.wikipedia.org/wiki/Cron.", 0),
	col("Timezone", "string", "", "The time zone name for the given schedule, see https://en.wikipedia.org/wiki/List_of_tz_database_time_zones. If not specified, this will default to the time zone of the kube-controller-manager process. The set of valid time zone names and the time zone offset is loaded from the system-wide time zone database by the API server during CronJob validation and the controller manager during execution. If no system-wide time zone database can be found a bundled version of the database is used instead. If the time zone name becomes invalid during the lifetime of a CronJob or due to a change in host configuration, the controller will stop creating new new Jobs and will create a system event with the reason UnknownTimeZone. More information can be found in https://kubernetes.io/docs/concepts/workloads/controllers/cron-jobs/#time-zones", 0),
	col("Suspend", "boolean", "", "This flag tells the controller to suspend subsequent executions, it does not apply to already started executions.  Defaults to false.", 0),
	col("Active", "integer", "", "A list of pointers to currently running jobs.", 0),
	col("Last Schedule", "string", "", "Information when was the last time the job was successfully scheduled.", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
	col("Selector", "string", "", "A label query over pods that should match the pod count. Normally, the system sets this field for you. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
}

var nodeColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Status", "string", "", "The status of the node", 0),
	col("Roles", "string", "", "The roles of the node", 0),
	ageColumn,
	col("Version", "string", "", "Kubelet Version reported by the node.", 0),
	col("Internal-IP", "string", "", "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).", 1),
	col("External-IP", "string", "", "List of addresses reachable to the node. Queried from cloud provider, if available. More info: https://kubernetes.io/docs/reference/node/node-status/#addresses Note: This field is declared as mergeable, but the merge key is not sufficiently unique, which can cause data corruption when it is merged. Callers should instead use a full-replacement patch. See https://pr.k8s.io/79391 for an example. Consumers should assume that addresses can change during the lifetime of a Node. However, there are some exceptions where this may not be possible, such as Pods that inherit a Node's address in its own status or consumers of the downward API (status.hostIP).", 1),
	col("OS-Image", "string", "", "OS Image reported by the node from /etc/os-release (e.g. Debian GNU/Linux 7 (wheezy)).", 1),
	col("Kernel-Version", "string", "", "Kernel Version reported by the node from 'uname -r' (e.g. 3.16.0-0.bpo.4-amd64).", 1),
	col("Container-Runtime", "string", "", "ContainerRuntime Version reported by the node through runtime remote API (e.g. containerd://1.4.2).", 1),
}

var eventColumns = []metav1.TableColumnDefinition{
	col("Last Seen", "string", "", "The time at which the most recent occurrence of this event was recorded.", 0),
	col("Type", "string", "", "Type of this event (Normal, Warning), new types could be added in the future", 0),
	col("Reason", "string", "", "This should be a short, machine understandable string that gives the reason for the transition into the object's current status.", 0),
	col("Object", "string", "", "The object that this event is about.", 0),
	col("Subobject", "string", "", "If referring to a piece of an object instead of an entire object, this string should contain a valid JSON/Go field access statement, such as desiredState.manifest.containers[2]. For example, if the object reference is to a container within a pod, this would take on a value like: \"spec.containers{name}\" (where \"name\" refers to the name of the container that triggered the event) or if no container name is specified \"spec.containers[2]\" (container with index 2 in this pod). This syntax is chosen only to have some well-defined way of referencing a part of an object.", 1),
	col("Source", "string", "", "The component reporting this event. Should be a short machine understandable string.", 1),
	col("Message", "string", "", "A human-readable description of the status of this operation.", 0),
	col("First Seen", "string", "", "The time at which the event was first recorded. (Time of server receipt is in TypeMeta.)", 1),
	col("Count", "string", "", "The number of times this event has occurred.", 1),
	col("Name", "string", "name", objectMetaDocs["name"], 1),
}

var endpointsColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Endpoints", "string", "", "The set of all endpoints is the union of all subsets. Addresses are placed into subsets according to the IPs they share. A single address with multiple ports, some of which are ready and some of which are not (because they come from different containers) will result in the address being displayed in different subsets for the different ports. No address will appear in both Addresses and NotReadyAddresses in the same subset. Sets of addresses and ports that comprise a service.", 0),
	ageColumn,
}

var endpointSliceColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("AddressType", "string", "", "addressType specifies the type of address carried by this EndpointSlice. All addresses in this slice must be the same type. This field is immutable after creation. The following address types are currently supported: * IPv4: Represents an IPv4 Address. * IPv6: Represents an IPv6 Address. * FQDN: Represents a Fully Qualified Domain Name. (Deprecated) The EndpointSlice controller only generates, and kube-proxy only processes, slices of addressType \"IPv4\" and \"IPv6\". No semantics are defined for the \"FQDN\" type.", 0),
	col("Ports", "string", "", "ports specifies the list of network ports exposed by each endpoint in this slice. Each port must have a unique name. Each slice may include a maximum of 100 ports. Services always have at least 1 port, so EndpointSlices generated by the EndpointSlice controller will likewise always have at least 1 port. EndpointSlices used for other purposes may have an empty ports list.", 0),
	col("Endpoints", "string", "", "endpoints is a list of unique endpoints in this slice. Each slice may include a maximum of 1000 endpoints.", 0),
	ageColumn,
}

var persistentVolumeColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Capacity", "string", "", "capacity is the description of the persistent volume's resources and capacity. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#capacity", 0),
	col("Access Modes", "string", "", "accessModes contains all ways the volume can be mounted. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes", 0),
	col("Reclaim Policy", "string", "", "persistentVolumeReclaimPolicy defines what happens to a persistent volume when released from its claim. Valid options are Retain (default for manually created PersistentVolumes), Delete (default for dynamically provisioned PersistentVolumes), and Recycle (deprecated). Recycle must be supported by the volume plugin underlying this PersistentVolume. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#reclaiming", 0),
	col("Status", "string", "", "phase indicates if a volume is available, bound to a claim, or released by a claim. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#phase", 0),
	col("Claim", "string", "", "claimRef is part of a bi-directional binding between PersistentVolume and PersistentVolumeClaim. Expected to be non-nil when bound. claim.VolumeName is the authoritative bind between PV and PVC. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#binding", 0),
	col("StorageClass", "string", "", "StorageClass of the pv", 0),
	col("VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pv", 0),
	col("Reason", "string", "", "reason is a brief CamelCase string that describes any failure and is meant for machine parsing and tidy display in the CLI.", 0),
	ageColumn,
	col("VolumeMode", "string", "", "volumeMode defines if a volume is intended to be used with a formatted filesystem or to remain in raw block state. Value of Filesystem is implied when not included in spec.", 1),
}

var persistentVolumeClaimColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Status", "string", "", "phase represents the current phase of PersistentVolumeClaim.", 0),
	col("Volume", "string", "", "volumeName is the binding reference to the PersistentVolume backing this claim.", 0),
	col("Capacity", "string", "", "capacity represents the actual resources of the underlying volume.", 0),
	col("Access Modes", "string", "", "accessModes contains the actual access modes the volume backing the PVC has. More info: https://kubernetes.io/docs/concepts/storage/persistent-volumes#access-modes-1", 0),
	col("StorageClass", "string", "", "StorageClass of the pvc", 0),
	col("VolumeAttributesClass", "string", "", "VolumeAttributesClass of the pvc", 0),
	ageColumn,
	col("VolumeMode", "string", "", "volumeMode defines what type of volume is required by the claim. Value of Filesystem is implied when not included in claim spec.", 1),
}

var replicationControllerColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Desired", "integer", "", "Replicas is the number of desired replicas. This is a pointer to distinguish between explicit zero and unspecified. Defaults to 1. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller", 0),
	col("Current", "integer", "", "Replicas is the most recently observed number of replicas. More info: https://kubernetes.io/docs/concepts/workloads/controllers/replicationcontroller#what-is-a-replicationcontroller", 0),
	col("Ready", "integer", "", "The number of ready replicas for this replication controller.", 0),
	ageColumn,
	containersColumn,
	imagesColumn,
	col("Selector", "string", "", "Selector is a label query over pods that should match the Replicas count. If Selector is empty, it is defaulted to the labels present on the Pod template. Label keys and values that must match in order to be controlled by this replication controller, if empty defaulted to labels on Pod template. More info: https://kubernetes.io/docs/concepts/overview/working-with-objects/labels/#label-selectors", 1),
}

var hpaColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Reference", "string", "", "scaleTargetRef points to the target resource to scale, and is used to the pods for which metrics should be collected, as well as to actually change the replica count.", 0),
	col("Targets", "string", "", "metrics contains the specifications for which to use to calculate the desired replica count (the maximum replica count across all metrics will be used).  The desired replica count is calculated multiplying the ratio between the target value and the current value by the current number of pods.  Ergo, metrics used must decrease as the pod count is increased, and vice-versa.  See the individual metric source types for more information about how each type of metric must respond. If not set, the default metric will be set to 80% average CPU utilization.", 0),
	col("MinPods", "string", "", "minReplicas is the lower limit for the number of replicas to which the autoscaler can scale down.  It defaults to 1 pod.  minReplicas is allowed to be 0 if the alpha feature gate HPAScaleToZero is enabled and at least one Object or External metric is configured.  Scaling is active as long as at least one metric value is available.", 0),
	col("MaxPods", "string", "", "maxReplicas is the upper limit for the number of replicas to which the autoscaler can scale up. It cannot be less that minReplicas.", 0),
	col("Replicas", "string", "", "currentReplicas is current number of replicas of pods managed by this autoscaler, as last seen by the autoscaler.", 0),
	ageColumn,
}

var ingressColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Class", "string", "", "The name of the IngressClass resource that should be used for additional configuration", 0),
	col("Hosts", "string", "", "Hosts that incoming requests are matched against before the ingress rule", 0),
	col("Address", "string", "", "Address is a list containing ingress points for the load-balancer", 0),
	col("Ports", "string", "", "Ports of TLS configurations that open", 0),
	ageColumn,
}

var ingressClassColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Controller", "string", "", "Controller that is responsible for handling this class", 0),
	col("Parameters", "string", "", "A reference to a resource with additional parameters", 0),
	ageColumn,
}

var networkPolicyColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Pod-Selector", "string", "", "podSelector selects the pods to which this NetworkPolicy object applies. The array of rules is applied to any pods selected by this field. An empty selector matches all pods in the policy's namespace. Multiple network policies can select the same set of pods. In this case, the ingress rules for each are combined additively. This field is optional. If it is not specified, it defaults to an empty selector.", 0),
	ageColumn,
}

var pdbColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Min Available", "string", "", "The minimum number of pods that must be available.", 0),
	col("Max Unavailable", "string", "", "The maximum number of pods that may be unavailable.", 0),
	col("Allowed Disruptions", "integer", "", "Calculated number of pods that may be disrupted at this time.", 0),
	ageColumn,
}

var storageClassColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Provisioner", "string", "", "provisioner indicates the type of the provisioner.", 0),
	col("ReclaimPolicy", "string", "", "reclaimPolicy controls the reclaimPolicy for dynamically provisioned PersistentVolumes of this storage class. Defaults to Delete.", 0),
	col("VolumeBindingMode", "string", "", "volumeBindingMode indicates how PersistentVolumeClaims should be provisioned and bound.  When unset, VolumeBindingImmediate is used. This field is only honored by servers that enable the VolumeScheduling feature.", 0),
	col("AllowVolumeExpansion", "string", "", "allowVolumeExpansion shows whether the storage class allow volume expand.", 0),
	ageColumn,
}

var apiServiceColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Service", "string", "", "The reference to the service that hosts this API endpoint.", 0),
	col("Available", "string", "", "Whether this service is available.", 0),
	ageColumn,
}

var csrColumns = []metav1.TableColumnDefinition{
	nameColumn,
	ageColumn,
	col("SignerName", "string", "", "Requested signer for the request. It is a qualified name in the form: `scope-hostname.io/name`. If empty, it will be defaulted:\n 1. If it's a kubelet client certificate, it is assigned\n    \"kubernetes.io/kube-apiserver-client-kubelet\".\n 2. If it's a kubelet serving certificate, it is assigned\n    \"kubernetes.io/kubelet-serving\".\n 3. Otherwise, it is assigned \"kubernetes.io/legacy-unknown\".\nDistribution of trust for signers happens out of band. You can select on this field using `spec.signerName`.", 0),
	col("Requestor", "string", "", "Base64-encoded PKCS#10 CSR data", 0),
	col("RequestedDuration", "string", "", "expirationSeconds is the requested duration of validity of the issued certificate. The certificate signer may issue a certificate with a different validity duration so a client must check the delta between the notBefore and and notAfter fields in the issued certificate to determine the actual duration.\n\nThe v1.22+ in-tree implementations of the well-known Kubernetes signers will honor this field as long as the requested duration is not greater than the maximum duration they will honor per the --cluster-signing-duration CLI flag to the Kubernetes controller manager.\n\nCertificate signers may not honor this field for various reasons:\n\n  1. Old signer that is unaware of the field (such as the in-tree\n     implementations prior to v1.22)\n  2. Signer whose configured maximum is shorter than the requested duration\n  3. Signer whose configured minimum is longer than the requested duration\n\nThe minimum valid value for expirationSeconds is 600, i.e. 10 minutes.", 0),
	col("Condition", "string", "", "Conditions applied to the request, such as approval or denial.", 0),
}

var resourceQuotaColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Request", "string", "", "Request represents a minimum amount of cpu/memory that a container may consume.", 0),
	col("Limit", "string", "", "Limits control the maximum amount of cpu/memory that a container may use independent of contention on the node.", 0),
	ageColumn,
}

var podTemplateColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Containers", "string", "", "Names of each container in the template.", 0),
	col("Images", "string", "", "Images referenced by each container in the template.", 0),
	col("Pod Labels", "string", "", "The labels for the pod template.", 0),
}

var controllerRevisionColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Controller", "string", "", "Controller of the object", 0),
	col("Revision", "string", "", "Revision indicates the revision of the state represented by Data.", 0),
	ageColumn,
}

var runtimeClassColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Handler", "string", "", "", 0),
	ageColumn,
}

var csiDriverColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("AttachRequired", "boolean", "", "attachRequired indicates this CSI volume driver requires an attach operation (because it implements the CSI ControllerPublishVolume() method), and that the Kubernetes attach detach controller should call the attach volume interface which checks the volumeattachment status and waits until the volume is attached before proceeding to mounting. The CSI external-attacher coordinates with CSI volume driver and updates the volumeattachment status when the attach operation is complete. If the value is specified to false, the attach operation will be skipped. Otherwise the attach operation will be called.\n\nThis field is immutable.", 0),
	col("PodInfoOnMount", "boolean", "", "podInfoOnMount indicates this CSI volume driver requires additional pod information (like podName, podUID, etc.) during mount operations, if set to true. If set to false, pod information will not be passed on mount. Default is false.\n\nThe CSI driver specifies podInfoOnMount as part of driver deployment. If true, Kubelet will pass pod information as VolumeContext in the CSI NodePublishVolume() calls. The CSI driver is responsible for parsing and validating the information passed in as VolumeContext.\n\nThe following VolumeContext will be passed if podInfoOnMount is set to true. This list might grow, but the prefix will be used. \"csi.storage.k8s.io/pod.name\": pod.Name \"csi.storage.k8s.io/pod.namespace\": pod.Namespace \"csi.storage.k8s.io/pod.uid\": string(pod.UID) \"csi.storage.k8s.io/ephemeral\": \"true\" if the volume is an ephemeral inline volume\n                                defined by a CSIVolumeSource, otherwise \"false\"\n\n\"csi.storage.k8s.io/ephemeral\" is a new feature in Kubernetes 1.16. It is only required for drivers which support both the \"Persistent\" and \"Ephemeral\" VolumeLifecycleMode. Other drivers can leave pod info disabled and/or ignore this field. As Kubernetes 1.15 doesn't support this field, drivers can only support one mode when deployed on such a cluster and the deployment determines which mode that is, for example via a command line parameter of the driver.\n\nThis field was immutable in Kubernetes < 1.29 and now is mutable.", 0),
	col("StorageCapacity", "boolean", "", "storageCapacity indicates that the CSI volume driver wants pod scheduling to consider the storage capacity that the driver deployment will report by creating CSIStorageCapacity objects with capacity information, if set to true.\n\nThe check can be enabled immediately when deploying a driver. In that case, provisioning new volumes with late binding will pause until the driver deployment has published some suitable CSIStorageCapacity object.\n\nAlternatively, the driver can be deployed with the field unset or false and it can be flipped later when storage capacity information has been published.\n\nThis field was immutable in Kubernetes <= 1.22 and now is mutable.", 0),
	col("TokenRequests", "string", "", "tokenRequests indicates the CSI driver needs pods' service account tokens it is mounting volume for to do necessary authentication. Kubelet will pass the tokens in VolumeContext in the CSI NodePublishVolume calls. The CSI driver should parse and validate the following VolumeContext: \"csi.storage.k8s.io/serviceAccount.tokens\": {\n  \"<audience>\": {\n    \"token\": <token>,\n    \"expirationTimestamp\": <expiration timestamp in RFC3339>,\n  },\n  ...\n}\n\nNote: Audience in each TokenRequest should be different and at most one token is empty string. To receive a new token after expiry, RequiresRepublish can be used to trigger NodePublishVolume periodically.", 0),
	col("RequiresRepublish", "boolean", "", "requiresRepublish indicates the CSI driver wants `NodePublishVolume` being periodically called to reflect any possible change in the mounted volume. This field defaults to false.\n\nNote: After a successful initial NodePublishVolume call, subsequent calls to NodePublishVolume should only update the contents of the volume. New mount points will not be seen by a running container.", 0),
	col("Modes", "string", "", "volumeLifecycleModes defines what kind of volumes this CSI volume driver supports. The default if the list is empty is \"Persistent\", which is the usage defined by the CSI specification and implemented in Kubernetes via the usual PV/PVC mechanism.\n\nThe other mode is \"Ephemeral\". In this mode, volumes are defined inline inside the pod spec with CSIVolumeSource and their lifecycle is tied to the lifecycle of that pod. A driver has to be aware of this because it is only going to get a NodePublishVolume call for such a volume.\n\nFor more information about implementing this mode, see https://kubernetes-csi.github.io/docs/ephemeral-local-volumes.html A driver can support one or more of these modes and more modes may be added in the future.\n\nThis field is beta. This field is immutable.", 0),
	ageColumn,
}

var csiNodeColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Drivers", "integer", "", "Drivers indicates the number of CSI drivers registered on the node", 0),
	ageColumn,
}

var webhookConfigurationColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Webhooks", "integer", "", "Webhooks indicates the number of webhooks registered in this configuration", 0),
	ageColumn,
}

var serviceCIDRColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("CIDRs", "string", "", "cidrs defines the IP blocks in CIDR notation (e.g. \"192.168.0.0/24\" or \"2001:db8::/64\") from which to assign service cluster IPs. Max of two CIDRs is allowed, one of each IP family. This field is immutable.", 0),
	ageColumn,
}

var ipAddressColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("ParentRef", "string", "", "parentRef references the resource that an IPAddress is attached to. An IPAddress must reference a parent object.", 0),
}

var flowSchemaColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("PriorityLevel", "string", "", "`name` is the name of the priority level configuration being referenced Required.", 0),
	col("MatchingPrecedence", "string", "", "`matchingPrecedence` is used to choose among the FlowSchemas that match a given request. The chosen FlowSchema is among those with the numerically lowest (which we take to be logically highest) MatchingPrecedence.  Each MatchingPrecedence value must be ranged in [1,10000]. Note that if the precedence is not specified, it will be set to 1000 as default.", 0),
	col("DistinguisherMethod", "string", "", "`distinguisherMethod` defines how to compute the flow distinguisher for requests that match this schema. `nil` specifies that the distinguisher is disabled and thus will always be the empty string.", 0),
	ageColumn,
	col("MissingPL", "string", "", "references a broken or non-existent PriorityLevelConfiguration", 0),
}

var priorityLevelConfigurationColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Type", "string", "", "`type` indicates whether this priority level is subject to limitation on request execution.  A value of `\"Exempt\"` means that requests of this priority level are not subject to a limit (and thus are never queued) and do not detract from the capacity made available to other priority levels.  A value of `\"Limited\"` means that (a) requests of this priority level _are_ subject to limits and (b) some of the server's limited capacity is made available exclusively to this priority level. Required.", 0),
	col("NominalConcurrencyShares", "string", "", "`nominalConcurrencyShares` (NCS) contributes to the computation of the NominalConcurrencyLimit (NominalCL) of this level. This is the number of execution seats available at this priority level. This is used both for requests dispatched from this priority level as well as requests dispatched from other priority levels borrowing seats from this level. The server's concurrency limit (ServerCL) is divided among the Limited priority levels in proportion to their NCS values:\n\nNominalCL(i)  = ceil( ServerCL * NCS(i) / sum_ncs ) sum_ncs = sum[priority level k] NCS(k)\n\nBigger numbers mean a larger nominal concurrency limit, at the expense of every other priority level.\n\nIf not specified, this field defaults to a value of 30.\n\nSetting this field to zero supports the construction of a \"jail\" for this priority level that is used to hold some request(s)", 0),
	col("Queues", "string", "", "`queues` is the number of queues for this priority level. The queues exist independently at each apiserver. The value must be positive.  Setting it to 1 effectively precludes shufflesharding and thus makes the distinguisher method of associated flow schemas irrelevant.  This field has a default value of 64.", 0),
	col("HandSize", "string", "", "`handSize` is a small positive number that configures the shuffle sharding of requests into queues.  When enqueuing a request at this priority level the request's flow identifier (a string pair) is hashed and the hash value is used to shuffle the list of queues and deal a hand of the size specified here.  The request is put into one of the shortest queues in that hand. `handSize` must be no larger than `queues`, and should be significantly smaller (so that a few heavy flows do not saturate most of the queues).  See the user-facing documentation for more extensive guidance on setting this field.  This field has a default value of 8.", 0),
	col("QueueLengthLimit", "string", "", "`queueLengthLimit` is the maximum number of requests allowed to be waiting in a given queue of this priority level at a time; excess requests are rejected.  This value must be positive.  If not specified, it will be defaulted to 50.", 0),
	ageColumn,
}

var componentStatusColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Status", "string", "", "Status of the component conditions", 0),
	col("Message", "string", "", "Message of the component conditions", 0),
	col("Error", "string", "", "Error of the component conditions", 0),
}

var mutatingAdmissionPolicyColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Mutations", "integer", "", "Mutation indicates the number of mutations rules defined in this configuration", 0),
	col("ParamKind", "string", "", "ParamKind specifies the kind of resources used to parameterize this policy", 0),
	ageColumn,
}

var admissionPolicyBindingColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("PolicyName", "string", "", "PolicyName indicates the policy definition which the policy binding binded to", 0),
	col("ParamRef", "string", "", "ParamRef indicates the param resource which sets the configuration param", 0),
	ageColumn,
}

var validatingAdmissionPolicyColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Validations", "integer", "", "Validations indicates the number of validation rules defined in this configuration", 0),
	col("ParamKind", "string", "", "ParamKind specifies the kind of resources used to parameterize this policy", 0),
	ageColumn,
}

var clusterTrustBundleColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("SignerName", "string", "", "signerName indicates the associated signer, if any.\n\nIn order to create or update a ClusterTrustBundle that sets signerName, you must have the following cluster-scoped permission: group=certificates.k8s.io resource=signers resourceName=<the signer name> verb=attest.\n\nIf signerName is not empty, then the ClusterTrustBundle object must be named with the signer name as a prefix (translating slashes to colons). For example, for the signer name `example.com/foo`, valid ClusterTrustBundle object names include `example.com:foo:abc` and `example.com:foo:v1`.\n\nIf signerName is empty, then the ClusterTrustBundle object's name must not have such a prefix.\n\nList/watch requests for ClusterTrustBundles can filter on this field using a `spec.signerName=NAME` field selector.", 0),
}

var podCertificateRequestColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("PodName", "string", "", "podName is the name of the pod into which the certificate will be mounted.", 0),
	col("ServiceAccountName", "string", "", "serviceAccountName is the name of the service account the pod is running as.", 0),
	col("NodeName", "string", "", "nodeName is the name of the node the pod is assigned to.", 0),
	col("SignerName", "string", "", "signerName indicates the requested signer.\n\nAll signer names beginning with `kubernetes.io` are reserved for use by the Kubernetes project.  There is currently one well-known signer documented by the Kubernetes project, `kubernetes.io/kube-apiserver-client-pod`, which will issue client certificates understood by kube-apiserver.  It is currently unimplemented.", 0),
	col("State", "string", "", "Is the request Pending, Issued, Denied, or Failed?", 0),
	col("UnverifiedUserAnnotations", "string", "", "unverifiedUserAnnotations allow pod authors to pass additional information to the signer implementation.  Kubernetes does not restrict or validate this metadata in any way.\n\nEntries are subject to the same validation as object metadata annotations, with the addition that all keys must be domain-prefixed. No restrictions are placed on values, except an overall size limitation on the entire field.\n\nSigners should document the keys and values they support.  Signers should deny requests that contain keys they do not recognize.", 0),
}

var deviceClassColumns = []metav1.TableColumnDefinition{
	nameColumn,
	ageColumn,
}

var deviceTaintRuleColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Key", "string", "", "The taint key to be applied to a device. Must be a label name.", 0),
	col("Value", "string", "", "The taint value corresponding to the taint key. Must be a label value.", 0),
	col("Effect", "string", "", "The effect of the taint on claims that do not tolerate the taint and through such claims on the pods using them.\n\nValid effects are None, NoSchedule and NoExecute. PreferNoSchedule as used for nodes is not valid here. More effects may get added in the future. Consumers must treat unknown effects like None.", 0),
	col("TimeAdded", "string", "", "TimeAdded represents the time at which the taint was added or (only in a DeviceTaintRule) the effect was modified. Added automatically during create or update if not set.\n\nIn addition, in a DeviceTaintRule a value provided during an update gets replaced with the current time if the provided value is the same as the old one and the new effect is different. Changing the key and/or value while keeping the effect unchanged is possible and does not update the time stamp because the eviction which uses it is either already started (NoExecute) or not started yet (NoEffect, NoSchedule).", 0),
	ageColumn,
}

var resourceClaimColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("State", "string", "", "A summary of the current state (allocated, pending, reserved, etc.).", 0),
	ageColumn,
}

var resourceClaimTemplateColumns = []metav1.TableColumnDefinition{
	nameColumn,
	ageColumn,
}

var resourceSliceColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Node", "string", "", "NodeName identifies the node which provides the resources in this pool. A field selector can be used to list only ResourceSlice objects belonging to a certain node.\n\nThis field can be used to limit access from nodes to ResourceSlices with the same node name. It also indicates to autoscalers that adding new nodes of the same type as some old node might also make new resources available.\n\nExactly one of NodeName, NodeSelector, AllNodes, and PerDeviceNodeSelection must be set. This field is immutable.", 0),
	col("Driver", "string", "", "Driver identifies the DRA driver providing the capacity information. A field selector can be used to list only ResourceSlice objects with a certain driver name.\n\nMust be a DNS subdomain and should end with a DNS domain owned by the vendor of the driver. It should use only lower case characters. This field is immutable.", 0),
	col("Pool", "string", "", "Name is used to identify the pool. For node-local devices, this is often the node name, but this is not required. A field selector can be used to list only ResourceSlice objects belonging to a certain pool.\n\nIt must not be longer than 253 characters and must consist of one or more DNS sub-domains separated by slashes. This field is immutable.", 0),
	ageColumn,
}

var volumeAttachmentColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("Attacher", "string", "name", "attacher indicates the name of the volume driver that MUST handle this request. This is the name returned by GetPluginName().", 0),
	col("PV", "string", "", "persistentVolumeName represents the name of the persistent volume to attach.", 0),
	col("Node", "string", "", "nodeName represents the node that the volume should be attached to.", 0),
	col("Attached", "boolean", "", "attached indicates the volume is successfully attached. This field must only be set by the entity completing the attach operation, i.e. the external-attacher.", 0),
	ageColumn,
}

var volumeAttributesClassColumns = []metav1.TableColumnDefinition{
	nameColumn,
	col("DriverName", "string", "", "driverName is the name of the CSI driver This field is immutable.", 0),
	ageColumn,
}

var storageVersionMigrationColumns = []metav1.TableColumnDefinition{
	col("Name", "string", "", objectMetaDocs["name"], 0),
	col("Resource", "string", "", "GroupResource to migrate", 0),
	col("Status", "string", "", "Status of the migration", 0),
}
