package scorecards

import (
	"runtime"
	"testing"
	"testing/fstest"
)

func TestCPUModel(t *testing.T) {
	cases := map[string]string{
		"processor\t: 0\nvendor_id\t: GenuineIntel\nmodel name\t: Intel(R) Xeon(R)  CPU @ 2.20GHz\n\nprocessor\t: 1\nmodel name\t: other\n": "Intel(R) Xeon(R) CPU @ 2.20GHz",
		"processor\t: 0\nBogoMIPS\t: 50.00\nCPU implementer\t: 0x41\nCPU part\t: 0xd0c\n":                                                   "ARM implementer 0x41 part 0xd0c",
		"processor\t: 0\nuarch\t\t: sifive,u74-mc\n":                                                                                        "sifive,u74-mc",
		"": "",
	}
	for in, want := range cases {
		if got := cpuModel(in); got != want {
			t.Errorf("cpuModel(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestMemTotal(t *testing.T) {
	if got := memTotal("MemFree:  10 kB\nMemTotal:       16303480 kB\n"); got != 16303480*1024 {
		t.Fatalf("memTotal = %d", got)
	}
	if got := memTotal("MemFree: 10 kB\n"); got != 0 {
		t.Fatalf("memTotal without MemTotal = %d", got)
	}
}

func TestReadProc(t *testing.T) {
	fsys := fstest.MapFS{
		"proc/cpuinfo":              {Data: []byte("model name : AMD EPYC 7B13\n")},
		"proc/meminfo":              {Data: []byte("MemTotal: 1024 kB\n")},
		"proc/sys/kernel/osrelease": {Data: []byte("6.1.0-18-amd64\n")},
	}
	var m Machine
	readProc(&m, fsys)
	if m.CPUModel != "AMD EPYC 7B13" || m.MemoryBytes != 1<<20 || m.Kernel != "6.1.0-18-amd64" {
		t.Fatalf("machine %+v", m)
	}
	var empty Machine
	readProc(&empty, fstest.MapFS{})
	if empty != (Machine{}) {
		t.Fatalf("missing proc files filled %+v", empty)
	}
}

func TestCurrentMachine(t *testing.T) {
	m := CurrentMachine()
	if m.OS != runtime.GOOS || m.Arch != runtime.GOARCH || m.Cores != runtime.NumCPU() || m.GOMAXPROCS != runtime.GOMAXPROCS(0) {
		t.Fatalf("machine %+v", m)
	}
	if runtime.GOOS == "linux" && (m.Kernel == "" || m.MemoryBytes == 0) {
		t.Fatalf("on Linux the kernel and memory must be read from /proc: %+v", m)
	}
	if !m.SameFingerprint(CurrentMachine()) {
		t.Fatal("the current machine differs from itself")
	}
}
