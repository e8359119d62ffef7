package fakeplane

import (
	"context"
	"crypto/tls"
	"fmt"
	"sync"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"golang.org/x/time/rate"

	"github.com/fakeplane/fakeplane/registry"
	"github.com/fakeplane/fakeplane/store"
	"github.com/fakeplane/fakeplane/store/etcdstore"
)

// storeBackend is what the control plane needs of its store: the
// store.Interface the registry and controllers run on, Bulk for the
// bootstrap objects and Compact (tests). *store.Store (bbolt) and
// *etcdstore.Store (--etcd-servers) have it.
type storeBackend interface {
	store.Interface
	Bulk(fn func() error) error
	Compact(rev int64) error
}

// openBoltStore opens the bbolt store at path; nil (not a nil *store.Store)
// when it fails.
func openBoltStore(path string, opts store.Options) (storeBackend, error) {
	st, err := store.Open(path, opts)
	if err != nil {
		return nil, err
	}
	return st, nil
}

// openEtcdStore opens the store in etcd (WithEtcdServers), configured as
// the bbolt store would be: the watch cache size and the compaction
// interval; values get their resourceVersion on every read, and observe is
// handed every process's commits.
func openEtcdStore(ctx context.Context, o *options, bolt store.Options, observe func(store.Event)) (storeBackend, error) {
	tlsConfig, err := o.etcdTLS.clientConfig()
	if err != nil {
		return nil, err
	}
	st, err := etcdstore.OpenContext(ctx, etcdstore.Config{
		Endpoints:          o.etcdServers,
		TLS:                tlsConfig,
		Prefix:             o.etcdPrefix,
		StampOnRead:        registry.RestampResourceVersion,
		EventLogSize:       bolt.EventLogSize,
		CompactionInterval: bolt.CompactionInterval,
		Logger:             o.logger,
		Observe:            observe,
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}

// clientConfig returns the TLS configuration of a client of etcd secured
// by f (nil when f names no file), as kube-apiserver builds its etcd
// client's, with its errors ("error creating storage factory: KeyFile and
// CertFile must both be present[key: , cert: c.crt]", "error creating
// storage factory: open ca.crt: no such file or directory").
func (f EtcdTLS) clientConfig() (*tls.Config, error) {
	if f.empty() {
		return nil, nil
	}
	info := transport.TLSInfo{CertFile: f.CertFile, KeyFile: f.KeyFile, TrustedCAFile: f.CAFile}
	cfg, err := info.ClientConfig()
	if err != nil {
		return nil, fmt.Errorf("error creating storage factory: %w", err)
	}
	return cfg, nil
}

// eventFeed passes the events of a shared store to the registry's views
// (registry.Registry.ObserveStoreEvent). The store starts delivering when
// it opens, before the views are loaded: until start the feed holds the
// events, and start hands them over in order before the live ones. The
// views' updates are per object (the last write wins), so an event older
// than what a view loaded leaves it as the newer events that follow it do.
type eventFeed struct {
	mu    sync.Mutex
	queue []store.Event
	to    func(store.Event)
}

// deliver is the store's Observe: called in revision order by one
// goroutine.
func (f *eventFeed) deliver(ev store.Event) {
	f.mu.Lock()
	to := f.to
	if to == nil {
		f.queue = append(f.queue, ev)
	}
	f.mu.Unlock()
	if to != nil {
		to(ev)
	}
}

// start hands to the events held so far, then every later one as it comes.
func (f *eventFeed) start(to func(store.Event)) {
	for {
		f.mu.Lock()
		q := f.queue
		f.queue = nil
		if len(q) == 0 {
			f.to = to
			f.mu.Unlock()
			return
		}
		f.mu.Unlock()
		for _, ev := range q {
			to(ev)
		}
	}
}

// Kube-apiserver's default --etcd-healthcheck-timeout and
// --etcd-readycheck-timeout.
const (
	defaultEtcdHealthcheckTimeout = 2 * time.Second
	defaultEtcdReadycheckTimeout  = 2 * time.Second
)

// etcdCheck is a check of etcd as kube-apiserver's "etcd" and
// "etcd-readiness" health checks run it: probe bounded by timeout (0:
// def), at most once every half timeout; a check in between answers the
// last probe's error.
func etcdCheck(probe func(context.Context) error, timeout, def time.Duration) func() error {
	if timeout == 0 {
		timeout = def
	}
	limiter := rate.NewLimiter(rate.Every(timeout/2), 1)
	var last lastError
	return func() error {
		if !limiter.Allow() {
			return last.load()
		}
		ctx, cancel := context.WithTimeout(context.Background(), timeout)
		defer cancel()
		now := time.Now()
		err := probe(ctx)
		last.store(err, now)
		return err
	}
}

// lastError is the error of the latest probe to start, of those that
// ended.
type lastError struct {
	mu  sync.Mutex
	err error
	at  time.Time
}

// store keeps err, of a probe started at at, unless a later probe's is
// kept.
func (l *lastError) store(err error, at time.Time) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.at.IsZero() || l.at.Before(at) {
		l.err, l.at = err, at
	}
}

// load returns the error kept.
func (l *lastError) load() error {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.err
}
