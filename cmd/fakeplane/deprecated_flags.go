package main

import (
	"flag"
	"fmt"
	"io"
)

// deprecatedFlags are the flags kube-apiserver v1.37 still takes but hides
// from its help, with the notice it prints when one is given.
var deprecatedFlags = map[string]string{
	"apiserver-count":                     "apiserver-count is deprecated and will be removed in a future version.",
	"audit-webhook-batch-initial-backoff": "Deprecated, use --audit-webhook-initial-backoff instead.",
	"default-watch-cache-size":            "Watch caches are sized automatically. This flag is no-op and it will be removed in a future version.",
	"kubelet-port":                        "kubelet-port is deprecated and will be removed.",
	"kubelet-read-only-port":              "kubelet-read-only-port is deprecated and will be removed.",
}

// deprecatedFlagValues are the values of the deprecated flags that change
// something.
type deprecatedFlagValues struct {
	apiserverCount *int
	kubeletPort    *uint
}

// deprecatedUsage is the help of deprecated flag name: its notice, then
// what it does.
func deprecatedUsage(name, what string) string {
	return "[deprecated: " + deprecatedFlags[name] + "] " + what
}

// deprecatedFlagsOn defines the deprecated flags on fs (but
// --audit-webhook-batch-initial-backoff, which auditFlags defines beside
// the flag it is the old name of).
func deprecatedFlagsOn(fs *flag.FlagSet) *deprecatedFlagValues {
	d := &deprecatedFlagValues{}
	note := deprecatedUsage
	d.apiserverCount = fs.Int("apiserver-count", 1, note("apiserver-count", "The number of apiservers running in the cluster, must be a positive number, as kube-apiserver's (with --endpoint-reconciler-type=master-count: one fakeplane keeps its own address, as kube-apiserver does alone)"))
	fs.Int("default-watch-cache-size", 100, note("default-watch-cache-size", "Default watch cache size, as kube-apiserver's: not used"))
	d.kubeletPort = fs.Uint("kubelet-port", 10250, note("kubelet-port", "the port a kubelet is reached at when its Node reports none, as kube-apiserver's"))
	fs.Uint("kubelet-read-only-port", 10255, note("kubelet-read-only-port", "the kubelets' read-only port, as kube-apiserver's: kube-apiserver v1.37 does not use it"))
	return d
}

// warnDeprecated prints kube-apiserver's notice for each deprecated flag
// the command line gave, in the order of the flags' names.
func warnDeprecated(fs *flag.FlagSet, w io.Writer) {
	fs.Visit(func(f *flag.Flag) {
		if msg, ok := deprecatedFlags[f.Name]; ok {
			fmt.Fprintf(w, "Flag --%s has been deprecated, %s\n", f.Name, msg)
		}
	})
}

// check refuses what kube-apiserver refuses of the deprecated flags.
func (d *deprecatedFlagValues) check() error {
	if *d.apiserverCount <= 0 {
		return fmt.Errorf("--apiserver-count should be a positive number, but value '%d' provided", *d.apiserverCount)
	}
	return nil
}
