// Package netroute finds the address a process of a distributed job
// should bind and advertise to the others: the one of this machine's
// addresses that its routing table uses to reach the job's rendezvous
// host (MASTER_ADDR). PyTorch's Gloo binds instead to the address the
// machine's host name resolves to, which is loopback on many machines and
// containers (Debian's /etc/hosts maps the host name to 127.0.1.1), so
// each machine tells the others to connect to 127.0.0.1.
package netroute

import (
	"context"
	"fmt"
	"net"
	"strconv"
	"strings"
	"time"
)

// Source is an address of this machine and the interface that holds it.
type Source struct {
	IP        net.IP
	Interface string // "" when no interface holds IP (it should not happen)
}

// String is "192.168.77.2 (eth0)".
func (s Source) String() string {
	if s.Interface == "" {
		return s.IP.String()
	}
	return s.IP.String() + " (" + s.Interface + ")"
}

// resolveTimeout bounds the name lookup of the rendezvous host.
const resolveTimeout = 10 * time.Second

// Resolve returns host's address: host itself when it is an IP address,
// else the first address it resolves to (IPv4 first, as Gloo's lookups
// prefer it).
func Resolve(host string) (net.IP, error) {
	if ip := net.ParseIP(host); ip != nil {
		return ip, nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), resolveTimeout)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupIPAddr(ctx, host)
	if err != nil {
		return nil, err
	}
	for _, a := range addrs {
		if a.IP.To4() != nil {
			return a.IP, nil
		}
	}
	if len(addrs) == 0 {
		return nil, fmt.Errorf("%s has no address", host)
	}
	return addrs[0].IP, nil
}

// To returns the address of this machine that the kernel would send from
// to reach ip:port: a UDP socket "connected" there, which sends nothing.
// On the machine that holds ip, it is ip itself.
func To(ip net.IP, port int) (Source, error) {
	conn, err := net.Dial("udp", net.JoinHostPort(ip.String(), strconv.Itoa(port)))
	if err != nil {
		return Source{}, err
	}
	defer conn.Close()
	local := conn.LocalAddr().(*net.UDPAddr).IP
	return Source{IP: local, Interface: InterfaceOf(local)}, nil
}

// InterfaceOf returns the name of the interface that holds ip, or "".
func InterfaceOf(ip net.IP) string {
	ifs, err := net.Interfaces()
	if err != nil {
		return ""
	}
	for _, ifc := range ifs {
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && n.IP.Equal(ip) {
				return ifc.Name
			}
		}
	}
	return ""
}

// OfInterface returns the first IPv4 address of the interface name (else
// its first address), as Gloo's device for an interface binds it.
func OfInterface(name string) (Source, error) {
	ifc, err := net.InterfaceByName(name)
	if err != nil {
		return Source{}, fmt.Errorf("this machine has no network interface %q (it has %s)", name, strings.Join(interfaceNames(), ", "))
	}
	addrs, err := ifc.Addrs()
	if err != nil {
		return Source{}, err
	}
	var first net.IP
	for _, a := range addrs {
		n, ok := a.(*net.IPNet)
		if !ok {
			continue
		}
		if n.IP.To4() != nil {
			return Source{IP: n.IP, Interface: name}, nil
		}
		if first == nil {
			first = n.IP
		}
	}
	if first == nil {
		return Source{}, fmt.Errorf("the network interface %q has no address", name)
	}
	return Source{IP: first, Interface: name}, nil
}

// Candidates returns this machine's addresses that other machines might
// reach: those of interfaces that are up, not loopback and not
// link-local.
func Candidates() []Source {
	var out []Source
	ifs, err := net.Interfaces()
	if err != nil {
		return nil
	}
	for _, ifc := range ifs {
		if ifc.Flags&net.FlagUp == 0 || ifc.Flags&net.FlagLoopback != 0 {
			continue
		}
		addrs, err := ifc.Addrs()
		if err != nil {
			continue
		}
		for _, a := range addrs {
			if n, ok := a.(*net.IPNet); ok && !n.IP.IsLoopback() && !n.IP.IsLinkLocalUnicast() {
				out = append(out, Source{IP: n.IP, Interface: ifc.Name})
			}
		}
	}
	return out
}

func interfaceNames() []string {
	ifs, _ := net.Interfaces()
	names := make([]string, len(ifs))
	for i, ifc := range ifs {
		names[i] = ifc.Name
	}
	return names
}
