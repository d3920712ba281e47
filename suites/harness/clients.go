package harness

import (
	"slices"
	"strings"

	"github.com/sharechaos/sharechaos/suites/workerset"
	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// checkClients is --client's usage check, before anything runs: clients
// the table knows, each named once, each finding what it needs on this
// machine and running the transactional realizations the run may pick.
func (c Common) checkClients() error {
	for i, name := range c.Clients {
		cl, ok := workerset.LookupClient(name)
		if !ok || name == "" {
			return Usagef("--client %q: want one of %s", name, strings.Join(workerset.ClientNames(), ", "))
		}
		if slices.Contains(c.Clients[:i], name) {
			return Usagef("--client %s: given twice", name)
		}
		// Alone, a client that cannot run the realization the run may pick
		// is a usage error; beside another, its cells of that realization
		// are N/A (cell.clientLacks) and the other's run.
		if len(c.Clients) == 1 {
			if err := c.checkRealizations(cl); err != nil {
				return err
			}
		}
		if err := cl.Find(); err != nil {
			return Usagef("%v", err)
		}
	}
	return nil
}

// checkRealizations: a client that runs only some transactional
// realizations (the Java worker: the ledger) must not meet a run that may
// pick another.
func (c Common) checkRealizations(cl workerset.Client) error {
	if !slices.Contains(c.Modes, ctp.Transactional) {
		return nil
	}
	may := c.Realizations
	if len(may) == 0 {
		may = []string{c.TxnAcks}
		if c.TxnAcks == string(kip1289.ChoiceAuto) {
			may = kip1289.RealizationNames()
		}
	}
	for _, r := range may {
		if !cl.Runs(r) {
			return Usagef("--client %s runs the transactional mode through %s only, and this run may pick %s: add --txn-acks %s",
				cl.Name, strings.Join(cl.Realizations, ", "), r, cl.Realizations[0])
		}
	}
	return nil
}
