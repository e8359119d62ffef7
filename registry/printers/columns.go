package printers

import (
	_ "embed"
	"encoding/json"
	"fmt"
	"strings"
	"sync"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
)

// recordedColumnsJSON is what a real kube-apiserver v1.37 answers as the
// Table column definitions (names, types, formats, priorities and
// descriptions) of each built-in resource, keyed by the resource's
// collection path. hack/capture-tables.py --columns records it.
//
//go:embed table-columns-v1.37.json
var recordedColumnsJSON []byte

// recordedColumns parses recordedColumnsJSON once into column definitions
// keyed by group and resource: upstream's printers are per resource, the
// same in every version.
var recordedColumns = sync.OnceValues(func() (map[schema.GroupResource][]metav1.TableColumnDefinition, error) {
	var byPath map[string][]metav1.TableColumnDefinition
	if err := json.Unmarshal(recordedColumnsJSON, &byPath); err != nil {
		return nil, fmt.Errorf("table columns recording: %w", err)
	}
	out := make(map[schema.GroupResource][]metav1.TableColumnDefinition, len(byPath))
	for path, cols := range byPath {
		gr, err := columnsKey(path)
		if err != nil {
			return nil, err
		}
		out[gr] = cols
	}
	return out, nil
})

// columnsKey turns a recorded collection path (/api/v1/pods,
// /apis/apps/v1/deployments) into its group and resource.
func columnsKey(path string) (schema.GroupResource, error) {
	parts := strings.Split(strings.TrimPrefix(path, "/"), "/")
	switch {
	case len(parts) == 3 && parts[0] == "api":
		return schema.GroupResource{Resource: parts[2]}, nil
	case len(parts) == 4 && parts[0] == "apis":
		return schema.GroupResource{Group: parts[1], Resource: parts[3]}, nil
	}
	return schema.GroupResource{}, fmt.Errorf("table columns recording: unexpected path %q", path)
}

// objectMetaDocs are ObjectMeta's field descriptions, which upstream's
// generated columns carry.
var objectMetaDocs = metav1.ObjectMeta{}.SwaggerDoc()

// defaultColumns are the columns of a resource the recording lacks: its
// name and age.
var defaultColumns = []metav1.TableColumnDefinition{
	{Name: "Name", Type: "string", Format: "name", Description: objectMetaDocs["name"]},
	{Name: "Age", Type: "string", Description: objectMetaDocs["creationTimestamp"]},
}

// columnsOf returns a resource's recorded columns, or defaultColumns.
func columnsOf(cols map[schema.GroupResource][]metav1.TableColumnDefinition, gr schema.GroupResource) []metav1.TableColumnDefinition {
	if c, ok := cols[gr]; ok {
		return c
	}
	return defaultColumns
}
