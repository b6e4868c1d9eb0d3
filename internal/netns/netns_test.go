package netns

import (
	"strings"
	"testing"
)

// Two machines reach each other by address and by name, each has its own
// host name; one that drops its packets, or is unplugged, reaches nothing.
func TestMachinesTalk(t *testing.T) {
	c := New(t, 2, DebianHosts)
	out, err := c.Command(1, "sh", "-c", `hostname; getent hosts node0 node1; ip -o -4 addr show dev eth0`).CombinedOutput()
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	for _, want := range []string{"node1\n", "192.168.77.1    node0", "127.0.1.1       node1", "inet 192.168.77.2/24"} {
		if !strings.Contains(string(out), want) {
			t.Errorf("machine 1 says %q, want %q in it", out, want)
		}
	}
	// A TCP connection from machine 1 to machine 0's address (bash's
	// /dev/tcp): refused (no listener) means the packets got there.
	probe := func() string {
		out, _ := c.Command(1, "timeout", "3", "bash", "-c", `echo > /dev/tcp/192.168.77.1/7777`).CombinedOutput()
		return string(out)
	}
	if got := probe(); !strings.Contains(got, "Connection refused") {
		t.Fatalf("machine 1 to machine 0: %q, want Connection refused", got)
	}
	if err := c.DropTo(1, "192.168.77.1"); err != nil {
		t.Fatal(err)
	}
	if got := probe(); strings.Contains(got, "Connection refused") {
		t.Fatalf("machine 1 reached machine 0 while dropping its packets: %q", got)
	}
	if err := c.LinkDown(0); err != nil {
		t.Fatal(err)
	}
	if got, _ := c.Command(0, "timeout", "3", "bash", "-c", `echo > /dev/tcp/192.168.77.2/7777`).CombinedOutput(); !strings.Contains(string(got), "unreachable") {
		t.Fatalf("machine 0 with its link down: %q, want the network unreachable", got)
	}
}
