package fakeplane_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"go.uber.org/goleak"
	authenticationv1 "k8s.io/api/authentication/v1"
	authenticationv1beta1 "k8s.io/api/authentication/v1beta1"
	authorizationv1 "k8s.io/api/authorization/v1"
	authorizationv1beta1 "k8s.io/api/authorization/v1beta1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/utils/ptr"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/auth"
)

// reviewWebhook is a TokenReview or SubjectAccessReview webhook for the
// tests: an HTTPS server that answers each review with the status answer
// gives for its spec (nil: it fails, with a 400), keeps the reviews it got
// and counts its open connections.
type reviewWebhook struct {
	srv    *httptest.Server
	answer func(spec map[string]any) map[string]any

	mu      sync.Mutex
	reviews [][]byte
	open    int
}

func newReviewWebhook(t *testing.T, answer func(spec map[string]any) map[string]any) *reviewWebhook {
	t.Helper()
	w := &reviewWebhook{answer: answer}
	w.srv = httptest.NewUnstartedServer(http.HandlerFunc(w.serve))
	w.srv.Config.ConnState = func(_ net.Conn, s http.ConnState) {
		w.mu.Lock()
		defer w.mu.Unlock()
		switch s {
		case http.StateNew:
			w.open++
		case http.StateClosed, http.StateHijacked:
			w.open--
		}
	}
	w.srv.StartTLS()
	t.Cleanup(w.srv.Close)
	return w
}

func (w *reviewWebhook) serve(rw http.ResponseWriter, r *http.Request) {
	var review struct {
		APIVersion string         `json:"apiVersion"`
		Kind       string         `json:"kind"`
		Spec       map[string]any `json:"spec"`
	}
	var body json.RawMessage
	if err := json.NewDecoder(r.Body).Decode(&body); err != nil {
		http.Error(rw, err.Error(), http.StatusBadRequest)
		return
	}
	_ = json.Unmarshal(body, &review)
	w.mu.Lock()
	w.reviews = append(w.reviews, body)
	w.mu.Unlock()
	status := w.answer(review.Spec)
	if status == nil {
		http.Error(rw, "the webhook fails", http.StatusBadRequest)
		return
	}
	_ = json.NewEncoder(rw).Encode(map[string]any{"apiVersion": review.APIVersion, "kind": review.Kind, "status": status})
}

// kubeconfig is the kubeconfig naming the webhook.
func (w *reviewWebhook) kubeconfig(t *testing.T) string { return webhookKubeconfig(t, w.srv, "{}") }

// got returns the reviews the webhook got (whole, as sent).
func (w *reviewWebhook) got() [][]byte {
	w.mu.Lock()
	defer w.mu.Unlock()
	return slices.Clone(w.reviews)
}

// asked counts the SubjectAccessReviews about user.
func (w *reviewWebhook) asked(user string) int {
	n := 0
	for _, r := range w.got() {
		var sar struct {
			Spec struct{ User string } `json:"spec"`
		}
		if json.Unmarshal(r, &sar) == nil && sar.Spec.User == user {
			n++
		}
	}
	return n
}

// tokensReviewed are the tokens of the TokenReviews the webhook got.
func (w *reviewWebhook) tokensReviewed() []string {
	var tokens []string
	for _, r := range w.got() {
		var tr struct {
			Spec struct{ Token string } `json:"spec"`
		}
		if json.Unmarshal(r, &tr) == nil {
			tokens = append(tokens, tr.Spec.Token)
		}
	}
	return tokens
}

// openConnections counts the connections open to the webhook.
func (w *reviewWebhook) openConnections() int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.open
}

// aliceInfo is the user the test token webhooks authenticate "alice-token"
// as.
var aliceInfo = authenticationv1.UserInfo{Username: "alice", UID: "a1", Groups: []string{"devs"},
	Extra: map[string]authenticationv1.ExtraValue{"example.com/team": {"blue"}}}

// tokenAnswers authenticates "alice-token" as aliceInfo, fails for
// "failing-token", refuses "erring-token" with an error and every other
// token without.
func tokenAnswers(spec map[string]any) map[string]any {
	switch spec["token"] {
	case "alice-token":
		return map[string]any{"authenticated": true, "user": aliceInfo}
	case "failing-token":
		return nil
	case "erring-token":
		return map[string]any{"authenticated": false, "error": "unknown token"}
	}
	return map[string]any{"authenticated": false}
}

// tokenClient is a client of cp presenting the bearer token.
func tokenClient(cp *fakeplane.ControlPlane, token string) kubernetes.Interface {
	cfg := cp.RESTConfig()
	cfg.CertData, cfg.KeyData, cfg.BearerToken = nil, nil, token
	return kubernetes.NewForConfigOrDie(cfg)
}

// whoAmI is the user a SelfSubjectReview says client is.
func whoAmI(ctx context.Context, client kubernetes.Interface) (authenticationv1.UserInfo, error) {
	ssr, err := client.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
	if err != nil {
		return authenticationv1.UserInfo{}, err
	}
	return ssr.Status.UserInfo, nil
}

// TestWebhookTokenAuthentication: --authentication-token-webhook-config-file
// (WithAuthenticationTokenWebhook) authenticates the bearer tokens nothing
// else knows as kube-apiserver does, with upstream's webhook authenticator.
func TestWebhookTokenAuthentication(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name string
		hook fakeplane.TokenWebhook
		// tokens are presented in order; wantCodes are the answers' codes
		// (200 or 401), wantReviews how many reviews the webhook got.
		tokens      []string
		wantCodes   []int
		wantReviews int
	}{
		{name: "the webhook's user is the request's, its answer kept", tokens: []string{"alice-token", "alice-token", "alice-token"},
			wantCodes: []int{200, 200, 200}, wantReviews: 1},
		{name: "a refusal is 401, kept for the cache TTL", tokens: []string{"mallory-token", "mallory-token"},
			wantCodes: []int{401, 401}, wantReviews: 1},
		{name: "a cache TTL of 0 keeps no refusal", hook: fakeplane.TokenWebhook{CacheTTL: ptr.To(time.Duration(0))},
			tokens: []string{"mallory-token", "mallory-token"}, wantCodes: []int{401, 401}, wantReviews: 2},
		{name: "a refusal with an error is 401, not kept (as no error is)", tokens: []string{"erring-token", "erring-token"},
			wantCodes: []int{401, 401}, wantReviews: 2},
		{name: "a failing webhook is 401, its failure not kept", tokens: []string{"failing-token", "failing-token"},
			wantCodes: []int{401, 401}, wantReviews: 2},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hook := newReviewWebhook(t, tokenAnswers)
			tc.hook.ConfigFile = hook.kubeconfig(t)
			cp := fakeplane.Start(t, fakeplane.WithAuthenticationTokenWebhook(tc.hook))
			ctx := ctxT(t)
			for i, token := range tc.tokens {
				u, err := whoAmI(ctx, tokenClient(cp, token))
				switch {
				case tc.wantCodes[i] == 401 && !apierrors.IsUnauthorized(err):
					t.Errorf("request %d (%s): want 401, got %v", i, token, err)
				case tc.wantCodes[i] == 200 && err != nil:
					t.Errorf("request %d (%s): %v", i, token, err)
				case tc.wantCodes[i] == 200:
					want := aliceInfo
					want.Groups = []string{"devs", "system:authenticated"}
					if !reflect.DeepEqual(u, want) {
						t.Errorf("request %d: user %+v, want %+v", i, u, want)
					}
				}
			}
			if got := len(hook.got()); got != tc.wantReviews {
				t.Errorf("the webhook got %d reviews, want %d", got, tc.wantReviews)
			}
		})
	}
}

// TestWebhookTokenReviewIsKubeAPIServers: the TokenReview is the one
// kube-apiserver sends: the --authentication-token-webhook-version's
// (v1beta1 by default), with the token and the API server's audiences.
func TestWebhookTokenReviewIsKubeAPIServers(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		version, wantAPIVersion string
	}{
		{"", "authentication.k8s.io/v1beta1"},
		{"v1beta1", "authentication.k8s.io/v1beta1"},
		{"v1", "authentication.k8s.io/v1"},
	} {
		t.Run("version "+tc.version, func(t *testing.T) {
			t.Parallel()
			hook := newReviewWebhook(t, tokenAnswers)
			cp := fakeplane.Start(t, fakeplane.WithAuthenticationTokenWebhook(fakeplane.TokenWebhook{ConfigFile: hook.kubeconfig(t), Version: tc.version}),
				fakeplane.WithAPIAudiences("https://one.example", "https://two.example"))
			if _, err := whoAmI(ctxT(t), tokenClient(cp, "alice-token")); err != nil {
				t.Fatal(err)
			}
			reviews := hook.got()
			if len(reviews) != 1 {
				t.Fatalf("%d reviews", len(reviews))
			}
			var got authenticationv1beta1.TokenReview
			if err := json.Unmarshal(reviews[0], &got); err != nil {
				t.Fatal(err)
			}
			want := authenticationv1beta1.TokenReview{TypeMeta: metav1.TypeMeta{APIVersion: tc.wantAPIVersion, Kind: "TokenReview"},
				Spec: authenticationv1beta1.TokenReviewSpec{Token: "alice-token", Audiences: []string{"https://one.example", "https://two.example"}}}
			if !reflect.DeepEqual(got, want) {
				t.Errorf("review %s\nwant %+v", reviews[0], want)
			}
		})
	}
}

// TestWebhookTokenAuthenticationComesLast: the webhook is asked last, as in
// kube-apiserver's token chain: static tokens, service-account tokens and
// the JWT authenticators' tokens never reach it.
func TestWebhookTokenAuthenticationComesLast(t *testing.T) {
	t.Parallel()
	iss := newOIDCIssuer(t)
	hook := newReviewWebhook(t, tokenAnswers)
	cp := fakeplane.Start(t, fakeplane.WithAuthenticationTokenWebhook(fakeplane.TokenWebhook{ConfigFile: hook.kubeconfig(t)}),
		fakeplane.WithToken("static-token", "sam"),
		fakeplane.WithOIDC(auth.OIDCFlags{IssuerURL: iss.srv.URL, ClientID: "fakeplane-test", CAFile: writeTestFile(t, "oidc-ca.pem", iss.caPEM()), UsernamePrefix: "-"}))
	ctx := ctxT(t)
	// The JWT authenticator fetches the issuer's keys in the background;
	// until then its tokens go on to the webhook.
	eventuallyT(t, "the issuer's keys", func(ctx context.Context) (bool, error) {
		_, err := whoAmI(ctx, tokenClient(cp, iss.token(t, map[string]any{"aud": "fakeplane-test", "sub": "probe"})))
		return err == nil, nil
	})
	admin := clientset(t, cp)
	tr, err := admin.CoreV1().ServiceAccounts("default").CreateToken(ctx, "default", &authenticationv1.TokenRequest{}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ token, wantUser string }{
		{"static-token", "sam"},
		{tr.Status.Token, "system:serviceaccount:default:default"},
		{iss.token(t, map[string]any{"aud": "fakeplane-test", "sub": "olivia"}), "olivia"},
		{"alice-token", "alice"},
	} {
		u, err := whoAmI(ctx, tokenClient(cp, tc.token))
		if err != nil || u.Username != tc.wantUser {
			t.Errorf("%s: %v %+v", tc.wantUser, err, u)
		}
		if tc.wantUser != "alice" && slices.Contains(hook.tokensReviewed(), tc.token) {
			t.Errorf("the webhook was asked about %s's token", tc.wantUser)
		}
	}
}

// sarAnswers is the SubjectAccessReview webhook of the authorization
// tests: alice may use configmaps, pods are denied to her, and it has no
// opinion otherwise; everything is denied in namespace "guarded".
func sarAnswers(spec map[string]any) map[string]any {
	attrs, _ := spec["resourceAttributes"].(map[string]any)
	switch {
	case attrs["namespace"] == "guarded":
		return map[string]any{"allowed": false, "denied": true, "reason": "guarded namespace"}
	case spec["user"] == "alice" && attrs["resource"] == "configmaps":
		return map[string]any{"allowed": true, "reason": "alice may"}
	case attrs["resource"] == "pods":
		return map[string]any{"allowed": false, "denied": true, "reason": "pods are off limits"}
	}
	return map[string]any{"allowed": false, "reason": "the webhook says no"}
}

// listIn lists resource ("pods", "secrets", "configmaps", "services") in
// namespace ns as client.
func listIn(ctx context.Context, client kubernetes.Interface, resource, ns string) error {
	var err error
	switch resource {
	case "pods":
		_, err = client.CoreV1().Pods(ns).List(ctx, metav1.ListOptions{})
	case "secrets":
		_, err = client.CoreV1().Secrets(ns).List(ctx, metav1.ListOptions{})
	case "configmaps":
		_, err = client.CoreV1().ConfigMaps(ns).List(ctx, metav1.ListOptions{})
	case "services":
		_, err = client.CoreV1().Services(ns).List(ctx, metav1.ListOptions{})
	default:
		panic(resource)
	}
	return err
}

// forbidden is kube-apiserver's 403 message for alice listing resource in
// namespace ns, with the authorizers' reason.
func forbidden(resource, ns, reason string) string {
	return fmt.Sprintf(`%s is forbidden: User "alice" cannot list resource %q in API group "" in the namespace %q: %s`, resource, resource, ns, reason)
}

// checkAuthzAnswer checks err is what want says: "" success, "500" an internal
// error, else a 403 with that message.
func checkAuthzAnswer(t *testing.T, what string, err error, want string) {
	t.Helper()
	switch want {
	case "":
		if err != nil {
			t.Errorf("%s: %v", what, err)
		}
	case "500":
		if !apierrors.IsInternalError(err) || !strings.Contains(err.Error(), "connection refused") {
			t.Errorf("%s: want kube-apiserver's 500 with the webhook's error, got %v", what, err)
		}
	default:
		if !apierrors.IsForbidden(err) || err.Error() != want {
			t.Errorf("%s:\n got %v\nwant %s", what, err, want)
		}
	}
}

// grantAliceRBAC lets alice list pods and secrets by RBAC.
func grantAliceRBAC(t *testing.T, cp *fakeplane.ControlPlane) {
	t.Helper()
	grantClusterRole(t, clientset(t, cp), "alice-lists", "alice", rbacv1.PolicyRule{Verbs: []string{"list"}, APIGroups: []string{""}, Resources: []string{"pods", "secrets"}})
}

// TestWebhookAuthorizationModes: --authorization-mode with Webhook
// (WithAuthorizationMode, WithAuthorizationWebhook) asks the
// SubjectAccessReview webhook in the modes' order, after system:masters,
// as kube-apiserver's union: the first allowal or denial decides, and a
// request nothing allows is a 403 whose reason joins the modes' reasons,
// each named (the webhook "default"), or is the denier's alone.
func TestWebhookAuthorizationModes(t *testing.T) {
	t.Parallel()
	for _, tc := range []struct {
		name, mode, resource string
		want                 string // "" allowed, else the 403 message
		wantAsked            int    // reviews about alice
	}{
		{name: "the webhook's allowal lets a request in", mode: "RBAC,Webhook", resource: "configmaps", wantAsked: 1},
		{name: "an allowal of a mode before the webhook decides without it", mode: "RBAC,Webhook", resource: "pods"},
		{name: "the webhook's denial decides before the modes after it", mode: "Webhook,RBAC", resource: "pods", wantAsked: 1,
			want: forbidden("pods", "default", "pods are off limits")},
		{name: "the webhook's no opinion falls through to RBAC", mode: "Webhook,RBAC", resource: "secrets", wantAsked: 1},
		{name: "no opinion from all is a 403 with every reason, named", mode: "AlwaysDeny,Webhook,RBAC", resource: "services", wantAsked: 1,
			want: forbidden("services", "default", "alwaysdeny: Everything is forbidden.\ndefault: the webhook says no")},
		{name: "AlwaysDeny has no opinion: the webhook after it decides", mode: "AlwaysDeny,Webhook", resource: "configmaps", wantAsked: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hook := newReviewWebhook(t, sarAnswers)
			cp := fakeplane.Start(t, fakeplane.WithAuthorizationMode(tc.mode),
				fakeplane.WithAuthorizationWebhook(fakeplane.AuthorizationWebhookConfig{ConfigFile: hook.kubeconfig(t)}))
			grantAliceRBAC(t, cp)
			ctx := ctxT(t)
			checkAuthzAnswer(t, "alice lists "+tc.resource, listIn(ctx, userClient(t, cp, "alice"), tc.resource, "default"), tc.want)
			if got := hook.asked("alice"); got != tc.wantAsked {
				t.Errorf("the webhook was asked %d times about alice, want %d", got, tc.wantAsked)
			}
			// system:masters never reach it.
			if err := listIn(ctx, clientset(t, cp), "pods", "default"); err != nil {
				t.Errorf("the admin: %v", err)
			}
			if got := hook.asked(fakeplane.AdminUser); got != 0 {
				t.Errorf("the webhook was asked %d times about the admin (system:masters)", got)
			}
		})
	}
}

// TestWebhookAuthorizationCachesAnswers: the webhook's allowals are kept for
// --authorization-webhook-cache-authorized-ttl, its other answers for
// --authorization-webhook-cache-unauthorized-ttl, none with a TTL of 0.
func TestWebhookAuthorizationCachesAnswers(t *testing.T) {
	t.Parallel()
	zero := ptr.To(time.Duration(0))
	for _, tc := range []struct {
		name      string
		hook      fakeplane.AuthorizationWebhookConfig
		resource  string
		wantAsked int
	}{
		{name: "an allowal is kept", resource: "configmaps", wantAsked: 1},
		{name: "a denial is kept", resource: "pods", wantAsked: 1},
		{name: "a no opinion is kept", resource: "services", wantAsked: 1},
		{name: "an authorized TTL of 0 keeps no allowal", hook: fakeplane.AuthorizationWebhookConfig{CacheAuthorizedTTL: zero}, resource: "configmaps", wantAsked: 2},
		{name: "an unauthorized TTL of 0 keeps no denial", hook: fakeplane.AuthorizationWebhookConfig{CacheUnauthorizedTTL: zero}, resource: "pods", wantAsked: 2},
		{name: "an authorized TTL of 0 keeps denials", hook: fakeplane.AuthorizationWebhookConfig{CacheAuthorizedTTL: zero}, resource: "services", wantAsked: 1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			hook := newReviewWebhook(t, sarAnswers)
			tc.hook.ConfigFile = hook.kubeconfig(t)
			cp := fakeplane.Start(t, fakeplane.WithAuthorizationMode("Webhook"), fakeplane.WithAuthorizationWebhook(tc.hook))
			alice := userClient(t, cp, "alice")
			for range 2 {
				_ = listIn(ctxT(t), alice, tc.resource, "default")
			}
			if got := hook.asked("alice"); got != tc.wantAsked {
				t.Errorf("two requests: the webhook was asked %d times, want %d", got, tc.wantAsked)
			}
		})
	}
}

// TestWebhookSubjectAccessReviewIsKubeAPIServers: the SubjectAccessReview
// the webhook gets is the one kube-apiserver sends (upstream's webhook
// authorizer, fed by upstream's request attributes): the user with UID,
// groups and extra (here from a token webhook), resource attributes with
// subresource, name and the list's field and label selectors, or the
// non-resource path; in --authorization-webhook-version (v1beta1 by
// default, whose groups are "group"). The webhook's rules are unknown to
// SelfSubjectRulesReview (incomplete, upstream's evaluation error), and a
// SubjectAccessReview gets its decision and reason.
func TestWebhookSubjectAccessReviewIsKubeAPIServers(t *testing.T) {
	t.Parallel()
	for _, version := range []string{"v1beta1", "v1"} {
		t.Run(version, func(t *testing.T) {
			t.Parallel()
			hook := newReviewWebhook(t, func(spec map[string]any) map[string]any {
				if attrs, _ := spec["resourceAttributes"].(map[string]any); attrs["resource"] == "selfsubjectrulesreviews" {
					return map[string]any{"allowed": false}
				}
				return map[string]any{"allowed": true, "reason": "alice may"}
			})
			tokens := newReviewWebhook(t, tokenAnswers)
			cp := fakeplane.Start(t, fakeplane.WithAuthorizationMode("Webhook,RBAC"),
				fakeplane.WithAuthorizationWebhook(fakeplane.AuthorizationWebhookConfig{ConfigFile: hook.kubeconfig(t), Version: version}),
				fakeplane.WithAuthenticationTokenWebhook(fakeplane.TokenWebhook{ConfigFile: tokens.kubeconfig(t)}))
			ctx := ctxT(t)
			alice := tokenClient(cp, "alice-token")
			if _, err := alice.CoreV1().Pods("team").List(ctx, metav1.ListOptions{FieldSelector: "spec.nodeName=n1", LabelSelector: "tier!=db,app=web"}); err != nil {
				t.Fatal(err)
			}
			if _, err := alice.AppsV1().Deployments("team").GetScale(ctx, "web", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
				t.Fatalf("get deployments/scale: want 404, got %v", err)
			}
			if _, err := alice.Discovery().RESTClient().Get().AbsPath("/healthz").DoRaw(ctx); err != nil {
				t.Fatal(err)
			}
			user := authorizationv1.SubjectAccessReviewSpec{User: "alice", UID: "a1", Groups: []string{"devs", "system:authenticated"},
				Extra: map[string]authorizationv1.ExtraValue{"example.com/team": {"blue"}}}
			want := []authorizationv1.SubjectAccessReviewSpec{user, user, user}
			want[0].ResourceAttributes = &authorizationv1.ResourceAttributes{Namespace: "team", Verb: "list", Version: "v1", Resource: "pods",
				FieldSelector: &authorizationv1.FieldSelectorAttributes{Requirements: []metav1.FieldSelectorRequirement{{Key: "spec.nodeName", Operator: metav1.FieldSelectorOpIn, Values: []string{"n1"}}}},
				LabelSelector: &authorizationv1.LabelSelectorAttributes{Requirements: []metav1.LabelSelectorRequirement{
					{Key: "app", Operator: metav1.LabelSelectorOpIn, Values: []string{"web"}},
					{Key: "tier", Operator: metav1.LabelSelectorOpNotIn, Values: []string{"db"}}}}}
			want[1].ResourceAttributes = &authorizationv1.ResourceAttributes{Namespace: "team", Verb: "get", Group: "apps", Version: "v1", Resource: "deployments", Subresource: "scale", Name: "web"}
			want[2].NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: "/healthz", Verb: "get"}
			reviews := hook.got()
			if len(reviews) != len(want) {
				t.Fatalf("the webhook got %d reviews, want %d", len(reviews), len(want))
			}
			for i, raw := range reviews {
				var got authorizationv1.SubjectAccessReview
				if version == "v1beta1" {
					var b authorizationv1beta1.SubjectAccessReview
					if err := json.Unmarshal(raw, &b); err != nil {
						t.Fatal(err)
					}
					got.TypeMeta, got.Spec.User, got.Spec.UID, got.Spec.Groups = b.TypeMeta, b.Spec.User, b.Spec.UID, b.Spec.Groups
					got.Spec.Extra = map[string]authorizationv1.ExtraValue{}
					for k, v := range b.Spec.Extra {
						got.Spec.Extra[k] = authorizationv1.ExtraValue(v)
					}
					if a := b.Spec.ResourceAttributes; a != nil {
						got.Spec.ResourceAttributes = &authorizationv1.ResourceAttributes{Namespace: a.Namespace, Verb: a.Verb, Group: a.Group, Version: a.Version,
							Resource: a.Resource, Subresource: a.Subresource, Name: a.Name, FieldSelector: a.FieldSelector, LabelSelector: a.LabelSelector}
					}
					if a := b.Spec.NonResourceAttributes; a != nil {
						got.Spec.NonResourceAttributes = &authorizationv1.NonResourceAttributes{Path: a.Path, Verb: a.Verb}
					}
				} else if err := json.Unmarshal(raw, &got); err != nil {
					t.Fatal(err)
				}
				if wantType := (metav1.TypeMeta{APIVersion: "authorization.k8s.io/" + version, Kind: "SubjectAccessReview"}); got.TypeMeta != wantType {
					t.Errorf("review %d is a %+v, want %+v", i, got.TypeMeta, wantType)
				}
				if !reflect.DeepEqual(got.Spec, want[i]) {
					t.Errorf("review %d: %s\nwant spec %+v", i, raw, want[i])
				}
			}

			rules, err := alice.AuthorizationV1().SelfSubjectRulesReviews().Create(ctx, &authorizationv1.SelfSubjectRulesReview{Spec: authorizationv1.SelfSubjectRulesReviewSpec{Namespace: "team"}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if !rules.Status.Incomplete || rules.Status.EvaluationError != "webhook authorizer does not support user rule resolution" {
				t.Errorf("SelfSubjectRulesReview: incomplete %v, evaluationError %q", rules.Status.Incomplete, rules.Status.EvaluationError)
			}
			sar, err := clientset(t, cp).AuthorizationV1().SubjectAccessReviews().Create(ctx, &authorizationv1.SubjectAccessReview{Spec: authorizationv1.SubjectAccessReviewSpec{
				User: "bob", ResourceAttributes: &authorizationv1.ResourceAttributes{Namespace: "team", Verb: "delete", Resource: "secrets"}}}, metav1.CreateOptions{})
			if err != nil {
				t.Fatal(err)
			}
			if want := (authorizationv1.SubjectAccessReviewStatus{Allowed: true, Reason: "alice may"}); sar.Status != want {
				t.Errorf("SubjectAccessReview: %+v, want %+v", sar.Status, want)
			}
		})
	}
}

// writeAuthorizationConfig writes an AuthorizationConfiguration (v1) of
// authorizers (YAML list items).
func writeAuthorizationConfig(t *testing.T, authorizers ...string) string {
	t.Helper()
	return writeTestFile(t, "authorization.yaml", "apiVersion: apiserver.config.k8s.io/v1\nkind: AuthorizationConfiguration\nauthorizers:\n"+strings.Join(authorizers, ""))
}

// webhookAuthorizer is the YAML of a Webhook authorizer of an
// AuthorizationConfiguration named name, calling the webhook of kubeconfig,
// with extra lines of its webhook section.
func webhookAuthorizer(name, kubeconfig, version, failurePolicy string, extra ...string) string {
	return fmt.Sprintf("- type: Webhook\n  name: %s\n  webhook:\n    timeout: 5s\n    subjectAccessReviewVersion: %s\n    failurePolicy: %s\n"+
		"    connectionInfo:\n      type: KubeConfigFile\n      kubeConfigFile: %s\n", name, version, failurePolicy, kubeconfig) + strings.Join(extra, "")
}

// TestWebhookAuthorizationConfigFile: --authorization-config
// (WithAuthorizationConfigFile) builds the authorizers of an
// AuthorizationConfiguration as kube-apiserver does: named webhooks in the
// file's order around RBAC, their CEL match conditions deciding which
// requests they are asked about, their own versions, and their answers
// kept or not as they say.
func TestWebhookAuthorizationConfigFile(t *testing.T) {
	t.Parallel()
	guard := newReviewWebhook(t, sarAnswers)
	last := newReviewWebhook(t, sarAnswers)
	cp := fakeplane.Start(t, fakeplane.WithAuthorizationConfigFile(writeAuthorizationConfig(t,
		webhookAuthorizer("guard", guard.kubeconfig(t), "v1", "Deny",
			"    matchConditionSubjectAccessReviewVersion: v1\n    matchConditions:\n",
			"    - expression: has(request.resourceAttributes)\n",
			"    - expression: request.resourceAttributes.namespace in ['guarded', 'watched']\n"),
		"- type: RBAC\n  name: rbac\n",
		webhookAuthorizer("last-word", last.kubeconfig(t), "v1beta1", "NoOpinion", "    cacheAuthorizedRequests: false\n"))))
	grantAliceRBAC(t, cp)
	ctx := ctxT(t)
	alice := userClient(t, cp, "alice")
	for _, tc := range []struct {
		name, resource, ns, want string
		// the reviews of alice each webhook is to have got so far
		guardAsked, lastAsked int
	}{
		{name: "the match conditions skip the first webhook; the last allows", resource: "configmaps", ns: "open", lastAsked: 1},
		{name: "the last webhook's allowals are not kept", resource: "configmaps", ns: "open", lastAsked: 2},
		{name: "RBAC allows before the last webhook", resource: "secrets", ns: "open", lastAsked: 2},
		{name: "nothing allows: the reasons, named by the file", resource: "services", ns: "open", lastAsked: 3,
			want: forbidden("services", "open", "last-word: the webhook says no")},
		{name: "a namespace the match conditions select: the first webhook denies", resource: "secrets", ns: "guarded", guardAsked: 1, lastAsked: 3,
			want: forbidden("secrets", "guarded", "guarded namespace")},
		{name: "the first webhook's no opinion is a reason too", resource: "services", ns: "watched", guardAsked: 2, lastAsked: 4,
			want: forbidden("services", "watched", "guard: the webhook says no\nlast-word: the webhook says no")},
		{name: "the webhooks' no opinions are kept", resource: "services", ns: "watched", guardAsked: 2, lastAsked: 4,
			want: forbidden("services", "watched", "guard: the webhook says no\nlast-word: the webhook says no")},
	} {
		// In order: the counts add up.
		checkAuthzAnswer(t, tc.name, listIn(ctx, alice, tc.resource, tc.ns), tc.want)
		if g, l := guard.asked("alice"), last.asked("alice"); g != tc.guardAsked || l != tc.lastAsked {
			t.Errorf("%s: the webhooks were asked %d and %d times, want %d and %d", tc.name, g, l, tc.guardAsked, tc.lastAsked)
		}
	}
	for name, hook := range map[string]*reviewWebhook{"guard": guard, "last-word": last} {
		want := map[string]string{"guard": "authorization.k8s.io/v1", "last-word": "authorization.k8s.io/v1beta1"}[name]
		for _, r := range hook.got() {
			var tm metav1.TypeMeta
			if err := json.Unmarshal(r, &tm); err != nil || tm.APIVersion != want {
				t.Errorf("%s got a review %s, want %s", name, r, want)
			}
		}
	}
}

// TestWebhookAuthorizationFailurePolicy: when the webhook cannot be called,
// its failurePolicy decides as in kube-apiserver: NoOpinion lets the
// authorizers after it decide (and a request none allows is a 500 with the
// webhook's error, from upstream's authorization filter); Deny stops there,
// a 500 even for what RBAC allows. system:masters are allowed before.
func TestWebhookAuthorizationFailurePolicy(t *testing.T) {
	t.Parallel()
	down := newReviewWebhook(t, sarAnswers)
	kubeconfig := down.kubeconfig(t)
	down.srv.Close()
	for _, tc := range []struct {
		policy                    string
		wantSecrets, wantServices string
	}{
		{policy: "NoOpinion", wantSecrets: "", wantServices: "500"},
		{policy: "Deny", wantSecrets: "500", wantServices: "500"},
	} {
		t.Run(tc.policy, func(t *testing.T) {
			t.Parallel()
			cp := fakeplane.Start(t, fakeplane.WithAuthorizationConfigFile(writeAuthorizationConfig(t,
				webhookAuthorizer("down", kubeconfig, "v1", tc.policy), "- type: RBAC\n  name: rbac\n")))
			grantAliceRBAC(t, cp)
			ctx := ctxT(t)
			alice := userClient(t, cp, "alice")
			checkAuthzAnswer(t, "alice lists secrets (RBAC allows)", listIn(ctx, alice, "secrets", "default"), tc.wantSecrets)
			checkAuthzAnswer(t, "alice lists services (nothing allows)", listIn(ctx, alice, "services", "default"), tc.wantServices)
			checkAuthzAnswer(t, "the admin", listIn(ctx, clientset(t, cp), "services", "default"), "")
		})
	}
}

// TestWebhookAuthorizationConfigErrors: Start fails with kube-apiserver's
// errors for the authorization flags and file (the exhaustive cases are in
// package auth), and fakeplane's where it lacks what the file asks for.
func TestWebhookAuthorizationConfigErrors(t *testing.T) {
	t.Parallel()
	kubeconfig := newReviewWebhook(t, sarAnswers).kubeconfig(t)
	rbacOnly := "- type: RBAC\n  name: rbac\n"
	for _, tc := range []struct {
		name string
		opts func(t *testing.T) []fakeplane.Option
		want string
	}{
		{"the file with --authorization-mode", func(t *testing.T) []fakeplane.Option {
			return []fakeplane.Option{fakeplane.WithAuthorizationMode("RBAC"), fakeplane.WithAuthorizationConfigFile(writeAuthorizationConfig(t, rbacOnly))}
		}, "fakeplane: --authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined"},
		{"the file with --authorization-webhook-*", func(t *testing.T) []fakeplane.Option {
			return []fakeplane.Option{fakeplane.WithAuthorizationWebhook(fakeplane.AuthorizationWebhookConfig{Version: "v1"}), fakeplane.WithAuthorizationConfigFile(writeAuthorizationConfig(t, rbacOnly))}
		}, "fakeplane: --authorization-config can not be specified when --authorization-mode or --authorization-webhook-* flags are defined"},
		{"mode Webhook without its kubeconfig", func(*testing.T) []fakeplane.Option {
			return []fakeplane.Option{fakeplane.WithAuthorizationMode("RBAC,Webhook")}
		}, "fakeplane: authorization-mode Webhook's authorization config file not passed"},
		{"the webhook's kubeconfig without mode Webhook", func(*testing.T) []fakeplane.Option {
			return []fakeplane.Option{fakeplane.WithAuthorizationWebhook(fakeplane.AuthorizationWebhookConfig{ConfigFile: kubeconfig})}
		}, "fakeplane: cannot specify --authorization-webhook-config-file without mode Webhook"},
		{"a mode twice", func(*testing.T) []fakeplane.Option {
			return []fakeplane.Option{fakeplane.WithAuthorizationMode("RBAC,AlwaysAllow,RBAC")}
		}, `fakeplane: authorization-mode ["RBAC" "AlwaysAllow" "RBAC"] has mode specified more than once`},
		{"an unknown version", func(*testing.T) []fakeplane.Option {
			return []fakeplane.Option{fakeplane.WithAuthorizationMode("Webhook"), fakeplane.WithAuthorizationWebhook(fakeplane.AuthorizationWebhookConfig{ConfigFile: kubeconfig, Version: "v2"})}
		}, `unsupported webhook authorizer version "v2", supported versions are "v1", "v1beta1"`},
		{"mode ABAC", func(*testing.T) []fakeplane.Option {
			return []fakeplane.Option{fakeplane.WithAuthorizationMode("ABAC,RBAC")}
		}, "fakeplane: authorization-mode ABAC's authorization policy file not passed"},
		{"an invalid file", func(t *testing.T) []fakeplane.Option {
			return []fakeplane.Option{fakeplane.WithAuthorizationConfigFile(writeAuthorizationConfig(t, rbacOnly, webhookAuthorizer("w", kubeconfig, "v3", "Deny")))}
		}, `fakeplane: authorizers[1].subjectAccessReviewVersion: Unsupported value: "v3": supported values: "v1", "v1beta1"`},
		{"a name not the type's", func(t *testing.T) []fakeplane.Option {
			return []fakeplane.Option{fakeplane.WithAuthorizationConfigFile(writeAuthorizationConfig(t, "- type: AlwaysAllow\n  name: allow\n"))}
		}, "fakeplane: expected name alwaysallow for authorizer AlwaysAllow instead of allow"},
		{"a webhook InClusterConfig", func(t *testing.T) []fakeplane.Option {
			return []fakeplane.Option{fakeplane.WithAuthorizationConfigFile(writeAuthorizationConfig(t,
				"- type: Webhook\n  name: in-cluster\n  webhook: {timeout: 3s, subjectAccessReviewVersion: v1, failurePolicy: Deny, connectionInfo: {type: InClusterConfig}}\n"))}
		}, `authorization webhook "in-cluster": connectionInfo type "InClusterConfig" is not supported`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			if err := startError(t, tc.opts(t)...); err == nil || !strings.Contains(err.Error(), tc.want) {
				t.Errorf("got %v\nwant an error containing %s", err, tc.want)
			}
		})
	}
}

// TestWebhookAuthGoesThroughTheControlPlaneEgressSelection: as
// kube-apiserver's, the authentication and authorization webhooks are
// called through the "controlplane" egress selection.
func TestWebhookAuthGoesThroughTheControlPlaneEgressSelection(t *testing.T) {
	t.Parallel()
	proxy, conn := egressProxy(t, "HTTPConnect-UDS")
	authz := newReviewWebhook(t, sarAnswers)
	tokens := newReviewWebhook(t, tokenAnswers)
	cp := fakeplane.Start(t, fakeplane.WithEgressSelectorConfigFile(writeEgressConfig(t, "apiserver.k8s.io/v1beta1", map[string]string{"controlplane": conn})),
		fakeplane.WithAuthorizationMode("Webhook,RBAC"),
		fakeplane.WithAuthorizationWebhook(fakeplane.AuthorizationWebhookConfig{ConfigFile: authz.kubeconfig(t)}),
		fakeplane.WithAuthenticationTokenWebhook(fakeplane.TokenWebhook{ConfigFile: tokens.kubeconfig(t)}))
	if err := listIn(ctxT(t), tokenClient(cp, "alice-token"), "configmaps", "default"); err != nil {
		t.Fatal(err)
	}
	for name, hook := range map[string]*reviewWebhook{"token": tokens, "authorization": authz} {
		if len(hook.got()) == 0 || !dialedPort(proxy, portOf(t, hook.srv.URL)) {
			t.Errorf("the %s webhook was not called through the controlplane selection (proxy dials %v)", name, proxy.Dials())
		}
	}
}

// TestWebhookAuthLeavesNoGoroutineOrConnectionAfterStop: the webhooks'
// clients, caches and connections end with the control plane.
func TestWebhookAuthLeavesNoGoroutineOrConnectionAfterStop(t *testing.T) {
	// Not parallel: goleak compares with the goroutines from before the test.
	authz := newReviewWebhook(t, sarAnswers)
	tokens := newReviewWebhook(t, tokenAnswers)
	before := goleak.IgnoreCurrent()
	cp, err := fakeplane.New(fakeplane.WithAuthorizationConfigFile(writeAuthorizationConfig(t,
		webhookAuthorizer("hook", authz.kubeconfig(t), "v1", "NoOpinion"), "- type: RBAC\n  name: rbac\n")),
		fakeplane.WithAuthenticationTokenWebhook(fakeplane.TokenWebhook{ConfigFile: tokens.kubeconfig(t)}))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	if err := cp.Start(ctx); err != nil {
		t.Fatal(err)
	}
	client := tokenClient(cp, "alice-token")
	for _, resource := range []string{"configmaps", "pods"} {
		_ = listIn(ctx, client, resource, "default")
	}
	if _, err := whoAmI(ctx, tokenClient(cp, "mallory-token")); !apierrors.IsUnauthorized(err) {
		t.Errorf("mallory: want 401, got %v", err)
	}
	if len(authz.got()) == 0 || len(tokens.got()) == 0 {
		t.Fatal("the webhooks were not asked")
	}
	if err := cp.Stop(); err != nil {
		t.Fatal(err)
	}
	for name, hook := range map[string]*reviewWebhook{"token": tokens, "authorization": authz} {
		eventually(t, "the "+name+" webhook's connections closed", func() error {
			if n := hook.openConnections(); n != 0 {
				return fmt.Errorf("%d open", n)
			}
			return nil
		})
	}
	opts := append([]goleak.Option{before,
		// The test's own webhook servers.
		goleak.IgnoreAnyFunction("net/http.(*conn).serve"),
	}, goroutinesOutsideFakeplane...)
	if err := goleak.Find(opts...); err != nil {
		t.Errorf("goroutines outlived Stop: %v", err)
	}
}
