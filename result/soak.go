package result

// SoakBucket is one stretch of a soak cell's timeline (result.json
// "soak_timeline", summary.md's soak tables): what was seeded and committed
// in it, how long the commits took, and whether a cluster fault acted.
type SoakBucket struct {
	FromS float64 `json:"from_s"`
	ToS   float64 `json:"to_s"`
	// Seeded are the input records the seeder wrote; Committed the records
	// of the Commits transactions (or acks, outside transactional mode)
	// that committed.
	Seeded      int     `json:"seeded"`
	Committed   int     `json:"committed_records"`
	Commits     int     `json:"commits"`
	CommitP50Ms float64 `json:"commit_p50_ms"`
	CommitP99Ms float64 `json:"commit_p99_ms"`
	CommitMaxMs float64 `json:"commit_max_ms"`
	// Fault: a cluster fault was acting (fired, not yet healed) at some
	// moment of the bucket, or a worker fault fired in it.
	Fault bool `json:"fault,omitempty"`
}
