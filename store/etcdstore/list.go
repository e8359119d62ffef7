package etcdstore

import (
	"errors"

	"go.etcd.io/etcd/api/v3/v3rpc/rpctypes"
	clientv3 "go.etcd.io/etcd/client/v3"

	"github.com/fakeplane/fakeplane/store"
)

// maxListBatch is the most keys one etcd range request of a list reads.
const maxListBatch = 1000

// List returns objects of resource in key byte order, selected by opts, as
// store.Store.List does, from etcd range requests all at one revision:
// with opts.Revision 0 the current revision (CurrentRevision), else
// opts.Revision, read from etcd's history (*store.CompactedError before
// etcd's compacted revision, *store.FutureRevisionError after etcd's
// current one). An unknown resource is an empty list.
//
// A page reads its items, the keys its Filter rejects and one key more
// (for More and Remaining, which etcd's count of the keys in the range
// gives); ListOptions.Index is ignored.
func (s *Store) List(resource string, opts store.ListOptions) (*store.ListResult, error) {
	if err := checkResource(resource); err != nil {
		return nil, err
	}
	if s.closed.Load() {
		return nil, store.ErrClosed
	}
	rev := opts.Revision
	if rev > 0 {
		if err := s.sync(rev); err != nil {
			return nil, err
		}
	} else {
		rev = s.rev.Load()
	}
	res, err := s.list(resource, rev, opts)
	if errors.Is(err, rpctypes.ErrCompacted) && opts.Revision == 0 {
		// Someone compacted etcd to past the current revision: catch up
		// with etcd and read there.
		if err := s.syncCurrent(); err != nil {
			return nil, err
		}
		res, err = s.list(resource, s.rev.Load(), opts)
	}
	switch {
	case errors.Is(err, rpctypes.ErrCompacted):
		oldest, perr := s.probeCompacted()
		if perr != nil {
			return nil, perr
		}
		return nil, &store.CompactedError{Requested: rev, Oldest: oldest}
	case errors.Is(err, rpctypes.ErrFutureRev):
		return nil, &store.FutureRevisionError{Requested: rev, Current: s.rev.Load()}
	case err != nil:
		return nil, s.etcdError("list "+resource, err)
	}
	return res, nil
}

// list reads one page at rev; etcd's errors are returned as they are.
func (s *Store) list(resource string, rev int64, opts store.ListOptions) (*store.ListResult, error) {
	base := s.resourcePrefix(resource)
	start := base + opts.Prefix
	end := clientv3.GetPrefixRangeEnd(start)
	if opts.StartAfter != "" {
		if after := base + opts.StartAfter + "\x00"; after > start {
			start = after
		}
	}
	res := &store.ListResult{Revision: rev}
	// A page without a filter reads one key past its limit; with one,
	// batches grow until the page is full.
	batch := int64(maxListBatch)
	if opts.Limit > 0 && opts.Limit < maxListBatch {
		batch = int64(opts.Limit) + 1
	}
	for {
		ctx, cancel := s.opCtx()
		resp, err := s.cli.Get(ctx, start, clientv3.WithRange(end), clientv3.WithRev(rev), clientv3.WithLimit(batch))
		cancel()
		if err != nil {
			return nil, err
		}
		for i, kv := range resp.Kvs {
			if opts.Limit > 0 && len(res.Items) == opts.Limit {
				res.More = true
				// resp.Count counts the keys from start on, this one
				// included.
				res.Remaining = resp.Count - int64(i)
				return res, nil
			}
			v, err := s.stamp(kv.Value, kv.ModRevision)
			if err != nil {
				return nil, err
			}
			obj := store.Object{Key: string(kv.Key[len(base):]), Value: v, Revision: kv.ModRevision}
			if opts.Filter != nil && !opts.Filter(obj) {
				continue
			}
			res.Items = append(res.Items, obj)
		}
		if !resp.More || len(resp.Kvs) == 0 {
			return res, nil
		}
		start = string(resp.Kvs[len(resp.Kvs)-1].Key) + "\x00"
		batch = min(2*batch, maxListBatch)
	}
}

// syncCurrent waits until the watch has delivered everything up to etcd's
// current revision.
func (s *Store) syncCurrent() error {
	ctx, cancel := s.opCtx()
	resp, err := s.cli.Get(ctx, s.metaKey("sync"), clientv3.WithCountOnly())
	cancel()
	if err != nil {
		return s.etcdError("read the current revision", err)
	}
	return s.sync(resp.Header.Revision)
}
