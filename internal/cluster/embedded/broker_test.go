package embedded

import (
	"io"
	"net"
	"reflect"
	"testing"
)

func TestBrokerArgsRoundTrip(t *testing.T) {
	want := brokerArgs{
		ports:      []int{20001, 20002, 20003},
		advertise:  []string{"127.0.0.1:21001", "127.0.0.1:21002", "127.0.0.1:21003"},
		dataDir:    "/tmp/d",
		syncWrites: true,
		configs:    map[string]string{"a.b": "1", "c": "", "d": "x=y"},
		logLevel:   "info",
	}
	got, err := parseBrokerArgs(want.encode(), io.Discard)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("round trip:\n got %+v\nwant %+v", got, want)
	}
}

func TestBrokerArgsIgnoreTestFlags(t *testing.T) {
	args := append([]string{"-test.v", "-test.run=TestX", "-test.timeout=1m", "--test.count=1"},
		brokerArgs{ports: []int{1, 2}, logLevel: "warn"}.encode()...)
	got, err := parseBrokerArgs(args, io.Discard)
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	if !reflect.DeepEqual(got.ports, []int{1, 2}) {
		t.Fatalf("ports = %v", got.ports)
	}
}

func TestBrokerArgsRejectBadLines(t *testing.T) {
	for name, args := range map[string][]string{
		"no ports":           {"-log-level", "warn"},
		"bad port":           {"-ports", "1,x"},
		"advertise mismatch": {"-ports", "1,2", "-advertise", "127.0.0.1:3"},
		"bad config":         {"-ports", "1", "-config", "novalue"},
		"bad level":          {"-ports", "1", "-log-level", "loud"},
		"unknown flag":       {"-ports", "1", "-nope"},
		"stray argument":     {"-ports", "1", "extra"},
	} {
		t.Run(name, func(t *testing.T) {
			if _, err := parseBrokerArgs(args, io.Discard); err == nil {
				t.Fatalf("parse %q: no error", args)
			}
		})
	}
}

func TestBrokerMainBadArgsExit2(t *testing.T) {
	if code := BrokerMain([]string{"-ports", "x"}); code != 2 {
		t.Fatalf("exit code %d, want 2", code)
	}
}

func TestAdvertisingListenerReportsProxyAddress(t *testing.T) {
	ports, err := pickPorts(1)
	if err != nil {
		t.Fatal(err)
	}
	own := loopback(ports[0])
	listen := advertisingListenFn(map[string]string{own: "127.0.0.1:9"})
	ln, err := listen("tcp", own)
	if err != nil {
		t.Fatalf("listen: %v", err)
	}
	defer ln.Close()
	if got := ln.Addr().String(); got != "127.0.0.1:9" {
		t.Fatalf("Addr() = %s, want the advertised 127.0.0.1:9", got)
	}
	// It still accepts on its own address.
	conn, err := net.Dial("tcp", own)
	if err != nil {
		t.Fatalf("dial own address: %v", err)
	}
	conn.Close()

	if _, err := listen("tcp", "127.0.0.1:1"); err == nil {
		t.Fatal("listen on an address without an advertised one: no error")
	}
}
