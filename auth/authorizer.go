package auth

import (
	"errors"
	"fmt"
	"os"
	"strings"
	"time"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	"k8s.io/apimachinery/pkg/util/sets"
	apiserverconfig "k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/apis/apiserver/load"
	apiservervalidation "k8s.io/apiserver/pkg/apis/apiserver/validation"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/authorization/authorizer"
	"k8s.io/apiserver/pkg/authorization/authorizerfactory"
	authorizationcel "k8s.io/apiserver/pkg/authorization/cel"
	"k8s.io/apiserver/pkg/authorization/union"
)

// Authorization modes (--authorization-mode), which are also the authorizer
// types of an AuthorizationConfiguration (--authorization-config).
const (
	ModeAlwaysAllow = "AlwaysAllow"
	ModeAlwaysDeny  = "AlwaysDeny"
	ModeRBAC        = "RBAC"
	ModeWebhook     = "Webhook"
	ModeABAC        = "ABAC"
	ModeNode        = "Node"
)

// authorizationModeChoices are kube-apiserver's modes
// (pkg/kubeapiserver/authorizer/modes.AuthorizationModeChoices).
var authorizationModeChoices = []string{ModeAlwaysAllow, ModeAlwaysDeny, ModeABAC, ModeWebhook, ModeRBAC, ModeNode}

// The defaults of kube-apiserver's --authorization-webhook-* flags.
const (
	DefaultAuthorizationWebhookVersion         = "v1beta1"
	DefaultAuthorizationWebhookAuthorizedTTL   = 5 * time.Minute
	DefaultAuthorizationWebhookUnauthorizedTTL = 30 * time.Second
)

// legacyWebhookName is the name kube-apiserver gives the webhook of
// --authorization-mode=Webhook: its no-opinion reasons read "default: ...".
const legacyWebhookName = "default"

// legacyWebhookTimeout is the timeout kube-apiserver gives the webhook of
// --authorization-mode=Webhook.
const legacyWebhookTimeout = 30 * time.Second

// AuthorizationOptions are kube-apiserver's authorization flags: the
// authorizer chain comes from the modes and their webhook flags, or from an
// AuthorizationConfiguration file, never from both.
type AuthorizationOptions struct {
	// Modes are --authorization-mode's (SplitAuthorizationModes); none is
	// RBAC alone (kube-apiserver's default is AlwaysAllow, fakeplane's is
	// RBAC).
	Modes []string
	// WebhookConfigFile is the kubeconfig of mode Webhook's
	// SubjectAccessReview webhook (--authorization-webhook-config-file).
	WebhookConfigFile string
	// WebhookVersion is the SubjectAccessReview version sent to it
	// (--authorization-webhook-version); DefaultAuthorizationWebhookVersion
	// when empty.
	WebhookVersion string
	// WebhookCacheAuthorizedTTL and WebhookCacheUnauthorizedTTL are how long
	// its allowals and its other answers are kept
	// (--authorization-webhook-cache-authorized-ttl, -unauthorized-ttl);
	// nil for the defaults, 0 to keep none.
	WebhookCacheAuthorizedTTL, WebhookCacheUnauthorizedTTL *time.Duration
	// ConfigFile is an AuthorizationConfiguration file
	// (--authorization-config).
	ConfigFile string
	// LegacyFlagsSet says --authorization-mode or an
	// --authorization-webhook-* flag was given: they exclude ConfigFile.
	LegacyFlagsSet bool
	// PolicyFile is mode ABAC's policy file (--authorization-policy-file).
	PolicyFile string
}

// SplitAuthorizationModes splits a comma-separated --authorization-mode
// value into its modes, as kube-apiserver's flag does (no trimming: " RBAC"
// is not a mode); "" is none.
func SplitAuthorizationModes(s string) []string {
	if s == "" {
		return nil
	}
	return strings.Split(s, ",")
}

// Configuration returns the AuthorizationConfiguration kube-apiserver
// builds from the options (BuiltInAuthorizationOptions.Validate and
// ToAuthorizationConfig in pkg/kubeapiserver/options), with its errors: the
// file, loaded and validated (LoadAuthorizationConfiguration), unless a
// legacy flag is set too; else the modes, checked as kube-apiserver checks
// them (every error, aggregated), each an authorizer named after it in
// lower case, the webhook named "default", with a 30 s timeout, no opinion
// when it fails, and its answers kept as the TTL flags say.
func (o AuthorizationOptions) Configuration() (*apiserverconfig.AuthorizationConfiguration, error) {
	if o.ConfigFile != "" {
		if o.LegacyFlagsSet {
			return nil, errors.New("--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined")
		}
		return LoadAuthorizationConfiguration(o.ConfigFile)
	}
	modes := o.Modes
	if len(modes) == 0 {
		modes = []string{ModeRBAC}
	}
	var errs []error
	for _, m := range modes {
		if !sets.New(authorizationModeChoices...).Has(m) {
			errs = append(errs, fmt.Errorf("authorization-mode %q is not a valid mode", m))
		}
		if m == ModeABAC && o.PolicyFile == "" {
			errs = append(errs, errors.New("authorization-mode ABAC's authorization policy file not passed"))
		}
		if m == ModeWebhook && o.WebhookConfigFile == "" {
			errs = append(errs, errors.New("authorization-mode Webhook's authorization config file not passed"))
		}
	}
	if o.PolicyFile != "" && !sets.New(modes...).Has(ModeABAC) {
		errs = append(errs, errors.New("cannot specify --authorization-policy-file without mode ABAC"))
	}
	if o.WebhookConfigFile != "" && !sets.New(modes...).Has(ModeWebhook) {
		errs = append(errs, errors.New("cannot specify --authorization-webhook-config-file without mode Webhook"))
	}
	if len(modes) != sets.New(modes...).Len() {
		errs = append(errs, fmt.Errorf("authorization-mode %q has mode specified more than once", modes))
	}
	if len(errs) > 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	version := o.WebhookVersion
	if version == "" {
		version = DefaultAuthorizationWebhookVersion
	}
	authorizedTTL, unauthorizedTTL := DefaultAuthorizationWebhookAuthorizedTTL, DefaultAuthorizationWebhookUnauthorizedTTL
	if o.WebhookCacheAuthorizedTTL != nil {
		authorizedTTL = *o.WebhookCacheAuthorizedTTL
	}
	if o.WebhookCacheUnauthorizedTTL != nil {
		unauthorizedTTL = *o.WebhookCacheUnauthorizedTTL
	}
	cfg := &apiserverconfig.AuthorizationConfiguration{}
	for _, m := range modes {
		a := apiserverconfig.AuthorizerConfiguration{Type: apiserverconfig.AuthorizerType(m), Name: strings.ToLower(m)}
		if m == ModeWebhook {
			file := o.WebhookConfigFile
			a.Name = legacyWebhookName
			a.Webhook = &apiserverconfig.WebhookConfiguration{
				AuthorizedTTL:              durationOf(authorizedTTL),
				CacheAuthorizedRequests:    authorizedTTL != 0,
				UnauthorizedTTL:            durationOf(unauthorizedTTL),
				CacheUnauthorizedRequests:  unauthorizedTTL != 0,
				Timeout:                    durationOf(legacyWebhookTimeout),
				FailurePolicy:              apiserverconfig.FailurePolicyNoOpinion,
				SubjectAccessReviewVersion: version,
				ConnectionInfo: apiserverconfig.WebhookConnectionInfo{
					Type:           apiserverconfig.AuthorizationWebhookConnectionInfoTypeKubeConfigFile,
					KubeConfigFile: &file,
				},
			}
		}
		cfg.Authorizers = append(cfg.Authorizers, a)
	}
	return cfg, nil
}

// LoadAuthorizationConfiguration reads an AuthorizationConfiguration
// (apiserver.config.k8s.io/v1, v1beta1 or v1alpha1) from the file at path,
// decoded strictly and validated as kube-apiserver's --authorization-config
// (LoadAndValidateFile in pkg/kubeapiserver/authorizer), with its errors:
// upstream's validation (authorizer types kube-apiserver knows, Webhook
// alone repeatable; webhook timeouts, TTLs, versions, failure policy,
// connection, match conditions compiled), then a name other than the lower
// case of its type for an authorizer that is not a webhook.
func LoadAuthorizationConfiguration(path string) (*apiserverconfig.AuthorizationConfiguration, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	cfg, err := load.LoadFromData(data)
	if err != nil {
		return nil, fmt.Errorf("failed to load AuthorizationConfiguration from file: %w", err)
	}
	if errs := apiservervalidation.ValidateAuthorizationConfiguration(authorizationcel.NewDefaultCompiler(), nil, cfg,
		sets.New(authorizationModeChoices...), sets.New(ModeWebhook)); len(errs) != 0 {
		return nil, errs.ToAggregate()
	}
	var errs []error
	for _, a := range cfg.Authorizers {
		if string(a.Type) == ModeWebhook {
			continue
		}
		if want := strings.ToLower(string(a.Type)); a.Name != want {
			errs = append(errs, fmt.Errorf("expected name %s for authorizer %s instead of %s", want, a.Type, a.Name))
		}
	}
	if len(errs) > 0 {
		return nil, utilerrors.NewAggregate(errs)
	}
	return cfg, nil
}

// NewAuthorizer returns the authorizer and rule resolver kube-apiserver
// builds for an AuthorizationConfiguration (pkg/kubeapiserver/authorizer):
// members of system:masters are allowed everything first, then the
// authorizers are asked in order, the first allowal or denial decides, and
// no opinion from all is a denial whose reason joins the reasons given,
// each prefixed by its authorizer's name (k8s.io/apiserver's union). The
// rule resolver (for SelfSubjectRulesReview) unions the authorizers' rules:
// a webhook's are incomplete, with upstream's evaluation error.
//
// RBAC uses rbac and Node node; AlwaysAllow and AlwaysDeny are
// k8s.io/apiserver's; Webhook is upstream's webhook authorizer
// (NewAuthorizationWebhook), dialing with dial (nil: directly); ABAC uses
// abac (LoadABACPolicyFile).
func NewAuthorizer(cfg *apiserverconfig.AuthorizationConfiguration, rbac *RBACAuthorizer, node *NodeAuthorizer, abac *ABACAuthorizer, dial utilnet.DialFunc) (authorizer.Authorizer, authorizer.RuleResolver, error) {
	if cfg == nil || len(cfg.Authorizers) == 0 {
		return nil, nil, errors.New("at least one authorization mode must be passed")
	}
	named := []union.NamedAuthorizer{{
		AuthorizerName: "kubernetes.io/system-privileged-group",
		Authorizer:     authorizerfactory.NewPrivilegedGroups(user.SystemPrivilegedGroup),
	}}
	var resolvers []authorizer.RuleResolver
	// One CEL compiler for the match conditions of every webhook, as
	// kube-apiserver's.
	var compiler authorizationcel.Compiler
	for _, c := range cfg.Authorizers {
		var a interface {
			authorizer.Authorizer
			authorizer.RuleResolver
		}
		switch string(c.Type) {
		case ModeAlwaysAllow:
			a = authorizerfactory.NewAlwaysAllowAuthorizer()
		case ModeAlwaysDeny:
			a = authorizerfactory.NewAlwaysDenyAuthorizer()
		case ModeRBAC:
			if rbac == nil {
				return nil, nil, errors.New("authorizer type RBAC needs an RBAC authorizer")
			}
			a = rbac
		case ModeWebhook:
			if c.Webhook == nil {
				return nil, nil, fmt.Errorf("authorizer %q of type Webhook has no webhook", c.Name)
			}
			if compiler == nil {
				compiler = authorizationcel.NewDefaultCompiler()
			}
			w, err := NewAuthorizationWebhook(c.Name, c.Webhook, dial, compiler)
			if err != nil {
				return nil, nil, err
			}
			a = w
		case ModeNode:
			if node == nil {
				return nil, nil, errors.New("authorizer type Node needs a Node authorizer")
			}
			a = node
		case ModeABAC:
			if abac == nil {
				return nil, nil, errors.New("authorizer type ABAC needs an ABAC authorizer")
			}
			a = abac
		default:
			return nil, nil, fmt.Errorf("unknown authorization mode %s specified", c.Type)
		}
		named = append(named, union.NamedAuthorizer{AuthorizerName: c.Name, Authorizer: a})
		resolvers = append(resolvers, a)
	}
	authz, err := union.New(named...)
	if err != nil {
		return nil, nil, err
	}
	return authz, union.NewRuleResolvers(resolvers...), nil
}
