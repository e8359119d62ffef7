package fakeplane

// kube-apiserver's audit logging: the --audit-* flags' options, validated
// with upstream's errors, and the policy and backends they make (upstream's
// policy loader and evaluator, log, webhook, buffered and truncate
// backends), run from Start to Stop.

import (
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utilnet "k8s.io/apimachinery/pkg/util/net"
	auditinternal "k8s.io/apiserver/pkg/apis/audit"
	auditv1 "k8s.io/apiserver/pkg/apis/audit/v1"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/audit/policy"
	"k8s.io/apiserver/pkg/server/egressselector"
	"k8s.io/apiserver/pkg/util/webhook"
	pluginbuffered "k8s.io/apiserver/plugin/pkg/audit/buffered"
	pluginlog "k8s.io/apiserver/plugin/pkg/audit/log"
	plugintruncate "k8s.io/apiserver/plugin/pkg/audit/truncate"
	pluginwebhook "k8s.io/apiserver/plugin/pkg/audit/webhook"

	"github.com/fakeplane/fakeplane/server"
)

// The modes of an audit backend (--audit-log-mode, --audit-webhook-mode).
const (
	// AuditModeBatch buffers events and sends them in batches, apart from
	// the requests (the webhook backend's default).
	AuditModeBatch = "batch"
	// AuditModeBlocking sends each event before the request goes on,
	// ignoring failures (the log backend's default).
	AuditModeBlocking = "blocking"
	// AuditModeBlockingStrict is AuditModeBlocking, but a request whose
	// RequestReceived event fails is answered 500.
	AuditModeBlockingStrict = "blocking-strict"
)

// auditModes are the modes in kube-apiserver's order.
var auditModes = []string{AuditModeBatch, AuditModeBlocking, AuditModeBlockingStrict}

// The formats of the log backend (--audit-log-format).
const (
	// AuditLogFormatJSON writes each event as a line of JSON (the default).
	AuditLogFormatJSON = pluginlog.FormatJson
	// AuditLogFormatLegacy writes each event as a line of text.
	AuditLogFormatLegacy = pluginlog.FormatLegacy
)

// AuditOptions configure audit logging as kube-apiserver's --audit-*
// flags do. Without a PolicyFile nothing is audited, whatever the
// backends; with one, every request (those refused, unauthenticated ones
// and long-running ones included) is audited at the level and stages of
// the policy's first matching rule, and the events go to each backend
// configured: the log (Log.Path) and the webhook (Webhook.ConfigFile).
type AuditOptions struct {
	// PolicyFile is an audit.k8s.io/v1 Policy, loaded and validated as
	// kube-apiserver loads it (--audit-policy-file).
	PolicyFile string
	// Log configures the log backend.
	Log AuditLogOptions
	// Webhook configures the webhook backend.
	Webhook AuditWebhookOptions
}

// AuditLogOptions configure the log backend (--audit-log-*).
type AuditLogOptions struct {
	// Path is the file events are appended to, made with its directories
	// if missing; "-" is standard output; empty turns the backend off
	// (--audit-log-path).
	Path string
	// Format is AuditLogFormatJSON (the default when empty) or
	// AuditLogFormatLegacy (--audit-log-format).
	Format string
	// MaxAge is how many days rotated files are kept (0: any age), MaxBackups
	// how many (0: any number), MaxSize the size in megabytes at which the
	// file is rotated (0: never); nil is kube-apiserver's default, 366, 100
	// and 100 (--audit-log-maxage, --audit-log-maxbackup,
	// --audit-log-maxsize).
	MaxAge, MaxBackups, MaxSize *int
	// Compress gzips the rotated files (--audit-log-compress).
	Compress bool
	// Mode is the backend's mode (--audit-log-mode); AuditModeBlocking
	// when empty.
	Mode string
	// Batch configures the batch mode; nil is kube-apiserver's default for
	// the log (a buffer of 10000 events, written one by one; the
	// --audit-log-batch-* flags).
	Batch *pluginbuffered.BatchConfig
	// Truncate, when set, truncates events and batches as its Config says
	// (--audit-log-truncate-enabled and -max-*).
	Truncate *plugintruncate.Config
	// Version is the API version events are written in (--audit-log-version);
	// audit.k8s.io/v1, the only one, when empty.
	Version string
}

// AuditWebhookOptions configure the webhook backend (--audit-webhook-*).
type AuditWebhookOptions struct {
	// ConfigFile is a kubeconfig naming the webhook that receives EventLists
	// and the credentials presented to it; empty turns the backend off
	// (--audit-webhook-config-file). It is called through the
	// "controlplane" egress selection.
	ConfigFile string
	// InitialBackoff is how long the first retry of a failed call waits;
	// 0 is kube-apiserver's 10s (--audit-webhook-initial-backoff).
	InitialBackoff time.Duration
	// Mode is the backend's mode (--audit-webhook-mode); AuditModeBatch
	// when empty.
	Mode string
	// Batch configures the batch mode; nil is kube-apiserver's default for
	// the webhook (a buffer of 10000 events, batches of up to 400 sent at
	// least every 30s, throttled at 10 per second with bursts of 15).
	Batch *pluginbuffered.BatchConfig
	// Truncate, when set, truncates events and batches as its Config says.
	Truncate *plugintruncate.Config
	// Version is the API version events are sent in
	// (--audit-webhook-version); audit.k8s.io/v1 when empty.
	Version string
}

// WithAudit turns on audit logging, as kube-apiserver's --audit-* flags:
// the policy in PolicyFile decides which requests are audited, at which
// level (Metadata, Request, RequestResponse) and stages, and the events
// are written to the log and sent to the webhook configured. New fails
// with kube-apiserver's errors for options it refuses (an unknown format,
// mode or version, negative sizes), Start for a policy that does not load
// or validate. Every backend is stopped, and its last events written,
// at Stop, which also closes the log file.
func WithAudit(a AuditOptions) Option {
	return func(o *options) { o.audit = &a }
}

// DefaultAuditLogBatchConfig is kube-apiserver's batch configuration of
// the log backend.
func DefaultAuditLogBatchConfig() pluginbuffered.BatchConfig {
	return pluginbuffered.BatchConfig{BufferSize: 10000, MaxBatchSize: 1}
}

// DefaultAuditWebhookBatchConfig is kube-apiserver's batch configuration
// of the webhook backend.
func DefaultAuditWebhookBatchConfig() pluginbuffered.BatchConfig {
	return pluginbuffered.BatchConfig{BufferSize: 10000, MaxBatchSize: 400, MaxBatchWait: 30 * time.Second,
		ThrottleEnable: true, ThrottleQPS: 10, ThrottleBurst: 15, AsyncDelegate: true}
}

// DefaultAuditTruncateConfig is kube-apiserver's truncation: batches of at
// most 10 MB, events of at most 100 KB.
func DefaultAuditTruncateConfig() plugintruncate.Config {
	return plugintruncate.Config{MaxBatchSize: 10 * 1024 * 1024, MaxEventSize: 100 * 1024}
}

// withDefaults is a with its empty fields given kube-apiserver's defaults.
func (a AuditOptions) withDefaults() AuditOptions {
	l := &a.Log
	if l.Format == "" {
		l.Format = AuditLogFormatJSON
	}
	if l.Mode == "" {
		l.Mode = AuditModeBlocking
	}
	if l.Batch == nil {
		b := DefaultAuditLogBatchConfig()
		l.Batch = &b
	}
	if l.Version == "" {
		l.Version = auditv1.SchemeGroupVersion.String()
	}
	for _, d := range []struct {
		p   **int
		def int
	}{{&l.MaxAge, 366}, {&l.MaxBackups, 100}, {&l.MaxSize, 100}} {
		if *d.p == nil {
			v := d.def
			*d.p = &v
		}
	}
	w := &a.Webhook
	if w.Mode == "" {
		w.Mode = AuditModeBatch
	}
	if w.Batch == nil {
		b := DefaultAuditWebhookBatchConfig()
		w.Batch = &b
	}
	if w.Version == "" {
		w.Version = auditv1.SchemeGroupVersion.String()
	}
	if w.InitialBackoff == 0 {
		w.InitialBackoff = pluginwebhook.DefaultInitialBackoffDelay
	}
	return a
}

// validate checks a's backends as kube-apiserver checks its flags, each
// backend only when it is on, with its errors in its order.
func (a AuditOptions) validate() error {
	var errs []error
	if l := a.Log; l.Path != "" {
		errs = append(errs, validateAuditBackend(pluginlog.PluginName, l.Mode, *l.Batch, l.Truncate, l.Version)...)
		if !slices.Contains(pluginlog.AllowedFormats, l.Format) {
			errs = append(errs, fmt.Errorf("invalid audit log format %s, allowed formats are %q", l.Format, strings.Join(pluginlog.AllowedFormats, ",")))
		}
		if *l.MaxAge < 0 {
			errs = append(errs, fmt.Errorf("--audit-log-maxage %v can't be a negative number", *l.MaxAge))
		}
		if *l.MaxBackups < 0 {
			errs = append(errs, fmt.Errorf("--audit-log-maxbackup %v can't be a negative number", *l.MaxBackups))
		}
		if *l.MaxSize < 0 {
			errs = append(errs, fmt.Errorf("--audit-log-maxsize %v can't be a negative number", *l.MaxSize))
		}
	}
	if w := a.Webhook; w.ConfigFile != "" {
		errs = append(errs, validateAuditBackend(pluginwebhook.PluginName, w.Mode, *w.Batch, w.Truncate, w.Version)...)
	}
	return utilerrors.NewAggregate(errs)
}

// validateAuditBackend checks a backend's mode, batch configuration (in
// batch mode), truncation (when on) and version, as kube-apiserver does.
func validateAuditBackend(plugin, mode string, batch pluginbuffered.BatchConfig, trunc *plugintruncate.Config, version string) []error {
	var errs []error
	switch {
	case !slices.Contains(auditModes, mode):
		errs = append(errs, fmt.Errorf("invalid audit %s mode %s, allowed modes are %q", plugin, mode, strings.Join(auditModes, ",")))
	case mode != AuditModeBatch:
	case batch.BufferSize <= 0:
		errs = append(errs, fmt.Errorf("invalid audit batch %s buffer size %v, must be a positive number", plugin, batch.BufferSize))
	case batch.MaxBatchSize <= 0:
		errs = append(errs, fmt.Errorf("invalid audit batch %s max batch size %v, must be a positive number", plugin, batch.MaxBatchSize))
	case batch.ThrottleEnable && batch.ThrottleQPS <= 0:
		errs = append(errs, fmt.Errorf("invalid audit batch %s throttle QPS %v, must be a positive number", plugin, batch.ThrottleQPS))
	case batch.ThrottleEnable && batch.ThrottleBurst <= 0:
		errs = append(errs, fmt.Errorf("invalid audit batch %s throttle burst %v, must be a positive number", plugin, batch.ThrottleBurst))
	}
	// Truncation is checked with upstream's defaults when it is off, which
	// always pass.
	if t := trunc; t != nil {
		if t.MaxEventSize <= 0 {
			errs = append(errs, fmt.Errorf("invalid audit truncate %s max event size %v, must be a positive number", plugin, t.MaxEventSize))
		} else if t.MaxBatchSize < t.MaxEventSize {
			errs = append(errs, fmt.Errorf("invalid audit truncate %s max batch size %v, must be greater than max event size (%v)", plugin, t.MaxBatchSize, t.MaxEventSize))
		}
	}
	if gv, err := schema.ParseGroupVersion(version); err != nil {
		errs = append(errs, err)
	} else if gv != auditv1.SchemeGroupVersion {
		errs = append(errs, fmt.Errorf("invalid group version, allowed versions are %q", []string{auditv1.SchemeGroupVersion.String()}))
	}
	return errs
}

// auditing is a control plane's audit policy and backends, run from Start
// to Stop.
type auditing struct {
	policy  audit.PolicyRuleEvaluator
	backend audit.Backend
	// stop ends the backends' goroutines (the batch mode's).
	stop chan struct{}
	// files are closed once the backends stopped.
	files []io.Closer
	// conns are the webhook's connections when no "controlplane" egress
	// selection dials it.
	conns *openConns
}

// newAuditing builds and runs the policy and backends a configures; it is
// nil when nothing is to be audited (no policy, or no backend).
func (cp *ControlPlane) newAuditing(a AuditOptions) (au *auditing, err error) {
	a = a.withDefaults()
	if err := a.validate(); err != nil {
		return nil, err
	}
	if a.PolicyFile == "" {
		// As kube-apiserver: backends without a policy record nothing,
		// though the log file is made.
		if p := a.Log.Path; p != "" && p != "-" {
			return nil, ensureAuditLogFile(p)
		}
		return nil, nil
	}
	p, err := policy.LoadPolicyFromFile(a.PolicyFile)
	if err != nil {
		return nil, fmt.Errorf("loading audit policy file: %w", err)
	}
	au = &auditing{policy: policy.NewPolicyRuleEvaluator(p), stop: make(chan struct{})}
	defer func() {
		if err != nil {
			au.close()
		}
	}()
	var backends []audit.Backend
	if l := a.Log; l.Path != "" {
		w, err := au.logWriter(l)
		if err != nil {
			return nil, err
		}
		gv, _ := schema.ParseGroupVersion(l.Version)
		b := wrapAuditBackend(pluginlog.NewBackend(w, l.Format, gv), l.Mode, *l.Batch)
		if l.Truncate != nil {
			b = plugintruncate.NewBackend(b, *l.Truncate, gv)
		}
		backends = append(backends, b)
	}
	if w := a.Webhook; w.ConfigFile != "" {
		dial, err := au.webhookDialer(cp)
		if err != nil {
			return nil, err
		}
		gv, _ := schema.ParseGroupVersion(w.Version)
		b, err := pluginwebhook.NewBackend(w.ConfigFile, gv, webhook.DefaultRetryBackoffWithInitialDelay(w.InitialBackoff), dial)
		if err != nil {
			return nil, fmt.Errorf("initializing audit webhook: %w", err)
		}
		b = wrapAuditBackend(b, w.Mode, *w.Batch)
		if w.Truncate != nil {
			b = plugintruncate.NewBackend(b, *w.Truncate, gv)
		}
		backends = append(backends, b)
	}
	switch len(backends) {
	case 0:
		au.close()
		return nil, nil
	case 1:
		au.backend = backends[0]
	default:
		au.backend = audit.Union(backends...)
	}
	if err := au.backend.Run(au.stop); err != nil {
		return nil, fmt.Errorf("audit backend: %w", err)
	}
	return au, nil
}

// logWriter opens the log backend's file as kube-apiserver does: made
// (with its directory) if missing, appended to, rotated at MaxSize
// megabytes unless MaxSize is 0.
func (au *auditing) logWriter(l AuditLogOptions) (io.Writer, error) {
	if l.Path == "-" {
		return os.Stdout, nil
	}
	if err := ensureAuditLogFile(l.Path); err != nil {
		return nil, err
	}
	f, err := os.OpenFile(l.Path, os.O_APPEND|os.O_WRONLY, 0o644)
	if err != nil {
		return nil, err
	}
	if *l.MaxSize == 0 {
		au.files = append(au.files, f)
		return f, nil
	}
	r := &rotatingFile{path: l.Path, file: f, maxSize: int64(*l.MaxSize) * 1024 * 1024,
		maxAge: time.Duration(*l.MaxAge) * 24 * time.Hour, maxBackups: *l.MaxBackups, compress: l.Compress}
	if fi, err := f.Stat(); err == nil {
		r.size = fi.Size()
	}
	au.files = append(au.files, r)
	return r, nil
}

// ensureAuditLogFile makes the log file at path, and its directory, if
// missing, as kube-apiserver does.
func ensureAuditLogFile(path string) error {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return fmt.Errorf("ensureLogFile: %w", err)
	}
	f, err := os.OpenFile(path, os.O_CREATE|os.O_APPEND|os.O_RDWR, 0o600)
	if err != nil {
		return fmt.Errorf("ensureLogFile: %w", err)
	}
	return f.Close()
}

// webhookDialer is the webhook's dialer: the "controlplane" egress
// selection's, else a direct one whose connections close at Stop.
func (au *auditing) webhookDialer(cp *ControlPlane) (utilnet.DialFunc, error) {
	if cp.egress.selector != nil {
		d, err := cp.egress.selector.Lookup(egressselector.ControlPlane.AsNetworkContext())
		if err != nil || d != nil {
			return d, err
		}
	}
	au.conns = newOpenConns()
	direct := &net.Dialer{Timeout: 30 * time.Second, KeepAlive: 30 * time.Second}
	return au.conns.track(direct.DialContext), nil
}

// wrapAuditBackend gives b its mode: batch buffers it, blocking ignores
// its failures, blocking-strict passes them on (a RequestReceived event
// that fails then fails its request).
func wrapAuditBackend(b audit.Backend, mode string, batch pluginbuffered.BatchConfig) audit.Backend {
	switch mode {
	case AuditModeBlockingStrict:
		return b
	case AuditModeBlocking:
		return ignoreAuditErrors{b}
	}
	return pluginbuffered.NewBackend(b, batch)
}

// ignoreAuditErrors is a backend that reports every event processed.
type ignoreAuditErrors struct{ audit.Backend }

// ProcessEvents passes the events on and reports success.
func (b ignoreAuditErrors) ProcessEvents(ev ...*auditinternal.Event) bool {
	b.Backend.ProcessEvents(ev...)
	return true
}

// String names the backend as kube-apiserver's logs do.
func (b ignoreAuditErrors) String() string { return fmt.Sprintf("ignoreErrors<%s>", b.Backend) }

// serverConfig is what the server is given: nothing when au is nil.
func (au *auditing) serverConfig() server.AuditConfig {
	if au == nil {
		return server.AuditConfig{}
	}
	return server.AuditConfig{Policy: au.policy, Sink: au.backend}
}

// close stops the backends, which write or send the events they hold,
// then closes the log file and the webhook's connections. Call it once no
// request is served any more.
func (au *auditing) close() error {
	if au == nil {
		return nil
	}
	close(au.stop)
	if au.backend != nil {
		au.backend.Shutdown()
	}
	var errs []error
	for _, f := range au.files {
		if err := f.Close(); err != nil {
			errs = append(errs, fmt.Errorf("audit log: %w", err))
		}
	}
	if au.conns != nil {
		au.conns.closeAll()
	}
	return errors.Join(errs...)
}
