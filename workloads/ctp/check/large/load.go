package large

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"

	"github.com/sharechaos/sharechaos/internal/history"
	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// Load reads a streamed read-back whole, as the in-memory checker takes it:
// for runs that fit in memory, and for tests that judge one run both ways.
func Load(dir string) (ctp.Observation, error) {
	var meta Meta
	b, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if err != nil {
		return ctp.Observation{}, fmt.Errorf("load large run: %w", err)
	}
	if err := json.Unmarshal(b, &meta); err != nil {
		return ctp.Observation{}, fmt.Errorf("load large run: %w", err)
	}
	obs := ctp.Observation{Mode: meta.Mode, Realization: meta.Realization, InputTopic: meta.InputTopic,
		ShareStart: meta.ShareStart, ShareStartReported: meta.ShareStartReported, ShareStartRule: meta.ShareStartRule,
		InputEnd: meta.InputEnd, DeliveryLimit: meta.DeliveryLimit}
	if err := eachFile[inputRec](dir, InputsFile, func(in inputRec) error {
		obs.Inputs = append(obs.Inputs, ctp.Input{ID: ctp.InputID(int(in.ID)), Partition: in.Partition, Offset: in.Offset})
		return nil
	}); err != nil {
		return obs, err
	}
	all := map[int]bool{}
	idx := 0
	if err := eachFile[outputRec](dir, OutputsFile, func(o outputRec) error {
		if o.odd() {
			all[idx] = true
		}
		idx++
		return nil
	}); err != nil {
		return obs, err
	}
	odd, err := readOdd(dir, all)
	if err != nil {
		return obs, err
	}
	idx = 0
	if err := eachFile[outputRec](dir, OutputsFile, func(o outputRec) error {
		obs.Outputs = append(obs.Outputs, decodeOutput(o, idx, meta, odd))
		idx++
		return nil
	}); err != nil {
		return obs, err
	}
	h, err := history.ReadDir(filepath.Join(dir, HistoriesDir))
	if err != nil && !history.IsNoHistory(err) {
		return obs, fmt.Errorf("load large run: %w", err)
	}
	obs.History = h
	return obs, nil
}
