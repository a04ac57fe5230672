package scorecards

import (
	"bufio"
	"fmt"
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"strings"
)

// Machine is the fingerprint of the machine a run used (§5.6). Two runs are
// comparable only when CPU model, cores and GOMAXPROCS agree.
type Machine struct {
	OS       string `json:"os"`
	Arch     string `json:"arch"`
	CPUModel string `json:"cpuModel"`
	// Cores is the number of logical CPUs usable by the process.
	Cores int `json:"cores"`
	// GOMAXPROCS is the harness' GOMAXPROCS, which follows container CPU
	// limits.
	GOMAXPROCS int `json:"gomaxprocs"`
	// MemoryBytes is the total memory (MemTotal), 0 when unknown.
	MemoryBytes uint64 `json:"memoryBytes"`
	// Kernel is the kernel release, empty when unknown.
	Kernel string `json:"kernel"`
}

// SameFingerprint reports whether m and o have the same CPU model, cores
// and GOMAXPROCS, which makes their runs comparable.
func (m Machine) SameFingerprint(o Machine) bool {
	return m.CPUModel == o.CPUModel && m.Cores == o.Cores && m.GOMAXPROCS == o.GOMAXPROCS
}

// Fingerprint renders the fields that decide comparability.
func (m Machine) Fingerprint() string {
	return fmt.Sprintf("%s, %d cores, GOMAXPROCS %d", orDash(m.CPUModel), m.Cores, m.GOMAXPROCS)
}

// CurrentMachine describes the machine the process runs on. On Linux it
// reads the CPU model from /proc/cpuinfo, the memory from /proc/meminfo and
// the kernel release from /proc/sys/kernel/osrelease; elsewhere, or when a
// file cannot be read, those fields stay empty.
func CurrentMachine() Machine {
	m := Machine{
		OS:         runtime.GOOS,
		Arch:       runtime.GOARCH,
		Cores:      runtime.NumCPU(),
		GOMAXPROCS: runtime.GOMAXPROCS(0),
	}
	if runtime.GOOS == "linux" {
		readProc(&m, os.DirFS("/"))
	}
	return m
}

// readProc fills the CPU model, memory and kernel of m from the proc files
// of the file system fsys rooted at "/".
func readProc(m *Machine, fsys fs.FS) {
	if b, err := fs.ReadFile(fsys, "proc/cpuinfo"); err == nil {
		m.CPUModel = cpuModel(string(b))
	}
	if b, err := fs.ReadFile(fsys, "proc/meminfo"); err == nil {
		m.MemoryBytes = memTotal(string(b))
	}
	if b, err := fs.ReadFile(fsys, "proc/sys/kernel/osrelease"); err == nil {
		m.Kernel = strings.TrimSpace(string(b))
	}
}

// cpuModel returns the CPU model named in the text of /proc/cpuinfo: the
// first of the keys architectures use for it, or the ARM implementer and
// part numbers when no key names it.
func cpuModel(cpuinfo string) string {
	fields := map[string]string{}
	sc := bufio.NewScanner(strings.NewReader(cpuinfo))
	for sc.Scan() {
		k, v, ok := strings.Cut(sc.Text(), ":")
		if !ok {
			continue
		}
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if _, seen := fields[k]; !seen && v != "" {
			fields[k] = v
		}
	}
	// x86, old ARM, MIPS, RISC-V, SoC name, POWER.
	for _, k := range []string{"model name", "Processor", "cpu model", "uarch", "Hardware", "cpu"} {
		if v := fields[k]; v != "" {
			return strings.Join(strings.Fields(v), " ")
		}
	}
	if impl, part := fields["CPU implementer"], fields["CPU part"]; impl != "" || part != "" {
		return fmt.Sprintf("ARM implementer %s part %s", orDash(impl), orDash(part))
	}
	return ""
}

// memTotal returns MemTotal in bytes from the text of /proc/meminfo, 0 when
// it is missing.
func memTotal(meminfo string) uint64 {
	sc := bufio.NewScanner(strings.NewReader(meminfo))
	for sc.Scan() {
		f := strings.Fields(sc.Text())
		if len(f) < 2 || f[0] != "MemTotal:" {
			continue
		}
		n, err := strconv.ParseUint(f[1], 10, 64)
		if err != nil {
			return 0
		}
		if len(f) >= 3 && strings.EqualFold(f[2], "kB") {
			n *= 1024
		}
		return n
	}
	return 0
}
