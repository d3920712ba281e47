package suites

import "strconv"

// replayLine is the command that runs this run again: the command line the
// CLI gave (shell-quoted, without --out, --backend and --seed) with the
// backend that ran (auto resolved to the chosen one) and the seed. Empty
// when the caller gave no command line (a library run).
func replayLine(command, backend string, seed int64) string {
	if command == "" {
		return ""
	}
	return command + " --backend " + backend + " --seed " + strconv.FormatInt(seed, 10)
}
