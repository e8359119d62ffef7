package etcdtest

import (
	"os"

	"go.etcd.io/etcd/server/v3/etcdmain"
)

// MainEnv is the environment variable that makes a test binary etcd: a
// TestMain that calls MainIfAsked first runs etcd instead of its tests when
// it is set, so that a test can hand os.Args[0] to a program that starts
// etcd (envtest) with MainEnv in that program's environment.
const MainEnv = "FAKEPLANE_ETCDTEST_MAIN"

// Main runs etcd's own command line (go.etcd.io/etcd/server/v3/etcdmain)
// in this process, args being the command line with the program's name
// first, as the etcd binary would: etcd serves until SIGTERM or SIGINT,
// then stops and ends the process as the etcd binary does (it re-raises
// the signal); a bad flag or a failed start exits the process too. It
// returns only after etcd's gateway and grpc-proxy subcommands. Main takes
// over the process (signal handlers, global loggers): call it in a process
// of its own, never beside tests.
func Main(args []string) {
	etcdmain.Main(args)
}

// MainIfAsked runs Main with os.Args and exits when $FAKEPLANE_ETCDTEST_MAIN
// is set, and returns at once otherwise.
func MainIfAsked() {
	if os.Getenv(MainEnv) == "" {
		return
	}
	Main(os.Args)
	os.Exit(0)
}
