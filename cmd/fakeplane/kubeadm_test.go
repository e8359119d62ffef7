package main

import (
	"context"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"

	"github.com/fakeplane/fakeplane/internal/etcdtest"
	"github.com/fakeplane/fakeplane/internal/pki"
)

// TestRunsWithKubeadmsCommandLine runs the command with the flags kubeadm
// v1.37 writes in its kube-apiserver static pod manifest
// (cmd/kubeadm/app/phases/controlplane/manifests.go, an external etcd over
// TLS), on kubeadm's PKI layout, plus --kubeconfig for where fakeplane's
// own admin kubeconfig goes: a client with kubeadm's CA and an admin
// certificate that CA signed writes through it, and the object is in etcd.
func TestRunsWithKubeadmsCommandLine(t *testing.T) {
	etcd := etcdtest.StartTLS(t)
	prefix := etcdtest.Prefix(t)
	dir := t.TempDir()
	certs := filepath.Join(dir, "pki")
	if err := os.Mkdir(certs, 0o700); err != nil {
		t.Fatal(err)
	}
	write := func(name string, data []byte) string {
		t.Helper()
		p := filepath.Join(certs, name)
		if err := os.WriteFile(p, data, 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	ca, err := pki.NewCA("kubernetes")
	if err != nil {
		t.Fatal(err)
	}
	frontProxyCA, err := pki.NewCA("front-proxy-ca")
	if err != nil {
		t.Fatal(err)
	}
	if err := ca.Save(certs); err != nil { // ca.crt, ca.key
		t.Fatal(err)
	}
	if err := frontProxyCA.SaveAs(certs, pki.FrontProxyCAName); err != nil {
		t.Fatal(err)
	}
	serving, err := ca.NewServingCert("kube-apiserver", []string{"kubernetes", "kubernetes.default", "localhost"}, []net.IP{net.IPv4(127, 0, 0, 1)})
	if err != nil {
		t.Fatal(err)
	}
	kubeletClient, err := ca.NewClientCert("kube-apiserver-kubelet-client", "kubeadm:cluster-admins")
	if err != nil {
		t.Fatal(err)
	}
	frontProxyClient, err := frontProxyCA.NewClientCert("front-proxy-client")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := pki.LoadOrCreateServiceAccountKey(certs); err != nil { // sa.key, sa.pub
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	port := ln.Addr().(*net.TCPAddr).Port
	ln.Close()

	args := []string{
		"--advertise-address=192.0.2.10",
		"--allow-privileged=true",
		"--authorization-mode=Node,RBAC",
		"--client-ca-file=" + filepath.Join(certs, "ca.crt"),
		"--enable-admission-plugins=NodeRestriction",
		"--enable-bootstrap-token-auth=true",
		"--etcd-cafile=" + etcd.TLS.CAFile,
		"--etcd-certfile=" + etcd.TLS.CertFile,
		"--etcd-keyfile=" + etcd.TLS.KeyFile,
		"--etcd-servers=" + strings.Join(etcd.Endpoints, ","),
		"--kubelet-client-certificate=" + write("apiserver-kubelet-client.crt", kubeletClient.CertPEM),
		"--kubelet-client-key=" + write("apiserver-kubelet-client.key", kubeletClient.KeyPEM),
		"--kubelet-preferred-address-types=InternalIP,ExternalIP,Hostname",
		"--proxy-client-cert-file=" + write("front-proxy-client.crt", frontProxyClient.CertPEM),
		"--proxy-client-key-file=" + write("front-proxy-client.key", frontProxyClient.KeyPEM),
		"--requestheader-allowed-names=front-proxy-client",
		"--requestheader-client-ca-file=" + filepath.Join(certs, "front-proxy-ca.crt"),
		"--requestheader-extra-headers-prefix=X-Remote-Extra-",
		"--requestheader-group-headers=X-Remote-Group",
		"--requestheader-username-headers=X-Remote-User",
		"--secure-port=" + strconv.Itoa(port),
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + filepath.Join(certs, "sa.pub"),
		"--service-account-signing-key-file=" + filepath.Join(certs, "sa.key"),
		"--service-cluster-ip-range=10.96.0.0/12",
		"--tls-cert-file=" + write("apiserver.crt", serving.CertPEM),
		"--tls-private-key-file=" + write("apiserver.key", serving.KeyPEM),
		// Not kubeadm's: where the keys go in etcd, and fakeplane's own
		// admin kubeconfig.
		"--etcd-prefix=" + prefix,
		"--kubeconfig=" + filepath.Join(dir, "admin.kubeconfig"),
	}
	p := startFakeplane(t, nil, args...)

	admin, err := ca.NewClientCert("kubernetes-admin", "system:masters")
	if err != nil {
		t.Fatal(err)
	}
	cs, err := kubernetes.NewForConfig(&rest.Config{Host: p.url, TLSClientConfig: rest.TLSClientConfig{
		CAData: ca.CertPEM, CertData: admin.CertPEM, KeyData: admin.KeyPEM,
	}})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm"}}, metav1.CreateOptions{}); err != nil {
		t.Fatalf("create through kubeadm's CA and an admin certificate: %v", err)
	}
	svc, err := cs.CoreV1().Services("default").Get(ctx, "kubernetes", metav1.GetOptions{})
	if err != nil || svc.Spec.ClusterIP != "10.96.0.1" {
		t.Fatalf("the kubernetes Service: %v, %v; want 10.96.0.1 of --service-cluster-ip-range", svc, err)
	}
	etcdHas(ctx, t, etcd, prefix+"//configmaps/default/kubeadm")
}
