package kb

import (
	"os"
	"strconv"
	"strings"
	"syscall"
)

// totalMemory is the memory this process may use: the machine's, or the
// cgroup's limit when lower; 0 when neither can be read.
func totalMemory() int64 {
	var total int64
	var si syscall.Sysinfo_t
	if syscall.Sysinfo(&si) == nil {
		total = int64(si.Totalram) * int64(si.Unit)
	}
	for _, p := range []string{"/sys/fs/cgroup/memory.max", "/sys/fs/cgroup/memory/memory.limit_in_bytes"} {
		b, err := os.ReadFile(p)
		if err != nil {
			continue
		}
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 && (total == 0 || n < total) {
			total = n
		}
	}
	return total
}
