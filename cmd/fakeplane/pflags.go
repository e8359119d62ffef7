package main

import "github.com/spf13/pflag"

// pflagValue gives Go's flag package a flag value of upstream's (a pflag
// list or map, parsed as kube-apiserver parses it). Go's help calls String
// on a zero value of a flag's type, which pflag's values do not survive,
// to tell a default worth printing: this one's is an empty list, as pflag
// prints an empty list or map.
type pflagValue struct{ pflag.Value }

// String is the wrapped value's, or "[]" for the zero pflagValue.
func (v pflagValue) String() string {
	if v.Value == nil {
		return "[]"
	}
	return v.Value.String()
}

// upstreamValue is the value of flag name on upstream, for Go's flag
// package.
func upstreamValue(upstream *pflag.FlagSet, name string) pflagValue {
	return pflagValue{upstream.Lookup(name).Value}
}
