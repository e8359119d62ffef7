package fakeplane

import (
	"log/slog"
	"net"
)

// DefaultListenAddress is where the CLI listens unless told otherwise.
const DefaultListenAddress = "127.0.0.1:6443"

// Option configures a ControlPlane.
type Option func(*options)

type options struct {
	listen         string
	listener       net.Listener
	dataDir        string
	kubeconfigPath string
	logger         *slog.Logger
	eventLogSize   int
}

func defaultOptions() options {
	return options{listen: "127.0.0.1:0"}
}

// WithListenAddress sets the host:port to listen on. Port 0 lets the kernel
// pick one. The default is 127.0.0.1:0.
func WithListenAddress(addr string) Option { return func(o *options) { o.listen = addr } }

// WithListener serves on a listener the caller already holds.
func WithListener(ln net.Listener) Option { return func(o *options) { o.listener = ln } }

// WithDataDir keeps the store (and the CA) in dir, fsynced on every commit,
// so state survives restarts. Without it the store lives in a temporary
// directory removed at Stop.
func WithDataDir(dir string) Option { return func(o *options) { o.dataDir = dir } }

// WithKubeconfigPath sets where the admin kubeconfig is written. The default
// is admin.kubeconfig inside the data directory.
func WithKubeconfigPath(path string) Option { return func(o *options) { o.kubeconfigPath = path } }

// WithLogger sends the control plane's logs to l. The default discards them.
func WithLogger(l *slog.Logger) Option { return func(o *options) { o.logger = l } }

// WithWatchCacheSize sets how many recent changes the control plane keeps
// for watches and consistent paging (kube-apiserver's watch cache). A watch
// or continue token older than that answers 410 Gone. The default is 10000.
func WithWatchCacheSize(n int) Option { return func(o *options) { o.eventLogSize = n } }
