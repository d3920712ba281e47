package harness

import (
	"crypto/rand"
	"encoding/binary"
	"encoding/hex"
	"os"
	"path/filepath"
	"strconv"
	"time"
)

// RunDir is the default run directory of a run started at t with seed.
func RunDir(t time.Time, seed int64) string {
	return filepath.Join("runs", t.Format("20060102-150405")+"-"+strconv.FormatInt(seed, 10))
}

// PrepareOut makes the run directory; created says whether it did not exist
// (so a run that ends up running nothing can remove it again).
func PrepareOut(dir string) (created bool, err error) {
	entries, err := os.ReadDir(dir)
	switch {
	case err == nil && len(entries) > 0:
		return false, Usagef("--out %s: the directory exists and is not empty (a run never mixes with another's files)", dir)
	case err == nil:
	case os.IsNotExist(err):
		created = true
	default:
		return false, Usagef("--out %s: %v", dir, err)
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return false, Usagef("--out %s: %v", dir, err)
	}
	return created, nil
}

// RandomSeed is a seed for a run that was given none (printed, so the run
// can be replayed).
func RandomSeed() int64 {
	var b [8]byte
	_, _ = rand.Read(b[:])
	return int64(binary.LittleEndian.Uint64(b[:]) >> 12) // short enough to type
}

// RunID names the run's topics and containers: unique per run, short.
func RunID(seed int64, t time.Time) string {
	var b [4]byte
	binary.LittleEndian.PutUint32(b[:], uint32(t.UnixNano())^uint32(seed))
	return hex.EncodeToString(b[:])
}
