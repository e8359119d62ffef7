// Package auth is fakeplane's authentication and authorization: the
// request-authenticator chain kube-apiserver builds (request-header proxy,
// client certificates, static and service-account bearer tokens, anonymous),
// the issuing and verifying of service-account tokens (bound tokens from the
// TokenRequest API and legacy Secret-based tokens), the TokenReview
// webhook authenticator, the authorizer chain kube-apiserver builds from
// --authorization-mode or an AuthorizationConfiguration (with
// SubjectAccessReview webhooks), and an RBAC authorizer with the escalation
// checks, the cluster-role aggregation and the rules review that
// kube-apiserver and kube-controller-manager perform.
//
// The behaviour follows kube-apiserver v1.37 (k8s.io/kubernetes
// plugin/pkg/auth/authorizer/rbac, pkg/registry/rbac, pkg/serviceaccount,
// pkg/kubeapiserver/authenticator and pkg/controller/clusterroleaggregation)
// and reuses the upstream k8s.io/apiserver building blocks wherever they
// define it. Objects come from interfaces (RBACSource, Getter): RBACCache is
// the RBACSource kept from the store, loaded at start and then following
// its commits in revision order.
package auth
