package hunt

import (
	"context"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"

	"github.com/sharechaos/sharechaos/internal/verdict"
	"github.com/sharechaos/sharechaos/result"
	"github.com/sharechaos/sharechaos/suites"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// runTrials runs trials as one suites.Run over their scenario file (written
// beside the run directory as dir.yaml): the rows a replay reads, judged by
// the run's checker. base is the user's run settings; only is the cell
// dimension a replay pins (its zero fields pin nothing: a round pins only
// its consumer).
func runTrials(ctx context.Context, base suites.Options, dir string, seed int64, repeats int, only *Dimensions, trials ...Trial) (result.Result, error) {
	cat, file, err := catalogOf(dir+".yaml", trials...)
	if err != nil {
		return result.Result{}, err
	}
	if err := os.MkdirAll(filepath.Dir(dir), 0o755); err != nil {
		return result.Result{}, err
	}
	if err := os.WriteFile(dir+".yaml", file, 0o644); err != nil {
		return result.Result{}, fmt.Errorf("write the trials' scenario file: %w", err)
	}
	o := base
	o.Catalog = &cat
	o.Scenarios = nil
	for _, t := range trials {
		o.Scenarios = append(o.Scenarios, t.Name)
	}
	o.Profile = ""
	o.Repeats = repeats
	o.Seed = seed
	o.Out = dir
	o.Progress, o.ProgressLive = io.Discard, false
	o.Command = ""
	o.Thresholds = nil
	if only != nil {
		only.pin(&o)
	}
	return suites.Run(ctx, o)
}

// Dimensions are what a cell ran on besides its row: the mode (with its
// realization), the client, the share consumer and the Kafka release.
type Dimensions struct {
	Mode         ctp.AckMode `json:"mode"`
	Realization  string      `json:"realization,omitempty"`
	Client       string      `json:"client,omitempty"`
	Consumer     string      `json:"consumer,omitempty"`
	KafkaVersion string      `json:"kafka_version,omitempty"`
}

// dimensionsOf is what c ran on; consumer is its run's.
func dimensionsOf(c result.Cell, consumer string) Dimensions {
	return Dimensions{Mode: ctp.AckMode(c.Mode), Realization: c.Realization, Client: c.Client, Consumer: consumer, KafkaVersion: c.KafkaVersion}
}

// pin makes o run only d (a zero field pins nothing).
func (d Dimensions) pin(o *suites.Options) {
	if d.Mode != "" {
		o.Modes = []ctp.AckMode{d.Mode}
		o.Realizations = nil
		if d.Mode == ctp.Transactional && d.Realization != "" {
			o.Realizations = []string{d.Realization}
		}
	}
	if d.Client != "" {
		o.Clients = []string{d.Client}
	}
	if d.Consumer != "" {
		o.Consumer = d.Consumer
	}
	if d.KafkaVersion != "" && len(o.Backends.Docker.KafkaVersions) > 0 {
		o.Backends.Docker.KafkaVersions = []string{d.KafkaVersion}
	}
}

// String is the dimensions as a cell's name spells them.
func (d Dimensions) String() string {
	s := string(d.Mode) + result.NameParts{Realization: d.Realization, Client: d.Client, Version: d.KafkaVersion}.Dimensions()
	if d.Consumer != "" && d.Consumer != ctp.ConsumerKgo && d.Mode != ctp.Transactional {
		s += " (consumer " + d.Consumer + ")"
	}
	return s
}

// anomalies lists the anomalies a cell found, sorted.
func anomalies(c result.Cell) []string {
	var out []string
	for name, f := range c.Anomalies {
		if f.Count > 0 {
			out = append(out, name)
		}
	}
	slices.Sort(out)
	return out
}

// failsLike says whether c is ANOMALY with one of want's anomalies: the
// same failure, not another one a shrink step happened to cause.
func failsLike(c result.Cell, want []string) bool {
	if c.Verdict != verdict.Anomaly {
		return false
	}
	for _, a := range anomalies(c) {
		if slices.Contains(want, a) {
			return true
		}
	}
	return false
}
