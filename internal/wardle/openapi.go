package wardle

import (
	"crypto/sha512"
	"encoding/hex"
	"net/http"
	"strings"
)

// openAPIv3Doc is the OpenAPI v3 document of wardle.example.com/v1alpha1,
// what kubectl explain reads (through the aggregator).
const openAPIv3Doc = `{"openapi":"3.0.0","info":{"title":"Wardle","version":"v1alpha1"},"paths":{
"/apis/wardle.example.com/v1alpha1/flunders":{"get":{"description":"list or watch objects of kind Flunder","operationId":"listFlunderForAllNamespaces",
"responses":{"200":{"description":"OK"}},"x-kubernetes-action":"list","x-kubernetes-group-version-kind":{"group":"wardle.example.com","kind":"Flunder","version":"v1alpha1"}}},
"/apis/wardle.example.com/v1alpha1/namespaces/{namespace}/flunders":{"get":{"description":"list or watch objects of kind Flunder","operationId":"listNamespacedFlunder",
"responses":{"200":{"description":"OK"}},"x-kubernetes-action":"list","x-kubernetes-group-version-kind":{"group":"wardle.example.com","kind":"Flunder","version":"v1alpha1"}}}},
"components":{"schemas":{
"com.example.wardle.v1alpha1.Flunder":{"description":"Flunder is the example resource of the wardle extension API server.","type":"object",
"properties":{
"apiVersion":{"description":"APIVersion defines the versioned schema of this representation of an object.","type":"string"},
"kind":{"description":"Kind is a string value representing the REST resource this object represents.","type":"string"},
"metadata":{"description":"Standard object's metadata.","type":"object"},
"spec":{"description":"FlunderSpec is the specification of a Flunder.","type":"object","properties":{
"reference":{"description":"Reference names another flunder.","type":"string"}}}},
"x-kubernetes-group-version-kind":[{"group":"wardle.example.com","kind":"Flunder","version":"v1alpha1"}]}}}}`

// serveOpenAPI answers /openapi/v3 and the group/version's document.
func serveOpenAPI(w http.ResponseWriter, r *http.Request) bool {
	const gvPath = "/openapi/v3/apis/" + Group + "/" + Version
	switch strings.TrimSuffix(r.URL.Path, "/") {
	case "/openapi/v3":
		sum := sha512.Sum512([]byte(openAPIv3Doc))
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(`{"paths":{"apis/` + Group + `/` + Version + `":{"serverRelativeURL":"` + gvPath + `?hash=` + strings.ToUpper(hex.EncodeToString(sum[:])) + `"}}}`))
		return true
	case gvPath:
		w.Header().Set("Content-Type", "application/json")
		_, _ = w.Write([]byte(openAPIv3Doc))
		return true
	}
	return false
}
