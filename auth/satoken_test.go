package auth

import (
	"context"
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"math/big"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apiserver/pkg/authentication/authenticator"
)

// fakeGetter is an in-memory Getter (and NodeGetter).
type fakeGetter struct {
	mu      sync.Mutex
	sas     map[string]*corev1.ServiceAccount
	secrets map[string]*corev1.Secret
	pods    map[string]*corev1.Pod
	nodes   map[string]*corev1.Node
}

func newFakeGetter() *fakeGetter {
	return &fakeGetter{sas: map[string]*corev1.ServiceAccount{}, secrets: map[string]*corev1.Secret{}, pods: map[string]*corev1.Pod{}, nodes: map[string]*corev1.Node{}}
}

func (g *fakeGetter) addSA(ns, name, uid string) *corev1.ServiceAccount {
	g.mu.Lock()
	defer g.mu.Unlock()
	sa := &corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}}
	g.sas[ns+"/"+name] = sa
	return sa
}

func (g *fakeGetter) addPod(ns, name, uid, sa string) *corev1.Pod {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Namespace: ns, Name: name, UID: types.UID(uid)}, Spec: corev1.PodSpec{ServiceAccountName: sa}}
	g.pods[ns+"/"+name] = p
	return p
}

func (g *fakeGetter) addSecret(s *corev1.Secret) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.secrets[s.Namespace+"/"+s.Name] = s
}

func (g *fakeGetter) addNode(name, uid string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.nodes[name] = &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: name, UID: types.UID(uid)}}
}

func (g *fakeGetter) del(kind, ns, name string) {
	g.mu.Lock()
	defer g.mu.Unlock()
	switch kind {
	case "ServiceAccount":
		delete(g.sas, ns+"/"+name)
	case "Secret":
		delete(g.secrets, ns+"/"+name)
	case "Pod":
		delete(g.pods, ns+"/"+name)
	case "Node":
		delete(g.nodes, name)
	}
}

func (g *fakeGetter) ServiceAccount(ns, name string) (*corev1.ServiceAccount, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if o, ok := g.sas[ns+"/"+name]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("serviceaccounts"), name)
}

func (g *fakeGetter) Secret(ns, name string) (*corev1.Secret, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if o, ok := g.secrets[ns+"/"+name]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("secrets"), name)
}

func (g *fakeGetter) Pod(ns, name string) (*corev1.Pod, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if o, ok := g.pods[ns+"/"+name]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("pods"), name)
}

func (g *fakeGetter) Node(name string) (*corev1.Node, error) {
	g.mu.Lock()
	defer g.mu.Unlock()
	if o, ok := g.nodes[name]; ok {
		return o, nil
	}
	return nil, apierrors.NewNotFound(corev1.Resource("nodes"), name)
}

// decodeSegment base64url-decodes part i of a compact JWT into a map.
func decodeSegment(t *testing.T, token string, i int) (map[string]any, string) {
	t.Helper()
	parts := strings.Split(token, ".")
	if len(parts) != 3 {
		t.Fatalf("token has %d parts", len(parts))
	}
	b, err := base64.RawURLEncoding.DecodeString(parts[i])
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return m, string(b)
}

func TestIssueBoundTokenClaims(t *testing.T) {
	g := newFakeGetter()
	sa := g.addSA("authprobe", "probe", "sa-uid")
	pod := g.addPod("authprobe", "p1", "pod-uid", "probe")
	now := time.Unix(1795311614, 0)
	tokens, err := NewServiceAccountTokens(nil, g)
	if err != nil {
		t.Fatal(err)
	}
	tokens.Now = func() time.Time { return now }

	tok, exp, err := tokens.Issue(sa, nil, 3600, &BoundObject{Kind: "Pod", Name: pod.Name, UID: pod.UID, NodeName: "nonode"})
	if err != nil {
		t.Fatal(err)
	}
	if !exp.Equal(now.Add(time.Hour)) {
		t.Errorf("expiration = %v, want %v", exp, now.Add(time.Hour))
	}
	hdr, _ := decodeSegment(t, tok, 0)
	kid, _ := tokens.KeyID()
	if hdr["alg"] != "ES256" || hdr["kid"] != kid {
		t.Errorf("header = %v", hdr)
	}
	claims, raw := decodeSegment(t, tok, 1)
	jti, _ := claims["jti"].(string)
	if len(jti) != 36 {
		t.Errorf("jti = %q, want a UUID", jti)
	}
	// Same shape and key order as kube-apiserver's token for this request.
	want := `{"aud":["https://kubernetes.default.svc.cluster.local"],"exp":1795315214,"iat":1795311614,"iss":"https://kubernetes.default.svc.cluster.local","jti":"` + jti +
		`","kubernetes.io":{"namespace":"authprobe","node":{"name":"nonode"},"pod":{"name":"p1","uid":"pod-uid"},"serviceaccount":{"name":"probe","uid":"sa-uid"}},"nbf":1795311614,"sub":"system:serviceaccount:authprobe:probe"}`
	if raw != want {
		t.Errorf("payload:\n got %s\nwant %s", raw, want)
	}

	resp, ok, err := tokens.AuthenticateToken(context.Background(), tok)
	if !ok || err != nil {
		t.Fatalf("ok=%v err=%v", ok, err)
	}
	checkUser(t, resp.User, &wantUser{
		name: "system:serviceaccount:authprobe:probe", uid: "sa-uid",
		groups: []string{"system:serviceaccounts", "system:serviceaccounts:authprobe"},
		extra: map[string][]string{
			"authentication.kubernetes.io/credential-id": {"JTI=" + jti},
			"authentication.kubernetes.io/pod-name":      {"p1"},
			"authentication.kubernetes.io/pod-uid":       {"pod-uid"},
			"authentication.kubernetes.io/node-name":     {"nonode"},
		},
	})
	if _, has := resp.User.GetExtra()["authentication.kubernetes.io/node-uid"]; has {
		t.Error("node-uid extra set for a node without UID")
	}
	if !reflect.DeepEqual([]string(resp.Audiences), []string{DefaultIssuer}) {
		t.Errorf("audiences = %v", resp.Audiences)
	}
}

func TestIssueExtendedExpirationForKubeletTokens(t *testing.T) {
	g := newFakeGetter()
	sa := g.addSA("ns", "sa", "u1")
	pod := g.addPod("ns", "p", "pu", "sa")
	tokens, _ := NewServiceAccountTokens(nil, g)
	now := time.Unix(1795311703, 0)
	tokens.Now = func() time.Time { return now }
	tok, exp, err := tokens.Issue(sa, nil, WarnOnlyBoundTokenExpirationSeconds, &BoundObject{Kind: "Pod", Name: pod.Name, UID: pod.UID})
	if err != nil {
		t.Fatal(err)
	}
	if want := now.Add(3607 * time.Second); !exp.Equal(want) {
		t.Errorf("reported expiration = %v, want %v", exp, want)
	}
	claims, _ := decodeSegment(t, tok, 1)
	if got, want := claims["exp"].(float64), float64(1826847703); got != want {
		t.Errorf("exp = %v, want %v (one year)", got, want)
	}
	k := claims["kubernetes.io"].(map[string]any)
	if got, want := k["warnafter"].(float64), float64(1795315310); got != want {
		t.Errorf("warnafter = %v, want %v", got, want)
	}
	// Not extended for other audiences.
	tok, _, _ = tokens.Issue(sa, []string{"vault"}, WarnOnlyBoundTokenExpirationSeconds, &BoundObject{Kind: "Pod", Name: pod.Name, UID: pod.UID})
	claims, _ = decodeSegment(t, tok, 1)
	if claims["exp"].(float64) != float64(now.Unix()+3607) {
		t.Errorf("token for a foreign audience was extended: exp=%v", claims["exp"])
	}
}

func TestServiceAccountTokenVerification(t *testing.T) {
	type env struct {
		g      *fakeGetter
		tokens *ServiceAccountTokens
		sa     *corev1.ServiceAccount
		clock  *time.Time
	}
	setup := func(t *testing.T) *env {
		g := newFakeGetter()
		sa := g.addSA("ns1", "robot", "sa-uid-1")
		g.addPod("ns1", "web", "pod-uid-1", "robot")
		g.addSecret(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "s1", UID: "secret-uid-1"}})
		g.addNode("node1", "node-uid-1")
		tokens, err := NewServiceAccountTokens(nil, g)
		if err != nil {
			t.Fatal(err)
		}
		clock := time.Now()
		tokens.Now = func() time.Time { return clock }
		return &env{g: g, tokens: tokens, sa: sa, clock: &clock}
	}
	issue := func(t *testing.T, e *env, auds []string, bound *BoundObject) string {
		tok, _, err := e.tokens.Issue(e.sa, auds, 3600, bound)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	podRef := &BoundObject{Kind: "Pod", Name: "web", UID: "pod-uid-1"}
	tests := []struct {
		name string
		// token returns the token to verify after changing the world.
		token   func(t *testing.T, e *env) string
		ctxAuds authenticator.Audiences
		wantErr string // "" means authenticated
		notMine bool   // the authenticator must say "not my token"
	}{
		{
			name:  "fresh token authenticates",
			token: func(t *testing.T, e *env) string { return issue(t, e, nil, nil) },
		},
		{
			name:    "token for another audience is rejected",
			token:   func(t *testing.T, e *env) string { return issue(t, e, []string{"a"}, nil) },
			wantErr: `token audiences ["a"] is invalid for the target audiences ["https://kubernetes.default.svc.cluster.local"]`,
		},
		{
			name:    "request audiences from the context are checked",
			token:   func(t *testing.T, e *env) string { return issue(t, e, nil, nil) },
			ctxAuds: authenticator.Audiences{"x"},
			wantErr: `token audiences ["https://kubernetes.default.svc.cluster.local"] is invalid for the target audiences ["x"]`,
		},
		{
			name:    "token for a requested audience authenticates",
			token:   func(t *testing.T, e *env) string { return issue(t, e, []string{"x", "y"}, nil) },
			ctxAuds: authenticator.Audiences{"y"},
		},
		{
			name: "expired token is rejected",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, nil)
				*e.clock = e.clock.Add(time.Hour + 2*time.Minute)
				return tok
			},
			wantErr: "service account token has expired",
		},
		{
			name: "expiry within the one-minute leeway still authenticates",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, nil)
				*e.clock = e.clock.Add(time.Hour + 30*time.Second)
				return tok
			},
		},
		{
			name: "token issued in the future is not valid yet",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, nil)
				*e.clock = e.clock.Add(-5 * time.Minute)
				return tok
			},
			wantErr: "service account token is not valid yet",
		},
		{
			name: "service account deleted",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, nil)
				e.g.del("ServiceAccount", "ns1", "robot")
				return tok
			},
			wantErr: `serviceaccounts "robot" not found`,
		},
		{
			name: "service account recreated with another UID",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, nil)
				e.g.addSA("ns1", "robot", "sa-uid-2")
				return tok
			},
			wantErr: "service account UID (sa-uid-2) does not match claim (sa-uid-1)",
		},
		{
			name: "service account being deleted for longer than the leeway",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, nil)
				sa := e.sa.DeepCopy()
				ts := metav1.NewTime(e.clock.Add(-2 * time.Minute))
				sa.DeletionTimestamp = &ts
				e.g.mu.Lock()
				e.g.sas["ns1/robot"] = sa
				e.g.mu.Unlock()
				return tok
			},
			wantErr: "service account ns1/robot has been deleted",
		},
		{
			name:  "pod-bound token authenticates while the pod exists",
			token: func(t *testing.T, e *env) string { return issue(t, e, nil, podRef) },
		},
		{
			name: "bound pod deleted",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, podRef)
				e.g.del("Pod", "ns1", "web")
				return tok
			},
			wantErr: "service account token has been invalidated",
		},
		{
			name: "bound pod recreated with another UID",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, podRef)
				e.g.addPod("ns1", "web", "pod-uid-2", "robot")
				return tok
			},
			wantErr: "pod UID (pod-uid-2) does not match service account pod ref claim (pod-uid-1)",
		},
		{
			name: "bound secret deleted",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, &BoundObject{Kind: "Secret", Name: "s1", UID: "secret-uid-1"})
				e.g.del("Secret", "ns1", "s1")
				return tok
			},
			wantErr: "service account token has been invalidated",
		},
		{
			name: "bound secret recreated",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, &BoundObject{Kind: "Secret", Name: "s1", UID: "secret-uid-1"})
				e.g.addSecret(&corev1.Secret{ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "s1", UID: "secret-uid-2"}})
				return tok
			},
			wantErr: "secret UID (secret-uid-2) does not match service account secret ref claim (secret-uid-1)",
		},
		{
			name: "node-bound token authenticates while the node exists",
			token: func(t *testing.T, e *env) string {
				return issue(t, e, nil, &BoundObject{Kind: "Node", Name: "node1", UID: "node-uid-1"})
			},
		},
		{
			name: "bound node deleted",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, &BoundObject{Kind: "Node", Name: "node1", UID: "node-uid-1"})
				e.g.del("Node", "", "node1")
				return tok
			},
			wantErr: "service account token has been invalidated",
		},
		{
			name: "token signed by another key",
			token: func(t *testing.T, e *env) string {
				other, _ := NewServiceAccountTokens(nil, e.g)
				tok, _, _ := other.Issue(e.sa, nil, 3600, nil)
				return tok
			},
			wantErr: "invalid signature, no keys found",
		},
		{
			name: "tampered payload",
			token: func(t *testing.T, e *env) string {
				tok := issue(t, e, nil, nil)
				parts := strings.Split(tok, ".")
				payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
				payload = []byte(strings.Replace(string(payload), `"name":"robot"`, `"name":"admin"`, 1))
				parts[1] = base64.RawURLEncoding.EncodeToString(payload)
				return strings.Join(parts, ".")
			},
			wantErr: "go-jose/go-jose: error in cryptographic primitive",
		},
		{
			name: "token with a foreign issuer is not ours",
			token: func(t *testing.T, e *env) string {
				other := &ServiceAccountTokens{Key: e.tokens.Key, Issuer: "https://elsewhere", Getter: e.g}
				tok, _, _ := other.Issue(e.sa, nil, 3600, nil)
				return tok
			},
			notMine: true,
		},
		{
			name:    "opaque token is not ours",
			token:   func(t *testing.T, e *env) string { return "static-secret" },
			notMine: true,
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			e := setup(t)
			tok := tt.token(t, e)
			ctx := context.Background()
			if tt.ctxAuds != nil {
				ctx = authenticator.WithAudiences(ctx, tt.ctxAuds)
			}
			resp, ok, err := e.tokens.AuthenticateToken(ctx, tok)
			switch {
			case tt.notMine:
				if ok || err != nil {
					t.Fatalf("ok=%v err=%v, want not my token", ok, err)
				}
			case tt.wantErr != "":
				if ok || err == nil || err.Error() != tt.wantErr {
					t.Fatalf("ok=%v err=%v, want error %q", ok, err, tt.wantErr)
				}
			default:
				if !ok || err != nil {
					t.Fatalf("ok=%v err=%v", ok, err)
				}
				if resp.User.GetName() != "system:serviceaccount:ns1:robot" {
					t.Fatalf("user = %q", resp.User.GetName())
				}
			}
		})
	}
}

func TestLegacyServiceAccountToken(t *testing.T) {
	setup := func(t *testing.T) (*fakeGetter, *ServiceAccountTokens, string) {
		g := newFakeGetter()
		sa := g.addSA("ns1", "robot", "sa-uid-1")
		secret := &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "robot-token", UID: "sec-uid",
				Annotations: map[string]string{corev1.ServiceAccountNameKey: "robot", corev1.ServiceAccountUIDKey: "sa-uid-1"}},
			Type: corev1.SecretTypeServiceAccountToken,
		}
		tokens, err := NewServiceAccountTokens(nil, g)
		if err != nil {
			t.Fatal(err)
		}
		tok, err := tokens.IssueLegacy(sa, secret)
		if err != nil {
			t.Fatal(err)
		}
		secret.Data = map[string][]byte{corev1.ServiceAccountTokenKey: []byte(tok)}
		g.addSecret(secret)
		return g, tokens, tok
	}
	t.Run("claims are the legacy ones", func(t *testing.T) {
		_, _, tok := setup(t)
		_, raw := decodeSegment(t, tok, 1)
		want := `{"iss":"kubernetes/serviceaccount","kubernetes.io/serviceaccount/namespace":"ns1","kubernetes.io/serviceaccount/secret.name":"robot-token","kubernetes.io/serviceaccount/service-account.name":"robot","kubernetes.io/serviceaccount/service-account.uid":"sa-uid-1","sub":"system:serviceaccount:ns1:robot"}`
		if raw != want {
			t.Errorf("payload:\n got %s\nwant %s", raw, want)
		}
	})
	tests := []struct {
		name    string
		change  func(g *fakeGetter)
		wantErr string
	}{
		{name: "legacy token authenticates while its secret holds it"},
		{
			name:    "secret deleted",
			change:  func(g *fakeGetter) { g.del("Secret", "ns1", "robot-token") },
			wantErr: "Token has been invalidated",
		},
		{
			name: "secret holds another token",
			change: func(g *fakeGetter) {
				s := g.secrets["ns1/robot-token"].DeepCopy()
				s.Data[corev1.ServiceAccountTokenKey] = []byte("something else")
				g.addSecret(s)
			},
			wantErr: "Token does not match server's copy",
		},
		{
			name:    "service account deleted",
			change:  func(g *fakeGetter) { g.del("ServiceAccount", "ns1", "robot") },
			wantErr: `serviceaccounts "robot" not found`,
		},
		{
			name:    "service account recreated",
			change:  func(g *fakeGetter) { g.addSA("ns1", "robot", "sa-uid-2") },
			wantErr: "ServiceAccount UID (sa-uid-2) does not match claim (sa-uid-1)",
		},
		{
			name: "secret marked invalid",
			change: func(g *fakeGetter) {
				s := g.secrets["ns1/robot-token"].DeepCopy()
				s.Labels = map[string]string{LegacyTokenInvalidSinceLabel: "2026-01-01"}
				g.addSecret(s)
			},
			wantErr: "the token in secret ns1/robot-token for service account ns1/robot has been marked invalid.",
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			g, tokens, tok := setup(t)
			if tt.change != nil {
				tt.change(g)
			}
			resp, ok, err := tokens.AuthenticateToken(context.Background(), tok)
			if tt.wantErr != "" {
				if ok || err == nil || !strings.HasPrefix(err.Error(), tt.wantErr) {
					t.Fatalf("ok=%v err=%v, want %q", ok, err, tt.wantErr)
				}
				return
			}
			if !ok || err != nil {
				t.Fatalf("ok=%v err=%v", ok, err)
			}
			checkUser(t, resp.User, &wantUser{name: "system:serviceaccount:ns1:robot", uid: "sa-uid-1",
				groups: []string{"system:serviceaccounts", "system:serviceaccounts:ns1"}})
			if len(resp.User.GetExtra()) != 0 {
				t.Errorf("legacy token user has extra %v", resp.User.GetExtra())
			}
		})
	}
	t.Run("secret for another service account is refused", func(t *testing.T) {
		g := newFakeGetter()
		sa := g.addSA("ns1", "robot", "sa-uid-1")
		tokens, _ := NewServiceAccountTokens(nil, g)
		_, err := tokens.IssueLegacy(sa, &corev1.Secret{
			ObjectMeta: metav1.ObjectMeta{Namespace: "ns1", Name: "x", Annotations: map[string]string{corev1.ServiceAccountNameKey: "other"}},
			Type:       corev1.SecretTypeServiceAccountToken,
		})
		if err == nil {
			t.Fatal("IssueLegacy accepted a secret of another service account")
		}
	})
}

func TestJWKSVerifiesIssuedTokens(t *testing.T) {
	key, _ := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	tokens, err := NewServiceAccountTokens(key, newFakeGetter())
	if err != nil {
		t.Fatal(err)
	}
	b, err := tokens.JWKS()
	if err != nil {
		t.Fatal(err)
	}
	var set struct {
		Keys []struct{ Use, Kty, Kid, Crv, Alg, X, Y string }
	}
	if err := json.Unmarshal(b, &set); err != nil || len(set.Keys) != 1 {
		t.Fatalf("jwks %s: %v", b, err)
	}
	k := set.Keys[0]
	kid, _ := tokens.KeyID()
	if k.Use != "sig" || k.Kty != "EC" || k.Crv != "P-256" || k.Alg != "ES256" || k.Kid != kid {
		t.Fatalf("jwk = %+v", k)
	}
	x, _ := base64.RawURLEncoding.DecodeString(k.X)
	y, _ := base64.RawURLEncoding.DecodeString(k.Y)
	pub := &ecdsa.PublicKey{Curve: elliptic.P256(), X: new(big.Int).SetBytes(x), Y: new(big.Int).SetBytes(y)}
	if !pub.Equal(tokens.PublicKey()) {
		t.Fatal("JWKS key differs from the signing key")
	}
	tok, _, err := tokens.Issue(&corev1.ServiceAccount{ObjectMeta: metav1.ObjectMeta{Namespace: "a", Name: "b"}}, nil, 600, nil)
	if err != nil {
		t.Fatal(err)
	}
	parsed, err := parseJWS(tok)
	if err != nil {
		t.Fatal(err)
	}
	if err := parsed.verify(pub); err != nil {
		t.Fatalf("token does not verify with the published key: %v", err)
	}
	cfg, _ := tokens.OpenIDConfiguration("https://127.0.0.1:6443/openid/v1/jwks")
	if want := `{"issuer":"https://kubernetes.default.svc.cluster.local","jwks_uri":"https://127.0.0.1:6443/openid/v1/jwks","response_types_supported":["id_token"],"subject_types_supported":["public"],"id_token_signing_alg_values_supported":["ES256"]}`; string(cfg) != want {
		t.Errorf("openid configuration:\n got %s\nwant %s", cfg, want)
	}
}
