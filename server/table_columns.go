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
