package admission

import (
	"bytes"
	"fmt"
	"io"

	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	webhookconfig "k8s.io/apiserver/pkg/admission/plugin/webhook/config"
	apiserverconfig "k8s.io/apiserver/pkg/apis/apiserver"
	apiserverconfigv1 "k8s.io/apiserver/pkg/apis/apiserver/v1"
	apiserverconfigv1alpha1 "k8s.io/apiserver/pkg/apis/apiserver/v1alpha1"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	psconfig "k8s.io/pod-security-admission/admission/api"
	psload "k8s.io/pod-security-admission/admission/api/load"
	psvalidation "k8s.io/pod-security-admission/admission/api/validation"
)

// PluginConfig is what an --admission-control-config-file configures of the
// plugins fakeplane runs: PodSecurity's defaults and exemptions, and the
// credentials the admission webhooks present to webhook servers.
type PluginConfig struct {
	// PodSecurity is the PodSecurity plugin's configuration (nil: its
	// default, every mode privileged and no exemptions).
	PodSecurity *psconfig.PodSecurityConfiguration
	// MutatingWebhook and ValidatingWebhook are the webhook plugins'
	// configurations (a WebhookAdmission naming a kubeConfigFile), as
	// read (nil: none).
	MutatingWebhook, ValidatingWebhook []byte
	// PodNodeSelector and PodTolerationRestriction configure those
	// plugins when they run (nil: their defaults, no cluster-wide
	// selector or tolerations).
	PodNodeSelector          *PodNodeSelectorConfig
	PodTolerationRestriction *PodTolerationRestrictionConfig
	// EventRateLimit and ImagePolicyWebhook configure those plugins,
	// which cannot run without a configuration.
	EventRateLimit     *EventRateLimitConfig
	ImagePolicyWebhook *ImagePolicyWebhookConfig
}

// configurablePlugins are the plugins that read a configuration; a file
// that configures one fakeplane cannot honour (ResourceQuota's) is refused
// rather than ignored. As in kube-apiserver, only the configurations of
// the plugins that run are read.
var configurablePlugins = []string{PodSecurityPluginName, "ResourceQuota", "ValidatingAdmissionWebhook", "MutatingAdmissionWebhook",
	PodNodeSelectorPluginName, PodTolerationRestrictionPluginName, EventRateLimitPluginName, ImagePolicyWebhookPluginName}

// ReadPluginConfig reads an AdmissionConfiguration (apiserver.config.k8s.io v1 or
// v1alpha1, or a legacy plugin file) from path, as kube-apiserver reads its
// --admission-control-config-file, with its errors, for the plugins of
// selected. A plugin's configuration may be inline or in a file its path
// names (relative to the file's directory). An empty path reads nothing:
// the plugins that need a configuration fail as without one.
func ReadPluginConfig(path string, selected Plugins) (*PluginConfig, error) {
	scheme := runtime.NewScheme()
	utilruntime.Must(apiserverconfig.AddToScheme(scheme))
	utilruntime.Must(apiserverconfigv1alpha1.AddToScheme(scheme))
	utilruntime.Must(apiserverconfigv1.AddToScheme(scheme))
	provider, err := k8sadmission.ReadAdmissionConfiguration(selected.Names(), path, scheme)
	if err != nil {
		return nil, fmt.Errorf("failed to read plugin config: %w", err)
	}
	cfg := &PluginConfig{}
	for _, name := range configurablePlugins {
		if !selected.Enabled(name) {
			continue
		}
		r, err := provider.ConfigFor(name)
		if err != nil {
			return nil, fmt.Errorf("failed to read plugin config: %w", err)
		}
		switch name {
		case EventRateLimitPluginName:
			if cfg.EventRateLimit, err = LoadEventRateLimitConfig(r); err != nil {
				return nil, fmt.Errorf("couldn't init admission plugin %q: %w", name, err)
			}
			continue
		case ImagePolicyWebhookPluginName:
			if cfg.ImagePolicyWebhook, err = LoadImagePolicyWebhookConfig(r); err != nil {
				return nil, fmt.Errorf("couldn't init admission plugin %q: %w", name, err)
			}
			continue
		}
		if r == nil {
			continue
		}
		switch name {
		case PodSecurityPluginName:
			if cfg.PodSecurity, err = psload.LoadFromReader(r); err != nil {
				return nil, err
			}
			// Checked now, as kube-apiserver checks it at start; fakeplane
			// builds the plugin at the first pod write.
			if errs := psvalidation.ValidatePodSecurityConfiguration(cfg.PodSecurity); len(errs) > 0 {
				return nil, fmt.Errorf("%s invalid: %w", PodSecurityPluginName, errs.ToAggregate())
			}
		case "MutatingAdmissionWebhook", "ValidatingAdmissionWebhook":
			b, err := io.ReadAll(r)
			if err != nil {
				return nil, fmt.Errorf("failed to read plugin config: %w", err)
			}
			// Checked now, as kube-apiserver builds its plugins at start;
			// fakeplane's are built with the first webhook configuration.
			wc, err := webhookconfig.LoadConfig(bytes.NewReader(b))
			if err == nil && wc.KubeConfigFile != "" {
				_, err = webhookutil.NewDefaultAuthenticationInfoResolver(wc.KubeConfigFile)
			}
			if err != nil {
				return nil, fmt.Errorf("couldn't init admission plugin %q: %w", name, err)
			}
			if name == "MutatingAdmissionWebhook" {
				cfg.MutatingWebhook = b
			} else {
				cfg.ValidatingWebhook = b
			}
		case PodNodeSelectorPluginName:
			cfg.PodNodeSelector = LoadPodNodeSelectorConfig(r)
		case PodTolerationRestrictionPluginName:
			if cfg.PodTolerationRestriction, err = LoadPodTolerationRestrictionConfig(r); err != nil {
				return nil, fmt.Errorf("couldn't init admission plugin %q: %w", name, err)
			}
		default:
			return nil, fmt.Errorf("admission plugin %q: fakeplane does not take its configuration", name)
		}
	}
	return cfg, nil
}
