//go:build !unix

package main

// lockKubeconfig does nothing where flock is not available.
func lockKubeconfig(string) (func(), error) { return func() {}, nil }
