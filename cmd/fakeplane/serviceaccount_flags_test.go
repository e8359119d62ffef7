package main

import (
	"context"
	"crypto/rand"
	"crypto/rsa"
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"encoding/pem"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/tools/clientcmd"
)

// TestServiceAccountFlags: the command's service-account flags reach the
// control plane as kube-apiserver's: repeated --service-account-issuer
// (the first issues), --api-audiences comma-separated and repeatable, an
// RSA --service-account-signing-key-file with its public half in
// --service-account-key-file, and --service-account-extend-token-expiration=false;
// --service-account-max-token-expiration's start-up warning goes to stderr.
func TestServiceAccountFlags(t *testing.T) {
	dir := t.TempDir()
	key, err := rsa.GenerateKey(rand.Reader, 2048)
	if err != nil {
		t.Fatal(err)
	}
	pubDER, err := x509.MarshalPKIXPublicKey(&key.PublicKey)
	if err != nil {
		t.Fatal(err)
	}
	keyFile, pubFile := filepath.Join(dir, "sa.key"), filepath.Join(dir, "sa.pub")
	if err := os.WriteFile(keyFile, pem.EncodeToMemory(&pem.Block{Type: "RSA PRIVATE KEY", Bytes: x509.MarshalPKCS1PrivateKey(key)}), 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(pubFile, pem.EncodeToMemory(&pem.Block{Type: "PUBLIC KEY", Bytes: pubDER}), 0o600); err != nil {
		t.Fatal(err)
	}
	kc := filepath.Join(dir, "admin.kubeconfig")
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--kubeconfig", kc,
		"--service-account-issuer", "https://new.example", "--service-account-issuer", "https://old.example",
		"--api-audiences", "https://new.example,vault", "--api-audiences", "https://old.example",
		"--service-account-signing-key-file", keyFile, "--service-account-key-file", pubFile,
		"--service-account-extend-token-expiration=false", "--service-account-max-token-expiration", "2h")
	cfg, err := clientcmd.BuildConfigFromFlags("", kc)
	if err != nil {
		t.Fatal(err)
	}
	cs := kubernetes.NewForConfigOrDie(cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()

	if want := "service-account-extend-token-expiration is true"; strings.Contains(p.stderr.String(), want) {
		t.Errorf("stderr warns %q though extension is off:\n%s", want, p.stderr)
	}
	var sa *corev1.ServiceAccount
	for sa == nil {
		if sa, err = cs.CoreV1().ServiceAccounts("default").Get(ctx, "default", metav1.GetOptions{}); err != nil {
			sa = nil
			if ctx.Err() != nil {
				t.Fatal(err)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	pod, err := cs.CoreV1().Pods("default").Create(ctx, &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: "p"},
		Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "busybox"}}},
	}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	exp := int64(3607)
	tr, err := cs.CoreV1().ServiceAccounts("default").CreateToken(ctx, "default", &authenticationv1.TokenRequest{Spec: authenticationv1.TokenRequestSpec{
		ExpirationSeconds: &exp,
		BoundObjectRef:    &authenticationv1.BoundObjectReference{Kind: "Pod", APIVersion: "v1", Name: pod.Name, UID: pod.UID},
	}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if want := []string{"https://new.example", "vault", "https://old.example"}; !slices.Equal(tr.Spec.Audiences, want) {
		t.Errorf("audiences %v, want %v", tr.Spec.Audiences, want)
	}
	parts := strings.Split(tr.Status.Token, ".")
	header, _ := base64.RawURLEncoding.DecodeString(parts[0])
	payload, _ := base64.RawURLEncoding.DecodeString(parts[1])
	var claims struct {
		Iss      string
		Exp, Iat int64
	}
	if err := json.Unmarshal(payload, &claims); err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(header), `{"alg":"RS256","kid":"`) || claims.Iss != "https://new.example" || claims.Exp-claims.Iat != 3607 {
		t.Errorf("header %s, claims %s", header, payload)
	}
	review, err := cs.AuthenticationV1().TokenReviews().Create(ctx, &authenticationv1.TokenReview{Spec: authenticationv1.TokenReviewSpec{Token: tr.Status.Token}}, metav1.CreateOptions{})
	if err != nil || !review.Status.Authenticated {
		t.Errorf("TokenReview: %v %+v", err, review.Status)
	}
	body, err := cs.Discovery().RESTClient().Get().AbsPath("/.well-known/openid-configuration").DoRaw(ctx)
	if err != nil || !strings.Contains(string(body), `"issuer":"https://new.example"`) || !strings.Contains(string(body), `"id_token_signing_alg_values_supported":["RS256"]`) {
		t.Errorf("discovery document %s (%v)", body, err)
	}
}

// TestServiceAccountFlagsAreChecked: bad service-account flags stop the
// command with kube-apiserver's errors, on one line.
func TestServiceAccountFlagsAreChecked(t *testing.T) {
	dir := t.TempDir()
	tests := []struct {
		name string
		args []string
		want string
	}{
		{name: "a repeated issuer", args: []string{"--service-account-issuer", "https://a", "--service-account-issuer", "https://a"},
			want: `service-account-issuer "https://a" is already specified`},
		{name: "a key set URI over http", args: []string{"--service-account-jwks-uri", "http://a/keys"},
			want: "service-account-jwks-uri requires https scheme, parsed as: http://a/keys"},
		{name: "a longest token under an hour", args: []string{"--service-account-max-token-expiration", "30m"},
			want: "the service-account-max-token-expiration must be between 1 hour and 2^32 seconds"},
		{name: "a signing key file that does not exist", args: []string{"--service-account-signing-key-file", filepath.Join(dir, "nope")},
			want: "failed to parse service-account-issuer-key-file: open " + filepath.Join(dir, "nope") + ": no such file or directory"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append([]string{"--listen", "127.0.0.1:0", "--kubeconfig", filepath.Join(t.TempDir(), "k")}, tt.args...)
			err := run(args)
			if err == nil || !strings.Contains(err.Error(), tt.want) || strings.Contains(err.Error(), "\n") {
				t.Errorf("%v, want one line with %q", err, tt.want)
			}
		})
	}
}
