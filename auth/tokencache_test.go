package auth

import (
	"context"
	"errors"
	"sync"
	"testing"
	"time"

	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/authentication/user"
	"k8s.io/apiserver/pkg/warning"
)

// countingTokens authenticates "good" (warning once per authentication)
// and counts the authentications it is asked for.
type countingTokens struct {
	mu    sync.Mutex
	calls int
	fail  error
}

func (c *countingTokens) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	c.mu.Lock()
	c.calls++
	fail := c.fail
	c.mu.Unlock()
	if fail != nil {
		return nil, false, fail
	}
	if token != "good" {
		return nil, false, nil
	}
	warning.AddWarning(ctx, "", "a warning of the authenticator")
	return &authenticator.Response{User: &user.DefaultInfo{Name: "alice"}}, true, nil
}

func TestTokenCacheRemembersSuccessesForTenSeconds(t *testing.T) {
	now := time.Date(2026, 11, 28, 12, 0, 0, 0, time.UTC)
	next := &countingTokens{}
	c := newTokenCache(next, TokenSuccessCacheTTL, func() time.Time { return now })
	authn := func(ctx context.Context, token string) (string, bool, error, []string) {
		var w warnings
		resp, ok, err := c.AuthenticateToken(warning.WithWarningRecorder(ctx, &w), token)
		name := ""
		if resp != nil {
			name = resp.User.GetName()
		}
		return name, ok, err, w
	}
	ctx := context.Background()
	steps := []struct {
		name      string
		advance   time.Duration
		token     string
		ctx       context.Context
		fail      error
		wantUser  string
		wantCalls int
	}{
		{name: "a first use authenticates", token: "good", wantUser: "alice", wantCalls: 1},
		{name: "a use within ten seconds is remembered, warning again", advance: 9 * time.Second, token: "good", wantUser: "alice", wantCalls: 1},
		{name: "even when the authenticator would now refuse", token: "good", fail: errors.New("gone"), wantUser: "alice", wantCalls: 1},
		{name: "other audiences are another entry", token: "good", ctx: authenticator.WithAudiences(ctx, authenticator.Audiences{"other"}), wantUser: "alice", wantCalls: 2},
		{name: "ten seconds on it authenticates again", advance: time.Second, token: "good", wantUser: "alice", wantCalls: 3},
		{name: "a failure is not remembered", token: "bad", wantCalls: 4},
		{name: "nor asked for again from the cache", token: "bad", wantCalls: 5},
	}
	for _, s := range steps {
		now = now.Add(s.advance)
		next.mu.Lock()
		next.fail = s.fail
		next.mu.Unlock()
		sctx := ctx
		if s.ctx != nil {
			sctx = s.ctx
		}
		name, ok, err, w := authn(sctx, s.token)
		if name != s.wantUser || ok != (s.wantUser != "") || err != nil {
			t.Errorf("%s: %q %v %v, want %q", s.name, name, ok, err, s.wantUser)
		}
		if s.wantUser != "" && (len(w) != 1 || w[0] != "a warning of the authenticator") {
			t.Errorf("%s: warnings %q", s.name, w)
		}
		if next.calls != s.wantCalls {
			t.Errorf("%s: %d authentications, want %d", s.name, next.calls, s.wantCalls)
		}
	}
}
