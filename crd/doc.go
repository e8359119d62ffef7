// Package crd is what fakeplane knows about CustomResourceDefinitions,
// apart from serving them: the rules kube-apiserver's apiextensions server
// applies, built on k8s.io/apiextensions-apiserver, without HTTP and without
// a store.
//
//   - A CRD write: Default and Validate (upstream's create and update
//     validation); SetStatus, what upstream's naming and establishing
//     controllers set (accepted names, the NamesAccepted and Established
//     conditions, stored versions), with AcceptNames the naming decision
//     alone; MarkForDeletion, upstream's CRD delete (the cleanup finalizer
//     and a Terminating condition).
//   - A served version: Schema is its structural schema. Decode does to a
//     request body what upstream's custom-resource decoder does (metadata
//     read as ObjectMeta, pruning, dropping non-nullable nulls without a
//     default, embedded resources' metadata, then defaults); Validate
//     validates custom resources (OpenAPI, embedded metadata, list types,
//     CEL rules within the cost budget, ratcheting on update), ValidateWith
//     in one 422 with the metadata's errors; DeprecationWarning is the
//     warning sent with its requests.
//   - Conversion: NewConverter translates a custom resource's JSON between a
//     served version and the version it is stored at ("None": apiVersion
//     only; "Webhook": through the CRD's conversion webhook, one
//     ConversionReview per list) with what upstream's storage codec does
//     around it: it refuses objects stored at a version the CRD no longer
//     has; what is read is coerced to and defaulted with the schema of the
//     version it is stored at, then, converted, pruned to the served
//     version's schema; what is written is pruned to the storage version's.
//     RecordStorageVersion keeps the storage version in
//     status.storedVersions. WebhookConverters builds the webhook clients;
//     a webhook given as a Service is reached through a resolver the caller
//     supplies.
//
// The server owns the glue: it calls these from its write path, and builds
// the served resources of an established CRD from them.
package crd
