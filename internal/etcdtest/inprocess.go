package etcdtest

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/client/pkg/v3/transport"
	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/fakeplane/fakeplane/internal/syncbuf"
)

// startInProcess runs one attempt of Start with etcd in this process (of
// StartTLS when sec is not nil): one member, fsync off, its log (errors
// only) kept for the error of a failed start.
func startInProcess(t testing.TB, sec *tlsPair) (*Server, error) {
	client, peer, err := loopbackURLs()
	if err != nil {
		return nil, err
	}
	client.Scheme = sec.scheme()
	out := &syncbuf.Buffer{}
	cfg := embed.NewConfig()
	cfg.Name = "etcdtest"
	cfg.Dir = filepath.Join(t.TempDir(), "data")
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = true
	if sec != nil {
		cfg.ClientTLSInfo = transport.TLSInfo{CertFile: sec.server.CertFile, KeyFile: sec.server.KeyFile,
			TrustedCAFile: sec.server.CAFile, ClientCertAuth: true}
	}
	cfg.ZapLoggerBuilder = embed.NewZapLoggerBuilder(zap.New(zapcore.NewCore(
		zapcore.NewConsoleEncoder(zap.NewDevelopmentEncoderConfig()), zapcore.AddSync(out), zap.ErrorLevel)))
	e, err := embed.StartEtcd(cfg)
	if err != nil {
		return nil, fmt.Errorf("start etcd in process: %w; its log:\n%s", err, out.String())
	}
	select {
	case <-e.Server.ReadyNotify():
		return &Server{Endpoints: []string{client.String()}, stop: e.Close}, nil
	case err = <-e.Err():
	case <-e.Server.StopNotify():
		err = errors.New("etcd stopped before it was ready")
	case <-time.After(startTimeout):
		err = fmt.Errorf("etcd not ready after %v", startTimeout)
	}
	e.Close()
	return nil, fmt.Errorf("start etcd in process: %w; its log:\n%s", err, out.String())
}
