package main

import (
	"errors"
	"flag"
	"fmt"
	"net"
	"strconv"
	"strings"

	cliflag "k8s.io/component-base/cli/flag"

	"github.com/fakeplane/fakeplane"
)

// servingFlagValues are kube-apiserver's serving flags: where to listen
// (--bind-address, --secure-port: fakeplane's --listen in two parts) and
// what to serve there (--cert-dir, --tls-*).
type servingFlagValues struct {
	fs            *flag.FlagSet
	bindAddress   *string
	securePort    *int
	certDir       *string
	certFile      *string
	keyFile       *string
	minTLSVersion *string
	cipherSuites  multiFlag
	curves        int32List
	sniCertKeys   sniCertKeys
	noHTTP2       *bool
	http2Streams  *int
	portSharing   *bool
	addrSharing   *bool
}

// sniCertKeys is --tls-sni-cert-key's value: upstream's NamedCertKey
// parsing, one pair per use of the flag.
type sniCertKeys []cliflag.NamedCertKey

// String lists the pairs as upstream's NamedCertKeyArray does.
func (s *sniCertKeys) String() string {
	var out []string
	for i := range *s {
		out = append(out, (*s)[i].String())
	}
	return "[" + strings.Join(out, ";") + "]"
}

// Set adds the pair v names ("cert,key" or "cert,key:name,...").
func (s *sniCertKeys) Set(v string) error {
	var nck cliflag.NamedCertKey
	if err := nck.Set(v); err != nil {
		return err
	}
	*s = append(*s, nck)
	return nil
}

// int32List is a flag of comma-separated int32s, as pflag's Int32Slice
// that kube-apiserver's --tls-curve-preferences is: each use adds to the
// list, a value parses in any base strconv.ParseInt reads (0x1d is 29).
type int32List []int32

// String lists the values as pflag's Int32Slice does.
func (l *int32List) String() string {
	out := make([]string, len(*l))
	for i, v := range *l {
		out[i] = strconv.FormatInt(int64(v), 10)
	}
	return "[" + strings.Join(out, ",") + "]"
}

// Set adds the values v lists.
func (l *int32List) Set(v string) error {
	for _, s := range strings.Split(v, ",") {
		n, err := strconv.ParseInt(s, 0, 32)
		if err != nil {
			return err
		}
		*l = append(*l, int32(n))
	}
	return nil
}

// servingFlags defines the serving flags on fs.
func servingFlags(fs *flag.FlagSet) *servingFlagValues {
	v := &servingFlagValues{fs: fs}
	v.bindAddress = fs.String("bind-address", "127.0.0.1", "the IP address to listen on for --secure-port, as kube-apiserver's (0.0.0.0 or :: for every interface); with --secure-port, instead of --listen")
	v.securePort = fs.Int("secure-port", 6443, "the port to serve HTTPS on, as kube-apiserver's; with --bind-address, instead of --listen")
	v.certDir = fs.String("cert-dir", "", "the directory of the serving pair apiserver.crt and apiserver.key, as kube-apiserver's: served when both are there, otherwise the serving certificate the cluster CA signs is written there, followed by the CA (default: none written)")
	v.certFile = fs.String("tls-cert-file", "", "the serving certificate, the chain after it if any (with --tls-private-key-file; default: one the cluster CA signs); the kubeconfig written trusts the certificates in this file")
	v.keyFile = fs.String("tls-private-key-file", "", "the private key of --tls-cert-file")
	v.minTLSVersion = fs.String("tls-min-version", "", "the lowest TLS version served: VersionTLS12 or VersionTLS13 (default VersionTLS12)")
	fs.Var(&v.cipherSuites, "tls-cipher-suites", "the TLS 1.2 cipher suites offered, comma-separated IANA names, as kube-apiserver's (default: Go's)")
	fs.Var(&v.curves, "tls-curve-preferences", "the key exchange mechanisms allowed, comma-separated numeric Go crypto/tls CurveID values (23 P-256, 24 P-384, 25 P-521, 29 X25519, 4588 X25519MLKEM768), as kube-apiserver's; Go orders them by its own preference (default: Go's)")
	fs.Var(&v.sniCertKeys, "tls-sni-cert-key", "a certificate and key file served to clients asking for its names, as kube-apiserver's: \"cert,key\" (the certificate's own names) or \"cert,key:name,*.domain\"; repeatable, earlier pairs win, an exact name wins over a wildcard")
	v.noHTTP2 = fs.Bool("disable-http2-serving", false, "serve HTTP/1.1 alone, as kube-apiserver's")
	v.portSharing = fs.Bool("permit-port-sharing", false, "If true, SO_REUSEPORT will be used when binding the port, which allows more than one instance to bind on the same address and port.")
	v.addrSharing = fs.Bool("permit-address-sharing", false, "If true, SO_REUSEADDR will be used when binding the port. This allows binding to wildcard IPs like 0.0.0.0 and specific IPs in parallel, and it avoids waiting for the kernel to release sockets in TIME_WAIT state.")
	v.http2Streams = fs.Int("http2-max-streams-per-connection", 0, "the streams a client may have open on one HTTP/2 connection; 0 for kube-apiserver's 100")
	return v
}

// listenAddress is the host:port to listen on: --listen's, or
// --bind-address and --secure-port's when either is given (they exclude
// --listen). The port is checked as kube-apiserver checks it.
func (v *servingFlagValues) listenAddress(listen string) (string, error) {
	bind, port := flagSet(v.fs, "bind-address"), flagSet(v.fs, "secure-port")
	if !bind && !port {
		return listen, nil
	}
	if flagSet(v.fs, "listen") {
		return "", usageError{errors.New("--listen goes with neither --bind-address nor --secure-port, which set the address in two parts (see --help)")}
	}
	ip := net.ParseIP(*v.bindAddress)
	if ip == nil {
		return "", usageError{fmt.Errorf("invalid argument %q for \"--bind-address\" flag: failed to parse IP: %q", *v.bindAddress, *v.bindAddress)}
	}
	if p := *v.securePort; p < 1 || p > 65535 {
		return "", usageError{fmt.Errorf("--secure-port %v must be between 1 and 65535, inclusive. It cannot be turned off with 0", p)}
	}
	return net.JoinHostPort(ip.String(), strconv.Itoa(*v.securePort)), nil
}

// option is WithSecureServing of the flags' values, nil when none is set.
func (v *servingFlagValues) option() fakeplane.Option {
	s := fakeplane.SecureServing{CertFile: *v.certFile, KeyFile: *v.keyFile, CertDir: *v.certDir, MinTLSVersion: *v.minTLSVersion,
		CipherSuites: splitList(strings.Join(v.cipherSuites, ",")), CurvePreferences: v.curves, SNICertKeys: v.sniCertKeys,
		DisableHTTP2: *v.noHTTP2, HTTP2MaxStreamsPerConnection: *v.http2Streams,
		PermitPortSharing: *v.portSharing, PermitAddressSharing: *v.addrSharing}
	if s.CertFile == "" && s.KeyFile == "" && s.CertDir == "" && s.MinTLSVersion == "" && len(s.CipherSuites) == 0 && len(s.CurvePreferences) == 0 && len(s.SNICertKeys) == 0 &&
		!s.DisableHTTP2 && s.HTTP2MaxStreamsPerConnection == 0 && !s.PermitPortSharing && !s.PermitAddressSharing {
		return nil
	}
	return fakeplane.WithSecureServing(s)
}
