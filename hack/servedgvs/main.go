// Command servedgvs prints the built-in group/versions fakeplane serves,
// comma-separated, for hack/gen-openapi.sh.
package main

import (
	"fmt"
	"strings"

	"github.com/fakeplane/fakeplane/internal/builtin"
)

func main() {
	var out []string
	for _, gv := range builtin.GroupVersions() {
		out = append(out, gv.String())
	}
	fmt.Println(strings.Join(out, ","))
}
