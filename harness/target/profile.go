package target

import (
	"fmt"
	"os"
	"runtime/pprof"
)

// ProfileEnv, in the harness's environment, makes every child server the
// harness starts (the embedded reference server and the no-op server) write
// a CPU profile of its whole life to <value>.<pid>.pprof, to find where a
// load tier's time goes on each side.
const ProfileEnv = "TBBENCH_SERVER_CPUPROFILE"

// StartChildProfile starts the CPU profile ProfileEnv asks for and returns
// what stops it; a profile that can not be started is reported on stderr
// and skipped. Child servers call it first.
func StartChildProfile(name string) (stop func()) {
	prefix := os.Getenv(ProfileEnv)
	if prefix == "" {
		return func() {}
	}
	f, err := os.Create(fmt.Sprintf("%s.%d.pprof", prefix, os.Getpid()))
	if err == nil {
		err = pprof.StartCPUProfile(f)
	}
	if err != nil {
		fmt.Fprintf(os.Stderr, "%s: CPU profile: %v\n", name, err)
		return func() {}
	}
	return func() {
		pprof.StopCPUProfile()
		f.Close()
	}
}
