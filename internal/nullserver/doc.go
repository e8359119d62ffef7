// Package nullserver is an HTTPS server, with HTTP/2 as fakeplane's, that
// answers Kubernetes API requests with bytes given to it and does no API
// work: no authentication, no storage, no encoding but one watch frame per
// create. The benchmarks measure against it what is left of a figure when
// the server does nothing: client-go, HTTP/2 and TLS on the machine. That is
// a floor for fakeplane's figure, and, divided by kube-apiserver's, for the
// ratio between them.
//
//	s := nullserver.Start(nullserver.Answers{Object: get, EmptyList: empty})
//	defer s.Close()
//	c, _ := kubernetes.NewForConfig(s.RESTConfig())
package nullserver
