package distribution

import (
	"fmt"
	"os"
	"strconv"
	"time"
)

// DefaultTimeout is how long the rendezvous and each collective wait for
// the other processes before failing. c10d's default is 30 minutes, which
// leaves a hung job (a frozen process, a wrong MASTER_PORT) running for
// half an hour; kerasgo fails it in 5. Raise Config.Timeout (or
// $KERASGO_DISTRIBUTED_TIMEOUT) for a job whose processes legitimately
// wait longer for each other (rank 0 writing a very large checkpoint).
const DefaultTimeout = 5 * time.Minute

// Config says where this process sits in a data-parallel job. Zero fields
// are read from the environment PyTorch's launchers set (see FromEnv).
type Config struct {
	// Rank is this process's number, from 0 (RANK); rank 0 hosts the
	// rendezvous store, prints progress and writes checkpoints.
	Rank int
	// WorldSize is the number of processes (WORLD_SIZE); 0 means read it.
	WorldSize int
	// LocalRank is the process's number on its machine (LOCAL_RANK), which
	// chooses its GPU.
	LocalRank int
	// LocalWorldSize is the number of processes on this machine
	// (LOCAL_WORLD_SIZE); 0 means not known. When it is smaller than
	// WorldSize the job spans machines, and a loopback address is refused.
	LocalWorldSize int
	// MasterAddr and MasterPort are rank 0's address and the store's port
	// (MASTER_ADDR, MASTER_PORT; default 127.0.0.1 and 29500 as PyTorch's).
	MasterAddr string
	MasterPort int
	// Timeout bounds the rendezvous and every collective: a process that
	// died or hangs makes the others fail after it. 0 means
	// $KERASGO_DISTRIBUTED_TIMEOUT (a Go duration such as "90s"), else
	// DefaultTimeout.
	Timeout time.Duration
	// Interface is the network interface Gloo uses (GLOO_SOCKET_IFNAME).
	// Empty: the address of this machine that its routing table uses to
	// reach MasterAddr (on machine 0, MasterAddr itself). PyTorch instead
	// uses the address the host name resolves to, which is loopback on
	// many machines, so that the other machines cannot connect.
	Interface string
	// AgentStore says the launcher hosts the store at MasterAddr:MasterPort
	// (torchrun's agent: TORCHELASTIC_USE_AGENT_STORE=True), and Attempt is
	// its restart count (TORCHELASTIC_RESTART_COUNT): each attempt of an
	// elastic job meets under its own keys.
	AgentStore bool
	Attempt    int
}

// Launched reports whether this process was started by a launcher
// (kerasgo launch, torchrun): WORLD_SIZE is set.
func Launched() bool { return os.Getenv("WORLD_SIZE") != "" }

// FromEnv returns the launcher's configuration: RANK and WORLD_SIZE are
// required, the rest have PyTorch's defaults.
func FromEnv() (Config, error) { return Config{}.resolve() }

// resolve fills zero fields from the environment and checks the result.
func (c Config) resolve() (Config, error) {
	intVar := func(name string, dst *int, required bool) error {
		v := os.Getenv(name)
		if v == "" {
			if required {
				return fmt.Errorf("%s is not set: start the processes with kerasgo launch -n N or torchrun --no_python, or give distribution.Config the rank and world size", name)
			}
			return nil
		}
		n, err := strconv.Atoi(v)
		if err != nil {
			return fmt.Errorf("%s=%q is not a whole number", name, v)
		}
		*dst = n
		return nil
	}
	if c.WorldSize == 0 {
		if err := intVar("WORLD_SIZE", &c.WorldSize, true); err != nil {
			return c, err
		}
		if err := intVar("RANK", &c.Rank, true); err != nil {
			return c, err
		}
		if err := intVar("LOCAL_RANK", &c.LocalRank, false); err != nil {
			return c, err
		}
		if err := intVar("LOCAL_WORLD_SIZE", &c.LocalWorldSize, false); err != nil {
			return c, err
		}
	}
	if c.MasterAddr == "" {
		c.MasterAddr = os.Getenv("MASTER_ADDR")
		if c.MasterAddr == "" {
			c.MasterAddr = "127.0.0.1"
		}
	}
	if c.MasterPort == 0 {
		c.MasterPort = 29500
		if err := intVar("MASTER_PORT", &c.MasterPort, false); err != nil {
			return c, err
		}
	}
	if c.Timeout == 0 {
		c.Timeout = DefaultTimeout
		if v := os.Getenv("KERASGO_DISTRIBUTED_TIMEOUT"); v != "" {
			d, err := time.ParseDuration(v)
			if err != nil || d <= 0 {
				return c, fmt.Errorf("KERASGO_DISTRIBUTED_TIMEOUT=%q is not a positive duration such as 90s or 10m", v)
			}
			c.Timeout = d
		}
	}
	if c.Interface == "" {
		c.Interface = os.Getenv("GLOO_SOCKET_IFNAME")
	}
	if !c.AgentStore && os.Getenv("TORCHELASTIC_USE_AGENT_STORE") == "True" {
		c.AgentStore = true
		if err := intVar("TORCHELASTIC_RESTART_COUNT", &c.Attempt, false); err != nil {
			return c, err
		}
	}
	switch {
	case c.WorldSize < 1:
		return c, fmt.Errorf("the world size must be at least 1, got %d", c.WorldSize)
	case c.Rank < 0 || c.Rank >= c.WorldSize:
		return c, fmt.Errorf("rank %d is outside [0, %d): each of the %d processes needs its own rank", c.Rank, c.WorldSize, c.WorldSize)
	case c.MasterPort < 1 || c.MasterPort > 65535:
		return c, fmt.Errorf("MASTER_PORT %d is not a TCP port (1-65535)", c.MasterPort)
	case c.LocalWorldSize < 0 || c.LocalWorldSize > c.WorldSize:
		return c, fmt.Errorf("LOCAL_WORLD_SIZE %d is outside [1, %d], the world size", c.LocalWorldSize, c.WorldSize)
	case c.Timeout < 0:
		return c, fmt.Errorf("the timeout must be positive, got %v", c.Timeout)
	}
	return c, nil
}
