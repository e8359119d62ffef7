// Package cafile keeps the CA bundles that verify client certificates, as
// kube-apiserver keeps --client-ca-file and --requestheader-client-ca-file
// (k8s.io/apiserver's DynamicFileCAContent): a File is read at start and
// again whenever the file changes (seen at once through inotify, with
// fsnotify), a content that does not load is logged and tried again while
// the last good bundle stays in use. Static and Union make bundles of PEM
// given once and of several sources, so that a caller reads every source
// the same way.
package cafile
