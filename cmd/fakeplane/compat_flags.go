package main

import (
	"errors"
	"flag"
	"fmt"

	"github.com/spf13/pflag"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	"k8s.io/component-base/compatibility"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/server"
)

// compatibilityFlagValues are kube-apiserver's version flags:
// --emulated-version and --min-compatibility-version, parsed and checked
// by component-base's registry of component versions as kube-apiserver's
// are, and --emulation-forward-compatible and
// --runtime-config-emulation-forward-compatible, which need an emulated
// version below the binary's.
type compatibilityFlagValues struct {
	registry             compatibility.ComponentGlobalsRegistry
	effective            compatibility.MutableEffectiveVersion
	forward              *bool
	runtimeConfigForward *bool
}

// compatibilityFlags defines the version flags on fs.
func compatibilityFlags(fs *flag.FlagSet) *compatibilityFlagValues {
	c := &compatibilityFlagValues{registry: compatibility.NewComponentGlobalsRegistry(), effective: server.KubeEffectiveVersion()}
	if err := c.registry.Register(compatibility.DefaultKubeComponent, c.effective, nil); err != nil {
		panic(err) // a new registry holds no component yet
	}
	// The registry defines the flags on a pflag set (with a
	// --feature-gates of its own, which the command does not take from
	// it): its two version flags' values are the command's.
	upstream := pflag.NewFlagSet("compatibility", pflag.ContinueOnError)
	c.registry.AddFlags(upstream)
	fs.Var(upstreamValue(upstream, "emulated-version"), "emulated-version",
		"The versions different components emulate their capabilities (APIs, features, ...) of, as kube-apiserver's ([kube=]major.minor): fakeplane emulates v1.37 alone, so 1.37 is taken and an earlier version (1.34 to 1.36 on kube-apiserver) is refused, not built")
	fs.Var(upstreamValue(upstream, "min-compatibility-version"), "min-compatibility-version",
		"The min version of control plane components the server should be compatible with, as kube-apiserver's ([kube=]major.minor): 1.34 to 1.36 (default), which /version reports; 1.37 is refused, not built (see WithMinCompatibilityVersion)")
	c.forward = fs.Bool("emulation-forward-compatible", false, "with an emulated version below the binary's, serve the newer API versions of enabled resources, as kube-apiserver's: fakeplane emulates its binary's version, so true is refused with kube-apiserver's error")
	c.runtimeConfigForward = fs.Bool("runtime-config-emulation-forward-compatible", false, "with an emulated version below the binary's, let --runtime-config turn on APIs introduced after it, as kube-apiserver's: refused with kube-apiserver's error when true, as --emulation-forward-compatible")
	return c
}

// option checks the flags as kube-apiserver does and returns the option
// carrying the minimum compatibility version; an emulated version other
// than the binary's is refused.
func (c *compatibilityFlagValues) option() (fakeplane.Option, error) {
	if err := c.registry.Set(); err != nil {
		return nil, err
	}
	errs := c.registry.Validate()
	binary, emulated := c.effective.BinaryVersion(), c.effective.EmulationVersion()
	sameAsBinary := binary.Major() == emulated.Major() && binary.Minor() == emulated.Minor()
	if *c.forward && sameAsBinary {
		errs = append(errs, errors.New("ServerRunOptions.EmulationForwardCompatible cannot be set to true if the emulation version is the same as the binary version"))
	}
	if *c.runtimeConfigForward && sameAsBinary {
		errs = append(errs, errors.New("ServerRunOptions.RuntimeConfigEmulationForwardCompatible cannot be set to true if the emulation version is the same as the binary version"))
	}
	if err := utilerrors.NewAggregate(errs); err != nil {
		return nil, err
	}
	if !sameAsBinary {
		return nil, fmt.Errorf("--emulated-version=%s is not built: fakeplane emulates kube-apiserver %s alone, not an earlier version's APIs and feature gates", emulated, server.EmulatedGitVersion)
	}
	return fakeplane.WithMinCompatibilityVersion(c.effective.MinCompatibilityVersion().String()), nil
}
