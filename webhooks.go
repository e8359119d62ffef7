package fakeplane

import (
	"fmt"
	"io/fs"
	"net"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	admissionregistrationv1 "k8s.io/api/admissionregistration/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/yaml"

	"github.com/fakeplane/fakeplane/fixtures"
	"github.com/fakeplane/fakeplane/internal/pki"
)

// WebhookInstallOptions installs admission webhook configurations that
// call a webhook server the test runs itself, as envtest's
// WebhookInstallOptions does: every webhook's clientConfig is pointed, by
// URL, at LocalServingHost:LocalServingPort (keeping the path of its
// service or URL) and trusts a CA the control plane makes for it. The
// server's certificate, key and directory are ControlPlane.WebhookServing's.
type WebhookInstallOptions struct {
	// Paths are files or directories (not walked into subdirectories) of
	// YAML or JSON manifests, such as a kubebuilder project's
	// config/webhook; only their MutatingWebhookConfiguration and
	// ValidatingWebhookConfiguration documents are installed.
	Paths []string
	// Manifests are more such documents, e.g. embedded YAML.
	Manifests [][]byte
	// MutatingWebhooks and ValidatingWebhooks are configurations given as
	// objects.
	MutatingWebhooks   []*admissionregistrationv1.MutatingWebhookConfiguration
	ValidatingWebhooks []*admissionregistrationv1.ValidatingWebhookConfiguration
	// LocalServingHost is where the webhook server listens; "" means
	// 127.0.0.1.
	LocalServingHost string
	// LocalServingPort is its port; 0 picks a free one.
	LocalServingPort int
	// LocalServingCertDir is where tls.crt and tls.key are written; ""
	// means a directory the control plane removes when it stops.
	LocalServingCertDir string
}

// WithWebhooks installs the webhook configurations of opts at start,
// pointed at a webhook server of the test's (see WebhookInstallOptions and
// ControlPlane.WebhookServing).
func WithWebhooks(opts WebhookInstallOptions) Option {
	return func(o *options) { o.webhooks = &opts }
}

// WebhookServing is where a test's webhook server must serve for the
// configurations of WithWebhooks to reach it, and the certificate it must
// serve: controller-runtime's webhook.Options{Host, Port, CertDir} take it
// as it is.
type WebhookServing struct {
	Host string
	Port int
	// CertDir holds CertName and KeyName.
	CertDir  string
	CertName string
	KeyName  string
	// CAPEM is the CA that signed the certificate, the caBundle of every
	// installed webhook.
	CAPEM []byte
}

// Address is Host:Port.
func (w WebhookServing) Address() string { return net.JoinHostPort(w.Host, strconv.Itoa(w.Port)) }

// WebhookServing returns where the webhook server of WithWebhooks must
// serve and its certificate; ok is false without WithWebhooks. Call it
// after Start.
func (cp *ControlPlane) WebhookServing() (w WebhookServing, ok bool) {
	if cp.webhookServing == nil {
		return WebhookServing{}, false
	}
	w = *cp.webhookServing
	w.CAPEM = slices.Clone(w.CAPEM)
	return w, true
}

// installWebhooks writes the webhook server's certificate and stores the
// configurations of WithWebhooks, pointed at it.
func (cp *ControlPlane) installWebhooks(dataDir string) error {
	opts := cp.opts.webhooks
	if opts == nil {
		return nil
	}
	serving, err := cp.newWebhookServing(opts, dataDir)
	if err != nil {
		return fmt.Errorf("fakeplane: webhooks: %w", err)
	}
	cp.webhookServing = serving
	mutating, validating, err := opts.configurations()
	if err != nil {
		return fmt.Errorf("fakeplane: webhooks: %w", err)
	}
	base := url.URL{Scheme: "https", Host: serving.Address()}
	for _, m := range mutating {
		for i := range m.Webhooks {
			m.Webhooks[i].ClientConfig = localClientConfig(base, m.Webhooks[i].ClientConfig, serving.CAPEM)
		}
		if err := cp.createObject(m); err != nil {
			return fmt.Errorf("fakeplane: webhooks: MutatingWebhookConfiguration %s: %w", m.Name, err)
		}
	}
	for _, v := range validating {
		for i := range v.Webhooks {
			v.Webhooks[i].ClientConfig = localClientConfig(base, v.Webhooks[i].ClientConfig, serving.CAPEM)
		}
		if err := cp.createObject(v); err != nil {
			return fmt.Errorf("fakeplane: webhooks: ValidatingWebhookConfiguration %s: %w", v.Name, err)
		}
	}
	return nil
}

// createObject stores one object as the bootstrap does.
func (cp *ControlPlane) createObject(obj runtime.Object) error {
	b, err := objectJSON(obj)
	if err != nil {
		return err
	}
	return cp.srv.Create(b)
}

// localClientConfig points a webhook's client configuration at base,
// keeping its path, with caBundle ca.
func localClientConfig(base url.URL, cc admissionregistrationv1.WebhookClientConfig, ca []byte) admissionregistrationv1.WebhookClientConfig {
	p := "/"
	switch {
	case cc.Service != nil && cc.Service.Path != nil:
		p = *cc.Service.Path
	case cc.URL != nil:
		if u, err := url.Parse(*cc.URL); err == nil && u.Path != "" {
			p = u.Path
		}
	}
	u := base
	u.Path = path.Clean("/" + p)
	s := u.String()
	return admissionregistrationv1.WebhookClientConfig{URL: &s, CABundle: slices.Clone(ca)}
}

// newWebhookServing picks the webhook server's address and writes a
// certificate for it, signed by a new CA.
func (cp *ControlPlane) newWebhookServing(opts *WebhookInstallOptions, dataDir string) (*WebhookServing, error) {
	host := opts.LocalServingHost
	if host == "" {
		host = "127.0.0.1"
	}
	port := opts.LocalServingPort
	if port == 0 {
		ln, err := net.Listen("tcp", net.JoinHostPort(host, "0"))
		if err != nil {
			return nil, fmt.Errorf("pick a port for the webhook server: %w", err)
		}
		port = ln.Addr().(*net.TCPAddr).Port
		_ = ln.Close()
	}
	dir := opts.LocalServingCertDir
	if dir == "" {
		dir = filepath.Join(dataDir, "webhook-serving")
	}
	if err := cp.privateDir(dir); err != nil {
		return nil, fmt.Errorf("webhook serving certificate directory: %w", err)
	}
	ca, err := pki.NewCA("fakeplane-webhook-ca")
	if err != nil {
		return nil, err
	}
	var ips []net.IP
	names := []string{"localhost"}
	if ip := net.ParseIP(host); ip != nil {
		ips = append(ips, ip)
	} else {
		names = append(names, host)
	}
	ips = append(ips, net.IPv4(127, 0, 0, 1), net.IPv6loopback)
	kp, err := ca.NewServingCert("fakeplane-webhook", names, ips)
	if err != nil {
		return nil, err
	}
	w := &WebhookServing{Host: host, Port: port, CertDir: dir, CertName: "tls.crt", KeyName: "tls.key", CAPEM: ca.CertPEM}
	if err := pki.WriteSecretFile(filepath.Join(dir, w.CertName), kp.CertPEM); err != nil {
		return nil, err
	}
	if err := pki.WriteSecretFile(filepath.Join(dir, w.KeyName), kp.KeyPEM); err != nil {
		return nil, err
	}
	return w, nil
}

// configurations reads every webhook configuration the options name, in
// the order given.
func (opts *WebhookInstallOptions) configurations() ([]*admissionregistrationv1.MutatingWebhookConfiguration, []*admissionregistrationv1.ValidatingWebhookConfiguration, error) {
	var docs [][]byte
	for _, p := range opts.Paths {
		files, err := manifestFiles(p)
		if err != nil {
			return nil, nil, err
		}
		for _, f := range files {
			b, err := os.ReadFile(f)
			if err != nil {
				return nil, nil, err
			}
			more, err := fixtures.SplitYAML(b)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", f, err)
			}
			docs = append(docs, more...)
		}
	}
	for i, m := range opts.Manifests {
		more, err := fixtures.SplitYAML(m)
		if err != nil {
			return nil, nil, fmt.Errorf("Manifests[%d]: %w", i, err)
		}
		docs = append(docs, more...)
	}
	var mutating []*admissionregistrationv1.MutatingWebhookConfiguration
	var validating []*admissionregistrationv1.ValidatingWebhookConfiguration
	for _, d := range docs {
		var head struct{ APIVersion, Kind string }
		if err := yaml.Unmarshal(d, &head); err != nil {
			return nil, nil, err
		}
		if head.APIVersion != admissionregistrationv1.SchemeGroupVersion.String() {
			continue
		}
		switch head.Kind {
		case "MutatingWebhookConfiguration":
			m := &admissionregistrationv1.MutatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(d, m); err != nil {
				return nil, nil, fmt.Errorf("MutatingWebhookConfiguration: %w", err)
			}
			mutating = append(mutating, m)
		case "ValidatingWebhookConfiguration":
			v := &admissionregistrationv1.ValidatingWebhookConfiguration{}
			if err := yaml.UnmarshalStrict(d, v); err != nil {
				return nil, nil, fmt.Errorf("ValidatingWebhookConfiguration: %w", err)
			}
			validating = append(validating, v)
		}
	}
	for _, m := range opts.MutatingWebhooks {
		mutating = append(mutating, m.DeepCopy())
	}
	for _, v := range opts.ValidatingWebhooks {
		validating = append(validating, v.DeepCopy())
	}
	return mutating, validating, nil
}

// manifestFiles is p, or the YAML and JSON files directly in directory p.
func manifestFiles(p string) ([]string, error) {
	st, err := os.Stat(p)
	if err != nil {
		return nil, err
	}
	if !st.IsDir() {
		return []string{p}, nil
	}
	entries, err := os.ReadDir(p)
	if err != nil {
		return nil, err
	}
	var out []string
	for _, e := range entries {
		switch strings.ToLower(filepath.Ext(e.Name())) {
		case ".yaml", ".yml", ".json":
			if e.Type()&fs.ModeType == 0 {
				out = append(out, filepath.Join(p, e.Name()))
			}
		}
	}
	return out, nil
}
