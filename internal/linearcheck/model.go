// Package linearcheck checks histories of a Kubernetes-style key-value store
// (objects with a uid, a value and a resourceVersion that is a global
// revision, as etcd's) for linearizability with porcupine, and the watch
// streams of the same run for etcd's watch guarantees.
//
// A history is a list of porcupine.Operation whose Input is an Input and
// whose Output is an Output. The model (Model) is a per-key register with
// kube-apiserver's write semantics: create answers AlreadyExists when the
// key is present, an update or delete with a resourceVersion precondition
// answers Conflict when it is stale, an unconditional update or delete
// answers NotFound when the key is absent, and a get returns the stored
// object or NotFound. It is checked per key (porcupine's Partition).
//
// A list is one snapshot of every key at one revision R. To keep the
// per-key partitions, a list is entered as one ListRead per key (use
// SplitList), each carrying R; the per-key state then remembers the
// newest revision it was read at, and the model requires the key's last
// write at or before R and its next write after R. So each key's item
// in a list is that key's state as of revision R, which is what a list
// that is one snapshot at R gives. That revisions follow real time across
// keys (a write that returned before another started has the lower
// revision; a list is served at a revision no older than any write that
// returned before it started) is checked by CheckRevisionOrder, which
// needs the whole history; together they give a linearizable store.
package linearcheck

import (
	"fmt"
	"sort"

	"github.com/anishathalye/porcupine"
)

// Kind is an operation's kind.
type Kind int

// The operations a history holds.
const (
	// Create makes the key with Input.Value.
	Create Kind = iota
	// Update replaces the value if the key is at Input.RV.
	Update
	// UpdateAny replaces the value whatever its resourceVersion.
	UpdateAny
	// Delete removes the key if it is at Input.RV (0: whatever it is at).
	Delete
	// Get reads the key (a consistent read: resourceVersion "").
	Get
	// ListRead is one key's part of a list at revision Input.RV.
	ListRead
)

// String names k.
func (k Kind) String() string {
	return [...]string{"create", "update", "updateAny", "delete", "get", "listRead"}[k]
}

// Code is how an operation ended.
type Code int

// The answers the model knows. Anything else (a 500, a timeout) has no
// place in a history: the test fails on it before checking.
const (
	OK Code = iota
	NotFound
	Conflict
	AlreadyExists
)

// String names c.
func (c Code) String() string {
	return [...]string{"ok", "NotFound", "Conflict", "AlreadyExists"}[c]
}

// Input is what a client asked.
type Input struct {
	Kind  Kind
	Key   string
	Value string // the value written (Create, Update, UpdateAny)
	// RV is the precondition of Update and Delete (0: none, for Delete),
	// and the list's revision for ListRead.
	RV int64
}

// Output is what the client got. For a write that succeeded, RV is the
// revision it committed at (for a delete, the revision of the delete,
// which the caller learns from a watch) and UID the object's uid (for a
// delete, the uid of the object deleted). For a read, Exists says whether
// the key was found and Value, RV and UID are the object read.
type Output struct {
	Code   Code
	Exists bool
	Value  string
	RV     int64
	UID    string
}

// state is one key's state: whether it exists, its value, uid and the
// revision of its last write (for an absent key, of its delete; 0 before
// the first create); ReadAt is the newest list revision it was read at.
type state struct {
	Exists bool
	Value  string
	UID    string
	RV     int64
	ReadAt int64
}

// step is the model's sequential specification for one key.
func step(st state, in Input, out Output) (bool, state) {
	// write checks a successful write's revision: newer than the key's
	// last write and than any list that saw the state it replaces.
	write := func() bool { return out.Code == OK && out.RV > st.RV && out.RV > st.ReadAt }
	switch in.Kind {
	case Create:
		if st.Exists {
			return out.Code == AlreadyExists, st
		}
		if !write() || out.UID == "" {
			return false, st
		}
		return true, state{Exists: true, Value: in.Value, UID: out.UID, RV: out.RV}
	case Update, UpdateAny:
		switch {
		case !st.Exists:
			return out.Code == NotFound, st
		case in.Kind == Update && in.RV != st.RV:
			return out.Code == Conflict, st
		}
		if !write() || out.UID != st.UID {
			return false, st
		}
		return true, state{Exists: true, Value: in.Value, UID: st.UID, RV: out.RV}
	case Delete:
		switch {
		case !st.Exists:
			return out.Code == NotFound, st
		case in.RV != 0 && in.RV != st.RV:
			return out.Code == Conflict, st
		}
		if !write() || out.UID != st.UID {
			return false, st
		}
		return true, state{RV: out.RV}
	case Get:
		if !st.Exists {
			return out.Code == NotFound, st
		}
		return out.Code == OK && out.Exists && out.Value == st.Value && out.RV == st.RV && out.UID == st.UID, st
	case ListRead:
		if out.Code != OK || st.RV > in.RV || out.Exists != st.Exists {
			return false, st
		}
		if st.Exists && (out.Value != st.Value || out.RV != st.RV || out.UID != st.UID) {
			return false, st
		}
		st.ReadAt = max(st.ReadAt, in.RV)
		return true, st
	}
	return false, st
}

// Model is the porcupine model of the store, partitioned by key.
func Model() porcupine.Model {
	return porcupine.Model{
		Partition: partitionByKey,
		Init:      func() any { return state{} },
		Step: func(s, in, out any) (bool, any) {
			return step(s.(state), in.(Input), out.(Output))
		},
		DescribeOperation: func(in, out any) string {
			i, o := in.(Input), out.(Output)
			arg := ""
			switch i.Kind {
			case Create, UpdateAny:
				arg = fmt.Sprintf("=%s", i.Value)
			case Update:
				arg = fmt.Sprintf("=%s if rv %d", i.Value, i.RV)
			case Delete:
				if i.RV != 0 {
					arg = fmt.Sprintf(" if rv %d", i.RV)
				}
			case ListRead:
				arg = fmt.Sprintf(" at rv %d", i.RV)
			}
			res := o.Code.String()
			if o.Code == OK {
				res = fmt.Sprintf("rv %d", o.RV)
				if o.Exists {
					res = fmt.Sprintf("%s rv %d", o.Value, o.RV)
				}
			}
			return fmt.Sprintf("%s(%s%s) -> %s", i.Kind, i.Key, arg, res)
		},
		DescribeState: func(s any) string {
			st := s.(state)
			if !st.Exists {
				return fmt.Sprintf("absent since rv %d (read at %d)", st.RV, st.ReadAt)
			}
			return fmt.Sprintf("%s rv %d (read at %d)", st.Value, st.RV, st.ReadAt)
		},
	}
}

// partitionByKey splits a history into one history per key.
func partitionByKey(history []porcupine.Operation) [][]porcupine.Operation {
	byKey := map[string][]porcupine.Operation{}
	var keys []string
	for _, op := range history {
		k := op.Input.(Input).Key
		if _, ok := byKey[k]; !ok {
			keys = append(keys, k)
		}
		byKey[k] = append(byKey[k], op)
	}
	sort.Strings(keys)
	out := make([][]porcupine.Operation, 0, len(keys))
	for _, k := range keys {
		out = append(out, byKey[k])
	}
	return out
}

// Item is one object of a list.
type Item struct {
	Value string
	RV    int64
	UID   string
}

// SplitList turns a list of keys (each found in items or absent) at
// revision rv, called and returned at the given times by client, into one
// ListRead per key.
func SplitList(client int, call, ret int64, keys []string, rv int64, items map[string]Item) []porcupine.Operation {
	ops := make([]porcupine.Operation, 0, len(keys))
	for _, k := range keys {
		it, ok := items[k]
		ops = append(ops, porcupine.Operation{
			ClientId: client, Call: call, Return: ret,
			Input:  Input{Kind: ListRead, Key: k, RV: rv},
			Output: Output{Code: OK, Exists: ok, Value: it.Value, RV: it.RV, UID: it.UID},
		})
	}
	return ops
}
