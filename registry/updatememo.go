package registry

import (
	"bytes"
	"encoding/json"
	"sort"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

// An update's managedFields are what upstream's field manager computes from
// the managed fields it starts from and the comparison of the live object
// with the new one: which fields were added, removed or changed. Field
// paths hold map keys and the items of lists, never the value of a scalar
// outside a list, and such a scalar counts only as changed or not. So an
// update whose objects have the same keys, the same lists and the same
// changes as an earlier one records what it recorded: a controller updating
// a status count, a lease renewed, a test bumping a value in a loop. Each
// resource of a control plane remembers what updates recorded by that
// shape (updatedShape), up to maxUpdatedShapes of them.

// maxUpdatedShapes bounds an updatedFieldsMemo (it is emptied when full);
// maxUpdatedEntries bounds the managedFields an update may start from to be
// remembered (beyond 10 Update entries upstream merges the oldest, by time).
const (
	maxUpdatedShapes    = 128
	maxUpdatedShapeLen  = 64 << 10
	maxUpdatedEntries   = 8
	updatedTimeFresh    = -1 // the entry is timed now (its manager wrote)
	updatedTimeNone     = -2 // the entry has no time
	updatedTimeNotKnown = -3
)

// updatedFields is what an update recorded: its entries without times, and
// where each entry's time comes from (an index into the entries it started
// from, or updatedTimeFresh or updatedTimeNone); nil entries when it
// recorded none.
type updatedFields struct {
	entries []metav1.ManagedFieldsEntry
	times   []int
}

// updatedFieldsMemo remembers what updates recorded, by shape.
type updatedFieldsMemo struct {
	mu   sync.Mutex
	m    map[string]*updatedFields
	hits int // (for tests)
}

func (um *updatedFieldsMemo) get(key string) (*updatedFields, bool) {
	um.mu.Lock()
	defer um.mu.Unlock()
	u, ok := um.m[key]
	if ok {
		um.hits++
	}
	return u, ok
}

func (um *updatedFieldsMemo) put(key string, u *updatedFields) {
	um.mu.Lock()
	defer um.mu.Unlock()
	if um.m == nil || len(um.m) >= maxUpdatedShapes {
		um.m = map[string]*updatedFields{}
	}
	um.m[key] = u
}

// TrackManagedFieldsFrom is TrackManagedFields for an update of old, the
// object the write path read (with its Stored JSON, unchanged).
func (c *Request) TrackManagedFieldsFrom(old *Object, o *Object, fieldManager string) {
	asConvertedForFieldManager(o)
	sub := c.Info.Subresource
	if old == nil || old.Stored == nil || !tracksManagedFields(sub) {
		c.TrackManagedFields(objOf(old), o, fieldManager)
		return
	}
	fm, err := c.Res.FieldManager(sub)
	if err != nil {
		c.TrackManagedFields(old.Obj, o, fieldManager)
		return
	}
	manager := ManagerName(fieldManager, c.UserAgent)
	key, in, ok := c.Res.updatedShape(sub, manager, old, o)
	if ok {
		if u, hit := c.Res.managed.updated.get(key); hit {
			o.Meta.SetManagedFields(u.entriesFrom(in, time.Now().UTC()))
			return
		}
	}
	out := fm.UpdateNoErrors(old.Obj, o.Obj, manager)
	acc, err := meta.Accessor(out)
	if err != nil {
		return
	}
	o.Obj, o.Meta = out, acc
	if ok {
		if u, known := recordedUpdate(acc.GetManagedFields(), in); known {
			c.Res.managed.updated.put(key, u)
		}
	}
}

// objOf is o's object, nil for none.
func objOf(o *Object) runtime.Object {
	if o == nil {
		return nil
	}
	return o.Obj
}

// recordedUpdate is what an update recorded (out), with the times of its
// entries traced to the entries it started from (in: same pointers, as the
// field manager keeps them) or to the writing manager's fresh time; false
// when one cannot be traced.
func recordedUpdate(out, in []metav1.ManagedFieldsEntry) (*updatedFields, bool) {
	if out == nil {
		return &updatedFields{}, true
	}
	u := &updatedFields{entries: make([]metav1.ManagedFieldsEntry, len(out)), times: make([]int, len(out))}
	fresh := 0
	for i := range out {
		out[i].DeepCopyInto(&u.entries[i])
		u.entries[i].Time = nil
		switch t := out[i].Time; {
		case t == nil:
			u.times[i] = updatedTimeNone
		default:
			u.times[i] = updatedTimeNotKnown
			for j := range in {
				if in[j].Time == t {
					u.times[i] = j
					break
				}
			}
			if u.times[i] == updatedTimeNotKnown {
				u.times[i] = updatedTimeFresh
				fresh++
			}
		}
	}
	return u, fresh <= 1
}

// entriesFrom builds the entries an update records from in, the entries
// it starts from, its manager's time now: in upstream's order (operation,
// time to the second, manager, apiVersion, subresource).
func (u *updatedFields) entriesFrom(in []metav1.ManagedFieldsEntry, now time.Time) []metav1.ManagedFieldsEntry {
	if u.entries == nil {
		return nil
	}
	out := make([]metav1.ManagedFieldsEntry, len(u.entries))
	for i := range u.entries {
		u.entries[i].DeepCopyInto(&out[i])
		switch j := u.times[i]; {
		case j == updatedTimeFresh:
			out[i].Time = &metav1.Time{Time: now}
		case j >= 0:
			out[i].Time = in[j].Time
		}
	}
	sort.Slice(out, func(i, j int) bool {
		p, q := out[i], out[j]
		if p.Operation != q.Operation {
			return p.Operation < q.Operation
		}
		var ps, qs int64
		if p.Time != nil {
			ps = p.Time.Unix()
		}
		if q.Time != nil {
			qs = q.Time.Unix()
		}
		if ps != qs {
			return ps < qs
		}
		if p.Manager != q.Manager {
			return p.Manager < q.Manager
		}
		if p.APIVersion != q.APIVersion {
			return p.APIVersion < q.APIVersion
		}
		return p.Subresource < q.Subresource
	})
	return out
}

// updatedShape is the key of an update of old into o by manager through sub
// (see above) and the entries the field manager starts from; false when
// the update is not one to remember: not a built-in type, more entries
// than maxUpdatedEntries, managedFields in o that differ from old's (the
// field manager would start from either), objects that do not encode or
// too big a shape.
func (r *Resource) updatedShape(sub, manager string, old, o *Object) (string, []metav1.ManagedFieldsEntry, bool) {
	if r.managed == nil || r.Typed == nil {
		return "", nil, false
	}
	if _, u := o.Obj.(*unstructured.Unstructured); u {
		return "", nil, false
	}
	liveMF, newMF := old.Meta.GetManagedFields(), o.Meta.GetManagedFields()
	if len(liveMF) > maxUpdatedEntries {
		return "", nil, false
	}
	// The field manager starts from o's entries (a write to the resource
	// that carries them), else from old's.
	in, mode := liveMF, byte('l')
	if sub == "" && len(newMF) > 0 {
		if !sameEntries(newMF, liveMF) {
			return "", nil, false
		}
		in, mode = newMF, 'n'
	}
	// o without its managedFields, encoded.
	cp := shallowCopy(o.Obj)
	if cp == nil {
		return "", nil, false
	}
	cpAcc, err := meta.Accessor(cp)
	if err != nil {
		return "", nil, false
	}
	cpAcc.SetManagedFields(nil)
	newJSON, err := encodeAsSent(cp)
	if err != nil {
		return "", nil, false
	}
	timeless := make([]metav1.ManagedFieldsEntry, len(in))
	for i := range in {
		timeless[i] = in[i]
		timeless[i].Time = nil
	}
	entries, err := json.Marshal(timeless)
	if err != nil {
		return "", nil, false
	}
	var b bytes.Buffer
	b.WriteString(sub)
	b.WriteByte(0)
	b.WriteString(manager)
	b.WriteByte(0)
	b.WriteString(o.Obj.GetObjectKind().GroupVersionKind().String())
	b.WriteByte(0)
	if old.Meta.GetUID() == "" {
		b.WriteByte('u')
	}
	b.WriteByte(mode)
	b.Write(entries)
	b.WriteByte(0)
	if !writeUpdatedShape(&b, newJSON, old.Stored, true) || b.Len() > maxUpdatedShapeLen {
		return "", nil, false
	}
	return b.String(), in, true
}

// sameEntries reports whether two managedFields lists record the same
// (times compared as instants).
func sameEntries(a, b []metav1.ManagedFieldsEntry) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		p, q := a[i], b[i]
		if p.Manager != q.Manager || p.Operation != q.Operation || p.APIVersion != q.APIVersion ||
			p.FieldsType != q.FieldsType || p.Subresource != q.Subresource ||
			(p.FieldsV1 == nil) != (q.FieldsV1 == nil) || p.FieldsV1 != nil && !bytes.Equal(p.FieldsV1.Raw, q.FieldsV1.Raw) ||
			(p.Time == nil) != (q.Time == nil) || p.Time != nil && !p.Time.Equal(q.Time) {
			return false
		}
	}
	return true
}

// writeUpdatedShape writes the shape of nw, a JSON value of the new object,
// against lv, the value at the same place in the live object (nil when it
// has none): objects member by member (with the live object's members the
// new one lacks), lists as they are, scalars as their kind and whether
// they equal the live value. top is the object itself, whose metadata's
// managedFields are left out. It reports false for JSON it cannot read.
func writeUpdatedShape(b *bytes.Buffer, nw, lv []byte, top bool) bool {
	if len(nw) == 0 {
		return false
	}
	switch nw[0] {
	case '{':
		var live []member
		liveIsObject := len(lv) > 0 && lv[0] == '{'
		if liveIsObject {
			var ok bool
			if live, ok = members(lv); !ok {
				return false
			}
		}
		news, ok := members(nw)
		if !ok {
			return false
		}
		b.WriteByte('{')
		used := make([]bool, len(live))
		var byKey map[string]int // for big objects
		if len(live) > 16 {
			byKey = make(map[string]int, len(live))
			for i, l := range live {
				byKey[string(l.key)] = i
			}
		}
		for _, m := range news {
			b.Write(m.key)
			b.WriteByte(':')
			var lvv []byte
			if byKey != nil {
				if i, ok := byKey[string(m.key)]; ok && !used[i] {
					used[i], lvv = true, live[i].value
				}
			} else {
				for i, l := range live {
					if !used[i] && bytes.Equal(l.key, m.key) {
						used[i], lvv = true, l.value
						break
					}
				}
			}
			if top && string(m.key) == `"metadata"` {
				if !writeMetadataShape(b, m.value, lvv) {
					return false
				}
				continue
			}
			if !writeUpdatedShape(b, m.value, lvv, false) {
				return false
			}
			b.WriteByte(',')
		}
		for i, l := range live {
			if !used[i] {
				b.WriteByte('-')
				b.Write(l.key)
				b.WriteByte(':')
				if !writeUpdatedShape(b, l.value, nil, false) {
					return false
				}
				b.WriteByte(',')
			}
		}
		b.WriteByte('}')
		if !liveIsObject {
			writeLiveKind(b, lv)
		}
	case '[':
		b.WriteByte('[')
		b.Write(nw)
		b.WriteByte('|')
		if lv == nil {
			b.WriteByte('a')
		} else {
			b.Write(lv)
		}
		b.WriteByte(']')
	default:
		b.WriteByte(scalarKind(nw[0]))
		if lv != nil && bytes.Equal(nw, lv) {
			b.WriteByte('=')
		} else {
			writeLiveKind(b, lv)
		}
	}
	return true
}

// writeMetadataShape writes the shape of the objects' metadata, without
// managedFields (the field manager reads them apart).
func writeMetadataShape(b *bytes.Buffer, nw, lv []byte) bool {
	strip := func(v []byte) ([]byte, bool) {
		if len(v) == 0 || v[0] != '{' {
			return v, true
		}
		ms, ok := members(v)
		if !ok {
			return nil, false
		}
		var out bytes.Buffer
		out.WriteByte('{')
		first := true
		for _, m := range ms {
			if string(m.key) == `"managedFields"` {
				continue
			}
			if !first {
				out.WriteByte(',')
			}
			first = false
			out.Write(m.key)
			out.WriteByte(':')
			out.Write(m.value)
		}
		out.WriteByte('}')
		return out.Bytes(), true
	}
	nws, ok := strip(nw)
	if !ok {
		return false
	}
	lvs, ok := strip(lv)
	if !ok {
		return false
	}
	if !writeUpdatedShape(b, nws, lvs, false) {
		return false
	}
	b.WriteByte(',')
	return true
}

// writeLiveKind writes what the live object has where the new one has a
// different value: nothing ('a'), or the kind of value.
func writeLiveKind(b *bytes.Buffer, lv []byte) {
	b.WriteByte('!')
	if len(lv) == 0 {
		b.WriteByte('a')
		return
	}
	switch lv[0] {
	case '{', '[':
		// A different structure: written whole, it is rare.
		b.Write(lv)
	default:
		b.WriteByte(scalarKind(lv[0]))
	}
}

// scalarKind names the kind of a JSON scalar by its first byte.
func scalarKind(c byte) byte {
	switch c {
	case '"':
		return 's'
	case 't', 'f':
		return 'b'
	case 'n':
		return 'z'
	}
	return 'n'
}

// member is one member of a JSON object: its key (quoted, as written) and
// its value.
type member struct{ key, value []byte }

// members lists the members of the JSON object v.
func members(v []byte) ([]member, bool) {
	var out []member
	err := scanMembers(v, 0, func(_ string, keyAt, valueAt, end int) bool {
		keyEnd := skipValue(v, keyAt)
		out = append(out, member{key: v[keyAt:keyEnd], value: v[valueAt:end]})
		return true
	})
	return out, err == nil
}
