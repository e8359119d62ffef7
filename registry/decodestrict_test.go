package registry

import (
	"fmt"
	"reflect"
	"testing"

	kjson "sigs.k8s.io/json"
)

// TestDecodeObjectStrictErrorsIsBothDecodings checks that one strict
// decoding gives the object DecodeObject gives and the strict errors a
// second, strict decoding into a new object found (what the patch handler
// did before), for bodies with and without unknown and duplicate fields.
func TestDecodeObjectStrictErrorsIsBothDecodings(t *testing.T) {
	reg, err := newServedResources()
	if err != nil {
		t.Fatal(err)
	}
	cms, _ := reg.Lookup("", "v1", "configmaps")
	withStrictErrs := 0
	for _, body := range []string{
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","labels":{"x":"1"}},"data":{"k":"v"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"extra":1,"data":{"k":"v"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","name":"b"},"data":{"k":"v","k":"w"}}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a","bogus":true},"data":{"k":"v"},"data":{"k":"x"},"more":[1]}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"data":"notamap"}`,
		`{"apiVersion":"v1","kind":"ConfigMap","metadata":{"name":"a"},"binaryData":{"b":"!!"}}`,
		`{"apiVersion":"v1","kind":"Secret","metadata":{"name":"a"}}`,
		`{bad`,
	} {
		want, wantErr := cms.DecodeObject([]byte(body))
		var wantStrict []error
		if wantErr == nil {
			wantStrict, _ = kjson.UnmarshalStrict([]byte(body), cms.NewObject(), kjson.DisallowDuplicateFields, kjson.DisallowUnknownFields)
		}
		got, gotStrict, err := cms.DecodeObjectStrictErrors([]byte(body))
		if fmt.Sprint(err) != fmt.Sprint(wantErr) {
			t.Errorf("%s: error %v, want %v", body, err, wantErr)
			continue
		}
		if err != nil {
			continue
		}
		if !reflect.DeepEqual(got.Obj, want.Obj) {
			t.Errorf("%s: object %#v, want %#v", body, got.Obj, want.Obj)
		}
		if fmt.Sprint(gotStrict) != fmt.Sprint(wantStrict) {
			t.Errorf("%s: strict errors %v, want %v", body, gotStrict, wantStrict)
		}
		if len(gotStrict) > 0 {
			withStrictErrs++
		}
	}
	if withStrictErrs < 3 {
		t.Errorf("%d bodies had strict errors: the cases do not exercise them", withStrictErrs)
	}
}
