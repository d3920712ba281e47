package harness

import (
	"errors"
	"strings"
	"testing"

	flag "github.com/spf13/pflag"

	"github.com/sharechaos/sharechaos/workloads/ctp"
)

// --kip1289-member-tags is registered once for run and bench, defaults to
// send, and anything but send or omit is a usage error naming the flag.
func TestMemberTagsFlag(t *testing.T) {
	parse := func(args ...string) Common {
		t.Helper()
		var c Common
		var lists CommonLists
		fs := flag.NewFlagSet("t", flag.ContinueOnError)
		c.Register(fs, &lists)
		if err := fs.Parse(args); err != nil {
			t.Fatal(err)
		}
		return c.WithDefaults()
	}
	if c := parse(); c.MemberTags != ctp.MemberTagsSend || c.Validate() != nil {
		t.Errorf("default: %q %v, want send", c.MemberTags, c.Validate())
	}
	if c := parse("--kip1289-member-tags", "omit"); c.MemberTags != ctp.MemberTagsOmit || c.Validate() != nil {
		t.Errorf("omit: %q %v", c.MemberTags, c.Validate())
	}
	err := parse("--kip1289-member-tags", "maybe").Validate()
	var ue *UsageError
	if !errors.As(err, &ue) || !strings.Contains(err.Error(), "--kip1289-member-tags") {
		t.Errorf("bad value: %v, want a usage error naming the flag", err)
	}
}
