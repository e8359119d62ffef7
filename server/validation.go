package server

import (
	"encoding/json"
	"k8s.io/apimachinery/pkg/api/validation/path"
	"reflect"
	"sort"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	batchv1 "k8s.io/api/batch/v1"
	coordinationv1 "k8s.io/api/coordination/v1"
	corev1 "k8s.io/api/core/v1"
	discoveryv1 "k8s.io/api/discovery/v1"
	eventsv1 "k8s.io/api/events/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	schedulingv1 "k8s.io/api/scheduling/v1"
	storagev1 "k8s.io/api/storage/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/validation"
	"k8s.io/apimachinery/pkg/util/validation/field"
)

// Built-in validation: the rules of kube-apiserver's registry strategies
// (pkg/apis/*/validation upstream) for the built-in types, reimplemented on
// the v1 types. Each rule answers with upstream's field path and message,
// and the causes of a 422 come in upstream's order (metadata first, see
// validateCreate and beforeUpdate). Where upstream ranges over a map, the
// keys are taken in sorted order (upstream's order is random).

// validateBuiltin returns the errors of upstream's Validate (old == nil) or
// ValidateUpdate for a built-in object, metadata excluded.
func validateBuiltin(obj, old runtime.Object) field.ErrorList {
	switch n := obj.(type) {
	case *corev1.ConfigMap:
		if old != nil {
			return validateConfigMapUpdate(n, old.(*corev1.ConfigMap))
		}
		return validateConfigMap(n)
	case *corev1.Secret:
		if old != nil {
			return validateSecretUpdate(n, old.(*corev1.Secret))
		}
		return validateSecret(n)
	case *corev1.Pod:
		if old != nil {
			return validatePodUpdate(n, old.(*corev1.Pod))
		}
		return validatePod(n)
	case *appsv1.Deployment:
		errs := validateDeployment(n)
		if old != nil {
			errs = append(errs, validateSelectorUpdate(n.Spec.Selector, old.(*appsv1.Deployment).Spec.Selector)...)
		}
		return errs
	case *appsv1.ReplicaSet:
		errs := validateReplicaSet(n)
		if old != nil {
			errs = append(errs, validateSelectorUpdate(n.Spec.Selector, old.(*appsv1.ReplicaSet).Spec.Selector)...)
		}
		return errs
	case *appsv1.StatefulSet:
		if old != nil {
			return validateStatefulSetUpdate(n, old.(*appsv1.StatefulSet))
		}
		return validateStatefulSet(n)
	case *appsv1.DaemonSet:
		if old != nil {
			return append(validateSelectorUpdate(n.Spec.Selector, old.(*appsv1.DaemonSet).Spec.Selector), validateDaemonSet(n)...)
		}
		return validateDaemonSet(n)
	case *corev1.ReplicationController:
		return validateReplicationController(n)
	case *corev1.PodTemplate:
		return validatePodTemplate(&n.Template, field.NewPath("template"))
	case *batchv1.Job:
		if old != nil {
			return validateJobUpdate(n, old.(*batchv1.Job))
		}
		return validateJob(n)
	case *batchv1.CronJob:
		if old != nil {
			return validateCronJob(n, old.(*batchv1.CronJob))
		}
		return validateCronJob(n, nil)
	case *corev1.PersistentVolumeClaim:
		if old != nil {
			return validatePVCUpdate(n, old.(*corev1.PersistentVolumeClaim))
		}
		return validatePVCSpec(&n.Spec, field.NewPath("spec"))
	case *networkingv1.Ingress:
		return validateIngress(n)
	case *discoveryv1.EndpointSlice:
		if old != nil {
			return validateEndpointSlice(n, old.(*discoveryv1.EndpointSlice))
		}
		return validateEndpointSlice(n, nil)
	case *schedulingv1.PriorityClass:
		if old != nil {
			return validatePriorityClass(n, old.(*schedulingv1.PriorityClass))
		}
		return validatePriorityClass(n, nil)
	case *storagev1.StorageClass:
		if old != nil {
			return validateStorageClass(n, old.(*storagev1.StorageClass))
		}
		return validateStorageClass(n, nil)
	case *policyv1.PodDisruptionBudget:
		return validatePDB(n)
	case *autoscalingv2.HorizontalPodAutoscaler:
		if old != nil {
			if p, ok := old.(*autoscalingv2.HorizontalPodAutoscaler); ok {
				return validateHPA(n, p)
			}
		}
		return validateHPA(n, nil)
	case *networkingv1.NetworkPolicy:
		if old != nil {
			return validateNetworkPolicy(n, old.(*networkingv1.NetworkPolicy))
		}
		return validateNetworkPolicy(n, nil)
	case *corev1.ResourceQuota:
		return validateResourceQuota(n)
	case *corev1.Node:
		if old != nil {
			return validateNode(n, old.(*corev1.Node))
		}
		return validateNode(n, nil)
	case *coordinationv1.Lease:
		return validateLease(n)
	case *corev1.Event:
		return legacyValidateEvent(coreEventFields(n), "reportingComponent")
	case *eventsv1.Event:
		if old != nil {
			if p, ok := old.(*eventsv1.Event); ok {
				return validateEventsV1Update(n, p)
			}
		}
		return validateEventsV1Create(n)
	case *rbacv1.Role:
		return validateRules(n.Rules, true)
	case *rbacv1.ClusterRole:
		return validateClusterRole(n)
	case *rbacv1.RoleBinding:
		errs := validateBinding(n.RoleRef, []string{"Role", "ClusterRole"}, n.Subjects, true)
		if old != nil {
			errs = append(errs, immutableInternal(n.RoleRef, old.(*rbacv1.RoleBinding).RoleRef, field.NewPath("roleRef"))...)
		}
		return errs
	case *rbacv1.ClusterRoleBinding:
		errs := validateBinding(n.RoleRef, []string{"ClusterRole"}, n.Subjects, false)
		if old != nil {
			errs = append(errs, immutableInternal(n.RoleRef, old.(*rbacv1.ClusterRoleBinding).RoleRef, field.NewPath("roleRef"))...)
		}
		return errs
	case *corev1.Service:
		if old != nil {
			return validateServiceUpdate(n, old.(*corev1.Service))
		}
		return validateService(n, nil)
	}
	return nil
}

// validateBuiltinStatus returns the errors of upstream's status strategy
// ValidateUpdate for a built-in object, metadata excluded.
func validateBuiltinStatus(obj, old runtime.Object) field.ErrorList {
	switch n := obj.(type) {
	case *corev1.Pod:
		return validatePodStatusUpdate(n, old.(*corev1.Pod))
	case *appsv1.Deployment:
		return validateDeploymentStatus(n, old.(*appsv1.Deployment))
	case *appsv1.ReplicaSet:
		return validateReplicaSetStatus(n)
	case *appsv1.StatefulSet:
		return validateStatefulSetStatus(n, old.(*appsv1.StatefulSet))
	case *appsv1.DaemonSet:
		return validateDaemonSetStatus(n, old.(*appsv1.DaemonSet))
	case *corev1.ReplicationController:
		return validateReplicationControllerStatus(n)
	case *batchv1.Job:
		return validateJobStatusUpdate(n, old.(*batchv1.Job))
	case *corev1.Node:
		// Upstream's node status strategy validates as an update.
		return validateNode(n, old.(*corev1.Node))
	}
	return nil
}

// dedupErrors drops repeated errors, keeping the first of each: upstream
// runs the metadata rules more than once on update but answers each once.
func dedupErrors(errs field.ErrorList) field.ErrorList {
	seen := map[string]bool{}
	out := errs[:0:0]
	for _, e := range errs {
		k := e.Error()
		if seen[k] {
			continue
		}
		seen[k] = true
		out = append(out, e)
	}
	return out
}

func mapKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}

// maxConfigSize is upstream's core.MaxSecretSize, the limit of a Secret's
// or ConfigMap's data.
const maxConfigSize = 1 << 20

// immutableForbidden is upstream's message for changing an immutable
// ConfigMap or Secret.
const immutableForbidden = "field is immutable when `immutable` is set"

func validateConfigMap(cm *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	size := 0
	data, binary := field.NewPath("data"), field.NewPath("binaryData")
	for _, k := range mapKeys(cm.Data) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(data.Key(k), k, msg))
		}
		if _, dup := cm.BinaryData[k]; dup {
			errs = append(errs, field.Invalid(data.Key(k), k, "duplicate of key present in binaryData"))
		}
		size += len(cm.Data[k])
	}
	for _, k := range mapKeys(cm.BinaryData) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(binary.Key(k), k, msg))
		}
		size += len(cm.BinaryData[k])
	}
	if size > maxConfigSize {
		errs = append(errs, field.TooLong(field.NewPath(""), "", maxConfigSize))
	}
	return errs
}

func validateConfigMapUpdate(n, p *corev1.ConfigMap) field.ErrorList {
	var errs field.ErrorList
	if p.Immutable != nil && *p.Immutable {
		if n.Immutable == nil || !*n.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableForbidden))
		}
		if !reflect.DeepEqual(n.Data, p.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableForbidden))
		}
		if !reflect.DeepEqual(n.BinaryData, p.BinaryData) {
			errs = append(errs, field.Forbidden(field.NewPath("binaryData"), immutableForbidden))
		}
	}
	return append(errs, validateConfigMap(n)...)
}

func validateSecret(sec *corev1.Secret) field.ErrorList {
	var errs field.ErrorList
	data := field.NewPath("data")
	size := 0
	for _, k := range mapKeys(sec.Data) {
		for _, msg := range validation.IsConfigMapKey(k) {
			errs = append(errs, field.Invalid(data.Key(k), k, msg))
		}
		size += len(sec.Data[k])
	}
	if size > maxConfigSize {
		errs = append(errs, field.TooLong(data, "", maxConfigSize))
	}
	jsonKey := func(key string) {
		b, ok := sec.Data[key]
		if !ok {
			errs = append(errs, field.Required(data.Key(key), ""))
			return
		}
		if err := json.Unmarshal(b, &map[string]any{}); err != nil {
			errs = append(errs, field.Invalid(data.Key(key), "<secret contents redacted>", err.Error()))
		}
	}
	switch sec.Type {
	case corev1.SecretTypeServiceAccountToken:
		if sec.Annotations[corev1.ServiceAccountNameKey] == "" {
			errs = append(errs, field.Required(field.NewPath("metadata", "annotations").Key(corev1.ServiceAccountNameKey), ""))
		}
	case corev1.SecretTypeDockercfg:
		jsonKey(corev1.DockerConfigKey)
	case corev1.SecretTypeDockerConfigJson:
		jsonKey(corev1.DockerConfigJsonKey)
	case corev1.SecretTypeBasicAuth:
		_, user := sec.Data[corev1.BasicAuthUsernameKey]
		_, pass := sec.Data[corev1.BasicAuthPasswordKey]
		if !user && !pass {
			errs = append(errs, field.Required(data.Key(corev1.BasicAuthUsernameKey), ""),
				field.Required(data.Key(corev1.BasicAuthPasswordKey), ""))
		}
	case corev1.SecretTypeSSHAuth:
		if len(sec.Data[corev1.SSHAuthPrivateKey]) == 0 {
			errs = append(errs, field.Required(data.Key(corev1.SSHAuthPrivateKey), ""))
		}
	case corev1.SecretTypeTLS:
		if _, ok := sec.Data[corev1.TLSCertKey]; !ok {
			errs = append(errs, field.Required(data.Key(corev1.TLSCertKey), ""))
		}
		if _, ok := sec.Data[corev1.TLSPrivateKeyKey]; !ok {
			errs = append(errs, field.Required(data.Key(corev1.TLSPrivateKeyKey), ""))
		}
	}
	return errs
}

func validateSecretUpdate(n, p *corev1.Secret) field.ErrorList {
	var errs field.ErrorList
	errs = append(errs, immutableField(n.Type, p.Type, field.NewPath("type"))...)
	if p.Immutable != nil && *p.Immutable {
		if n.Immutable == nil || !*n.Immutable {
			errs = append(errs, field.Forbidden(field.NewPath("immutable"), immutableForbidden))
		}
		if !reflect.DeepEqual(n.Data, p.Data) {
			errs = append(errs, field.Forbidden(field.NewPath("data"), immutableForbidden))
		}
	}
	return append(errs, validateSecret(n)...)
}

// immutableField is upstream's ValidateImmutableField.
func immutableField(n, p any, fld *field.Path) field.ErrorList {
	if reflect.DeepEqual(n, p) {
		return nil
	}
	return field.ErrorList{field.Invalid(fld, n, "field is immutable")}
}

// requiredPathSegment validates a required value that names something in a
// URL path segment (a kind, a name): Required when empty, else upstream's
// path segment rules.
func requiredPathSegment(fld *field.Path, v string) field.ErrorList {
	if v == "" {
		return field.ErrorList{field.Required(fld, "")}
	}
	var errs field.ErrorList
	for _, msg := range path.IsValidPathSegmentName(v) {
		errs = append(errs, field.Invalid(fld, v, msg))
	}
	return errs
}
