package netroute

import (
	"net"
	"testing"
)

func TestToLoopback(t *testing.T) {
	s, err := To(net.ParseIP("127.0.0.1"), 29500)
	if err != nil {
		t.Fatal(err)
	}
	if !s.IP.IsLoopback() || s.Interface == "" {
		t.Fatalf("To(127.0.0.1) = %v, want a loopback address and its interface", s)
	}
	lo, err := OfInterface(s.Interface)
	if err != nil || !lo.IP.Equal(s.IP) {
		t.Fatalf("OfInterface(%s) = %v, %v; want %v", s.Interface, lo, err, s.IP)
	}
	for _, c := range Candidates() {
		if c.IP.IsLoopback() {
			t.Errorf("candidate %v is a loopback address", c)
		}
	}
}

func TestResolve(t *testing.T) {
	ip, err := Resolve("localhost")
	if err != nil || !ip.IsLoopback() {
		t.Fatalf("Resolve(localhost) = %v, %v", ip, err)
	}
	if ip, err := Resolve("10.1.2.3"); err != nil || ip.String() != "10.1.2.3" {
		t.Fatalf("Resolve(10.1.2.3) = %v, %v", ip, err)
	}
}
