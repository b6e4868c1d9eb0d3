package distribution_test

import (
	"strings"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/keras/distribution"
)

func TestFromEnv(t *testing.T) {
	t.Setenv("WORLD_SIZE", "4")
	t.Setenv("RANK", "2")
	t.Setenv("LOCAL_RANK", "0")
	t.Setenv("LOCAL_WORLD_SIZE", "2")
	t.Setenv("MASTER_ADDR", "10.0.0.1")
	t.Setenv("MASTER_PORT", "1234")
	t.Setenv("KERASGO_DISTRIBUTED_TIMEOUT", "90s")
	t.Setenv("GLOO_SOCKET_IFNAME", "eth1")
	c, err := distribution.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	want := distribution.Config{Rank: 2, WorldSize: 4, LocalRank: 0, LocalWorldSize: 2, MasterAddr: "10.0.0.1", MasterPort: 1234, Timeout: 90 * time.Second, Interface: "eth1"}
	if c != want {
		t.Fatalf("FromEnv() = %+v, want %+v", c, want)
	}
	if !distribution.Launched() {
		t.Fatal("Launched() = false with WORLD_SIZE set")
	}
}

func TestFromEnvDefaults(t *testing.T) {
	t.Setenv("WORLD_SIZE", "2")
	t.Setenv("RANK", "1")
	for _, v := range []string{"LOCAL_RANK", "LOCAL_WORLD_SIZE", "MASTER_ADDR", "MASTER_PORT", "KERASGO_DISTRIBUTED_TIMEOUT", "GLOO_SOCKET_IFNAME"} {
		t.Setenv(v, "")
	}
	c, err := distribution.FromEnv()
	if err != nil {
		t.Fatal(err)
	}
	if distribution.DefaultTimeout > 5*time.Minute {
		t.Fatalf("DefaultTimeout is %v: a hung job must fail in minutes, not half an hour", distribution.DefaultTimeout)
	}
	if c.MasterAddr != "127.0.0.1" || c.MasterPort != 29500 || c.Timeout != distribution.DefaultTimeout {
		t.Fatalf("defaults: %+v, want PyTorch's 127.0.0.1:29500 and DefaultTimeout", c)
	}
}

func TestBadConfigErrors(t *testing.T) {
	for _, c := range []struct {
		env  map[string]string
		want string
	}{
		{map[string]string{"WORLD_SIZE": ""}, "WORLD_SIZE is not set: start the processes with kerasgo launch"},
		{map[string]string{"WORLD_SIZE": "2", "RANK": ""}, "RANK is not set"},
		{map[string]string{"WORLD_SIZE": "two", "RANK": "0"}, `WORLD_SIZE="two" is not a whole number`},
		{map[string]string{"WORLD_SIZE": "2", "RANK": "2"}, "rank 2 is outside [0, 2)"},
		{map[string]string{"WORLD_SIZE": "0", "RANK": "0"}, "world size must be at least 1"},
		{map[string]string{"WORLD_SIZE": "2", "RANK": "0", "MASTER_PORT": "70000"}, "MASTER_PORT 70000 is not a TCP port"},
		{map[string]string{"WORLD_SIZE": "2", "RANK": "0", "LOCAL_WORLD_SIZE": "3"}, "LOCAL_WORLD_SIZE 3 is outside [1, 2]"},
		{map[string]string{"WORLD_SIZE": "2", "RANK": "0", "KERASGO_DISTRIBUTED_TIMEOUT": "soon"}, `KERASGO_DISTRIBUTED_TIMEOUT="soon" is not a positive duration`},
	} {
		for _, v := range []string{"WORLD_SIZE", "RANK", "LOCAL_WORLD_SIZE", "MASTER_PORT", "KERASGO_DISTRIBUTED_TIMEOUT"} {
			t.Setenv(v, "")
		}
		for k, v := range c.env {
			t.Setenv(k, v)
		}
		_, err := distribution.FromEnv()
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%v: error %v, want one containing %q", c.env, err, c.want)
		}
	}
}
