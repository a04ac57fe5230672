package target

import (
	"errors"
	"fmt"
	"os"
	"runtime/pprof"
)

// ProfileEnv, in the harness's environment, makes every child server the
// harness starts (the embedded reference server and the no-op server) write
// a CPU profile of its whole life to <value>.<pid>.pprof, and its
// allocations (the runtime's sampled allocs profile) to
// <value>.<pid>.allocs.pprof when it stops, to find where a load tier's time
// and garbage come from on each side.
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
		if err := writeProfile("allocs", fmt.Sprintf("%s.%d.allocs.pprof", prefix, os.Getpid())); err != nil {
			fmt.Fprintf(os.Stderr, "%s: allocation profile: %v\n", name, err)
		}
	}
}

// writeProfile writes the runtime profile name to path.
func writeProfile(name, path string) error {
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	return errors.Join(pprof.Lookup(name).WriteTo(f, 0), f.Close())
}
