package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

// TestLaunchSetsTorchrunVariables: every worker gets its rank and the
// job's variables, as torchrun sets them.
func TestLaunchSetsTorchrunVariables(t *testing.T) {
	dir := t.TempDir()
	status, err := launch([]string{"-n", "3", "sh", "-c", `echo "$RANK $LOCAL_RANK $WORLD_SIZE $LOCAL_WORLD_SIZE $GROUP_RANK $MASTER_ADDR $MASTER_PORT" > ` + dir + `/$RANK`})
	if err != nil || status != 0 {
		t.Fatalf("launch: status %d, %v", status, err)
	}
	var port string
	for r, want := range []string{"0 0 3 3 0 127.0.0.1", "1 1 3 3 0 127.0.0.1", "2 2 3 3 0 127.0.0.1"} {
		data, err := os.ReadFile(filepath.Join(dir, string(rune('0'+r))))
		if err != nil {
			t.Fatal(err)
		}
		f := strings.Fields(string(data))
		if got := strings.Join(f[:6], " "); got != want {
			t.Errorf("worker %d saw %q, want %q", r, got, want)
		}
		if port == "" {
			port = f[6]
		} else if f[6] != port {
			t.Errorf("worker %d got port %s, worker 0 %s", r, f[6], port)
		}
	}
}

// TestLaunchMultiNodeRanks: machine 1 of 2 runs ranks 2 and 3.
func TestLaunchMultiNodeRanks(t *testing.T) {
	dir := t.TempDir()
	status, err := launch([]string{"-n", "2", "-nnodes", "2", "-node-rank", "1", "-master-addr", "10.1.2.3", "sh", "-c", `echo "$RANK $WORLD_SIZE $GROUP_RANK $MASTER_ADDR $MASTER_PORT" > ` + dir + `/$LOCAL_RANK`})
	if err != nil || status != 0 {
		t.Fatalf("launch: status %d, %v", status, err)
	}
	for local, want := range []string{"2 4 1 10.1.2.3 29500", "3 4 1 10.1.2.3 29500"} {
		data, _ := os.ReadFile(filepath.Join(dir, string(rune('0'+local))))
		if got := strings.TrimSpace(string(data)); got != want {
			t.Errorf("local worker %d saw %q, want %q", local, got, want)
		}
	}
}

// TestLaunchStopsTheOthersWhenOneFails: a failing worker's status is
// launch's, and the others are stopped rather than left hanging.
func TestLaunchStopsTheOthersWhenOneFails(t *testing.T) {
	start := time.Now()
	status, err := launch([]string{"-n", "3", "-grace", "2s", "sh", "-c", `if [ "$RANK" = 1 ]; then exit 7; fi; sleep 60`})
	if status != 7 || err == nil || !strings.Contains(err.Error(), "worker 1 failed") {
		t.Fatalf("launch: status %d, error %v; want 7 and one naming worker 1", status, err)
	}
	if took := time.Since(start); took > 20*time.Second {
		t.Fatalf("launch took %v: the other workers were not stopped", took)
	}
}

func TestLaunchBadUsage(t *testing.T) {
	for _, args := range [][]string{{}, {"-n", "0", "true"}, {"-nnodes", "2", "-node-rank", "2", "true"}, {"-master-port", "70000", "true"}} {
		if status, err := launch(args); status != 2 || err == nil {
			t.Errorf("launch %q: status %d, error %v; want 2 and an error", args, status, err)
		}
	}
}
