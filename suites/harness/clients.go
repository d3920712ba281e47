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
// realizations (the Java worker: the ledger) must not meet a run that asks
// for another. --txn-acks auto is decided by the brokers, so it is checked
// once they answered (checkDecided): on a broker without KIP-1289 auto picks
// the ledger, which every client runs.
func (c Common) checkRealizations(cl workerset.Client) error {
	if !slices.Contains(c.Modes, ctp.Transactional) {
		return nil
	}
	may := c.Realizations
	if len(may) == 0 {
		if c.TxnAcks == string(kip1289.ChoiceAuto) {
			return nil
		}
		may = []string{c.TxnAcks}
	}
	for _, r := range may {
		if !cl.Runs(r) {
			return Usagef("--client %s runs the transactional mode through %s only, and this run may pick %s: add --txn-acks %s",
				cl.Name, strings.Join(cl.Realizations, ", "), r, cl.Realizations[0])
		}
	}
	return nil
}

// checkDecided refuses a run whose one client cannot run the realization
// the brokers' answer picked for --txn-acks auto (native, on a broker with
// KIP-1289, for the Java worker), before any cell runs; beside another
// client its cells of that realization are N/A instead.
func (c Common) checkDecided(txns []TxnDecision) error {
	if len(c.Clients) != 1 {
		return nil
	}
	cl, ok := workerset.LookupClient(c.Clients[0])
	if !ok {
		return nil
	}
	for _, d := range txns {
		if d.Mode == ctp.Transactional && !cl.Runs(d.Realization) {
			return Usagef("--client %s runs the transactional mode through %s only, and these brokers speak KIP-1289, so --txn-acks auto picks %s: add --txn-acks %s",
				cl.Name, strings.Join(cl.Realizations, ", "), d.Realization, cl.Realizations[0])
		}
	}
	return nil
}
