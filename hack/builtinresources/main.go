// Command builtinresources prints the built-in resources fakeplane serves,
// with their verbs and subresources, as JSON, for hack/gen-openapi.sh: the
// generator installs a stand-in storage for each with upstream's API
// installer to build the OpenAPI paths.
package main

import (
	"encoding/json"
	"fmt"
	"os"

	"github.com/fakeplane/fakeplane/internal/builtin"
)

func main() {
	b, err := json.MarshalIndent(builtin.Resources(), "", "  ")
	if err != nil {
		fmt.Fprintln(os.Stderr, "builtinresources:", err)
		os.Exit(1)
	}
	fmt.Println(string(b))
}
