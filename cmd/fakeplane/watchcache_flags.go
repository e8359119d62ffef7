package main

import (
	"errors"
	"flag"
	"fmt"
	"strconv"
	"strings"

	"github.com/spf13/pflag"

	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/util/sets"
)

// watchCacheFlagValues are kube-apiserver's --watch-cache and
// --watch-cache-sizes. fakeplane serves every list and watch as
// kube-apiserver does with its watch cache on (one event log decides how
// far back a watch may start), so what keeps the cache on is taken and
// what turns it off is refused: without it kube-apiserver serves watches
// from etcd's history and lists at resourceVersion 0 from etcd, which is
// not built. Events are the exception: kube-apiserver keeps no watch cache
// for them unless told otherwise (--watch-cache-sizes' default), and
// fakeplane serves them as it serves the rest either way.
type watchCacheFlagValues struct {
	enabled *bool
	sizes   []string
}

// watchCacheFlags defines the flags on fs; --watch-cache-sizes parses as
// kube-apiserver's (comma-separated, repeatable).
func watchCacheFlags(fs *flag.FlagSet) *watchCacheFlagValues {
	w := &watchCacheFlagValues{}
	w.enabled = fs.Bool("watch-cache", true, "Enable watch caching in the apiserver, as kube-apiserver's: fakeplane serves lists and watches as kube-apiserver does with it; false is refused, not built")
	upstream := pflag.NewFlagSet("watch-cache", pflag.ContinueOnError)
	upstream.StringSliceVar(&w.sizes, "watch-cache-sizes", []string{"events#0", "events.events.k8s.io#0"}, "")
	fs.Var(upstreamValue(upstream, "watch-cache-sizes"), "watch-cache-sizes", "Watch cache size settings for some resources (pods, nodes, etc.), comma separated. The individual setting format: resource[.group]#size, as kube-apiserver's: all non-zero sizes are equivalent and taken; a size of 0, which turns the cache off for that resource, is refused, not built, but for events (kube-apiserver's default)")
	return w
}

// uncachedByDefault are the resources kube-apiserver keeps no watch cache
// for by default.
var uncachedByDefault = sets.New(schema.GroupResource{Resource: "events"}, schema.GroupResource{Group: "events.k8s.io", Resource: "events"})

// check checks the flags as kube-apiserver does (its errors), then refuses
// turning the cache off.
func (w *watchCacheFlagValues) check() error {
	if !*w.enabled {
		return errors.New("--watch-cache=false is not built: fakeplane serves lists and watches as kube-apiserver does with its watch cache on")
	}
	for _, c := range w.sizes {
		resource, size, ok := strings.Cut(c, "#")
		if !ok || strings.Contains(size, "#") {
			return fmt.Errorf("invalid value of watch cache size: %s", c)
		}
		n, err := strconv.Atoi(size)
		if err != nil {
			return fmt.Errorf("invalid size of watch cache size: %s", c)
		}
		if n < 0 {
			return fmt.Errorf("watch cache size cannot be negative: %s", c)
		}
		if gr := schema.ParseGroupResource(resource); n == 0 && !uncachedByDefault.Has(gr) {
			return fmt.Errorf("--watch-cache-sizes=%s is not built: a size of 0 turns kube-apiserver's watch cache off for %s, and fakeplane serves lists and watches as kube-apiserver does with it on", c, gr)
		}
	}
	return nil
}
