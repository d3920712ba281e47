package kafkarole

import "testing"

func TestSplitTopicPartition(t *testing.T) {
	topic, p, err := SplitTopicPartition("a.b/7")
	if err != nil || topic != "a.b" || p != 7 {
		t.Fatalf("split a.b/7 = %q %d %v", topic, p, err)
	}
	for _, bad := range []string{"", "t", "/1", "t/", "t/x", "t/-1"} {
		if _, _, err := SplitTopicPartition(bad); err == nil {
			t.Errorf("split %q: no error", bad)
		}
	}
}
