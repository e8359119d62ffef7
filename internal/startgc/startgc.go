// Package startgc keeps the garbage collector off while a command starts.
//
// A control plane's start allocates a few megabytes a millisecond (package
// initialisation, the bootstrap objects), so the collector, whose first
// goal is 4 MB, runs three or four cycles before the server answers, a
// sizeable part of a start measured in tens of milliseconds. A main
// package imports this one (blank, so that its initialisation runs before
// that of most packages: it depends on nothing but runtime/debug) and calls
// Restore once it has started; the heap is then some 15 MB.
package startgc

import "runtime/debug"

// previous is the collector's setting (GOGC) before the start.
var previous = debug.SetGCPercent(-1)

// Restore turns the collector back on, as GOGC had it. Call it once the
// start is over; calling it again does nothing more.
func Restore() { debug.SetGCPercent(previous) }
