package server

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// recordedColumnsJSON is what a real kube-apiserver v1.37 answers as the
// Table column definitions (names, types, formats, priorities and
// descriptions) of each built-in resource, keyed by the resource's
// collection path. hack/capture-tables.py --columns records it.
//
//go:embed tabledata/table-columns-v1.37.json
var recordedColumnsJSON []byte

// recordedColumns parses recordedColumnsJSON once into column definitions
// keyed by group/resource ("/pods", "apps/deployments"): upstream's
// printers are per resource, the same in every version.
var recordedColumns = sync.OnceValues(func() (map[string][]metav1.TableColumnDefinition, error) {
	var byPath map[string][]metav1.TableColumnDefinition
	if err := json.Unmarshal(recordedColumnsJSON, &byPath); err != nil {
		return nil, fmt.Errorf("table columns recording: %w", err)
	}
	out := make(map[string][]metav1.TableColumnDefinition, len(byPath))
	for path, cols := range byPath {
		key, err := columnsKey(path)
		if err != nil {
			return nil, err
		}
		out[key] = cols
	}
	return out, nil
})

// columnsKey turns a recorded collection path (/api/v1/pods,
// /apis/apps/v1/deployments) into its group/resource key.
func columnsKey(path string) (string, error) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	switch {
	case len(parts) == 3 && parts[0] == "api":
		return "/" + parts[2], nil
	case len(parts) == 4 && parts[0] == "apis":
		return parts[1] + "/" + parts[3], nil
	}
	return "", fmt.Errorf("table columns recording: unexpected path %q", path)
}

// defaultColumns are the columns of a resource the recording lacks: its
// name and age.
var defaultColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDocs["name"]},
	{Name: "Age", Type: "string", Description: objectMetaDocs["creationTimestamp"]},
}

// columnsOf returns the Table column definitions of a built-in resource,
// keyed group/resource, as kube-apiserver v1.37 answers them. The slice is
// shared: callers must not modify it.
func columnsOf(key string) []metav1.TableColumnDefinition {
	cols, err := recordedColumns()
	if err != nil {
		// The recording is embedded at build time; TestRecordedColumns
		// parses it.
		panic(err)
	}
	if c, ok := cols[key]; ok {
		return c
	}
	return defaultColumns
}
