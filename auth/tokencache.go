package auth

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"sync"
	"time"

	"golang.org/x/sync/singleflight"
	"k8s.io/apiserver/pkg/audit"
	"k8s.io/apiserver/pkg/authentication/authenticator"
	"k8s.io/apiserver/pkg/warning"
)

// TokenSuccessCacheTTL is how long kube-apiserver remembers that a bearer
// token authenticated (its TokenSuccessCacheTTL; failures are not
// remembered): for that long a token keeps its user even if what it names
// is deleted meanwhile (a ServiceAccount, a Secret holding a legacy token,
// the pod of a bound token).
const TokenSuccessCacheTTL = 10 * time.Second

// tokenCache is kube-apiserver's cache in front of its token
// authenticators (k8s.io/apiserver/pkg/authentication/token/cache, with
// kube-apiserver's TTLs): a token that authenticated keeps its answer, with
// the warnings and audit annotations the authenticators gave, for ttl on
// the control plane's clock, per token and requested audiences; concurrent
// first uses of one token share one authentication.
type tokenCache struct {
	next  authenticator.Token
	ttl   time.Duration
	now   func() time.Time
	group singleflight.Group

	mu      sync.Mutex
	entries map[[sha256.Size]byte]*tokenCacheEntry
	// pruned is when expired entries were last dropped.
	pruned time.Time
}

// tokenCacheEntry is a remembered authentication.
type tokenCacheEntry struct {
	resp        *authenticator.Response
	warnings    []tokenWarning
	annotations map[string]string
	expires     time.Time
}

// tokenWarning is one warning an authenticator gave.
type tokenWarning struct{ agent, text string }

// tokenWarnings records the warnings of an authentication.
type tokenWarnings struct {
	mu   sync.Mutex
	list []tokenWarning
}

func (w *tokenWarnings) AddWarning(agent, text string) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.list = append(w.list, tokenWarning{agent, text})
}

// newTokenCache caches next's successes for ttl, read on now (nil:
// time.Now).
func newTokenCache(next authenticator.Token, ttl time.Duration, now func() time.Time) *tokenCache {
	if now == nil {
		now = time.Now
	}
	return &tokenCache{next: next, ttl: ttl, now: now, entries: map[[sha256.Size]byte]*tokenCacheEntry{}}
}

// AuthenticateToken implements authenticator.Token.
func (c *tokenCache) AuthenticateToken(ctx context.Context, token string) (*authenticator.Response, bool, error) {
	auds, audsOK := authenticator.AudiencesFrom(ctx)
	key := tokenCacheKey(token, auds)
	e := c.get(key)
	if e == nil {
		// One authentication for concurrent first uses, detached from
		// any one request (but for its audiences), as upstream's.
		v, _, _ := c.group.Do(string(key[:]), func() (any, error) {
			if e := c.get(key); e != nil {
				return e, nil
			}
			lookup := context.Background()
			if audsOK {
				lookup = authenticator.WithAudiences(lookup, auds)
			}
			rec := &tokenWarnings{}
			lookup = warning.WithWarningRecorder(lookup, rec)
			lookup = audit.WithAuditContext(lookup)
			resp, ok, err := c.next.AuthenticateToken(lookup, token)
			if !ok || err != nil {
				return authResult{err: err}, nil
			}
			e := &tokenCacheEntry{resp: resp, warnings: rec.list,
				annotations: audit.AuditContextFrom(lookup).GetEventAnnotations(), expires: c.now().Add(c.ttl)}
			c.put(key, e)
			return e, nil
		})
		switch r := v.(type) {
		case authResult:
			return nil, false, r.err
		case *tokenCacheEntry:
			e = r
		}
	}
	for k, v := range e.annotations {
		audit.AddAuditAnnotation(ctx, k, v)
	}
	for _, w := range e.warnings {
		warning.AddWarning(ctx, w.agent, w.text)
	}
	return e.resp, true, nil
}

// authResult is a failed authentication, which is not remembered.
type authResult struct{ err error }

// get returns the unexpired entry of key, or nil.
func (c *tokenCache) get(key [sha256.Size]byte) *tokenCacheEntry {
	c.mu.Lock()
	defer c.mu.Unlock()
	e := c.entries[key]
	if e == nil {
		return nil
	}
	if !c.now().Before(e.expires) {
		delete(c.entries, key)
		return nil
	}
	return e
}

// put remembers e, dropping the expired entries now and then.
func (c *tokenCache) put(key [sha256.Size]byte, e *tokenCacheEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	now := c.now()
	if now.Sub(c.pruned) > c.ttl || now.Before(c.pruned) {
		for k, old := range c.entries {
			if !now.Before(old.expires) {
				delete(c.entries, k)
			}
		}
		c.pruned = now
	}
	c.entries[key] = e
}

// tokenCacheKey identifies a token and the audiences it was asked for.
func tokenCacheKey(token string, auds authenticator.Audiences) [sha256.Size]byte {
	h := sha256.New()
	var n [8]byte
	binary.BigEndian.PutUint64(n[:], uint64(len(token)))
	h.Write(n[:])
	h.Write([]byte(token))
	for _, a := range auds {
		binary.BigEndian.PutUint64(n[:], uint64(len(a)))
		h.Write(n[:])
		h.Write([]byte(a))
	}
	var key [sha256.Size]byte
	h.Sum(key[:0])
	return key
}
