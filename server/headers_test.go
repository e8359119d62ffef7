package server

import "testing"

func TestHeadersConfigValidatesAsKubeAPIServer(t *testing.T) {
	// Recorded from kube-apiserver v1.37.2.
	const help = ", help: " + corsAllowedOriginsHelp
	for _, tt := range []struct {
		name string
		c    HeadersConfig
		want string
	}{
		{"nothing", HeadersConfig{}, ""},
		{"pinned origins and directives", HeadersConfig{CORSAllowedOrigins: []string{`//example\.com(:|$)`, `^https://ui\.local$`}, HSTSDirectives: []string{"max-age=31536000", "includeSubDomains", "preload"}}, ""},
		{"an origin not pinned", HeadersConfig{CORSAllowedOrigins: []string{"example.com"}},
			"--cors-allowed-origins has an invalid regular expression: regular expression does not pin to start/end of host in the origin header" + help},
		{"an origin that does not compile", HeadersConfig{CORSAllowedOrigins: []string{`^a($`}},
			"--cors-allowed-origins has an invalid regular expression: error parsing regexp: missing closing ): `^a($`" + help},
		{"an empty origin", HeadersConfig{CORSAllowedOrigins: []string{`^a$`, "", `^b$`}}, "empty value in --cors-allowed-origins" + help},
		{"a directive not one", HeadersConfig{HSTSDirectives: []string{"foo", "preload"}},
			"--strict-transport-security-directives invalid, allowed values: max-age=expireTime, includeSubDomains, preload. see https://tools.ietf.org/html/rfc6797#section-6.1 for more information"},
		{"an empty directive", HeadersConfig{HSTSDirectives: []string{"max-age=1", "", "preload"}}, "empty value in strict-transport-security-directives"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			err := tt.c.Validate()
			if (err == nil) != (tt.want == "") || err != nil && err.Error() != tt.want {
				t.Fatalf("%v, want %q", err, tt.want)
			}
		})
	}
}
