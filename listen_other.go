//go:build !unix

package fakeplane

import (
	"errors"
	"syscall"
)

// permitPortReuse: there is no SO_REUSEPORT. (kube-apiserver fails to
// bind with this error on Windows; fakeplane logs it and binds.)
func permitPortReuse(syscall.RawConn) error {
	return errors.New("port reuse is not supported on Windows")
}

// permitAddressReuse: kube-apiserver refuses SO_REUSEADDR on Windows
// (fakeplane logs this and binds).
func permitAddressReuse(syscall.RawConn) error {
	return errors.New("address reuse is not supported on Windows")
}
