package main

import (
	"fmt"
	"strconv"

	"github.com/fakeplane/fakeplane/server"
)

// versionFlag is kube-apiserver's --version: empty when not asked for,
// "true" for the version line, "raw" for the whole version.Info.
type versionFlag string

// IsBoolFlag lets --version stand alone.
func (*versionFlag) IsBoolFlag() bool { return true }

func (v *versionFlag) String() string { return string(*v) }

// Set takes a boolean or raw. kube-apiserver also takes a version to
// report instead of its own (--version=vX.Y.Z), which fakeplane does not
// build: it reports the release it emulates.
func (v *versionFlag) Set(s string) error {
	if s == "raw" {
		*v = "raw"
		return nil
	}
	b, err := strconv.ParseBool(s)
	if err != nil {
		return fmt.Errorf("want true, false or raw (reporting another version, as kube-apiserver's --version=vX.Y.Z, is not built), not %q", s)
	}
	*v = ""
	if b {
		*v = "true"
	}
	return nil
}

// text is what --version prints: kube-apiserver's line, or for raw its
// version.Info as Go prints it (the binary's, without the emulation and
// compatibility versions /version adds).
func (v versionFlag) text() string {
	info := server.DefaultVersion()
	if v != "raw" {
		return "Kubernetes " + info.GitVersion
	}
	info.EmulationMajor, info.EmulationMinor = "", ""
	info.MinCompatibilityMajor, info.MinCompatibilityMinor = "", ""
	return fmt.Sprintf("%#v", info)
}
