package suites

import (
	"github.com/sharechaos/sharechaos/internal/cluster/embedded"
	"github.com/sharechaos/sharechaos/internal/netdelay"
	"github.com/sharechaos/sharechaos/internal/role"
	"github.com/sharechaos/sharechaos/workloads/worker"
)

// RunChildRole runs this process's child role, if it has one, and reports
// whether it did. The sharechaos main and every TestMain that starts children
// call it first:
//
//	if code, ok := suites.RunChildRole(os.Args[1:]); ok { os.Exit(code) }
func RunChildRole(args []string) (code int, ok bool) {
	switch role.Current() {
	case worker.Role:
		return worker.Main(args), true
	case worker.ControlRole:
		return worker.ControlMain(args), true
	case embedded.BrokerRole:
		return embedded.BrokerMain(args), true
	case netdelay.Role:
		return netdelay.Main(args), true
	}
	return 0, false
}
