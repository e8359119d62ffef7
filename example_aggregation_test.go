package fakeplane_test

import (
	"context"
	"fmt"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	apiregistrationclient "k8s.io/kube-aggregator/pkg/client/clientset_generated/clientset"

	"github.com/fakeplane/fakeplane"
)

// An extension API server running in the test process, listening on
// 127.0.0.1:8443 with a certificate for api.wardle.svc that caPEM signed,
// is registered behind the aggregation layer; requests under
// /apis/wardle.example.com/v1alpha1 go to it once it answers.
func ExampleWithExtensionAPIServer() {
	caPEM := []byte(nil) // the CA of the server's certificate; with none, InsecureSkipTLSVerify
	cp, err := fakeplane.New(fakeplane.WithExtensionAPIServer(fakeplane.ExtensionAPIServer{
		Name: "api", Namespace: "wardle", Address: "127.0.0.1:8443",
		CABundle: caPEM, InsecureSkipTLSVerify: caPEM == nil,
		GroupVersions: []schema.GroupVersion{{Group: "wardle.example.com", Version: "v1alpha1"}},
	}))
	if err != nil {
		panic(err)
	}
	ctx := context.Background()
	if err := cp.Start(ctx); err != nil {
		panic(err)
	}
	defer cp.Stop()

	as, err := apiregistrationclient.NewForConfigOrDie(cp.RESTConfig()).ApiregistrationV1().APIServices().Get(ctx, "v1alpha1.wardle.example.com", metav1.GetOptions{})
	if err != nil {
		panic(err)
	}
	s := as.Spec.Service
	fmt.Printf("%s -> service %s/%s port %d\n", as.Name, s.Namespace, s.Name, *s.Port)
	// The server authenticates the aggregator with this CA (also in
	// kube-system/extension-apiserver-authentication).
	fmt.Println(len(cp.RequestHeaderClientCA()) > 0)
	// Output:
	// v1alpha1.wardle.example.com -> service wardle/api port 8443
	// true
}
