//go:build ignore

// This program writes the OpenAPI definitions of the built-in types that
// fakeplane serves, from the openapi-gen output for k8s.io/api (and the
// apimachinery, apiextensions and aggregator types), with kube-openapi's
// builders: v3 schemas (components/schemas form), the merge schema of
// server-side apply, and (paths.go) the paths of /openapi/v2 and of each
// /openapi/v3 document with the v2 definitions they use, each gzipped.
// hack/gen-openapi.sh runs it in a scratch module next to the generated
// package; it is not part of fakeplane's build.
package main

import (
	"compress/gzip"
	"encoding/gob"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"reflect"
	"sort"
	"strings"

	admissionv1 "k8s.io/api/admission/v1"
	admissionv1beta1 "k8s.io/api/admission/v1beta1"
	imagepolicyv1alpha1 "k8s.io/api/imagepolicy/v1alpha1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	apiextensionsv1beta1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1beta1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	apiregistrationv1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1"
	apiregistrationv1beta1 "k8s.io/kube-aggregator/pkg/apis/apiregistration/v1beta1"
	"k8s.io/kube-openapi/pkg/builder"
	"k8s.io/kube-openapi/pkg/builder3"
	"k8s.io/kube-openapi/pkg/common"
	"k8s.io/kube-openapi/pkg/schemaconv"
	"k8s.io/kube-openapi/pkg/validation/spec"
	smdschema "sigs.k8s.io/structured-merge-diff/v6/schema"

	"example.com/genopenapi/generated"
)

type modelNamer interface{ OpenAPIModelName() string }

func main() {
	served := flag.String("served", "", "comma-separated group/versions served (core is v1)")
	out3 := flag.String("v3", "", "output file for v3 schemas (gzipped JSON)")
	out2 := flag.String("v2", "", "output file for v2 definitions (gzipped JSON)")
	outSMD := flag.String("smd", "", "output file for the structured-merge-diff schema types (gzipped gob)")
	resourcesFile := flag.String("resources", "", "JSON file of the built-in resources served (hack/builtinresources)")
	outPaths := flag.String("paths", "", "output file for the paths of /openapi/v2 and the /openapi/v3 documents (gzipped JSON)")
	flag.Parse()
	servedGVs := map[schema.GroupVersion]bool{}
	for _, s := range strings.Split(*served, ",") {
		gv, err := schema.ParseGroupVersion(s)
		if err != nil {
			fail(err)
		}
		servedGVs[gv] = true
	}

	// The external versions of kube-apiserver's schemes (its own, the
	// apiextensions and the aggregator servers'), which its definition
	// namer lists in each model's x-kubernetes-group-version-kind, served
	// or not: the meta types every group/version registers (DeleteOptions,
	// WatchEvent) name them all in /openapi/v2.
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, admissionv1.AddToScheme, admissionv1beta1.AddToScheme,
		imagepolicyv1alpha1.AddToScheme, apiextensionsv1.AddToScheme, apiextensionsv1beta1.AddToScheme,
		apiregistrationv1.AddToScheme, apiregistrationv1beta1.AddToScheme} {
		if err := add(scheme); err != nil {
			fail(err)
		}
	}
	// Every kind with the group/version/kinds its model is registered as;
	// the models of served kinds are the roots of the documents.
	gvks := map[string][]map[string]string{}
	roots := map[string]bool{}
	for gvk, t := range scheme.AllKnownTypes() {
		n, ok := reflect.New(t).Interface().(modelNamer)
		if !ok {
			continue
		}
		name := n.OpenAPIModelName()
		gvks[name] = append(gvks[name], map[string]string{"group": gvk.Group, "version": gvk.Version, "kind": gvk.Kind})
		if servedGVs[gvk.GroupVersion()] {
			roots[name] = true
		}
	}
	for name, l := range gvks {
		sort.Slice(l, func(i, j int) bool {
			a, b := l[i], l[j]
			if a["group"] != b["group"] {
				return a["group"] < b["group"]
			}
			if a["version"] != b["version"] {
				return a["version"] < b["version"]
			}
			return a["kind"] < b["kind"]
		})
		gvks[name] = l
	}
	namer := func(name string) (string, spec.Extensions) {
		ext := spec.Extensions{}
		if l, ok := gvks[name]; ok {
			ext["x-kubernetes-group-version-kind"] = l
		}
		return name, ext
	}
	var names []string
	for n := range roots {
		names = append(names, n)
	}
	// Types every document refers to.
	names = append(names, "io.k8s.apimachinery.pkg.apis.meta.v1.APIResourceList", "io.k8s.apimachinery.pkg.apis.meta.v1.APIGroup",
		"io.k8s.apimachinery.pkg.apis.meta.v1.APIGroupList", "io.k8s.apimachinery.pkg.apis.meta.v1.APIVersions",
		"io.k8s.apimachinery.pkg.apis.meta.v1.Patch", "io.k8s.apimachinery.pkg.version.Info")
	sort.Strings(names)

	info := &spec.Info{InfoProps: spec.InfoProps{Title: "Kubernetes", Version: "v1.37"}}
	defs3, err := builder3.BuildOpenAPIDefinitionsForResources(&common.OpenAPIV3Config{Info: info, GetDefinitions: generated.GetOpenAPIDefinitions, GetDefinitionName: namer}, names...)
	if err != nil {
		fail(err)
	}
	write(*out3, defs3)
	// The merge schema server-side apply needs, as kube-apiserver derives it
	// from its OpenAPI models.
	smd, err := schemaconv.ToSchemaFromOpenAPI(defs3, false)
	if err != nil {
		fail(err)
	}
	// gob keeps the embedded Scalar/List/Map of each atom apart, which JSON
	// (their field names collide) cannot.
	for i := range smd.Types {
		plainDefaults(&smd.Types[i].Atom)
	}
	writeGob(*outSMD, smd.Types)
	sw, err := builder.BuildOpenAPIDefinitionsForResources(&common.Config{Info: info, GetDefinitions: generated.GetOpenAPIDefinitions, GetDefinitionName: namer}, names...)
	if err != nil {
		fail(err)
	}
	if *outPaths == "" {
		write(*out2, sw.Definitions)
	} else {
		data, err := os.ReadFile(*resourcesFile)
		if err != nil {
			fail(err)
		}
		var resources []builtinResource
		if err := json.Unmarshal(data, &resources); err != nil {
			fail(err)
		}
		paths, err := buildPaths(scheme, resources, namer, generated.GetOpenAPIDefinitions)
		if err != nil {
			fail(err)
		}
		write(*outPaths, paths)
		// /openapi/v2 has the definitions of the models its routes use.
		write(*out2, paths.definitions)
		fmt.Fprintf(os.Stderr, "%d v2 paths, %d v2 definitions, %d v3 documents\n", len(paths.V2.Paths), len(paths.definitions), len(paths.V3))
	}
	fmt.Fprintf(os.Stderr, "%d v3 schemas\n", len(defs3))
}

func write(path string, v any) {
	f, err := os.Create(path)
	if err != nil {
		fail(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	enc := json.NewEncoder(zw)
	if err := enc.Encode(v); err != nil {
		fail(err)
	}
	if err := zw.Close(); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

// plainDefaults turns field defaults (Go values of k8s.io/api types) into
// plain JSON values.
func plainDefaults(a *smdschema.Atom) {
	if a.Map != nil {
		for i := range a.Map.Fields {
			f := &a.Map.Fields[i]
			if f.Default != nil {
				b, err := json.Marshal(f.Default)
				if err != nil {
					fail(err)
				}
				var v any
				if err := json.Unmarshal(b, &v); err != nil {
					fail(err)
				}
				// Merging reads only the defaults of map keys, which are
				// scalars; objects and lists are dropped (gob would need
				// their types registered).
				switch v.(type) {
				case map[string]any, []any:
					v = nil
				}
				f.Default = v
			}
			plainDefaults(&f.Type.Inlined)
		}
		plainDefaults(&a.Map.ElementType.Inlined)
	}
	if a.List != nil {
		plainDefaults(&a.List.ElementType.Inlined)
	}
}

func writeGob(path string, v any) {
	f, err := os.Create(path)
	if err != nil {
		fail(err)
	}
	zw, _ := gzip.NewWriterLevel(f, gzip.BestCompression)
	if err := gob.NewEncoder(zw).Encode(v); err != nil {
		fail(err)
	}
	if err := zw.Close(); err != nil {
		fail(err)
	}
	if err := f.Close(); err != nil {
		fail(err)
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "gen-openapi:", err)
	os.Exit(1)
}
