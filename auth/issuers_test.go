package auth

import (
	"context"
	"strings"
	"testing"

	"k8s.io/apiserver/pkg/authentication/authenticator"
)

// TestServiceAccountTokensAcceptEveryIssuer: as kube-apiserver with several
// --service-account-issuer, tokens are issued by the first and those of
// every one are accepted, and the API audiences default to all of them.
func TestServiceAccountTokensAcceptEveryIssuer(t *testing.T) {
	g := newFakeGetter()
	sa := g.addSA("ns1", "robot", "sa-uid-1")
	tokens, err := NewServiceAccountTokens(nil, g)
	if err != nil {
		t.Fatal(err)
	}
	// A token of the old issuer, from before the move.
	tokens.Issuer = "https://old.example.com"
	old, _, err := tokens.Issue(sa, []string{"https://old.example.com"}, 3600, nil)
	if err != nil {
		t.Fatal(err)
	}
	tokens.Issuer, tokens.ExtraIssuers = "https://new.example.com", []string{"https://old.example.com"}
	if got := tokens.Audiences(); strings.Join(got, ",") != "https://new.example.com,https://old.example.com" {
		t.Errorf("API audiences %v, want both issuers", got)
	}
	fresh, _, err := tokens.Issue(sa, nil, 3600, nil)
	if err != nil {
		t.Fatal(err)
	}
	for name, tok := range map[string]string{"the old issuer's": old, "the new issuer's": fresh} {
		resp, ok, err := tokens.AuthenticateToken(authenticator.WithAudiences(context.Background(), tokens.Audiences()), tok)
		if !ok || err != nil || resp.User.GetName() != "system:serviceaccount:ns1:robot" {
			t.Errorf("%s token: %v %v", name, ok, err)
		}
	}
	tokens.ExtraIssuers = nil
	if _, ok, err := tokens.AuthenticateToken(context.Background(), old); ok || err != nil {
		t.Errorf("a token of an issuer no longer listed is not the authenticator's: %v %v", ok, err)
	}
}

func TestValidateServiceAccountFlagsAsKubeAPIServer(t *testing.T) {
	tests := []struct {
		name    string
		issuers []string
		jwks    string
		want    string
	}{
		{name: "https issuers, a non-URL issuer and an https key set are fine", issuers: []string{"https://a", "b"}, jwks: "https://a/keys"},
		{name: "a repeated issuer", issuers: []string{"https://a", "https://a"}, want: `service-account-issuer "https://a" is already specified`},
		{name: "an empty issuer", issuers: []string{""}, want: "service-account-issuer should not be an empty string"},
		{name: "an issuer with ':' that does not parse", issuers: []string{"http://[::1"}, want: `service-account-issuer "http://[::1" contained a ':' but was not a valid URL: parse "http://[::1": missing ']' in host`},
		{name: "a key set over http", jwks: "http://a/keys", want: "service-account-jwks-uri requires https scheme, parsed as: http://a/keys"},
		{name: "a key set URI that does not parse", jwks: "https://[::1", want: `service-account-jwks-uri must be a valid URL: parse "https://[::1": missing ']' in host`},
		{name: "every error together", issuers: []string{"", "https://a", "https://a"}, jwks: "http://a/keys",
			want: `[service-account-issuer should not be an empty string, service-account-issuer "https://a" is already specified, service-account-jwks-uri requires https scheme, parsed as: http://a/keys]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			err := ValidateServiceAccountFlags(tt.issuers, tt.jwks)
			if got := ""; err != nil {
				got = err.Error()
				if got != tt.want {
					t.Errorf("got %q, want %q", got, tt.want)
				}
			} else if tt.want != "" {
				t.Errorf("no error, want %q", tt.want)
			}
		})
	}
}
