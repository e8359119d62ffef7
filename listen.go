package fakeplane

import (
	"context"
	"log/slog"
	"net"
	"syscall"
)

// listen listens on addr as kube-apiserver binds its secure port: with
// SO_REUSEPORT and SO_REUSEADDR when s permits port and address sharing
// (an option the system refuses is logged, and the port bound without it,
// as there).
func listen(ctx context.Context, addr string, s SecureServing, log *slog.Logger) (net.Listener, error) {
	lc := net.ListenConfig{}
	if s.PermitPortSharing || s.PermitAddressSharing {
		lc.Control = func(_, _ string, c syscall.RawConn) error {
			if s.PermitPortSharing {
				if err := permitPortReuse(c); err != nil {
					log.Warn("failed to set SO_REUSEPORT on socket", "error", err)
				}
			}
			if s.PermitAddressSharing {
				if err := permitAddressReuse(c); err != nil {
					log.Warn("failed to set SO_REUSEADDR on socket", "error", err)
				}
			}
			return nil
		}
	}
	return lc.Listen(ctx, "tcp", addr)
}
