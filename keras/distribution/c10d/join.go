//go:build libtorch && cgo

package c10d

// #include <stdlib.h>
// #include "shim.h"
import "C"

import (
	"fmt"
	"net"
	"strconv"
	"strings"
	"sync"
	"time"
	"unsafe"

	"github.com/kerasgo/kerasgo/internal/netroute"
)

// The store's keys of the join: each rank's advertised address, and why a
// rank gave up.
const (
	addressKey = "kerasgo/join/address/" // + rank
	gaveUpKey  = "kerasgo/join/gave-up/" // + rank
)

// joinPoll is how often a joining rank looks for another rank's failure.
const joinPoll = 250 * time.Millisecond

// joinGrace is how long past the timeout a join may take before it is
// abandoned: Gloo's own timeouts fire first, except where Gloo 2022's
// listening side waits for a peer that will never connect, which it does
// without a limit.
const joinGrace = 3 * time.Second

// join makes Gloo connect every pair of ranks. Each rank first writes the
// address it advertises into the store, so that a failure can say which
// address each side advertised and which it tried. A rank that fails
// writes why into the store: the others, which may be waiting for it
// without a limit, fail at once with its reason. A join that has not
// ended joinGrace after the timeout is abandoned: its thread stays blocked
// in Gloo until the process exits, and the group is never freed.
func (g *Group) join() error {
	self := g.advertised()
	if err := g.SetKey(addressKey+strconv.Itoa(g.opts.Rank), self); err != nil {
		g.Close()
		return fmt.Errorf("c10d: the job's store failed while the processes joined: %w", err)
	}
	ifname, address := C.CString(g.opts.Interface), C.CString(g.opts.Address)
	handle := g.g
	done := make(chan error, 1)
	go func() {
		defer C.free(unsafe.Pointer(ifname))
		defer C.free(unsafe.Pointer(address))
		var cerr *C.char
		if C.kg_group_connect(handle, ifname, address, &cerr) != 0 {
			done <- takeError(cerr)
			return
		}
		done <- nil
	}()
	stop, watched := make(chan struct{}), make(chan struct{})
	var once sync.Once
	// stopWatching stops watchPeers and reports whether it has returned
	// (within joinGrace: it may be in a store call that does not).
	stopWatching := func() bool {
		once.Do(func() { close(stop) })
		select {
		case <-watched:
			return true
		case <-time.After(joinGrace):
			return false
		}
	}
	defer once.Do(func() { close(stop) })
	peer := make(chan string, 1)
	go func() {
		defer close(watched)
		g.watchPeers(stop, peer)
	}()
	deadline := time.NewTimer(g.opts.Timeout + joinGrace)
	defer deadline.Stop()
	select {
	case err := <-done:
		if err == nil {
			return nil
		}
		detail, answered := g.report(err.Error())
		err = fmt.Errorf("c10d: Gloo could not connect rank %d to the other processes: %s%s", g.opts.Rank, strings.TrimPrefix(err.Error(), "c10d: "), detail)
		if answered {
			g.lingerForPeers()
			if stopWatching() { // nothing else uses the group: free it
				g.Close()
			}
		}
		return err
	case why := <-peer:
		detail, answered := g.report("gave up after another rank failed")
		if answered {
			g.lingerForPeers()
		}
		return fmt.Errorf("c10d: Gloo could not connect the processes: %s%s", why, detail)
	case <-deadline.C:
		detail, _ := g.report("gave up: Gloo did not connect within the timeout")
		return fmt.Errorf("c10d: Gloo did not connect the processes within %v: a process's connections are not answered (its address is unreachable from another machine, or packets are dropped)%s", g.opts.Timeout+joinGrace, detail)
	}
	// Where join returns an error without closing g, g stays open: freeing
	// it under a thread still blocked in Gloo or in the store would crash.
}

// report writes why this rank gave up into the store and returns what the
// ranks advertised (see addresses), or a note that the store did not
// answer within joinGrace (answered false: a thread is still in it).
func (g *Group) report(why string) (detail string, answered bool) {
	got := make(chan string, 1)
	go func() {
		g.SetKey(gaveUpKey+strconv.Itoa(g.opts.Rank), why)
		got <- g.addresses()
	}()
	select {
	case s := <-got:
		return s, true
	case <-time.After(joinGrace):
		return ". The job's store did not answer when asked what the ranks advertised", false
	}
}

// advertised describes the address Gloo binds and advertises to the other
// ranks, as "192.168.77.2 (eth0)".
func (g *Group) advertised() string {
	switch {
	case g.opts.Interface != "":
		if s, err := netroute.OfInterface(g.opts.Interface); err == nil {
			return s.String()
		}
		return "interface " + g.opts.Interface
	case g.opts.Address != "":
		ip := net.ParseIP(g.opts.Address)
		if ip == nil {
			return g.opts.Address
		}
		return netroute.Source{IP: ip, Interface: netroute.InterfaceOf(ip)}.String()
	}
	return "the address of this machine's host name"
}

// watchPeers sends, once, why another rank gave up joining, until stop is
// closed.
func (g *Group) watchPeers(stop <-chan struct{}, peer chan<- string) {
	keys := make([]string, 0, g.opts.WorldSize)
	ranks := make([]int, 0, g.opts.WorldSize)
	for r := range g.opts.WorldSize {
		if r != g.opts.Rank {
			keys, ranks = append(keys, gaveUpKey+strconv.Itoa(r)), append(ranks, r)
		}
	}
	t := time.NewTicker(joinPoll)
	defer t.Stop()
	for {
		select {
		case <-stop:
			return
		case <-t.C:
		}
		found, err := g.HasKeys(keys)
		if err != nil {
			return // the store is gone: the join fails by itself
		}
		for i, ok := range found {
			if !ok {
				continue
			}
			why, err := g.Get(keys[i])
			if err != nil || strings.HasPrefix(why, "gave up") {
				continue // it was not the first to fail
			}
			select {
			case peer <- fmt.Sprintf("rank %d failed: %s", ranks[i], strings.TrimPrefix(why, "c10d: ")):
			case <-stop:
			}
			return
		}
	}
}

// addresses lists what each rank advertised, and says what is wrong with
// them: ranks that have not advertised one (they never got through the
// store), or a loopback address among addresses of other machines.
func (g *Group) addresses() string {
	keys := make([]string, g.opts.WorldSize)
	for r := range keys {
		keys[r] = addressKey + strconv.Itoa(r)
	}
	found, err := g.HasKeys(keys)
	if err != nil {
		return ""
	}
	var parts, loopback, missing []string
	others := false
	for r, ok := range found {
		if !ok {
			parts = append(parts, fmt.Sprintf("rank %d none", r))
			missing = append(missing, strconv.Itoa(r))
			continue
		}
		a, err := g.Get(keys[r])
		if err != nil {
			continue
		}
		parts = append(parts, fmt.Sprintf("rank %d %s", r, a))
		ip := net.ParseIP(strings.Fields(a + " x")[0])
		switch {
		case ip != nil && ip.IsLoopback():
			loopback = append(loopback, strconv.Itoa(r))
		case ip != nil:
			others = true
		}
	}
	s := ". The ranks advertised: " + strings.Join(parts, ", ")
	if len(missing) > 0 {
		s += fmt.Sprintf(". Rank %s did not get that far: not every process reached the job's store at %s (one was not started, or cannot reach that address)", strings.Join(missing, ", "), net.JoinHostPort(g.opts.Host, strconv.Itoa(g.opts.Port)))
	}
	if len(loopback) > 0 && others {
		s += fmt.Sprintf(". Rank %s advertised a loopback address, which other machines cannot reach: on its machine set MASTER_ADDR to machine 0's address on the network the machines share, or GLOO_SOCKET_IFNAME to the interface on that network", strings.Join(loopback, ", "))
	}
	return s
}

// lingerForPeers keeps rank 0, which hosts the store, alive for a moment
// after a failed join, so that the other ranks can read why.
func (g *Group) lingerForPeers() {
	if g.opts.Rank != 0 || g.opts.AgentStorePrefix != "" {
		return
	}
	keys := make([]string, 0, g.opts.WorldSize)
	for r := 1; r < g.opts.WorldSize; r++ {
		keys = append(keys, gaveUpKey+strconv.Itoa(r))
	}
	for deadline := time.Now().Add(3 * time.Second); time.Now().Before(deadline); time.Sleep(joinPoll / 2) {
		found, err := g.HasKeys(keys)
		if err != nil {
			return
		}
		all := true
		for _, ok := range found {
			all = all && ok
		}
		if all {
			return
		}
	}
}

// openStore opens the job's store (kg_group_new). libtorch 1.13's client
// waits without a limit for an answer from whatever accepted its
// connection, so a store that has not opened joinGrace after the timeout
// is given up: the thread is left blocked in libtorch, and frees what it
// opened if it ever returns.
func openStore(o Options) (*C.kg_group, error) {
	type opened struct {
		g   *C.kg_group
		err error
	}
	host, prefix := C.CString(o.Host), C.CString(o.AgentStorePrefix)
	done := make(chan opened, 1)
	go func() {
		defer C.free(unsafe.Pointer(host))
		defer C.free(unsafe.Pointer(prefix))
		var g *C.kg_group
		var cerr *C.char
		if C.kg_group_new(host, C.int(o.Port), C.int(o.Rank), C.int(o.WorldSize), C.int64_t(o.Timeout.Milliseconds()), prefix, &g, &cerr) != 0 {
			done <- opened{err: storeError(o, takeError(cerr))}
			return
		}
		done <- opened{g: g}
	}()
	deadline := time.NewTimer(o.Timeout + joinGrace)
	defer deadline.Stop()
	select {
	case r := <-done:
		return r.g, r.err
	case <-deadline.C:
		go func() {
			if r := <-done; r.g != nil {
				C.kg_group_free(r.g)
			}
		}()
		return nil, fmt.Errorf("c10d: something at %s accepted this process's connection but did not answer as the job's store within %v: another program holds that port on machine 0 (its rank 0 then says the port is in use; choose another MASTER_PORT), or rank 0 is frozen",
			net.JoinHostPort(o.Host, strconv.Itoa(o.Port)), o.Timeout+joinGrace)
	}
}

// storeError says why the job's store could not be opened or joined, in
// the words of its cause.
func storeError(o Options, err error) error {
	msg := err.Error()
	switch {
	case strings.Contains(msg, "Address already in use") || strings.Contains(msg, "errno: 98"):
		return fmt.Errorf("c10d: port %d is already in use on this machine (another job, or a process of an earlier one that is still running), so rank 0 cannot host the job's store there: choose a free port with MASTER_PORT (kerasgo launch -master-port), the same on every machine (%s)", o.Port, strings.TrimPrefix(msg, "c10d: "))
	case o.Rank == 0 && strings.Contains(msg, "not every one of the"):
		return fmt.Errorf("%w: a process was not started, or cannot reach this machine's port %d (check MASTER_ADDR and MASTER_PORT on every machine, and that nothing drops the packets)", err, o.Port)
	}
	return err
}
