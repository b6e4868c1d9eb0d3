package serialization_test

import (
	"encoding/json"
	"testing"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// An OptimizerMap's paths keep the file's order (not Go's sorted or
// random map order), and Ordered writes them back in it.
func TestKeepKeyOrder(t *testing.T) {
	data := []byte(`{"optimizer": {"config": {"optimizer_map": {"class_name": "OptimizerMap", "config": {
		"default_optimizer": "sgd", "optimizer_map": {"z/.*": "adam", "a/.*": "rmsprop", "m": "sgd"}}}}}}`)
	var v map[string]any
	if err := json.Unmarshal(data, &v); err != nil {
		t.Fatal(err)
	}
	if err := serialization.KeepKeyOrder(v, data, "optimizer_map", "default_optimizer"); err != nil {
		t.Fatal(err)
	}
	inner := v["optimizer"].(map[string]any)["config"].(map[string]any)["optimizer_map"].(map[string]any)["config"].(map[string]any)
	entries, err := serialization.Entries(inner["optimizer_map"])
	if err != nil {
		t.Fatal(err)
	}
	var keys []string
	for _, e := range entries {
		keys = append(keys, e.Key)
	}
	if len(keys) != 3 || keys[0] != "z/.*" || keys[1] != "a/.*" || keys[2] != "m" {
		t.Errorf("the paths are %v, want the file's order [z/.* a/.* m]", keys)
	}
	out, err := json.Marshal(inner["optimizer_map"])
	if err != nil {
		t.Fatal(err)
	}
	if string(out) != `{"z/.*":"adam","a/.*":"rmsprop","m":"sgd"}` {
		t.Errorf("written back as %s, want the file's order", out)
	}
	if _, ok := v["optimizer"].(map[string]any)["config"].(map[string]any)["optimizer_map"].(map[string]any); !ok {
		t.Error("the MultiOptimizer's own optimizer_map (an object with class_name) must stay a map")
	}
}
