package fakeplane_test

import (
	"encoding/json"
	"net/http"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	"github.com/fakeplane/fakeplane"
)

// TestScaleTableAsKubeAPIServer: a scale subresource answers a Table
// when asked for one (kubectl get --subresource=scale), as kube-apiserver
// v1.37 does (recorded from refplane): a built-in resource's with the Scale
// printer's columns (the name's and the age's without format), a custom
// resource's with apiextensions' (Desired and Available where the CRD names
// their paths, a dated Age); each row's object as includeObject says.
func TestScaleTableAsKubeAPIServer(t *testing.T) {
	t.Parallel()
	cp := fakeplane.Start(t, fakeplane.WithObjects(subresourceWidgetCRD()), fakeplane.WithoutPodLifecycle())
	for _, create := range []struct{ path, body string }{
		{"/apis/apps/v1/namespaces/default/deployments", `{"apiVersion":"apps/v1","kind":"Deployment","metadata":{"name":"dd"},"spec":{"replicas":3,"selector":{"matchLabels":{"a":"b"}},"template":{"metadata":{"labels":{"a":"b"}},"spec":{"containers":[{"name":"c","image":"nginx"}]}}}}`},
		{"/apis/h4.example.com/v1/namespaces/default/h4widgets", `{"apiVersion":"h4.example.com/v1","kind":"H4Widget","metadata":{"name":"w"},"spec":{"size":2}}`},
	} {
		if code, _, b := rawRequest(t, cp, "POST", create.path, "application/json", []byte(create.body), nil); code != 201 {
			t.Fatalf("create: %d %s", code, b)
		}
	}
	type column struct{ Name, Type, Format, Description string }
	ageDoc := metav1.ObjectMeta{}.SwaggerDoc()["creationTimestamp"]
	nameDoc := metav1.ObjectMeta{}.SwaggerDoc()["name"]
	for _, tc := range []struct {
		name, path, query string
		columns           []column
		cells             []any  // the name and Desired (Available follows the controllers)
		object            string // the row object's kind, "" for none
	}{
		{"built-in", "/apis/apps/v1/namespaces/default/deployments/dd/scale", "", []column{
			{"Name", "string", "", nameDoc},
			{"Desired", "integer", "", "replicas is the desired number of instances for the scaled object."},
			{"Available", "integer", "", "replicas is the actual number of observed instances of the scaled object."},
			{"Age", "string", "", ageDoc},
		}, []any{"dd", 3.0}, "PartialObjectMetadata"},
		{"custom", "/apis/h4.example.com/v1/namespaces/default/h4widgets/w/scale", "", []column{
			{"Name", "string", "name", nameDoc},
			{"Desired", "integer", "", "Number of desired replicas"},
			{"Available", "integer", "", "Number of actual replicas"},
			{"Age", "date", "", ageDoc},
		}, []any{"w", 2.0}, "PartialObjectMetadata"},
		{"custom, includeObject=Object", "/apis/h4.example.com/v1/namespaces/default/h4widgets/w/scale", "?includeObject=Object", nil, []any{"w", 2.0}, "Scale"},
		{"built-in, includeObject=None", "/apis/apps/v1/namespaces/default/deployments/dd/scale", "?includeObject=None", nil, []any{"dd", 3.0}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, ctype, body := rawRequest(t, cp, "GET", tc.path+tc.query, "", nil, http.Header{"Accept": {"application/json;as=Table;v=v1;g=meta.k8s.io"}})
			var table struct {
				Kind              string
				Metadata          struct{ ResourceVersion string }
				ColumnDefinitions []column
				Rows              []struct {
					Cells  []any
					Object *struct{ Kind, APIVersion string }
				}
			}
			if err := json.Unmarshal(body, &table); err != nil || code != 200 || ctype != "application/json" || table.Kind != "Table" {
				t.Fatalf("%d %s %v: %s", code, ctype, err, body)
			}
			if tc.columns != nil {
				if len(table.ColumnDefinitions) != len(tc.columns) {
					t.Fatalf("columns %+v", table.ColumnDefinitions)
				}
				for i, c := range tc.columns {
					if table.ColumnDefinitions[i] != c {
						t.Errorf("column %d: %+v, want %+v", i, table.ColumnDefinitions[i], c)
					}
				}
			}
			if len(table.Rows) != 1 || len(table.Rows[0].Cells) != 4 || table.Metadata.ResourceVersion == "" {
				t.Fatalf("rows %+v, resourceVersion %q", table.Rows, table.Metadata.ResourceVersion)
			}
			row := table.Rows[0]
			for i, want := range tc.cells {
				if row.Cells[i] != want {
					t.Errorf("cell %d: %v, want %v", i, row.Cells[i], want)
				}
			}
			if _, ok := row.Cells[2].(float64); !ok {
				t.Errorf("available %v, want a number", row.Cells[2])
			}
			if age, _ := row.Cells[3].(string); age == "" {
				t.Errorf("age %v", row.Cells[3])
			}
			switch {
			case tc.object == "" && row.Object != nil:
				t.Errorf("row object %+v, want none", row.Object)
			case tc.object != "" && (row.Object == nil || row.Object.Kind != tc.object):
				t.Errorf("row object %+v, want a %s", row.Object, tc.object)
			}
		})
	}
}
