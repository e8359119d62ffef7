package admission

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	imagepolicyv1alpha1 "k8s.io/api/imagepolicy/v1alpha1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	"k8s.io/apimachinery/pkg/util/cache"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/yaml"
	k8sadmission "k8s.io/apiserver/pkg/admission"
	webhookutil "k8s.io/apiserver/pkg/util/webhook"
	"k8s.io/client-go/rest"
)

// ImagePolicyWebhookPluginName is the name of upstream's ImagePolicyWebhook
// plugin.
const ImagePolicyWebhookPluginName = "ImagePolicyWebhook"

// ImagePolicyWebhookAuditKeyPrefix prefixes the audit annotations
// ImagePolicyWebhook adds: the backend's status.auditAnnotations, and
// ImagePolicyWebhookFailedOpenAuditKey.
const ImagePolicyWebhookAuditKeyPrefix = "imagepolicywebhook.image-policy.k8s.io/"

// ImagePolicyWebhookFailedOpenAuditKey is the audit annotation ("true")
// of a pod admitted because the backend failed and defaultAllow is set.
const ImagePolicyWebhookFailedOpenAuditKey = ImagePolicyWebhookAuditKeyPrefix + "failed-open"

// The bounds and defaults of ImagePolicyWebhook's durations.
const (
	imagePolicyDefaultRetryBackoff = 500 * time.Millisecond
	imagePolicyMinRetryBackoff     = time.Duration(1)
	imagePolicyMaxRetryBackoff     = 5 * time.Minute
	imagePolicyDefaultAllowTTL     = 5 * time.Minute
	imagePolicyDefaultDenyTTL      = 30 * time.Second
	imagePolicyMinTTL              = time.Second
	imagePolicyMaxTTL              = 30 * time.Minute
	imagePolicyCacheSize           = 1024
)

// ImagePolicyWebhookConfig is upstream ImagePolicyWebhook's configuration
// (its imagePolicy stanza), normalized: durations as durations, defaults
// applied.
type ImagePolicyWebhookConfig struct {
	// KubeConfigFile is the path of the kubeconfig naming the backend
	// (its cluster) and the credentials to present (its user).
	KubeConfigFile string
	// AllowTTL and DenyTTL are how long an answer is cached (0: not).
	AllowTTL, DenyTTL time.Duration
	// RetryBackoff is the first wait between retries of a failed call.
	RetryBackoff time.Duration
	// DefaultAllow admits pods when the backend cannot be reached.
	DefaultAllow bool
}

// LoadImagePolicyWebhookConfig reads ImagePolicyWebhook's configuration as
// upstream does from the plugin's part of --admission-control-config-file
// (the whole file in the legacy format, the plugin's configuration in an
// AdmissionConfiguration): YAML or JSON `{"imagePolicy": {"kubeConfigFile":
// ..., "allowTTL": <s>, "denyTTL": <s>, "retryBackoff": <ms>,
// "defaultAllow": <bool>}}`, fields matched regardless of case, unknown ones
// ignored. A duration of 0 is its default (allowTTL 5m, denyTTL 30s,
// retryBackoff 500ms), -1 disables it (0); others must be within upstream's
// bounds (TTLs 1s to 30m, retryBackoff 1ns to 5m), else upstream's `valid
// value is between 1s and 30m0s, got 45m0s`. A nil reader is upstream's
// `no config specified`.
func LoadImagePolicyWebhookConfig(r io.Reader) (*ImagePolicyWebhookConfig, error) {
	if r == nil {
		return nil, fmt.Errorf("no config specified")
	}
	// Named as upstream's, whose names decoding errors show.
	type imagePolicyWebhookConfig struct {
		KubeConfigFile string        `json:"kubeConfigFile"`
		AllowTTL       time.Duration `json:"allowTTL"`
		DenyTTL        time.Duration `json:"denyTTL"`
		RetryBackoff   time.Duration `json:"retryBackoff"`
		DefaultAllow   bool          `json:"defaultAllow"`
	}
	type AdmissionConfig struct {
		ImagePolicyWebhook imagePolicyWebhookConfig `json:"imagePolicy"`
	}
	var in AdmissionConfig
	if err := yaml.NewYAMLOrJSONDecoder(r, 4096).Decode(&in); err != nil {
		return nil, err
	}
	c := in.ImagePolicyWebhook
	out := &ImagePolicyWebhookConfig{KubeConfigFile: c.KubeConfigFile, DefaultAllow: c.DefaultAllow}
	var err error
	if out.RetryBackoff, err = imagePolicyDuration(time.Millisecond, c.RetryBackoff, imagePolicyMinRetryBackoff, imagePolicyMaxRetryBackoff, imagePolicyDefaultRetryBackoff); err != nil {
		return nil, err
	}
	if out.AllowTTL, err = imagePolicyDuration(time.Second, c.AllowTTL, imagePolicyMinTTL, imagePolicyMaxTTL, imagePolicyDefaultAllowTTL); err != nil {
		return nil, err
	}
	if out.DenyTTL, err = imagePolicyDuration(time.Second, c.DenyTTL, imagePolicyMinTTL, imagePolicyMaxTTL, imagePolicyDefaultDenyTTL); err != nil {
		return nil, err
	}
	return out, nil
}

// imagePolicyDuration is v (read as a number of units) normalized: -1 is 0
// (disabled), 0 is def, others must be within [lo, hi].
func imagePolicyDuration(unit, v, lo, hi, def time.Duration) (time.Duration, error) {
	switch v {
	case -1:
		return 0, nil
	case 0:
		return def, nil
	}
	v *= unit
	if v < lo || v > hi {
		return v, fmt.Errorf("valid value is between %v and %v, got %v", lo, hi, v)
	}
	return v, nil
}

// imagePolicyScheme and imagePolicyCodecs encode and decode ImageReviews.
var (
	imagePolicyScheme = func() *runtime.Scheme {
		s := runtime.NewScheme()
		utilruntime.Must(imagepolicyv1alpha1.AddToScheme(s))
		return s
	}()
	imagePolicyCodecs = serializer.NewCodecFactory(imagePolicyScheme)
)

// ImagePolicyWebhook is upstream's ImagePolicyWebhook plugin (validating
// only): it asks a backend, with an imagepolicy.k8s.io/v1alpha1
// ImageReview, whether a pod's images may run, and caches the answers. It
// is safe for concurrent use.
type ImagePolicyWebhook struct {
	webhook           *webhookutil.GenericWebhook
	cache             *cache.LRUExpireCache
	allowTTL, denyTTL time.Duration
	defaultAllow      bool
}

// imagePolicyClock is a cache clock reading now.
type imagePolicyClock func() time.Time

func (c imagePolicyClock) Now() time.Time { return c() }

// NewImagePolicyWebhook builds the plugin for cfg (as
// LoadImagePolicyWebhookConfig returns it): it loads cfg.KubeConfigFile as
// upstream does (webhook.LoadKubeconfig: an empty path falls back to the
// usual kubeconfig loading rules; requests time out after 30s, with no
// client-side rate limit), its errors as they are. now is the clock of
// the answers' cache (nil: time.Now); dial, when set, makes the
// connections to the backend.
func NewImagePolicyWebhook(cfg *ImagePolicyWebhookConfig, now func() time.Time, dial utilnet.DialFunc) (*ImagePolicyWebhook, error) {
	if cfg == nil {
		return nil, fmt.Errorf("no config specified")
	}
	if now == nil {
		now = time.Now
	}
	restCfg, err := webhookutil.LoadKubeconfig(cfg.KubeConfigFile, nil)
	if err != nil {
		return nil, err
	}
	if dial != nil {
		restCfg.Dial = dial
	}
	gw, err := webhookutil.NewGenericWebhook(imagePolicyScheme, imagePolicyCodecs, restCfg, []schema.GroupVersion{imagepolicyv1alpha1.SchemeGroupVersion}, webhookutil.DefaultRetryBackoffWithInitialDelay(cfg.RetryBackoff))
	if err != nil {
		return nil, err
	}
	return &ImagePolicyWebhook{
		webhook:      gw,
		cache:        cache.NewLRUExpireCacheWithClock(imagePolicyCacheSize, imagePolicyClock(now)),
		allowTTL:     cfg.AllowTTL,
		denyTTL:      cfg.DenyTTL,
		defaultAllow: cfg.DefaultAllow,
	}, nil
}

// Validate admits a as upstream's plugin. On a Create or Update of a pod
// (the pods resource itself, or its ephemeralcontainers subresource; any
// other write is left alone), whose object must be a *corev1.Pod (else a
// 400 `Resource was marked with kind Pod but was unable to be
// converted`), it reviews the images of the pod's containers then init
// containers (of its ephemeral containers for ephemeralcontainers), with
// the pod's annotations whose key contains ".image-policy.k8s.io/" and the
// request's namespace. An answer for the same review is reused until its
// TTL runs out; otherwise the backend is asked (POST, retried with backoff
// on connection resets, 429, 500 and 504). The backend's
// status.auditAnnotations are added to a's audit annotations under
// ImagePolicyWebhookAuditKeyPrefix. A denial is a 403 `pods "<name>" is
// forbidden: image policy webhook backend denied one or more images:
// <reason>` (without a reason: `... one or more images rejected by webhook
// backend`). When the backend fails (its error as the REST client gives
// it), with defaultAllow the pod is admitted, annotated
// alpha.image-policy.k8s.io/failed-open: "true" (the pod in a is changed)
// and a given the ImagePolicyWebhookFailedOpenAuditKey audit annotation;
// without, it is a 403 `pods "<name>" is forbidden: <error>` (or the
// backend's own 403 as it is). Failures are not cached.
func (p *ImagePolicyWebhook) Validate(ctx context.Context, a k8sadmission.Attributes) error {
	if !optinHandles(a.GetOperation(), k8sadmission.Create, k8sadmission.Update) {
		return nil
	}
	sub := a.GetSubresource()
	if (sub != "" && sub != "ephemeralcontainers") || a.GetResource().GroupResource() != optinPods {
		return nil
	}
	pod := optinPod(a.GetObject())
	if pod == nil {
		return apierrors.NewBadRequest(alwaysPullImagesNotAPod)
	}
	var specs []imagepolicyv1alpha1.ImageReviewContainerSpec
	if sub == "" {
		for _, cs := range [][]corev1.Container{pod.Spec.Containers, pod.Spec.InitContainers} {
			for _, c := range cs {
				specs = append(specs, imagepolicyv1alpha1.ImageReviewContainerSpec{Image: c.Image})
			}
		}
	} else {
		for _, c := range pod.Spec.EphemeralContainers {
			specs = append(specs, imagepolicyv1alpha1.ImageReviewContainerSpec{Image: c.Image})
		}
	}
	annotations := map[string]string{}
	for k, v := range pod.Annotations {
		if strings.Contains(k, ".image-policy.k8s.io/") {
			annotations[k] = v
		}
	}
	review := &imagepolicyv1alpha1.ImageReview{Spec: imagepolicyv1alpha1.ImageReviewSpec{
		Containers:  specs,
		Annotations: annotations,
		Namespace:   a.GetNamespace(),
	}}
	if err := p.review(ctx, pod, a, review); err != nil {
		return k8sadmission.NewForbidden(a, err)
	}
	return nil
}

// review fills review's status, from the cache or the backend, and answers
// it: nil when allowed.
func (p *ImagePolicyWebhook) review(ctx context.Context, pod *corev1.Pod, a k8sadmission.Attributes, review *imagepolicyv1alpha1.ImageReview) error {
	key, err := json.Marshal(review.Spec)
	if err != nil {
		return err
	}
	if v, ok := p.cache.Get(string(key)); ok {
		review.Status = v.(imagepolicyv1alpha1.ImageReviewStatus)
	} else {
		result := p.webhook.WithExponentialBackoff(ctx, func() rest.Result {
			return p.webhook.RestClient.Post().Body(review).Do(ctx)
		})
		if err := result.Error(); err != nil {
			return p.failed(pod, a, err)
		}
		var code int
		if result.StatusCode(&code); code < 200 || code >= 300 {
			return p.failed(pod, a, fmt.Errorf("Error contacting webhook: %d", code))
		}
		if err := result.Into(review); err != nil {
			return p.failed(pod, a, err)
		}
		ttl := p.denyTTL
		if review.Status.Allowed {
			ttl = p.allowTTL
		}
		p.cache.Add(string(key), review.Status, ttl)
	}
	for k, v := range review.Status.AuditAnnotations {
		_ = a.AddAnnotation(ImagePolicyWebhookAuditKeyPrefix+k, v)
	}
	if !review.Status.Allowed {
		if review.Status.Reason != "" {
			return fmt.Errorf("image policy webhook backend denied one or more images: %s", review.Status.Reason)
		}
		return errors.New("one or more images rejected by webhook backend")
	}
	return nil
}

// failed answers a backend failure: with defaultAllow, nil, the pod
// annotated as admitted failing open; without, a 403.
func (p *ImagePolicyWebhook) failed(pod *corev1.Pod, a k8sadmission.Attributes, err error) error {
	if !p.defaultAllow {
		return k8sadmission.NewForbidden(a, err)
	}
	_ = a.AddAnnotation(ImagePolicyWebhookFailedOpenAuditKey, "true")
	if pod.Annotations == nil {
		pod.Annotations = map[string]string{}
	}
	pod.Annotations[corev1.ImagePolicyFailedOpenKey] = "true"
	return nil
}
