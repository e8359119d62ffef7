//go:build unix

package fakeplane

import (
	"syscall"

	"golang.org/x/sys/unix"
)

// permitPortReuse sets SO_REUSEPORT on a socket about to be bound.
func permitPortReuse(c syscall.RawConn) error { return setSocketOption(c, unix.SO_REUSEPORT) }

// permitAddressReuse sets SO_REUSEADDR on a socket about to be bound.
func permitAddressReuse(c syscall.RawConn) error { return setSocketOption(c, unix.SO_REUSEADDR) }

// setSocketOption turns a SOL_SOCKET option on.
func setSocketOption(c syscall.RawConn, opt int) error {
	var err error
	if cerr := c.Control(func(fd uintptr) { err = syscall.SetsockoptInt(int(fd), syscall.SOL_SOCKET, opt, 1) }); cerr != nil {
		return cerr
	}
	return err
}
