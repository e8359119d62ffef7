#!/usr/bin/env bash
# Regenerates registry/openapidata/builtin-{v3,v2}.json.gz, builtin-smd.gob.gz and
# builtin-paths.json.gz: the OpenAPI definitions of every built-in type fakeplane
# serves (and the merge schema server-side apply derives from them), generated
# from the k8s.io/api sources (at the versions in go.mod) by kube-openapi's
# openapi-gen and builders, and the paths of /openapi/v2 and of each /openapi/v3
# document, built from the routes upstream's API installer registers for
# stand-ins of kube-apiserver's storages (hack/gen-openapi/paths.go). Run it
# after upgrading k8s.io modules. builtin-smd.gob.gz comes out with another byte
# order each run (gob writes maps unordered); restore it if nothing else changed.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
ver() { (cd "$root" && go list -m -f '{{.Version}}' "$1"); }
cat > "$work/go.mod" <<MOD
module example.com/genopenapi

go 1.26

require (
	k8s.io/api $(ver k8s.io/api)
	k8s.io/apimachinery $(ver k8s.io/apimachinery)
	k8s.io/apiextensions-apiserver $(ver k8s.io/apiextensions-apiserver)
	k8s.io/apiserver $(ver k8s.io/apiserver)
	github.com/emicklei/go-restful/v3 $(ver github.com/emicklei/go-restful/v3)
	k8s.io/client-go $(ver k8s.io/client-go)
	k8s.io/kube-aggregator $(ver k8s.io/kube-aggregator)
	k8s.io/kube-openapi $(ver k8s.io/kube-openapi)
)
MOD
cp "$root/go.sum" "$work/go.sum"
cp "$root/hack/gen-openapi/main.go" "$root/hack/gen-openapi/paths.go" "$work/"
sed -i 's|^//go:build ignore$||' "$work/main.go" "$work/paths.go"
cat > "$work/tools.go" <<'GO'
//go:build tools

package main

import _ "k8s.io/kube-openapi/cmd/openapi-gen"
GO
cd "$work"
GOFLAGS=-mod=mod go mod tidy >/dev/null 2>&1 || true
mkdir -p generated
cat > generated/doc.go <<'GO'
// Package generated holds openapi-gen's output.
package generated
GO
GOFLAGS=-mod=mod go mod tidy
api=$(go list -m -f '{{.Dir}}' k8s.io/api)
pkgs=$(cd "$api" && grep -l '+k8s:openapi-gen=true' */*/doc.go | xargs -n1 dirname | sed 's|^|k8s.io/api/|')
go run k8s.io/kube-openapi/cmd/openapi-gen --output-dir ./generated --output-pkg example.com/genopenapi/generated \
	--output-file zz_generated.openapi.go --go-header-file /dev/null --report-filename /dev/null \
	$pkgs k8s.io/apimachinery/pkg/apis/meta/v1 k8s.io/apimachinery/pkg/runtime k8s.io/apimachinery/pkg/util/intstr \
	k8s.io/apimachinery/pkg/api/resource k8s.io/apimachinery/pkg/version \
	k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1 k8s.io/kube-aggregator/pkg/apis/apiregistration/v1
GOFLAGS=-mod=mod go mod tidy
served=$(cd "$root" && go run ./hack/servedgvs)
(cd "$root" && go run ./hack/builtinresources) > "$work/resources.json"
out="$root/registry/openapidata"
go run . -served "$served" -v3 "$out/builtin-v3.json.gz" -v2 "$out/builtin-v2.json.gz" \
	-smd "$out/builtin-smd.gob.gz" -resources "$work/resources.json" -paths "$out/builtin-paths.json.gz"
