package registry

import (
	"sync"
	"sync/atomic"

	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/runtime"
)

// createMemo memoizes the typed objects the control plane's own creates (the
// bootstrap objects, at every Start) decode to, keyed by their JSON: decoding
// it again at each start would be a third of the time it takes to write
// them. It holds the results of a pure function of the JSON (decoding and
// defaulting a built-in type), copied out for each use, so every control
// plane gets what it would decode alone; it is bounded by maxDecodedCreates
// entries. An entry is in the map from the moment one goroutine starts
// decoding its document: another that wants the same document waits for
// that decode instead of doing it again.
//
// A registry uses the process's (processCreates), unless Config.PrivateCreateMemo.
type createMemo struct {
	sync.Mutex
	m map[string]*decodedCreate
}

// processCreates is the memo every registry of the process shares.
var processCreates createMemo

// decodedCreate is an entry of a createMemo.
type decodedCreate struct {
	done chan struct{} // closed once obj is set
	obj  runtime.Object
	// obj is nil when the document did not decode to a built-in type (or
	// did not decode): whoever needs it decodes it again for the error.

	// validated is set once an object decoded from the document passed
	// validateCreate unchanged by mutating admission: validation is a pure
	// function of the object, and the objects later starts create from
	// the document differ from it only in what a create sets and
	// validation accepts whatever its value (uid, creationTimestamp,
	// managedFields times), so they are not validated again.
	validated atomic.Bool

	// encoding is set by the first create from the document whose JSON
	// can be reused (see encodeCreate).
	encoding atomic.Pointer[createdEncoding]
}

// maxDecodedCreates bounds a createMemo.
const maxDecodedCreates = 1024

// claim returns the memo entry of data and whether the caller created it,
// and so must fill it (Registry.fill). It returns nil, false when the memo
// is full and has no entry for data.
func (m *createMemo) claim(data []byte) (*decodedCreate, bool) {
	m.Lock()
	defer m.Unlock()
	if e, ok := m.m[string(data)]; ok {
		return e, false
	}
	if m.m == nil {
		m.m = map[string]*decodedCreate{}
	}
	if len(m.m) >= maxDecodedCreates {
		return nil, false
	}
	e := &decodedCreate{done: make(chan struct{})}
	m.m[string(data)] = e
	return e, true
}

// lookup returns the memo entry of data, nil when it has none.
func (m *createMemo) lookup(data []byte) *decodedCreate {
	m.Lock()
	defer m.Unlock()
	return m.m[string(data)]
}

// fillDecodedCreate decodes data into e, which the caller claimed, and
// returns what decodeInternal returned.
func (s *Registry) fillDecodedCreate(e *decodedCreate, data []byte) (*Request, *Object, error) {
	defer close(e.done)
	c, o, err := s.decodeInternal(data)
	if err == nil && c.Res.Typed != nil {
		e.obj = o.Obj.DeepCopyObject()
		c.createMemo = e
	}
	return c, o, err
}

// decodeCreate is decodeInternal for the control plane's own creates,
// through the memo for built-in types; seeds (which may be nil) fill the
// memo's entry of a document they have.
func (s *Registry) decodeCreate(data []byte, seeds *CreateSeeds) (*Request, *Object, error) {
	e, claimed := s.creates.claim(data)
	if claimed {
		seed := seeds.lookup(data)
		if seed == nil || !s.fillFromSeed(e, seed) {
			return s.fillDecodedCreate(e, data)
		}
	}
	if e != nil {
		<-e.done
		if obj := e.obj; obj != nil {
			gvk := obj.GetObjectKind().GroupVersionKind()
			if res, found := s.served.ForKind(gvk); found && res.Typed != nil {
				obj = obj.DeepCopyObject()
				acc, err := meta.Accessor(obj)
				if err != nil {
					return nil, nil, err
				}
				c, o := s.internalCreate(res, &Object{Obj: obj, Meta: acc})
				c.createMemo = e
				return c, o, nil
			}
		}
	}
	return s.decodeInternal(data)
}
