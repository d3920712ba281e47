package main

import (
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	flag "github.com/spf13/pflag"

	"github.com/sharechaos/sharechaos/internal/cluster/docker"
	"github.com/sharechaos/sharechaos/scenarios"
)

// footerKey is the command annotation printed after the flags (scenarios,
// profiles, environment, exit codes).
const footerKey = "sharechaos/footer"

// groupKey is the flag annotation naming the flag's help group.
const groupKey = "sharechaos/group"

// flagGroups are the help sections, in order; a flag in none is "Other".
var flagGroups = []struct{ title, key string }{
	{"Load flags", "load"},
	{"Fault flags", "faults"},
	{"Timing flags", "timing"},
	{"Output flags", "output"},
	{"Other flags", ""},
}

// flagGroup places each flag of run and bench in a help group.
var flagGroup = map[string]string{
	"profile": "load", "scenario": "load", "scenario-file": "load", "mode": "load", "records": "load", "workers": "load",
	"partitions": "load", "batch": "load", "brokers": "load", "repeats": "load", "parallel": "load", "clusters": "load",
	"rate": "load", "max-input": "load", "latency": "load", "backend": "load",
	"fault": "faults", "txn-acks": "faults", "on-unsupported": "faults", "kip1289-keys": "faults",
	"lock": "timing", "txn-timeout": "timing", "drain-timeout": "timing", "duration": "timing", "fault-pause": "timing", "warmup": "timing",
	"out": "output", "threshold": "output", "seed": "output", "verbose": "output", "keep-topics": "output",
	"overhead": "output", "alpha": "output", "write": "output",
}

// annotateGroups marks every flag of fs with its group. A backquoted word in
// a usage is pflag's placeholder for the value's name: the few usages that
// quote a command that way get plain quotes instead.
func annotateGroups(fs *flag.FlagSet) {
	fs.VisitAll(func(f *flag.Flag) {
		f.Usage = strings.ReplaceAll(f.Usage, "`", "'")
		if g, ok := flagGroup[f.Name]; ok {
			_ = fs.SetAnnotation(f.Name, groupKey, []string{g})
		}
	})
}

// groupedUsage is cobra's usage with the flags in sections (cobra has
// command groups but no flag groups).
func groupedUsage(c *cobra.Command) error {
	w := c.OutOrStderr()
	fmt.Fprint(w, "Usage:\n")
	if c.Runnable() && c.HasParent() {
		fmt.Fprintf(w, "  %s\n", c.UseLine())
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "  %s [command]\n", c.CommandPath())
	}
	if c.Example != "" {
		fmt.Fprintf(w, "\nExamples:\n%s\n", strings.TrimRight(c.Example, "\n"))
	}
	if c.HasAvailableSubCommands() {
		printCommands(w, c)
	}
	printFlags(w, c.LocalFlags())
	if f := c.Annotations[footerKey]; f != "" {
		fmt.Fprintf(w, "\n%s\n", strings.TrimRight(f, "\n"))
	}
	if c.HasAvailableSubCommands() {
		fmt.Fprintf(w, "\nUse \"%s [command] --help\" (or \"%s help [command]\") for more about a command.\n", c.CommandPath(), c.CommandPath())
	}
	return nil
}

func printCommands(w io.Writer, c *cobra.Command) {
	groups := append(slices.Clone(c.Groups()), &cobra.Group{ID: "", Title: "Other commands:"})
	for _, g := range groups {
		var lines []string
		for _, sub := range c.Commands() {
			if sub.GroupID == g.ID && (sub.IsAvailableCommand() || sub.Name() == "help") {
				lines = append(lines, fmt.Sprintf("  %-11s %s", sub.Name(), sub.Short))
			}
		}
		if len(lines) > 0 {
			fmt.Fprintf(w, "\n%s\n%s\n", g.Title, strings.Join(lines, "\n"))
		}
	}
}

func printFlags(w io.Writer, fs *flag.FlagSet) {
	for _, g := range flagGroups {
		sub := flag.NewFlagSet(g.key, flag.ContinueOnError)
		fs.VisitAll(func(f *flag.Flag) {
			key := ""
			if a := f.Annotations[groupKey]; len(a) > 0 {
				key = a[0]
			}
			if key == g.key && !f.Hidden {
				sub.AddFlag(f)
			}
		})
		if sub.HasFlags() {
			fmt.Fprintf(w, "\n%s:\n%s", g.title, sub.FlagUsages())
		}
	}
}

// envHelp lists the environment variables the suite reads.
var envHelp = "Environment:\n" +
	"  " + docker.EnvKafkaImage + "       Kafka image of --backend docker (default " + docker.DefaultKafkaImage + ")\n" +
	"  " + docker.EnvToxiproxyImage + "   toxiproxy image of --backend docker (default " + docker.DefaultToxiproxyImage + ")\n" +
	"  SHARECHAOS_REQUIRE_DOCKER    1: the docker tests (go test, CI) fail instead of skipping when Docker is unusable\n" +
	"  NO_COLOR                     set: no colour in the live progress"

// scenarioHelp lists every catalog row with its one-line About.
func scenarioHelp() string {
	var b strings.Builder
	b.WriteString("Scenarios (--scenario; a fault each, judged per mode):\n")
	width := 0
	for _, s := range scenarios.All() {
		width = max(width, len(s.Name))
	}
	for _, s := range scenarios.All() {
		fmt.Fprintf(&b, "  %-*s  %s\n", width, s.Name, s.About)
	}
	b.WriteString("\nProfiles (--profile, when no --scenario is given):\n")
	for _, p := range scenarios.Profiles() {
		full, _ := scenarios.LookupProfile(p.Name)
		fmt.Fprintf(&b, "  %-14s %s\n", p.Name, p.About)
		contents := fmt.Sprintf("%d scenarios", len(full.Scenarios))
		if p.Scenarios != nil {
			contents = strings.Join(p.Scenarios, ", ")
		}
		repeats := max(p.Repeats, 1)
		fmt.Fprintf(&b, "  %-14s   %s; %d repeat(s)", "", contents, repeats)
		if len(p.Thresholds) > 0 {
			fmt.Fprintf(&b, "; thresholds %s", strings.Join(p.Thresholds, ", "))
		}
		b.WriteString("\n")
	}
	b.WriteString("\nModes (--mode): transactional, explicit, implicit")
	return b.String()
}

// wrap refolds text into lines of at most 80 columns (paragraphs kept).
func wrap(text string) string {
	var out []string
	for _, para := range strings.Split(text, "\n\n") {
		var line string
		var lines []string
		for _, w := range strings.Fields(para) {
			if line != "" && len(line)+1+len(w) > 80 {
				lines = append(lines, line)
				line = ""
			}
			if line != "" {
				line += " "
			}
			line += w
		}
		if line != "" {
			lines = append(lines, line)
		}
		out = append(out, strings.Join(lines, "\n"))
	}
	return strings.Join(out, "\n\n")
}
