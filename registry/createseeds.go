package registry

import (
	"bytes"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"reflect"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// CreateSeeds are entries of the memo of the control plane's own creates
// (createMemo) computed beforehand, by an earlier process, and kept in a
// file (the bootstrap objects' are embedded in the binary): a cold process
// whose memo is seeded creates its first control plane's bootstrap objects
// as later starts do, without decoding, validating or encoding them. A seed
// is what a memo entry held once a start had created an object from its
// document, and it fills only the entry of that very document (known by its
// SHA-256): a document that changed is decoded as any other.
//
// RecordCreateSeeds writes them, ParseCreateSeeds reads them; a nil
// *CreateSeeds has none.
type CreateSeeds struct {
	byDoc map[[sha256.Size]byte]*createSeed
}

// createSeed is one document's memo entry.
type createSeed struct {
	// gvk is the kind of the object the document decodes to, and decoded
	// that object's protobuf.
	gvk     schema.GroupVersionKind
	decoded []byte
	// stored is the memo's encoding of the first object created from the
	// document (createdEncoding); its kind is gvk.
	storedProto, storedJSON []byte
	uidAt                   int
	timeAt                  []int
}

// createSeedsHeader starts a file of CreateSeeds; a format of another
// version is refused.
const createSeedsHeader = "fakeplane create seeds v1\n"

// Len returns how many documents s has seeds for.
func (s *CreateSeeds) Len() int {
	if s == nil {
		return 0
	}
	return len(s.byDoc)
}

// lookup returns the seed of doc, nil if s has none.
func (s *CreateSeeds) lookup(doc []byte) *createSeed {
	if s == nil {
		return nil
	}
	return s.byDoc[sha256.Sum256(doc)]
}

// fillFromSeed fills e, which the caller claimed, from seed and reports
// whether it did; e is left unfilled (and open) when the seed's kind is not
// a built-in type served here or its object does not decode.
func (s *Registry) fillFromSeed(e *decodedCreate, seed *createSeed) bool {
	res, ok := s.served.ForKind(seed.gvk)
	if !ok || res.Typed == nil {
		return false
	}
	obj := res.Typed()
	u, ok := obj.(protoUnmarshaler)
	if !ok || u.Unmarshal(seed.decoded) != nil {
		return false
	}
	obj.GetObjectKind().SetGroupVersionKind(seed.gvk)
	e.obj = obj
	// The seed was recorded from an entry whose object had passed
	// validation, and this object is that one.
	e.validated.Store(true)
	e.encoding.Store(&createdEncoding{gvk: seed.gvk, proto: seed.storedProto, data: seed.storedJSON, uidAt: seed.uidAt, timeAt: seed.timeAt})
	close(e.done)
	return true
}

// protoUnmarshaler is implemented by every built-in API type.
type protoUnmarshaler interface {
	Unmarshal([]byte) error
}

// RecordCreateSeeds returns, as a file ParseCreateSeeds reads, the seeds of
// the documents of docs whose entries this registry's memo holds complete
// (decoded to a built-in type, validated, and with the encoding of an
// object created from it), and the documents it left out. It leaves out a
// document whose object's protobuf does not decode to an object equal to it
// in every field (reflect.DeepEqual: a nil list is not an empty one, which
// protobuf does not tell apart), as its seed would not be the object that
// document decodes to.
func (s *Registry) RecordCreateSeeds(docs [][]byte) (file []byte, left [][]byte, err error) {
	file = []byte(createSeedsHeader)
	seen := map[[sha256.Size]byte]bool{}
	for _, doc := range docs {
		sum := sha256.Sum256(doc)
		if seen[sum] {
			continue
		}
		seen[sum] = true
		seed, err := s.seedOf(doc)
		if err != nil {
			return nil, nil, err
		}
		if seed == nil {
			left = append(left, doc)
			continue
		}
		file = appendCreateSeed(file, sum, seed)
	}
	return file, left, nil
}

// seedOf returns the seed of doc's memo entry, nil when the entry is not
// complete or its object does not survive protobuf.
func (s *Registry) seedOf(doc []byte) (*createSeed, error) {
	e := s.creates.lookup(doc)
	if e == nil {
		return nil, nil
	}
	<-e.done
	enc := e.encoding.Load()
	if e.obj == nil || !e.validated.Load() || enc == nil {
		return nil, nil
	}
	gvk := e.obj.GetObjectKind().GroupVersionKind()
	if enc.gvk != gvk {
		return nil, nil
	}
	pm, ok := e.obj.(protoMarshaler)
	if !ok {
		return nil, nil
	}
	decoded, err := pm.Marshal()
	if err != nil {
		return nil, fmt.Errorf("create seed of %s: %w", gvk, err)
	}
	res, ok := s.served.ForKind(gvk)
	if !ok || res.Typed == nil {
		return nil, nil
	}
	back := res.Typed()
	if err := back.(protoUnmarshaler).Unmarshal(decoded); err != nil {
		return nil, fmt.Errorf("create seed of %s: %w", gvk, err)
	}
	back.GetObjectKind().SetGroupVersionKind(gvk)
	if !reflect.DeepEqual(back, e.obj) {
		return nil, nil
	}
	return &createSeed{gvk: gvk, decoded: decoded, storedProto: enc.proto, storedJSON: enc.data, uidAt: enc.uidAt, timeAt: enc.timeAt}, nil
}

// appendCreateSeed appends a record of seed, the seed of the document whose
// SHA-256 is sum: the sum, the kind's apiVersion and kind, the three
// encodings (each preceded by its length), uidAt and the times' offsets
// (-1 for a time that is not set).
func appendCreateSeed(b []byte, sum [sha256.Size]byte, seed *createSeed) []byte {
	b = append(b, sum[:]...)
	apiVersion, kind := seed.gvk.ToAPIVersionAndKind()
	for _, field := range [][]byte{[]byte(apiVersion), []byte(kind), seed.decoded, seed.storedProto, seed.storedJSON} {
		b = binary.AppendUvarint(b, uint64(len(field)))
		b = append(b, field...)
	}
	b = binary.AppendUvarint(b, uint64(seed.uidAt))
	b = binary.AppendUvarint(b, uint64(len(seed.timeAt)))
	for _, at := range seed.timeAt {
		b = binary.AppendVarint(b, int64(at))
	}
	return b
}

// errCreateSeedsTruncated is the error of a file of seeds that ends inside
// a record.
var errCreateSeedsTruncated = errors.New("create seeds: truncated record")

// ParseCreateSeeds reads a file RecordCreateSeeds wrote. The seeds share
// file's memory: it must not change afterwards.
func ParseCreateSeeds(file []byte) (*CreateSeeds, error) {
	rest, ok := bytes.CutPrefix(file, []byte(createSeedsHeader))
	if !ok {
		return nil, errors.New("create seeds: not a file of this version (" + createSeedsHeader[:len(createSeedsHeader)-1] + ")")
	}
	s := &CreateSeeds{byDoc: map[[sha256.Size]byte]*createSeed{}}
	uvarint := func() (int, error) {
		v, n := binary.Uvarint(rest)
		if n <= 0 || v > uint64(len(file)) {
			return 0, errCreateSeedsTruncated
		}
		rest = rest[n:]
		return int(v), nil
	}
	field := func() ([]byte, error) {
		n, err := uvarint()
		if err != nil || n > len(rest) {
			return nil, errCreateSeedsTruncated
		}
		f := rest[:n:n]
		rest = rest[n:]
		return f, nil
	}
	for len(rest) > 0 {
		if len(rest) < sha256.Size {
			return nil, errCreateSeedsTruncated
		}
		sum := [sha256.Size]byte(rest[:sha256.Size])
		rest = rest[sha256.Size:]
		var fields [5][]byte
		for i := range fields {
			f, err := field()
			if err != nil {
				return nil, err
			}
			fields[i] = f
		}
		seed := &createSeed{
			gvk:     schema.FromAPIVersionAndKind(string(fields[0]), string(fields[1])),
			decoded: fields[2], storedProto: fields[3], storedJSON: fields[4],
		}
		var err error
		if seed.uidAt, err = uvarint(); err != nil {
			return nil, err
		}
		n, err := uvarint()
		if err != nil {
			return nil, err
		}
		seed.timeAt = make([]int, n)
		for i := range seed.timeAt {
			v, k := binary.Varint(rest)
			if k <= 0 {
				return nil, errCreateSeedsTruncated
			}
			rest = rest[k:]
			seed.timeAt[i] = int(v)
		}
		if err := seed.check(); err != nil {
			return nil, err
		}
		s.byDoc[sum] = seed
	}
	return s, nil
}

// check reports a seed whose offsets are not inside its JSON, which
// createdEncoding.encode would write outside of.
func (c *createSeed) check() error {
	inside := func(at, n int) bool { return at >= 0 && at+n <= len(c.storedJSON) }
	timeLen := len(timeJSON(placeholderTime(0)))
	if !inside(c.uidAt+1, len(placeholderUID)) {
		return fmt.Errorf("create seeds: %s: uid offset %d outside its JSON", c.gvk, c.uidAt)
	}
	for _, at := range c.timeAt {
		if at != -1 && !inside(at, timeLen) {
			return fmt.Errorf("create seeds: %s: time offset %d outside its JSON", c.gvk, at)
		}
	}
	return nil
}
