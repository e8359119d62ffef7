package etcdtest

import (
	"errors"
	"fmt"
	"net/url"
	"path/filepath"
	"testing"
	"time"

	"go.etcd.io/etcd/server/v3/embed"
	"go.uber.org/zap"
	"go.uber.org/zap/zapcore"

	"github.com/fakeplane/fakeplane/internal/syncbuf"
)

// startInProcess runs one attempt of Start with etcd in this process: one
// member, fsync off, its log (errors only) kept for the error of a failed
// start.
func startInProcess(t testing.TB) (*Server, error) {
	client, peer, err := loopbackURLs()
	if err != nil {
		return nil, err
	}
	out := &syncbuf.Buffer{}
	cfg := embed.NewConfig()
	cfg.Name = "etcdtest"
	cfg.Dir = filepath.Join(t.TempDir(), "data")
	cfg.ListenClientUrls, cfg.AdvertiseClientUrls = []url.URL{client}, []url.URL{client}
	cfg.ListenPeerUrls, cfg.AdvertisePeerUrls = []url.URL{peer}, []url.URL{peer}
	cfg.InitialCluster = cfg.InitialClusterFromName(cfg.Name)
	cfg.UnsafeNoFsync = true
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
