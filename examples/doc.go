// Package examples holds runnable, tested examples of fakeplane, one folder
// per walkthrough. Each folder's test starts a control plane with
// fakeplane.Start and drives it the way the walkthrough does.
package examples
