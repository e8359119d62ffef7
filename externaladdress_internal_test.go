package fakeplane

import (
	"net"
	"testing"
)

// TestExternalAddressIsKubeAPIServers checks externalAddress's choice, as
// kube-apiserver completes its ExternalHost: the hostname, else the
// advertise address, else the address listened on, the host's default
// address for an unspecified one (a loopback one kept, which clients can
// reach).
func TestExternalAddressIsKubeAPIServers(t *testing.T) {
	hostDefault := "127.0.0.1:6443"
	if ip := advertiseAddress(nil, net.IPv4zero); ip != nil {
		hostDefault = net.JoinHostPort(ip.String(), "6443")
	}
	for _, tc := range []struct {
		name     string
		hostname string
		given    net.IP
		listen   net.IP
		want     string
	}{
		{"hostname first", "api.example.com", net.ParseIP("192.0.2.10"), net.IPv4(127, 0, 0, 1), "api.example.com:6443"},
		{"IPv6 hostname", "::1", nil, net.IPv4(127, 0, 0, 1), "[::1]:6443"},
		{"advertise address", "", net.ParseIP("192.0.2.10"), net.IPv4(127, 0, 0, 1), "192.0.2.10:6443"},
		{"unspecified advertise address", "", net.IPv4zero, net.IPv4(10, 1, 2, 3), "10.1.2.3:6443"},
		{"loopback listened on", "", nil, net.IPv4(127, 0, 0, 1), "127.0.0.1:6443"},
		{"an address listened on", "", nil, net.IPv4(10, 1, 2, 3), "10.1.2.3:6443"},
		{"every interface", "", nil, net.IPv4zero, hostDefault},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := externalAddress(tc.hostname, tc.given, &net.TCPAddr{IP: tc.listen, Port: 6443}); got != tc.want {
				t.Errorf("externalAddress = %s, want %s", got, tc.want)
			}
		})
	}
}
