package linearcheck

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"github.com/anishathalye/porcupine"
)

// NextRevision returns the revision of the write to key that followed the
// one at rv (0 if none did). The caller builds it from a watch that saw
// every write (see Versions).
type NextRevision func(key string, rv int64) int64

// CheckRevisionOrder checks that revisions follow real time across keys,
// which the per-key model cannot see: every operation that has a revision
// gets the range of revisions it may have taken effect at (a write: its
// revision; a ListRead: its list's revision; a Get that found the key: from
// the revision of the version it read up to just before the next write of
// that key, which next tells), and an operation that returned before
// another was called must be able to come first: its range may not start
// after the other's ends, and a write must come strictly after what
// returned before it was called. Failed writes and reads of absent keys
// carry no revision and are not checked here.
func CheckRevisionOrder(history []porcupine.Operation, next NextRevision) error {
	type span struct {
		call, ret int64
		lo, hi    int64 // the revisions the operation may have taken effect at (inclusive)
		write     bool
		desc      string
	}
	var spans []span
	for _, op := range history {
		in, out := op.Input.(Input), op.Output.(Output)
		s := span{call: op.Call, ret: op.Return, desc: Model().DescribeOperation(in, out)}
		switch {
		case out.Code != OK:
			continue
		case in.Kind == ListRead:
			s.lo, s.hi = in.RV, in.RV
		case in.Kind == Get:
			s.lo, s.hi = out.RV, math.MaxInt64
			if n := next(in.Key, out.RV); n > 0 {
				s.hi = n - 1
			}
		default:
			s.lo, s.hi, s.write = out.RV, out.RV, true
		}
		spans = append(spans, s)
	}
	byCall := make([]int, len(spans))
	byRet := make([]int, len(spans))
	for i := range spans {
		byCall[i], byRet[i] = i, i
	}
	sort.Slice(byCall, func(a, b int) bool { return spans[byCall[a]].call < spans[byCall[b]].call })
	sort.Slice(byRet, func(a, b int) bool { return spans[byRet[a]].ret < spans[byRet[b]].ret })
	var errs []error
	maxLo, from, r := int64(0), -1, 0
	for _, i := range byCall {
		b := spans[i]
		for r < len(byRet) && spans[byRet[r]].ret < b.call {
			if a := spans[byRet[r]]; a.lo > maxLo {
				maxLo, from = a.lo, byRet[r]
			}
			r++
		}
		limit := b.hi
		if b.write {
			limit--
		}
		if maxLo > limit && len(errs) < 10 {
			errs = append(errs, fmt.Errorf("%s (revisions %d..%d) was called after %s had returned", b.desc, b.lo, b.hi, spans[from].desc))
		}
	}
	return errors.Join(errs...)
}
