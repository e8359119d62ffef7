package fakeplane

import (
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
// interval; values get their resourceVersion on every read.
func openEtcdStore(o *options, bolt store.Options) (storeBackend, error) {
	st, err := etcdstore.Open(etcdstore.Config{
		Endpoints:          o.etcdServers,
		Prefix:             o.etcdPrefix,
		StampOnRead:        registry.RestampResourceVersion,
		EventLogSize:       bolt.EventLogSize,
		CompactionInterval: bolt.CompactionInterval,
		Logger:             o.logger,
	})
	if err != nil {
		return nil, err
	}
	return st, nil
}
