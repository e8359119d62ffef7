package server

import (
	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// More of upstream's defaulting functions (pkg/apis/*/v1/defaults.go),
// for the other built-in types clients commonly create: volumes and
// claims, endpoints, network policies, autoscalers, limit ranges, storage
// and priority classes, webhook configurations.

// applyMoreDefaults sets the upstream defaults of the types applyDefaults
// leaves to it.
func applyMoreDefaults(obj runtime.Object) {
	switch o := obj.(type) {
	case *corev1.PersistentVolumeClaim:
		defaultVolumeMode(&o.Spec.VolumeMode)
	case *corev1.PersistentVolume:
		if o.Spec.PersistentVolumeReclaimPolicy == "" {
			o.Spec.PersistentVolumeReclaimPolicy = corev1.PersistentVolumeReclaimRetain
		}
		defaultVolumeMode(&o.Spec.VolumeMode)
		if hp := o.Spec.HostPath; hp != nil && hp.Type == nil {
			unset := corev1.HostPathUnset
			hp.Type = &unset
		}
		if r := o.Spec.RBD; r != nil {
			if r.RBDPool == "" {
				r.RBDPool = "rbd"
			}
			if r.RadosUser == "" {
				r.RadosUser = "admin"
			}
			if r.Keyring == "" {
				r.Keyring = "/etc/ceph/keyring"
			}
		}
		if i := o.Spec.ISCSI; i != nil && i.ISCSIInterface == "" {
			i.ISCSIInterface = "default"
		}
	case *admissionregistrationv1.ValidatingWebhookConfiguration:
		for i := range o.Webhooks {
			w := &o.Webhooks[i]
			defaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, &w.ClientConfig)
		}
	case *admissionregistrationv1.MutatingWebhookConfiguration:
		for i := range o.Webhooks {
			w := &o.Webhooks[i]
			defaultWebhook(&w.FailurePolicy, &w.MatchPolicy, &w.NamespaceSelector, &w.ObjectSelector, &w.TimeoutSeconds, w.Rules, &w.ClientConfig)
			if w.ReinvocationPolicy == nil {
				p := admissionregistrationv1.NeverReinvocationPolicy
				w.ReinvocationPolicy = &p
			}
		}
	}
}

func defaultVolumeMode(m **corev1.PersistentVolumeMode) {
	if *m == nil {
		fs := corev1.PersistentVolumeFilesystem
		*m = &fs
	}
}

// defaultWebhook is upstream's SetDefaults_ValidatingWebhook (and the
// common part of SetDefaults_MutatingWebhook), SetDefaults_Rule and
// SetDefaults_ServiceReference.
func defaultWebhook(failure **admissionregistrationv1.FailurePolicyType, match **admissionregistrationv1.MatchPolicyType,
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
		*timeout = int32Ptr(10)
	}
	for i := range rules {
		if rules[i].Scope == nil {
			s := admissionregistrationv1.AllScopes
			rules[i].Scope = &s
		}
	}
	if cc.Service != nil && cc.Service.Port == nil {
		cc.Service.Port = int32Ptr(443)
	}
}
