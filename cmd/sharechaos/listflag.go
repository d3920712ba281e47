package main

import (
	"strings"
)

// listFlag is a flag that repeats and also takes commas (CONTRACT.md):
// --mode explicit --mode transactional == --mode explicit,transactional.
type listFlag []string

func (l *listFlag) String() string { return strings.Join(*l, ",") }

func (l *listFlag) Set(s string) error {
	for _, part := range strings.Split(s, ",") {
		if part = strings.TrimSpace(part); part != "" {
			*l = append(*l, part)
		}
	}
	return nil
}

// multiFlag repeats but takes no commas (a threshold may contain one).
type multiFlag []string

func (m *multiFlag) String() string { return strings.Join(*m, "; ") }

func (m *multiFlag) Set(s string) error {
	*m = append(*m, s)
	return nil
}
