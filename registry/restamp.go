package registry

import "strconv"

// RestampResourceVersion returns data (a stored JSON object) with the value
// of its metadata.resourceVersion replaced by rev, and data unchanged when
// it has none (or is not a JSON object). It is the etcd store's
// StampOnRead: objects are stored there with the resourceVersion their
// write's Stamp gave them at revision 0 (etcd assigns the revision at
// commit) and get the revision that wrote them on every read, as
// kube-apiserver sets it from etcd's ModRevision.
func RestampResourceVersion(data []byte, rev int64) ([]byte, error) {
	meta, ok, err := topLevelValue(data, "metadata")
	if err != nil || !ok || data[meta] != '{' {
		return data, nil
	}
	start, end := -1, -1
	err = scanMembers(data, meta, func(key string, _, valueAt, valueEnd int) bool {
		if key == "resourceVersion" {
			start, end = valueAt, valueEnd
			return false
		}
		return true
	})
	if err != nil || start < 0 || data[start] != '"' {
		return data, nil
	}
	out := make([]byte, 0, len(data)+20)
	out = append(out, data[:start]...)
	out = append(out, '"')
	out = strconv.AppendInt(out, rev, 10)
	out = append(out, '"')
	return append(out, data[end:]...), nil
}
