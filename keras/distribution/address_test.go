package distribution

import (
	"strings"
	"testing"
)

// The address a process advertises is the one that routes to MASTER_ADDR;
// a loopback one is refused at once when the job spans machines, and a
// bad MASTER_ADDR or GLOO_SOCKET_IFNAME is named.
func TestAddressRoutesToTheMaster(t *testing.T) {
	one := Config{WorldSize: 2, MasterAddr: "127.0.0.1", MasterPort: 29500}
	s, err := one.address()
	if err != nil || !s.IP.IsLoopback() {
		t.Fatalf("one machine: %v, %v; want a loopback address", s, err)
	}
	if s.Interface == "" {
		t.Errorf("no interface named for %v", s.IP)
	}
	for _, c := range []struct {
		cfg  Config
		want string
	}{
		{Config{WorldSize: 4, LocalWorldSize: 2, MasterAddr: "127.0.0.1", MasterPort: 29500},
			"MASTER_ADDR 127.0.0.1 is a loopback address here, so this process would bind 127.0.0.1 and tell the job's other machines to connect to it, which they cannot (the job has 4 processes, 2 on this machine): set MASTER_ADDR"},
		{Config{WorldSize: 2, MasterAddr: "node 0", MasterPort: 29500}, `MASTER_ADDR "node 0" does not resolve on this machine`},
		{Config{WorldSize: 2, MasterAddr: "127.0.0.1", MasterPort: 29500, Interface: "nosuch0"}, `GLOO_SOCKET_IFNAME (Config.Interface) "nosuch0": this machine has no network interface "nosuch0" (it has lo`},
	} {
		if _, err := c.cfg.address(); err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: %v, want an error containing %q", c.cfg, err, c.want)
		}
	}
}
