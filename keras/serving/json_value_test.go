package serving

import (
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"testing"
)

// toAny converts a parsed value to what encoding/json decodes, to compare
// the two parsers.
func toAny(v *jsonValue) any {
	switch v.kind {
	case jsonNull:
		return nil
	case jsonBool:
		return v.num == 1
	case jsonNumber:
		return v.num
	case jsonString:
		return v.str
	case jsonArray:
		out := []any{}
		for k := range v.length() {
			out = append(out, toAny(v.elem(k)))
		}
		return out
	}
	out := map[string]any{}
	for i, k := range v.keys {
		out[k] = toAny(v.vals[i])
	}
	return out
}

// The parser reads what encoding/json reads, the same.
func TestParseJSONAgreesWithEncodingJSON(t *testing.T) {
	for _, s := range []string{
		`{"instances": [[1, 2.5, -3e-2, 0], [1E3, -0, 0.125, 7]]}`,
		`{"inputs": {"a": [[1]], "b": []}, "signature_name": "serving_default"}`,
		`[1, [2, 3], {"k": null}, true, false, "x\"y\\z\u00e9\ud83d\ude00\n"]`,
		` [ ] `, `{}`, `"str"`, `-12.5e+3`,
	} {
		v, err := parseJSON([]byte(s))
		if err != nil {
			t.Fatalf("%s: %v", s, err)
		}
		var want any
		if err := json.Unmarshal([]byte(s), &want); err != nil {
			t.Fatal(err)
		}
		if got := toAny(v); !reflect.DeepEqual(got, want) {
			t.Errorf("%s: got %#v, want %#v", s, got, want)
		}
	}
}

func TestParseJSONNonFiniteAndErrors(t *testing.T) {
	v, err := parseJSON([]byte(`[NaN, Infinity, -Infinity, 1e400]`))
	if err != nil {
		t.Fatal(err)
	}
	if !math.IsNaN(v.dense[0]) || !math.IsInf(v.dense[1], 1) || !math.IsInf(v.dense[2], -1) || !math.IsInf(v.dense[3], 1) {
		t.Fatalf("got %v", v.dense)
	}
	for _, c := range []struct{ in, says string }{
		{`[1, 2`, "unexpected end"},
		{`[1 2]`, "want ',' or ']'"},
		{`{"a": 1, "a": 2}`, `the key "a" appears twice`},
		{`{"a" 1}`, "want ':'"},
		{`[01]`, "want ',' or ']'"},
		{`[1.]`, "digits after the decimal point"},
		{`[-]`, "want a value"},
		{`[nan]`, "unexpected 'n'"},
		{`"a` + "\x01" + `"`, "control character"},
		{`[1] x`, "after the JSON value"},
		{strings.Repeat("[", 100) + strings.Repeat("]", 100), "nested more than 64 levels"},
	} {
		if _, err := parseJSON([]byte(c.in)); err == nil || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%q: %v, want an error saying %q", c.in, err, c.says)
		}
	}
}

// FuzzParsePredictRequest: no body panics the parser, and a body
// encoding/json accepts either parses or is refused with an error.
func FuzzParsePredictRequest(f *testing.F) {
	for _, s := range []string{`{"instances": [[1,2],[3,4]]}`, `{"inputs": {"a": [[1,2]], "b": [[3]]}}`, `{"instances": [{"a": [1,2], "b": [3]}]}`, `[NaN]`, `{"instances": [[[[1]]]]}`} {
		f.Add([]byte(s))
	}
	specs := []tensorSpec{{name: "a", shape: []int{2}}, {name: "b", shape: []int{-1}, ints: true}}
	f.Fuzz(func(t *testing.T, body []byte) {
		req, err := parsePredictRequest(body, specs, false)
		if err != nil {
			return
		}
		for i, a := range req.x {
			if a.Shape[0] != req.rows || len(a.Shape) != 2 || (i == 0 && a.Shape[1] != 2) {
				t.Fatalf("input %d has shape %v for %d rows", i, a.Shape, req.rows)
			}
		}
	})
}

// Lists of numbers nested evenly are kept dense, with their shape; any
// other list is kept as values.
func TestParseJSONKeepsTensorsDense(t *testing.T) {
	for _, c := range []struct {
		in    string
		shape []int
	}{
		{`[1, 2, 3]`, []int{3}},
		{`[[1, 2], [3, 4], [5, 6]]`, []int{3, 2}},
		{`[[[1], [2]], [[3], [4]]]`, []int{2, 2, 1}},
		{`[]`, []int{0}},
		{`[[], []]`, []int{2, 0}},
		{`[[1, 2], [3]]`, nil},
		{`[[1], 2]`, nil},
		{`[1, [2]]`, nil},
		{`[[[1]], [2]]`, nil},
		{`[1, "a"]`, nil},
		{`[[1], [[2]]]`, nil},
	} {
		v, err := parseJSON([]byte(c.in))
		if err != nil {
			t.Fatalf("%s: %v", c.in, err)
		}
		if !reflect.DeepEqual(v.shape, c.shape) {
			t.Errorf("%s: shape %v, want %v", c.in, v.shape, c.shape)
		}
		if c.shape != nil && len(v.dense) != product(c.shape) {
			t.Errorf("%s: %d numbers", c.in, len(v.dense))
		}
	}
}

// FuzzParseJSON: on any body encoding/json decodes, the parser agrees
// with it (dense tensors and values alike).
func FuzzParseJSON(f *testing.F) {
	for _, s := range []string{`[[1,2],[3,4]]`, `[[1],[2,3]]`, `{"a": [1, "x"]}`, `[[[]]]`, `[1e5, -0.5]`} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		var want any
		if json.Unmarshal(body, &want) != nil {
			parseJSON(body) // must not panic
			return
		}
		v, err := parseJSON(body)
		if err != nil {
			if strings.Contains(err.Error(), "nested more than") || strings.Contains(err.Error(), "appears twice") {
				return // stricter than encoding/json, on purpose
			}
			t.Fatalf("%q: %v, but encoding/json reads it", body, err)
		}
		if got := toAny(v); !reflect.DeepEqual(got, want) {
			t.Fatalf("%q: got %#v, want %#v", body, got, want)
		}
	})
}
