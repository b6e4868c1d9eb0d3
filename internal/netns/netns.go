// Package netns builds machines for tests of jobs that span machines: each
// a Linux network namespace with its own interface (eth0) and address,
// all joined through a bridge in one more namespace, as machines on one
// switch. The namespaces share the test's file system, so they share its
// directories as machines share a network file system. It needs root and
// iproute2 (CI runs as root); elsewhere New skips the test with one line
// that says so.
//
// Only the project's own addresses (192.168.77.0/24) are used, inside the
// namespaces: nothing is routed to or from the machine's own network.
package netns

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// Subnet is the network of the test machines: machine i has 192.168.77.(i+1).
const Subnet = "192.168.77.0/24"

// Device is each machine's interface.
const Device = "eth0"

// prefix starts the name of every namespace this package makes, followed
// by the test process's pid.
const prefix = "kgtest"

// Machine is one test machine.
type Machine struct {
	Name string // of its network namespace
	Host string // its host name (see Cluster.Command)
	Addr string // its address, 192.168.77.(i+1)
}

// Cluster is a set of test machines on one switch.
type Cluster struct {
	Machines []Machine
	ns       string // the switch's namespace
}

// SkipUnlessAvailable skips t unless test machines can be built here.
func SkipUnlessAvailable(t testing.TB) {
	t.Helper()
	if err := available(); err != nil {
		t.Skipf("several-machine tests SKIPPED: %v (run the tests as root on Linux with iproute2, as CI does)", err)
	}
}

func available() error {
	if os.Geteuid() != 0 {
		return fmt.Errorf("they build network namespaces, which needs root")
	}
	for _, tool := range []string{"ip", "unshare"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("no %s here (iproute2, util-linux)", tool)
		}
	}
	return nil
}

// Hosts says what each machine's /etc/hosts maps its own host name to.
type Hosts int

const (
	// ClusterHosts maps every machine's host name to its address
	// ("192.168.77.1 node0", ...), as a cluster's DNS does.
	ClusterHosts Hosts = iota
	// DebianHosts is ClusterHosts except for each machine's own name,
	// which maps to 127.0.1.1 as Debian's installer writes it (and as many
	// containers have it): PyTorch's Gloo then binds a loopback address.
	DebianHosts
)

// New builds n machines, named node0, node1, ..., with /etc/hosts as hosts
// says, and removes them when t ends (killing what still runs in them).
func New(t testing.TB, n int, hosts Hosts) *Cluster {
	t.Helper()
	SkipUnlessAvailable(t)
	c, err := Build(n, hosts)
	if c != nil {
		t.Cleanup(c.Remove)
	}
	if err != nil {
		t.Skipf("several-machine tests SKIPPED: building network namespaces failed: %v", err)
	}
	return c
}

// Build is New outside a test: the caller removes the machines (Remove),
// also when it fails.
func Build(n int, hosts Hosts) (*Cluster, error) {
	if err := available(); err != nil {
		return nil, err
	}
	removeStale()
	id := prefix + strconv.Itoa(os.Getpid()) + "-" + strconv.FormatInt(time.Now().UnixNano()%1e6, 10)
	c := &Cluster{ns: id + "-sw"}
	return c, c.build(id, n, hosts)
}

func (c *Cluster) build(id string, n int, layout Hosts) error {
	if err := ip("netns", "add", c.ns); err != nil {
		return err
	}
	steps := [][]string{
		{"-n", c.ns, "link", "add", "br0", "type", "bridge"},
		{"-n", c.ns, "link", "set", "br0", "up"},
	}
	for i := range n {
		m := Machine{Name: id + "-" + strconv.Itoa(i), Host: "node" + strconv.Itoa(i), Addr: "192.168.77." + strconv.Itoa(i+1)}
		c.Machines = append(c.Machines, m)
		if err := ip("netns", "add", m.Name); err != nil {
			return err
		}
		port := "p" + strconv.Itoa(i)
		steps = append(steps,
			[]string{"link", "add", Device, "netns", m.Name, "type", "veth", "peer", "name", port, "netns", c.ns},
			[]string{"-n", c.ns, "link", "set", port, "master", "br0"},
			[]string{"-n", c.ns, "link", "set", port, "up"},
			[]string{"-n", m.Name, "addr", "add", m.Addr + "/24", "dev", Device},
			[]string{"-n", m.Name, "link", "set", "lo", "up"},
			[]string{"-n", m.Name, "link", "set", Device, "up"},
		)
	}
	for _, s := range steps {
		if err := ip(s...); err != nil {
			return err
		}
	}
	for _, m := range c.Machines {
		hosts := "127.0.0.1 localhost\n"
		for _, o := range c.Machines {
			addr := o.Addr
			if o == m && layout == DebianHosts {
				addr = "127.0.1.1"
			}
			hosts += addr + " " + o.Host + "\n"
		}
		// ip netns exec mounts /etc/netns/NAME/hosts over /etc/hosts.
		dir := filepath.Join("/etc/netns", m.Name)
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(filepath.Join(dir, "hosts"), []byte(hosts), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// Command runs name with args on machine i: in its network namespace,
// with its own host name (a UTS namespace), as a process of that machine.
func (c *Cluster) Command(i int, name string, args ...string) *exec.Cmd {
	m := c.Machines[i]
	script := `hostname "$0" && exec "$@"`
	cmd := exec.Command("ip", append([]string{"netns", "exec", m.Name, "unshare", "--uts", "sh", "-c", script, m.Host, name}, args...)...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	return cmd
}

// LinkDown unplugs machine i's cable: its interface goes down, and every
// packet to or from it is lost.
func (c *Cluster) LinkDown(i int) error {
	return ip("-n", c.Machines[i].Name, "link", "set", Device, "down")
}

// DropTo makes machine i drop, silently, every packet it sends to addr,
// as a firewall that drops does: its neighbour entry for addr is pointed
// at a hardware address that no machine has. (This kernel may have no tc
// classifiers; the neighbour table needs none.)
func (c *Cluster) DropTo(i int, addr string) error {
	return ip("-n", c.Machines[i].Name, "neigh", "replace", addr, "lladdr", "02:00:00:00:77:77", "dev", Device, "nud", "permanent")
}

// Pids returns the processes running on machine i.
func (c *Cluster) Pids(i int) []int {
	out, _ := exec.Command("ip", "netns", "pids", c.Machines[i].Name).Output()
	var pids []int
	for _, f := range strings.Fields(string(out)) {
		if p, err := strconv.Atoi(f); err == nil {
			pids = append(pids, p)
		}
	}
	return pids
}

// Signal sends sig to every process on machine i: SIGKILL takes the
// machine down, SIGSTOP freezes it.
func (c *Cluster) Signal(i int, sig syscall.Signal) {
	for _, p := range c.Pids(i) {
		syscall.Kill(p, sig)
	}
}

// Remove kills what runs on the machines and removes them.
func (c *Cluster) Remove() {
	for i, m := range c.Machines {
		c.Signal(i, syscall.SIGKILL)
		exec.Command("ip", "netns", "del", m.Name).Run()
		os.RemoveAll(filepath.Join("/etc/netns", m.Name))
	}
	exec.Command("ip", "netns", "del", c.ns).Run()
}

// removeStale removes the machines of test processes that are gone (a
// test binary killed before its cleanup).
func removeStale() {
	out, err := exec.Command("ip", "netns", "list").Output()
	if err != nil {
		return
	}
	for _, line := range strings.Split(string(out), "\n") {
		f := strings.Fields(line)
		if len(f) == 0 || !strings.HasPrefix(f[0], prefix) {
			continue
		}
		pid, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(f[0], prefix), "-", 2)[0])
		if err != nil || syscall.Kill(pid, 0) == nil {
			continue // a live test's
		}
		for _, p := range strings.Fields(string(must(exec.Command("ip", "netns", "pids", f[0]).Output()))) {
			if n, err := strconv.Atoi(p); err == nil {
				syscall.Kill(n, syscall.SIGKILL)
			}
		}
		exec.Command("ip", "netns", "del", f[0]).Run()
		os.RemoveAll(filepath.Join("/etc/netns", f[0]))
	}
}

func must(out []byte, _ error) []byte { return out }

func ip(args ...string) error {
	out, err := exec.Command("ip", args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("ip %s: %v: %s", strings.Join(args, " "), err, strings.TrimSpace(string(out)))
	}
	return nil
}
