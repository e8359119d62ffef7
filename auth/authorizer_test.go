package auth

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	apiserverconfig "k8s.io/apiserver/pkg/apis/apiserver"
	"k8s.io/apiserver/pkg/authorization/authorizer"
)

// newModeAuthorizer is NewAuthorizer for an --authorization-mode value.
func newModeAuthorizer(mode string, rbac *RBACAuthorizer) (authorizer.Authorizer, authorizer.RuleResolver, error) {
	cfg, err := AuthorizationOptions{Modes: SplitAuthorizationModes(mode)}.Configuration()
	if err != nil {
		return nil, nil, err
	}
	return NewAuthorizer(cfg, rbac, NewNodeAuthorizer(NewNodeGraph(), nil), nil, nil)
}

// writeFile writes data to name in a temporary directory and returns its
// absolute path.
func writeFile(t *testing.T, name, data string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(path, []byte(data), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

const testWebhookKubeconfig = `apiVersion: v1
kind: Config
clusters:
- name: webhook
  cluster: {server: "https://127.0.0.1:1"}
users:
- name: apiserver
  user: {}
contexts:
- name: webhook
  context: {cluster: webhook, user: apiserver}
current-context: webhook
`

func TestAuthorizationOptionsErrorsAsKubeAPIServer(t *testing.T) {
	kubeconfig := writeFile(t, "webhook.kubeconfig", testWebhookKubeconfig)
	authzConfig := writeFile(t, "authz.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n- {type: RBAC, name: rbac}\n")
	for _, tc := range []struct {
		name string
		opts AuthorizationOptions
		want string
	}{
		{"the file with a legacy flag", AuthorizationOptions{ConfigFile: authzConfig, LegacyFlagsSet: true},
			"--authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined"},
		{"an unknown mode", AuthorizationOptions{Modes: []string{"RBAC", "Magic"}},
			`authorization-mode "Magic" is not a valid mode`},
		{"a mode with a space", AuthorizationOptions{Modes: SplitAuthorizationModes("RBAC, Webhook"), WebhookConfigFile: kubeconfig},
			`[authorization-mode " Webhook" is not a valid mode, cannot specify --authorization-webhook-config-file without mode Webhook]`},
		{"Webhook without its file", AuthorizationOptions{Modes: []string{"Webhook"}},
			"authorization-mode Webhook's authorization config file not passed"},
		{"the webhook's file without mode Webhook", AuthorizationOptions{Modes: []string{"RBAC"}, WebhookConfigFile: kubeconfig},
			"cannot specify --authorization-webhook-config-file without mode Webhook"},
		{"the webhook's file without a mode", AuthorizationOptions{WebhookConfigFile: kubeconfig},
			"cannot specify --authorization-webhook-config-file without mode Webhook"},
		{"ABAC, without a policy file", AuthorizationOptions{Modes: []string{"ABAC"}},
			"authorization-mode ABAC's authorization policy file not passed"},
		{"a mode twice", AuthorizationOptions{Modes: []string{"RBAC", "AlwaysAllow", "RBAC"}},
			`authorization-mode ["RBAC" "AlwaysAllow" "RBAC"] has mode specified more than once`},
		{"every error at once", AuthorizationOptions{Modes: []string{"Webhook", "Webhook", "Bogus"}},
			// An aggregate's message says a repeated error once.
			`[authorization-mode Webhook's authorization config file not passed, authorization-mode "Bogus" is not a valid mode, authorization-mode ["Webhook" "Webhook" "Bogus"] has mode specified more than once]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := tc.opts.Configuration()
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestAuthorizationOptionsBuildKubeAPIServersConfiguration(t *testing.T) {
	kubeconfig := writeFile(t, "webhook.kubeconfig", testWebhookKubeconfig)
	zero, minute := time.Duration(0), time.Minute
	webhook := func(authorized, unauthorized time.Duration, version string) apiserverconfig.AuthorizerConfiguration {
		return apiserverconfig.AuthorizerConfiguration{Type: "Webhook", Name: "default", Webhook: &apiserverconfig.WebhookConfiguration{
			AuthorizedTTL: metav1.Duration{Duration: authorized}, CacheAuthorizedRequests: authorized != 0,
			UnauthorizedTTL: metav1.Duration{Duration: unauthorized}, CacheUnauthorizedRequests: unauthorized != 0,
			Timeout: metav1.Duration{Duration: 30 * time.Second}, FailurePolicy: "NoOpinion", SubjectAccessReviewVersion: version,
			ConnectionInfo: apiserverconfig.WebhookConnectionInfo{Type: "KubeConfigFile", KubeConfigFile: &kubeconfig},
		}}
	}
	for _, tc := range []struct {
		name string
		opts AuthorizationOptions
		want []apiserverconfig.AuthorizerConfiguration
	}{
		{"no mode is fakeplane's RBAC", AuthorizationOptions{}, []apiserverconfig.AuthorizerConfiguration{{Type: "RBAC", Name: "rbac"}}},
		{"the modes in order, named in lower case", AuthorizationOptions{Modes: []string{"AlwaysDeny", "RBAC", "AlwaysAllow"}},
			[]apiserverconfig.AuthorizerConfiguration{{Type: "AlwaysDeny", Name: "alwaysdeny"}, {Type: "RBAC", Name: "rbac"}, {Type: "AlwaysAllow", Name: "alwaysallow"}}},
		{"the webhook named default, with the flags' defaults", AuthorizationOptions{Modes: []string{"RBAC", "Webhook"}, WebhookConfigFile: kubeconfig},
			[]apiserverconfig.AuthorizerConfiguration{{Type: "RBAC", Name: "rbac"}, webhook(5*time.Minute, 30*time.Second, "v1beta1")}},
		{"a TTL of 0 keeps no answers", AuthorizationOptions{Modes: []string{"Webhook"}, WebhookConfigFile: kubeconfig, WebhookVersion: "v1",
			WebhookCacheAuthorizedTTL: &minute, WebhookCacheUnauthorizedTTL: &zero},
			[]apiserverconfig.AuthorizerConfiguration{webhook(time.Minute, 0, "v1")}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			cfg, err := tc.opts.Configuration()
			if err != nil {
				t.Fatal(err)
			}
			if !reflect.DeepEqual(cfg.Authorizers, tc.want) {
				t.Errorf("got  %+v\nwant %+v", cfg.Authorizers, tc.want)
			}
		})
	}
}

func TestLoadAuthorizationConfigurationErrorsAsKubeAPIServer(t *testing.T) {
	kubeconfig := writeFile(t, "webhook.kubeconfig", testWebhookKubeconfig)
	head := "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\n"
	webhook := func(name, extra string) string {
		return "- type: Webhook\n  name: " + name + "\n  webhook:\n    timeout: 3s\n    subjectAccessReviewVersion: v1\n    failurePolicy: Deny\n" +
			"    connectionInfo: {type: KubeConfigFile, kubeConfigFile: " + kubeconfig + "}\n" + extra
	}
	for _, tc := range []struct {
		name, file, want string
	}{
		{"no file", "", "open " + filepath.Join(t.TempDir(), "missing.yaml") + ": no such file or directory"},
		{"an unknown field", head + "authorizers:\n- {type: RBAC, name: rbac, bogus: 1}\n",
			`failed to load AuthorizationConfiguration from file: strict decoding error: unknown field "authorizers[0].bogus"`},
		{"no authorizers", head + "authorizers: []\n",
			"authorizers: Required value: at least one authorization mode must be defined"},
		{"an unknown type", head + "authorizers:\n- {type: Magic, name: magic}\n",
			`authorizers[0].type: Unsupported value: "Magic": supported values: "ABAC", "AlwaysAllow", "AlwaysDeny", "Node", "RBAC", "Webhook"`},
		{"RBAC twice", head + "authorizers:\n- {type: RBAC, name: rbac}\n- {type: RBAC, name: rbac}\n",
			`authorizers[1].type: Duplicate value: "RBAC"`},
		{"a name not the type's", head + "authorizers:\n- {type: RBAC, name: my-rbac}\n",
			"expected name rbac for authorizer RBAC instead of my-rbac"},
		{"two webhooks of one name", head + "authorizers:\n" + webhook("hook", "") + webhook("hook", ""),
			`authorizers[1].name: Duplicate value: "hook"`},
		{"a webhook without its settings", head + "authorizers:\n- {type: Webhook, name: hook, webhook: {connectionInfo: {type: KubeConfigFile, kubeConfigFile: relative.kubeconfig}}}\n",
			`[authorizers[0].timeout: Required value, authorizers[0].subjectAccessReviewVersion: Required value, authorizers[0].failurePolicy: Required value, authorizers[0].connectionInfo.kubeConfigFile: Invalid value: "relative.kubeconfig": must be an absolute path]`},
		{"a timeout over 30s", head + "authorizers:\n" + strings.Replace(webhook("hook", ""), "timeout: 3s", "timeout: 45s", 1),
			`authorizers[0].timeout: Invalid value: "45s": must be > 0s and <= 30s`},
		{"match conditions without their version", head + "authorizers:\n" + webhook("hook", "    matchConditions:\n    - expression: \"request.user != 'x'\"\n"),
			"authorizers[0].matchConditionSubjectAccessReviewVersion: Required value: required if match conditions are specified"},
		{"a match condition that does not compile", head + "authorizers:\n" + webhook("hook", "    matchConditionSubjectAccessReviewVersion: v1\n    matchConditions:\n    - expression: \"request.nothing\"\n"),
			"authorizers[0].matchConditions[0].expression: Invalid value: \"request.nothing\": compilation failed: ERROR: <input>:1:8: undefined field 'nothing'\n | request.nothing\n | .......^"},
		{"a failure policy unknown", head + "authorizers:\n" + strings.Replace(webhook("hook", ""), "failurePolicy: Deny", "failurePolicy: Allow", 1),
			`authorizers[0].failurePolicy: Unsupported value: "Allow": supported values: "NoOpinion", "Deny"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			path := filepath.Join(t.TempDir(), "missing.yaml")
			if tc.file != "" {
				path = writeFile(t, "authz.yaml", tc.file)
			} else {
				tc.want = "open " + path + ": no such file or directory"
			}
			_, err := LoadAuthorizationConfiguration(path)
			if err == nil || err.Error() != tc.want {
				t.Errorf("got  %v\nwant %s", err, tc.want)
			}
		})
	}
}

func TestNewAuthorizerRefusesWhatFakeplaneLacks(t *testing.T) {
	for _, tc := range []struct {
		name string
		a    apiserverconfig.AuthorizerConfiguration
		want string
	}{
		{"a webhook InClusterConfig", apiserverconfig.AuthorizerConfiguration{Type: "Webhook", Name: "in-cluster", Webhook: &apiserverconfig.WebhookConfiguration{
			Timeout: metav1.Duration{Duration: time.Second}, FailurePolicy: "Deny", SubjectAccessReviewVersion: "v1",
			ConnectionInfo: apiserverconfig.WebhookConnectionInfo{Type: "InClusterConfig"}}},
			`authorization webhook "in-cluster": connectionInfo type "InClusterConfig" is not supported`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, _, err := NewAuthorizer(&apiserverconfig.AuthorizationConfiguration{Authorizers: []apiserverconfig.AuthorizerConfiguration{tc.a}}, NewRBACAuthorizer(NewStaticRBAC()), nil, nil, nil)
			if err == nil || !strings.HasPrefix(err.Error(), tc.want) {
				t.Errorf("got %v, want %s...", err, tc.want)
			}
		})
	}
}
