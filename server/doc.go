// Package server is the HTTP side of fakeplane's API server: it
// authenticates a request, authorizes it, parses it the way kube-apiserver
// does (k8s.io/apiserver's RequestInfoFactory), and serves discovery,
// health, version, OpenAPI and the REST verbs of every served resource, one
// file per verb (get, list, watch, create, update, patch, apply, delete),
// over the read and write pipeline of package registry, which a Server
// embeds. The group/versions of APIServices with a service go, once
// authorized, to the Aggregator (package aggregator's proxy), and
// discovery merges them in.
//
// Objects are stored as the JSON of their storage version with
// metadata.resourceVersion stamped at commit, so a get or a list writes
// stored bytes (converted to the requested version when it differs)
// straight to the client, as JSON, YAML, protobuf, a Table or partial
// object metadata.
package server
