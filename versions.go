package fakeplane

import (
	"fmt"

	utilerrors "k8s.io/apimachinery/pkg/util/errors"
	utilversion "k8s.io/apimachinery/pkg/util/version"

	"github.com/fakeplane/fakeplane/server"
)

// WithMinCompatibilityVersion is kube-apiserver's
// --min-compatibility-version (major.minor): the oldest control plane
// version the server is to stay compatible with, which /version reports
// (minCompatibilityMajor, minCompatibilityMinor). kube-apiserver v1.37
// takes 1.34 to 1.37 (default 1.36); fakeplane takes 1.34 to 1.36, between
// which kube-apiserver changes nothing else a client sees. 1.37 would turn
// on what v1.37 holds back for rollback (CEL's lists library v1 in new
// expressions, the DRAFractionalCapacityRange gate's default), which is not
// built: it is refused, as are values kube-apiserver refuses, with its
// errors.
func WithMinCompatibilityVersion(v string) Option {
	return func(o *options) { o.minCompatibilityVersion = v }
}

// checkMinCompatibilityVersion checks WithMinCompatibilityVersion's value
// as kube-apiserver does, then refuses what fakeplane does not build.
func checkMinCompatibilityVersion(v string) error {
	if v == "" {
		return nil
	}
	parsed, err := utilversion.Parse(v)
	if err != nil {
		return err
	}
	effective := server.KubeEffectiveVersion()
	effective.SetMinCompatibilityVersion(parsed)
	if err := utilerrors.NewAggregate(effective.Validate()); err != nil {
		return err
	}
	if !parsed.LessThan(effective.EmulationVersion()) {
		return fmt.Errorf("min compatibility version %s is not built: it turns on what kube-apiserver %s holds back for rollback (CEL's lists library v1 in new expressions, the DRAFractionalCapacityRange gate); fakeplane takes up to %s, the default",
			v, server.EmulatedGitVersion, server.KubeEffectiveVersion().MinCompatibilityVersion())
	}
	return nil
}

// version is what /version reports: kube-apiserver v1.37.2's, with the
// minimum compatibility version WithMinCompatibilityVersion gave.
func (o *options) version() server.VersionInfo {
	info := server.DefaultVersion()
	if o.minCompatibilityVersion != "" {
		v := utilversion.MustParse(o.minCompatibilityVersion)
		info.MinCompatibilityMajor, info.MinCompatibilityMinor = fmt.Sprint(v.Major()), fmt.Sprint(v.Minor())
	}
	return info
}
