package kubelet

import (
	"io"
	"net"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/fakeplane/fakeplane/internal/pki"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/client-go/rest"
)

// testPods is a podSource whose pods a test sets.
type testPods struct {
	mu   sync.Mutex
	pods map[string]*corev1.Pod
}

func (p *testPods) pod(namespace, name string) (*corev1.Pod, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	pod, ok := p.pods[namespace+"/"+name]
	return pod, ok
}

func (p *testPods) list() []*corev1.Pod {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []*corev1.Pod
	for _, pod := range p.pods {
		out = append(out, pod)
	}
	return out
}

func (p *testPods) set(pod *corev1.Pod) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.pods[pod.Namespace+"/"+pod.Name] = pod
}

// testAPI is a kubelet API server on loopback and a client of it with a
// certificate of the cluster CA, as kube-apiserver's.
type testAPI struct {
	api    *APIServer
	pods   *testPods
	ca     *pki.CA
	rest   *rest.Config
	client *http.Client
}

// startTestAPI serves the pods with the given configuration until the
// test ends.
func startTestAPI(t *testing.T, debug DebugConfig, now func() time.Time, pods ...*corev1.Pod) *testAPI {
	t.Helper()
	ca, err := pki.NewCA("test-ca")
	if err != nil {
		t.Fatal(err)
	}
	serving, err := ca.NewServingCert("kubelet", []string{"localhost"}, []net.IP{net.ParseIP("127.0.0.1")})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := serving.TLSCertificate()
	if err != nil {
		t.Fatal(err)
	}
	tp := &testPods{pods: map[string]*corev1.Pod{}}
	for _, p := range pods {
		tp.set(p)
	}
	a, err := newAPIServer(APIConfig{Certificate: cert, ClientCAs: ca.Pool(), Debug: debug, Now: now}, tp)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(a.stop)
	client, err := ca.NewClientCert("kube-apiserver-kubelet-client", "kubeadm:cluster-admins")
	if err != nil {
		t.Fatal(err)
	}
	rc := &rest.Config{
		Host: a.URL(),
		TLSClientConfig: rest.TLSClientConfig{
			CAData: ca.CertPEM, CertData: client.CertPEM, KeyData: client.KeyPEM,
		},
	}
	hc, err := rest.HTTPClientFor(rc)
	if err != nil {
		t.Fatal(err)
	}
	return &testAPI{api: a, pods: tp, ca: ca, rest: rc, client: hc}
}

// get answers a GET of path with the test client.
func (ta *testAPI) get(t *testing.T, path string) (int, string) {
	t.Helper()
	resp, err := ta.client.Get(ta.api.URL() + path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, string(body)
}

// runningPod is a pod whose containers run, as the simulator reports them.
func runningPod(namespace, name string, containers ...string) *corev1.Pod {
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Namespace: namespace, Name: name, UID: types.UID("uid-" + name)},
		Spec:       corev1.PodSpec{NodeName: "node-0"},
		Status:     corev1.PodStatus{Phase: corev1.PodRunning},
	}
	for _, c := range containers {
		pod.Spec.Containers = append(pod.Spec.Containers, corev1.Container{Name: c, Image: "busybox"})
		pod.Status.ContainerStatuses = append(pod.Status.ContainerStatuses, corev1.ContainerStatus{
			Name:        c,
			ContainerID: "containerd://" + name + "-" + c,
			State:       corev1.ContainerState{Running: &corev1.ContainerStateRunning{}},
			Ready:       true,
		})
	}
	return pod
}
