// Package registrytest has a registry.Interface that records writes, for
// the unit tests of controllers that write through the registry.
package registrytest
