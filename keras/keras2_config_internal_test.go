package keras

import (
	"encoding/json"
	"testing"
)

// Keras 2's inbound nodes, with several inputs and kwargs, and a
// Sequential model's batch_input_shape become Keras 3's spelling.
func TestKeras2ConfigRewrite(t *testing.T) {
	in := `{"class_name": "Functional", "config": {"layers": [
		{"class_name": "Concatenate", "config": {"name": "join"}, "name": "join",
		 "inbound_nodes": [[["a", 0, 0, {}], ["b", 1, 0, {"training": false}]]]},
		{"class_name": "Sequential", "config": {"name": "inner", "layers": [
			{"class_name": "Dense", "config": {"name": "d", "batch_input_shape": [null, 3], "dtype": "float32", "units": 2}}]},
		 "name": "inner", "inbound_nodes": [[["join", 0, 0, {}]]]}]}}`
	out, err := keras2Config([]byte(in))
	if err != nil {
		t.Fatal(err)
	}
	var got struct {
		Config struct {
			Layers []struct {
				ClassName    string           `json:"class_name"`
				Config       map[string]any   `json:"config"`
				InboundNodes []map[string]any `json:"inbound_nodes"`
			} `json:"layers"`
		} `json:"config"`
	}
	if err := json.Unmarshal(out, &got); err != nil {
		t.Fatal(err)
	}
	join := got.Config.Layers[0].InboundNodes[0]
	args, _ := json.Marshal(join["args"])
	kwargs, _ := json.Marshal(join["kwargs"])
	if string(args) != `[[{"class_name":"__keras_tensor__","config":{"keras_history":["a",0,0]}},{"class_name":"__keras_tensor__","config":{"keras_history":["b",1,0]}}]]` || string(kwargs) != `{"training":false}` {
		t.Errorf("join's node: args %s, kwargs %s", args, kwargs)
	}
	inner, _ := json.Marshal(got.Config.Layers[1].Config["layers"])
	want := `[{"class_name":"InputLayer","config":{"batch_shape":[null,3],"dtype":"float32","name":"d_input"}},{"class_name":"Dense","config":{"dtype":"float32","name":"d","units":2}}]`
	if string(inner) != want {
		t.Errorf("the nested Sequential's layers:\n%s\nwant\n%s", inner, want)
	}
}
