package distribution

import (
	"fmt"
	"strings"

	"github.com/kerasgo/kerasgo/internal/netroute"
)

// spansMachines reports whether the launcher said that the job has
// processes on other machines (LOCAL_WORLD_SIZE < WORLD_SIZE).
func (c Config) spansMachines() bool {
	return c.LocalWorldSize > 0 && c.LocalWorldSize < c.WorldSize
}

// address returns the address this process binds for Gloo and advertises
// to the others: GLOO_SOCKET_IFNAME's when set, else the one the routing
// table sends from to reach MASTER_ADDR. A job that spans machines cannot
// use a loopback address; that fails here, at once, rather than as a
// refused connection on another machine.
func (c Config) address() (netroute.Source, error) {
	if c.Interface != "" {
		s, err := netroute.OfInterface(c.Interface)
		if err != nil {
			return s, fmt.Errorf("GLOO_SOCKET_IFNAME (Config.Interface) %q: %w", c.Interface, err)
		}
		return s, nil
	}
	master, err := netroute.Resolve(c.MasterAddr)
	if err != nil {
		return netroute.Source{}, fmt.Errorf("MASTER_ADDR %q does not resolve on this machine (%v): give machine 0's IP address, or a name this machine resolves", c.MasterAddr, err)
	}
	src, err := netroute.To(master, c.MasterPort)
	if err != nil {
		return src, fmt.Errorf("this machine has no route to MASTER_ADDR %s (%v): check the address, and this machine's network", describe(c.MasterAddr, master.String()), err)
	}
	if src.IP.IsLoopback() && c.spansMachines() {
		hint := ""
		if cands := netroute.Candidates(); len(cands) > 0 {
			names := make([]string, len(cands))
			for i, s := range cands {
				names[i] = s.String()
			}
			hint = " (this machine has " + strings.Join(names, ", ") + ")"
		}
		return src, fmt.Errorf("MASTER_ADDR %s is a loopback address here, so this process would bind %s and tell the job's other machines to connect to it, which they cannot (the job has %d processes, %d on this machine): set MASTER_ADDR, on every machine, to machine 0's address on the network the machines share%s, or set GLOO_SOCKET_IFNAME to the interface on that network",
			describe(c.MasterAddr, master.String()), src.IP, c.WorldSize, c.LocalWorldSize, hint)
	}
	return src, nil
}

// describe is "node0 (127.0.1.1)", or the address alone when host is it.
func describe(host, ip string) string {
	if host == ip {
		return host
	}
	return host + " (" + ip + ")"
}
