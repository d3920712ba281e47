package docker

import (
	"testing"

	"github.com/sharechaos/sharechaos/internal/cluster"
)

func TestLinksCoverEveryListenerAndPair(t *testing.T) {
	ls := links(3, []string{"10.0.1.2", "10.0.2.2", "10.0.3.2"})
	if len(ls) != 3+2*9 {
		t.Fatalf("got %d links, want 21", len(ls))
	}
	names := map[string]proxyLink{}
	for _, l := range ls {
		if _, dup := names[l.Name]; dup {
			t.Errorf("duplicate link %s", l.Name)
		}
		names[l.Name] = l
	}
	// Broker 1 reaching broker 3's controller listens on the proxy's address
	// in broker 1's network, at the port broker 3 advertises.
	l, ok := names["controller-1-3"]
	if !ok || l.Listen != "10.0.1.2:19203" || l.Upstream != "kafka-3:9094" {
		t.Errorf("controller-1-3 = %+v", l)
	}
	if l := names["client-2"]; l.Listen != "0.0.0.0:19002" || l.Upstream != "kafka-2:9092" || l.From != 0 {
		t.Errorf("client-2 = %+v", l)
	}
}

func TestIsolateTouchesOnlyTheBrokersLinks(t *testing.T) {
	ls := links(3, []string{"a", "b", "c"})
	var touched []string
	for _, l := range ls {
		if l.Touches(cluster.NodeID(2)) {
			touched = append(touched, l.Name)
		}
	}
	// client-2, and for each kind: 2->1, 2->2, 2->3, 1->2, 3->2.
	if len(touched) != 1+2*5 {
		t.Errorf("isolating 2 touches %d links, want 11: %v", len(touched), touched)
	}
	for _, name := range touched {
		if name == "client-1" || name == "internal-1-3" || name == "controller-3-1" {
			t.Errorf("isolating 2 touches %s", name)
		}
	}
}
