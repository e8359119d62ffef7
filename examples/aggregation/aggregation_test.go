// Package aggregation is the extension API server set-up of "Configure the
// Aggregation Layer" / "Set up an Extension API Server" (seed steps 1-15),
// run with kubectl against fakeplane: the steps a person types, with a
// k8s.io/apiserver based extension server (internal/wardle) running in
// the test process in place of the Deployment's pod, and an ExternalName
// Service for this machine, as on a host without kube-proxy.
// It ends as the seed does: kubectl get flunders prints "No resources
// found".
package aggregation

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"

	"github.com/fakeplane/fakeplane"
	"github.com/fakeplane/fakeplane/examples/internal/walkthrough"
	"github.com/fakeplane/fakeplane/internal/wardle"
)

// Step is shorthand for walkthrough.Step.
type step = walkthrough.Step

func TestExtensionAPIServerSetUp(t *testing.T) {
	cp := fakeplane.Start(t)
	dir := t.TempDir()

	// Steps 4 and 5: a CA, and a serving certificate it signs for
	// api.wardle.svc (<service>.<namespace>.svc). The server listens
	// already; it serves once it can reach the control plane (below).
	ext, err := wardle.New("api", "wardle")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(ext.Stop)
	certPEM, keyPEM := ext.ServingCert()
	write(t, filepath.Join(dir, "tls.crt"), certPEM)
	write(t, filepath.Join(dir, "tls.key"), keyPEM)
	port := ext.Address()[strings.LastIndex(ext.Address(), ":")+1:]
	write(t, filepath.Join(dir, "service.yaml"), []byte(strings.ReplaceAll(read(t, "service.yaml.tmpl"), "PORT", port)))
	apiService := strings.ReplaceAll(read(t, "apiservice.yaml.tmpl"), "CABUNDLE", base64.StdEncoding.EncodeToString(ext.CABundle()))
	write(t, filepath.Join(dir, "apiservice.yaml"), []byte(strings.ReplaceAll(apiService, "PORT", port)))

	walkthrough.Run(t, cp, []step{
		// 1. The APIService API is enabled.
		{Args: []string{"api-resources", "--api-group", "apiregistration.k8s.io"}, Stdout: `(?m)^apiservices\s+apiregistration\.k8s\.io/v1\s+false\s+APIService$`},
		// 2. The admin may add APIService objects.
		{Args: []string{"auth", "can-i", "create", "apiservices.apiregistration.k8s.io"}, Stdout: `^yes$`},
		// 3. The namespace the extension API server runs in.
		{Args: []string{"create", "namespace", "wardle"}, Stdout: `^namespace/wardle created$`},
		// 6. The serving certificate as a Secret in that namespace.
		{Args: []string{"create", "secret", "tls", "wardle-serving-cert", "-n", "wardle", "--cert", filepath.Join(dir, "tls.crt"), "--key", filepath.Join(dir, "tls.key")},
			Stdout: `^secret/wardle-serving-cert created$`},
		// 7. Its Deployment, mounting the Secret.
		{Args: []string{"apply", "-f", "deployment.yaml"}, Stdout: `^deployment.apps/wardle-apiserver created$`},
		// 9. Its service account.
		{Args: []string{"create", "serviceaccount", "apiserver", "-n", "wardle"}, Stdout: `^serviceaccount/apiserver created$`},
		// 10. A cluster role for the operations on its resources.
		{Args: []string{"apply", "-f", "clusterrole.yaml"}, Stdout: `^clusterrole.rbac.authorization.k8s.io/wardle-flunders created$`},
		// 11. Bound to the service account.
		{Args: []string{"create", "clusterrolebinding", "wardle-flunders", "--clusterrole", "wardle-flunders", "--serviceaccount", "wardle:apiserver"},
			Stdout: `^clusterrolebinding.rbac.authorization.k8s.io/wardle-flunders created$`},
		// 12. The service account may delegate authentication and
		// authorization decisions (TokenReview, SubjectAccessReview).
		{Args: []string{"create", "clusterrolebinding", "wardle:system:auth-delegator", "--clusterrole", "system:auth-delegator", "--serviceaccount", "wardle:apiserver"},
			Stdout: `^clusterrolebinding.rbac.authorization.k8s.io/wardle:system:auth-delegator created$`},
		// 13. And read the extension-apiserver-authentication ConfigMap.
		{Args: []string{"create", "rolebinding", "wardle-auth-reader", "-n", "kube-system", "--role", "extension-apiserver-authentication-reader", "--serviceaccount", "wardle:apiserver"},
			Stdout: `^rolebinding.rbac.authorization.k8s.io/wardle-auth-reader created$`},
		// No kube-proxy: an ExternalName Service for this machine.
		{Args: []string{"apply", "-f", filepath.Join(dir, "service.yaml")}, Stdout: `^service/api created$`},
	})

	// 8. The server loads its certificates (it holds them) and, running as
	// the service account, reads the ConfigMap and starts serving.
	sa, err := cp.ServiceAccountConfig("wardle", "apiserver")
	if err != nil {
		t.Fatal(err)
	}
	kc := clientcmdapi.NewConfig()
	kc.Clusters["fakeplane"] = &clientcmdapi.Cluster{Server: sa.Host, CertificateAuthorityData: sa.CAData}
	kc.AuthInfos["apiserver"] = &clientcmdapi.AuthInfo{Token: sa.BearerToken}
	kc.Contexts["fakeplane"] = &clientcmdapi.Context{Cluster: "fakeplane", AuthInfo: "apiserver"}
	kc.CurrentContext = "fakeplane"
	kubeconfig := filepath.Join(dir, "wardle.kubeconfig")
	if err := clientcmd.WriteToFile(*kc, kubeconfig); err != nil {
		t.Fatal(err)
	}
	if err := ext.Start(kubeconfig); err != nil {
		t.Fatal(err)
	}

	walkthrough.Run(t, cp, []step{
		// 14. The APIService.
		{Args: []string{"apply", "-f", filepath.Join(dir, "apiservice.yaml")}, Stdout: `^apiservice.apiregistration.k8s.io/v1alpha1.wardle.example.com created$`},
		{Args: []string{"wait", "--for=condition=Available", "apiservice/v1alpha1.wardle.example.com", "--timeout=60s"},
			Stdout: `^apiservice.apiregistration.k8s.io/v1alpha1.wardle.example.com condition met$`},
		{Args: []string{"get", "apiservice", "v1alpha1.wardle.example.com"}, Stdout: `(?m)^v1alpha1\.wardle\.example\.com\s+wardle/api\s+True\s+`},
		{Args: []string{"api-resources", "--api-group", "wardle.example.com"}, Stdout: `(?m)^flunders\s+wardle\.example\.com/v1alpha1\s+true\s+Flunder$`},
		// 15. kubectl gets the resource: "No resources found".
		{Args: []string{"get", "flunders"}, Stdout: `^$`, Stderr: `^No resources found in default namespace\.\n$`},
	})
	if got := ext.Seen(); len(got) == 0 || got[len(got)-1].GetName() != fakeplane.AdminUser {
		t.Errorf("the extension server did not see kubectl's user %s: %v", fakeplane.AdminUser, got)
	}
	if n, err := strconv.Atoi(port); err != nil || n == 0 {
		t.Errorf("port %q", port)
	}
}

func write(t *testing.T, path string, b []byte) {
	t.Helper()
	if err := os.WriteFile(path, b, 0o600); err != nil {
		t.Fatal(err)
	}
}

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}
