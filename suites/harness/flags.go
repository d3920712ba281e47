package harness

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/sharechaos/sharechaos/workloads/ctp"
	"github.com/sharechaos/sharechaos/workloads/kip1289"
)

// ListFlag is a flag that repeats and also takes commas (CONTRACT.md):
// --mode explicit --mode transactional == --mode explicit,transactional.
type ListFlag []string

func (l *ListFlag) String() string { return strings.Join(*l, ",") }

func (l *ListFlag) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

// ThresholdFlag repeats and takes commas like ListFlag, but a comma inside a
// tag selector ({mode:explicit,batch:10}) belongs to the threshold: one
// grammar for run and bench.
type ThresholdFlag []string

func (t *ThresholdFlag) String() string { return strings.Join(*t, ", ") }

func (t *ThresholdFlag) Set(s string) error {
	depth, start := 0, 0
	add := func(part string) {
		if part = strings.TrimSpace(part); part != "" {
			*t = append(*t, part)
		}
	}
	for i, r := range s {
		switch r {
		case '{':
			depth++
		case '}':
			depth--
		case ',':
			if depth == 0 {
				add(s[start:i])
				start = i + 1
			}
		}
	}
	add(s[start:])
	return nil
}

// CommonLists holds the shared list flags while they are parsed.
type CommonLists struct {
	Modes, Keys ListFlag
	Thresholds  ThresholdFlag
}

// Apply moves the parsed lists into c.
func (l CommonLists) Apply(c *Common) error {
	for _, m := range l.Modes {
		mode, realization, hasRealization := strings.Cut(m, "/")
		if hasRealization {
			if ctp.AckMode(mode) != ctp.Transactional {
				return Usagef("--mode %q: only transactional has realizations", m)
			}
			c.Realizations = append(c.Realizations, realization)
			if slices.Contains(c.Modes, ctp.Transactional) {
				continue
			}
		}
		c.Modes = append(c.Modes, ctp.AckMode(mode))
	}
	c.Thresholds = append(c.Thresholds, l.Thresholds...)
	if len(l.Keys) > 0 {
		k, err := ParseKeys(l.Keys)
		if err != nil {
			return Usagef("--kip1289-keys: %v", err)
		}
		c.KIP1289Keys = k
	}
	return nil
}

// ParseKeys reads --kip1289-keys: two API keys.
func ParseKeys(vals []string) (kip1289.APIKeys, error) {
	if len(vals) != 2 {
		return kip1289.APIKeys{}, fmt.Errorf("want two keys (AddShareAcksToTxn,TxnShareAcknowledge), got %d", len(vals))
	}
	var ks [2]int16
	for i, v := range vals {
		n, err := strconv.ParseInt(v, 10, 16)
		if err != nil {
			return kip1289.APIKeys{}, fmt.Errorf("key %q: %w", v, err)
		}
		ks[i] = int16(n)
	}
	return kip1289.APIKeys{AddShareAcksToTxn: ks[0], TxnShareAcknowledge: ks[1]}, nil
}

// Type names the flag's value in help (pflag.Value).
func (l *ListFlag) Type() string { return "list" }

// Type names the flag's value in help (pflag.Value).
func (t *ThresholdFlag) Type() string { return "threshold" }
