package registry

import (
	authenticationv1 "k8s.io/api/authentication/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	policyv1beta1 "k8s.io/api/policy/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"

	"github.com/fakeplane/fakeplane/internal/builtin"
)

// The kinds of the subresources whose objects are not their resource's:
// what their bodies are decoded, defaulted and given managedFields as.

// scaleResource describes autoscaling/v1 Scale, the kind the scale
// subresource of every resource reads and writes.
var scaleResource = &Resource{
	GVK:   autoscalingv1.SchemeGroupVersion.WithKind("Scale"),
	Typed: func() runtime.Object { return &autoscalingv1.Scale{} },
}

// TokenRequests describes authentication.k8s.io/v1 TokenRequest, the
// kind a service account's token subresource creates: its body is decoded,
// defaulted and given managedFields as one.
var TokenRequests = &Resource{
	Resource: builtin.Resource{Group: authenticationv1.GroupName, Version: "v1", Kind: "TokenRequest"},
	GVK:      authenticationv1.SchemeGroupVersion.WithKind("TokenRequest"),
	Typed:    func() runtime.Object { return &authenticationv1.TokenRequest{} },
}

// subresourceKinds are the subresources whose objects are of a kind of
// their own, by name, for their field managers.
var subresourceKinds = map[string]*Resource{"scale": scaleResource, "token": TokenRequests}

// Bindings describes v1 Binding, the kind a pod's binding subresource
// creates.
var Bindings = &Resource{
	Resource: builtin.Resource{Version: "v1", Kind: "Binding"},
	GVK:      corev1.SchemeGroupVersion.WithKind("Binding"),
	Typed:    func() runtime.Object { return &corev1.Binding{} },
}

// Evictions describes policy/v1 Eviction, the kind a pod's eviction
// subresource creates; EvictionsV1beta1 is the policy/v1beta1 Eviction it
// also accepts, as upstream's EvictionREST does.
var (
	Evictions = &Resource{
		Resource: builtin.Resource{Group: policyv1.GroupName, Version: "v1", Kind: "Eviction"},
		GVK:      policyv1.SchemeGroupVersion.WithKind("Eviction"),
		Typed:    func() runtime.Object { return &policyv1.Eviction{} },
	}
	EvictionsV1beta1 = &Resource{
		Resource: builtin.Resource{Group: policyv1.GroupName, Version: "v1beta1", Kind: "Eviction"},
		GVK:      policyv1beta1.SchemeGroupVersion.WithKind("Eviction"),
		Typed:    func() runtime.Object { return &policyv1beta1.Eviction{} },
	}
)
