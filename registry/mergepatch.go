package registry

import "bytes"

// ApplyMergePatch applies a JSON merge patch (RFC 7386) to doc, a JSON
// object, by walking both documents' bytes: members of doc the patch does
// not name are copied as they are written, so a patch of one key costs a
// scan of doc rather than json-patch's decoding of both documents into maps
// and encoding of the result.
//
// The result decodes to what json-patch's MergePatch gives (the function
// kube-apiserver applies merge patches with), quirks included: null
// members are dropped from a value the patch adds or replaces a non-object
// with, nulls inside arrays are kept, and a non-object value replacing an
// object is taken as written. Its bytes differ: doc's members keep their
// order, new members follow in the patch's order, and nothing is
// re-encoded. Callers that show the patched object (in an error) should
// show json-patch's.
//
// ok is false for what this walk does not handle and json-patch must: a
// patch or doc that is not a JSON object, a key written with escapes or
// non-ASCII bytes, or a key given twice in one object of the patch (the
// last wins in json-patch's maps). Both documents must be valid JSON.
func ApplyMergePatch(doc, patch []byte) (out []byte, ok bool) {
	d, p := skipSpace(doc, 0), skipSpace(patch, 0)
	if d >= len(doc) || doc[d] != '{' || p >= len(patch) || patch[p] != '{' {
		return nil, false
	}
	out = make([]byte, 0, len(doc)+len(patch))
	out, ok = mergeObjects(out, doc[d:skipValue(doc, d)], patch[p:skipValue(patch, p)])
	if !ok {
		return nil, false
	}
	return out, true
}

// patchMember is one member of a merge patch object: its key and its value
// as written.
type patchMember struct {
	key   string
	value []byte
	used  bool
}

// mergeObjects appends to out the merge of the object doc with the object
// patch (both exactly one value, no surrounding space).
func mergeObjects(out, doc, patch []byte) ([]byte, bool) {
	members, ok := objectMembers(patch)
	if !ok {
		return nil, false
	}
	out = append(out, '{')
	first := true
	member := func(key string) {
		out = appendKey(out, first, key)
		first = false
	}
	failed := false
	err := scanMembers(doc, 0, func(key string, keyAt, valueAt, end int) bool {
		if !plainKey(key) {
			failed = true
			return false
		}
		cur := doc[valueAt:end]
		pm := findMember(members, key)
		if pm == nil {
			member(key)
			out = append(out, cur...)
			return true
		}
		pm.used = true
		switch {
		case isNull(pm.value):
			// Deleted.
		case cur[0] == '{' && pm.value[0] == '{':
			member(key)
			out, ok = mergeObjects(out, cur, pm.value)
		case cur[0] == '{':
			// A non-object replaces an object as it is written.
			member(key)
			out = append(out, pm.value...)
		default:
			// Replacing null or a non-object: the value without its nulls.
			member(key)
			out, ok = appendPruned(out, pm.value)
		}
		failed = !ok
		return ok
	})
	if err != nil || failed {
		return nil, false
	}
	for i := range members {
		pm := &members[i]
		if pm.used || isNull(pm.value) {
			continue
		}
		member(pm.key)
		if out, ok = appendPruned(out, pm.value); !ok {
			return nil, false
		}
	}
	return append(out, '}'), true
}

// appendKey appends an object member's key and colon, after a comma
// unless it is the object's first member.
func appendKey(out []byte, first bool, key string) []byte {
	if !first {
		out = append(out, ',')
	}
	out = append(out, '"')
	out = append(out, key...)
	return append(out, '"', ':')
}

// objectMembers returns the members of the JSON object data, or false when
// a key has escapes or non-ASCII bytes or is given twice.
func objectMembers(data []byte) ([]patchMember, bool) {
	var members []patchMember
	ok := true
	err := scanMembers(data, 0, func(key string, _, valueAt, end int) bool {
		if !plainKey(key) || findMember(members, key) != nil {
			ok = false
			return false
		}
		members = append(members, patchMember{key: key, value: data[valueAt:end]})
		return true
	})
	return members, ok && err == nil
}

// plainKey reports whether a key is written as it reads: printable ASCII
// without escapes.
func plainKey(key string) bool {
	for i := 0; i < len(key); i++ {
		if c := key[i]; c < 0x20 || c >= 0x7f || c == '\\' {
			return false
		}
	}
	return true
}

// findMember returns the member named key, or nil.
func findMember(members []patchMember, key string) *patchMember {
	for i := range members {
		if members[i].key == key {
			return &members[i]
		}
	}
	return nil
}

// isNull reports whether a value is the literal null.
func isNull(v []byte) bool { return string(v) == "null" }

// appendPruned appends value without the null members of its objects, at
// any depth; nulls that are array elements stay, as in json-patch.
func appendPruned(out, value []byte) ([]byte, bool) {
	if !bytes.Contains(value, []byte("null")) {
		return append(out, value...), true
	}
	switch value[0] {
	case '{':
		members, ok := objectMembers(value)
		if !ok {
			return nil, false
		}
		out = append(out, '{')
		first := true
		for _, m := range members {
			if isNull(m.value) {
				continue
			}
			out = appendKey(out, first, m.key)
			first = false
			if out, ok = appendPruned(out, m.value); !ok {
				return nil, false
			}
		}
		return append(out, '}'), true
	case '[':
		out = append(out, '[')
		i := skipSpace(value, 1)
		first := true
		for i < len(value) && value[i] != ']' {
			end := skipValue(value, i)
			if end <= i {
				return nil, false
			}
			if !first {
				out = append(out, ',')
			}
			first = false
			var ok bool
			if out, ok = appendPruned(out, value[i:end]); !ok {
				return nil, false
			}
			i = skipSpace(value, end)
			if i < len(value) && value[i] == ',' {
				i = skipSpace(value, i+1)
			}
		}
		return append(out, ']'), true
	}
	return append(out, value...), true
}
