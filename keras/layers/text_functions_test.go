package layers_test

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// stripHTML is keras.io's custom_standardization: lower-case, drop
// "<br />".
func stripHTML(text string) string {
	return strings.ReplaceAll(strings.ToLower(text), "<br />", " ")
}

// splitDashes splits at dashes.
func splitDashes(text string) []string {
	return strings.FieldsFunc(text, func(r rune) bool { return r == '-' })
}

func init() {
	// Keras writes a function registered with package "demo" as
	// "demo>strip_html"; the bare name finds it too.
	if err := layers.RegisterTextStandardizer("strip_html", stripHTML); err != nil {
		panic(err)
	}
	if err := layers.RegisterTextSplitter("split_dashes", splitDashes); err != nil {
		panic(err)
	}
}

// A TextVectorization with registered standardize and split functions
// uses them, writes them as Keras writes a registered function, and
// reads that config (and the one Keras 3.15.1 wrote for a function of
// package "demo") back to the same layer; an unregistered one is an error
// that says how to register it.
func TestTextVectorizationOwnFunctions(t *testing.T) {
	tv := &layers.TextVectorization{Standardize: "strip_html", Split: "split_dashes", Vocabulary: []string{"good", "film<x>", "bad"}}
	if _, err := tv.Build([]backend.Shape{{-1, 1}}); err != nil {
		t.Fatal(err)
	}
	in := backend.Array{Shape: []int{2, 1}, Strings: []string{"GOOD-Film<x>", "bad<br />-good-meh"}}
	out, err := tv.CallHost([]backend.Array{in})
	if err != nil {
		t.Fatal(err)
	}
	// ids: 0 padding, 1 OOV, then the vocabulary; "bad " keeps its space.
	if want := []int32{2, 3, 0, 1, 2, 1}; !slices.Equal(out.Ints, want) {
		t.Fatalf("ids %v, want %v (shape %v)", out.Ints, want, out.Shape)
	}
	cfg, err := tv.GetConfig()
	if err != nil {
		t.Fatal(err)
	}
	raw, _ := json.Marshal(map[string]any{"standardize": cfg["standardize"], "split": cfg["split"]})
	if want := `{"split":{"class_name":"function","config":"split_dashes","module":"builtins","registered_name":"function"},"standardize":{"class_name":"function","config":"strip_html","module":"builtins","registered_name":"function"}}`; string(raw) != want {
		t.Errorf("config %s, want %s", raw, want)
	}
	keras315 := serialization.Config{}
	for k, v := range cfg {
		keras315[k] = v
	}
	keras315["standardize"] = map[string]any{"module": "builtins", "class_name": "function", "config": "demo>strip_html", "registered_name": "function"}
	for _, c := range []serialization.Config{cfg, keras315} {
		back, err := layers.FromConfig("TextVectorization", roundTrip(t, c))
		if err != nil {
			t.Fatal(err)
		}
		got := back.(*layers.TextVectorization)
		if got.Standardize != "strip_html" || got.Split != "split_dashes" {
			t.Errorf("read back Standardize %q and Split %q", got.Standardize, got.Split)
		}
	}
	keras315["split"] = map[string]any{"module": "builtins", "class_name": "function", "config": "Custom>split_words", "registered_name": "function"}
	_, err = layers.FromConfig("TextVectorization", roundTrip(t, keras315))
	if err == nil || !strings.Contains(err.Error(), "Custom>split_words") || !strings.Contains(err.Error(), `RegisterTextSplitter("split_words"`) {
		t.Errorf("an unregistered split function: error %v, want one naming it and RegisterTextSplitter", err)
	}
	if err := layers.RegisterTextStandardizer("lower", stripHTML); err == nil {
		t.Error("registering a built-in name was accepted")
	}
}

// roundTrip passes a config through JSON, as a file holds it.
func roundTrip(t *testing.T, c serialization.Config) serialization.Config {
	t.Helper()
	raw, err := json.Marshal(c)
	if err != nil {
		t.Fatal(err)
	}
	var out serialization.Config
	if err := json.Unmarshal(raw, &out); err != nil {
		t.Fatal(err)
	}
	return out
}
