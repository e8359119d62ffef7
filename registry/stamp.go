package registry

import (
	"fmt"
	"strconv"
)

// A write is computed outside the store's lock with metadata.resourceVersion
// cleared, as kube-apiserver clears it before encoding for etcd, and
// converted to the storage version there (a CRD's conversion webhook
// included). Under the lock only the commit revision is spliced into the
// storage bytes, at the place the encoder would have put it, so the stored
// bytes are exactly those of encoding the object with its resourceVersion
// set.

// keyOrder says how the encoder that produced a JSON object orders
// metadata's keys.
type keyOrder int

const (
	// structOrder is encoding/json on metav1.ObjectMeta: field order, with
	// name, generateName, namespace, selfLink and uid before resourceVersion.
	structOrder keyOrder = iota
	// sortedOrder is encoding/json on a map (unstructured objects): keys sorted.
	sortedOrder
)

// beforeResourceVersion are ObjectMeta's JSON fields that precede
// resourceVersion in field order.
var beforeResourceVersion = map[string]bool{"name": true, "generateName": true, "namespace": true, "selfLink": true, "uid": true}

// spliceResourceVersion returns data (a JSON object whose metadata has no
// resourceVersion) with metadata.resourceVersion set to rev.
func spliceResourceVersion(data []byte, rev int64, order keyOrder) ([]byte, error) {
	meta, ok, err := topLevelValue(data, "metadata")
	if err != nil {
		return nil, fmt.Errorf("stamp resourceVersion: %w", err)
	}
	if !ok || data[meta] != '{' {
		return nil, fmt.Errorf("stamp resourceVersion: object has no metadata")
	}
	member := `"resourceVersion":"` + strconv.FormatInt(rev, 10) + `"`
	at, empty := len(data), true
	var has bool
	err = scanMembers(data, meta, func(key string, keyAt, valueAt, end int) bool {
		empty = false
		after := key > "resourceVersion"
		if order == structOrder {
			after = !beforeResourceVersion[key]
		}
		if key == "resourceVersion" {
			has = true
			return false
		}
		if after {
			at = keyAt
			return false
		}
		return true
	})
	if err != nil {
		return nil, fmt.Errorf("stamp resourceVersion: %w", err)
	}
	if has {
		return nil, fmt.Errorf("stamp resourceVersion: metadata already has one")
	}
	out := make([]byte, 0, len(data)+len(member)+1)
	if at == len(data) { // append before metadata's closing brace
		closing := skipValue(data, meta) - 1 // the '}'
		out = append(out, data[:closing]...)
		if !empty {
			out = append(out, ',')
		}
		out = append(out, member...)
		return append(out, data[closing:]...), nil
	}
	out = append(out, data[:at]...)
	out = append(out, member...)
	out = append(out, ',')
	return append(out, data[at:]...), nil
}

// topLevelValue finds the value of key in the JSON object data and returns
// its offset.
func topLevelValue(data []byte, key string) (int, bool, error) {
	start := skipSpace(data, 0)
	found, at := false, 0
	err := scanMembers(data, start, func(k string, _, valueAt, _ int) bool {
		if k == key {
			found, at = true, valueAt
			return false
		}
		return true
	})
	return at, found, err
}
