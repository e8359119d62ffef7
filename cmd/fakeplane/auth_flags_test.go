package main

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
	"time"

	authenticationv1 "k8s.io/api/authentication/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
)

// TestAuthFlagsAndUserKubeconfig starts the command with a token file and a
// data directory, writes a kubeconfig for another user with
// `fakeplane kubeconfig`, and checks who each credential is.
func TestAuthFlagsAndUserKubeconfig(t *testing.T) {
	dir := t.TempDir()
	tokens := filepath.Join(dir, "tokens.csv")
	if err := os.WriteFile(tokens, []byte("# token,user,uid,groups\ntok123,tina,u1,\"ops,devs\"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	data := filepath.Join(dir, "data")
	admin := filepath.Join(dir, "admin.kubeconfig")
	p := startFakeplane(t, nil, "--listen", "127.0.0.1:0", "--data-dir", data, "--kubeconfig", admin, "--token-auth-file", tokens, "--anonymous-auth=false")

	alice := filepath.Join(dir, "alice.kubeconfig")
	if err := run([]string{"kubeconfig", "--data-dir", data, "--user", "alice", "--group", "devs", "--group", "qa", "--out", alice}); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	whoami := func(cfg *rest.Config) (authenticationv1.UserInfo, error) {
		cs, err := kubernetes.NewForConfig(cfg)
		if err != nil {
			return authenticationv1.UserInfo{}, err
		}
		ssr, err := cs.AuthenticationV1().SelfSubjectReviews().Create(ctx, &authenticationv1.SelfSubjectReview{}, metav1.CreateOptions{})
		if err != nil {
			return authenticationv1.UserInfo{}, err
		}
		return ssr.Status.UserInfo, nil
	}
	aliceCfg, err := clientcmd.BuildConfigFromFlags("", alice)
	if err != nil {
		t.Fatal(err)
	}
	// The groups come in the certificate's (DER-sorted) order.
	if ui, err := whoami(aliceCfg); err != nil || ui.Username != "alice" || strings.Join(sorted(ui.Groups), ",") != "devs,qa,system:authenticated" {
		t.Errorf("alice's kubeconfig: %v %+v", err, ui)
	}
	tokenCfg := &rest.Config{Host: p.url, BearerToken: "tok123", TLSClientConfig: rest.TLSClientConfig{CAData: aliceCfg.CAData}}
	if ui, err := whoami(tokenCfg); err != nil || ui.Username != "tina" || ui.UID != "u1" || strings.Join(ui.Groups, ",") != "ops,devs,system:authenticated" {
		t.Errorf("static token: %v %+v", err, ui)
	}
	anon := &rest.Config{Host: p.url, TLSClientConfig: rest.TLSClientConfig{CAData: aliceCfg.CAData}}
	if _, err := whoami(anon); !apierrors.IsUnauthorized(err) {
		t.Errorf("--anonymous-auth=false: want 401, got %v", err)
	}
}

func sorted(s []string) []string {
	out := append([]string(nil), s...)
	sort.Strings(out)
	return out
}
