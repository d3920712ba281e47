package large

import (
	"context"
	"fmt"

	"github.com/twmb/franz-go/pkg/kgo"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// ReadCell streams a cell's read-back into a store in dir while the topics
// are read: the inputs, then the outputs read_committed. It holds no record
// beyond the fetch in hand. meta says the rest (mode, share start, ...); the
// histories go to dir/histories as files, as the workers write them.
func ReadCell(ctx context.Context, bootstrap []string, outputTopic, dir string, meta Meta) error {
	s, err := Create(dir, meta)
	if err != nil {
		return err
	}
	n := 0
	err = ctp.EachRecord(ctx, bootstrap, meta.InputTopic, false, func(r *kgo.Record) error {
		n++
		return s.Input(ctp.Input{ID: string(r.Key), Partition: r.Partition, Offset: r.Offset})
	})
	if err == nil {
		s.meta.Records = n
		err = ReadOutputs(ctx, bootstrap, outputTopic, s)
	}
	if cerr := s.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return fmt.Errorf("read cell: %w", err)
	}
	return nil
}

// ReadOutputs streams the output topic, read_committed, into s.
func ReadOutputs(ctx context.Context, bootstrap []string, topic string, s *Store) error {
	return ctp.EachRecord(ctx, bootstrap, topic, true, func(r *kgo.Record) error { return s.Output(ctp.OutputOf(r)) })
}
