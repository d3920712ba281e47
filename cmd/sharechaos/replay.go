package main

import (
	"path/filepath"
	"regexp"
	"slices"
	"strings"

	flag "github.com/spf13/pflag"
)

// runReplayDropped are the flags run's replay leaves out: --out because the
// old directory exists (a replay would exit 64), --backend and --seed because
// the runner appends the backend that ran (auto resolved) and the seed it used.
// pathFlags name files: a replay gives them as absolute paths.
var pathFlags = []string{"scenario-file"}

var runReplayDropped = []string{"out", "backend", "seed"}

// replayCommand is "sharechaos CMD" and the command line's arguments after
// CMD, shell-quoted, without the dropped flags: a line that can be
// pasted into a shell.
func replayCommand(name string, args []string, fs *flag.FlagSet, dropped ...string) string {
	i := slices.Index(args, name)
	if i < 0 {
		return ""
	}
	out := []string{"sharechaos", name}
	rest := args[i+1:]
	for j := 0; j < len(rest); j++ {
		t := rest[j]
		if t == "--" {
			out = append(out, quoteAll(rest[j:])...)
			break
		}
		if !strings.HasPrefix(t, "--") {
			out = append(out, shellQuote(t))
			continue
		}
		flagName, _, hasValue := strings.Cut(t[2:], "=")
		f := fs.Lookup(flagName)
		takesNext := !hasValue && f != nil && f.NoOptDefVal == "" && j+1 < len(rest)
		if slices.Contains(dropped, flagName) {
			if takesNext {
				j++
			}
			continue
		}
		if slices.Contains(pathFlags, flagName) {
			// A replay may run in another directory: the file by its full path.
			v := ""
			if hasValue {
				_, v, _ = strings.Cut(t, "=")
			} else if takesNext {
				j++
				v = rest[j]
			}
			if abs, err := filepath.Abs(v); err == nil {
				v = abs
			}
			out = append(out, "--"+flagName, shellQuote(v))
			continue
		}
		out = append(out, shellQuote(t))
		if takesNext {
			j++
			out = append(out, shellQuote(rest[j]))
		}
	}
	return strings.Join(out, " ")
}

func quoteAll(ss []string) []string {
	out := make([]string, len(ss))
	for i, s := range ss {
		out[i] = shellQuote(s)
	}
	return out
}

var shellSafe = regexp.MustCompile(`^[A-Za-z0-9_./:=,@%+-]+$`)

// shellQuote quotes s for a POSIX shell: single quotes, with each ' written
// as '\”.
func shellQuote(s string) string {
	if shellSafe.MatchString(s) {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}
