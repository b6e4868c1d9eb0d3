package serialization

import (
	"encoding/json"
	"strings"
	"testing"
)

func TestSnakeCase(t *testing.T) {
	for in, want := range map[string]string{
		"Dense": "dense", "Conv2D": "conv2d", "MaxPooling2D": "max_pooling2d", "InputLayer": "input_layer",
		"BatchNormalization": "batch_normalization", "LSTM": "lstm", "GlobalAveragePooling2D": "global_average_pooling2d",
		"Conv2DTranspose": "conv2d_transpose", "MultiHeadAttention": "multi_head_attention", "PReLU": "p_re_lu",
	} {
		if got := SnakeCase(in); got != want {
			t.Errorf("SnakeCase(%q) = %q, want %q", in, got, want)
		}
	}
}

func decode(t *testing.T, s string) Config {
	t.Helper()
	var c Config
	if err := json.Unmarshal([]byte(s), &c); err != nil {
		t.Fatal(err)
	}
	return c
}

func TestReaderIsStrict(t *testing.T) {
	cases := []struct {
		cfg  string
		read func(r *Reader)
		want string // empty: no error
	}{
		{`{"units": 3, "use_bias": true}`, func(r *Reader) { r.Int("units", 0); r.Bool("use_bias", true) }, ""},
		{`{"units": 3.5}`, func(r *Reader) { r.Int("units", 0) }, `option "units": want an integer`},
		{`{"units": 3, "lora_rank": null, "quantization": false}`, func(r *Reader) { r.Int("units", 0) }, ""},
		{`{"units": 3, "kernel_regularizer": {"class_name": "L2"}}`, func(r *Reader) { r.Int("units", 0) }, `option "kernel_regularizer"`},
		{`{"kernel_regularizer": {"class_name": "L2"}}`, func(r *Reader) { r.ExpectNull("kernel_regularizer") }, "not supported by kerasgo yet"},
		{`{"dilation_rate": [1, 1]}`, func(r *Reader) { r.Expect("dilation_rate", []any{1.0, 1.0}, "") }, ""},
		{`{"dilation_rate": [2, 2]}`, func(r *Reader) { r.Expect("dilation_rate", []any{1.0, 1.0}, "") }, `option "dilation_rate": [2,2] is not supported`},
		{`{"kernel_size": 3}`, func(r *Reader) {
			if p := r.Pair("kernel_size", [2]int{}); p != [2]int{3, 3} {
				r.Fail("kernel_size", "got %v", p)
			}
		}, ""},
		{`{"kernel_size": [3, 5, 1]}`, func(r *Reader) { r.Pair("kernel_size", [2]int{}) }, "want two integers"},
		{`{"batch_shape": [null, 28, 28, 1]}`, func(r *Reader) {
			if s := r.Ints("batch_shape"); len(s) != 4 || s[0] != -1 {
				r.Fail("batch_shape", "got %v", s)
			}
		}, ""},
		{`{"target_shape": [2, -1, 3]}`, func(r *Reader) {
			if s := r.Dims("target_shape"); len(s) != 3 || s[1] != -1 {
				r.Fail("target_shape", "got %v", s)
			}
		}, ""},
		{`{"target_shape": [2, -2]}`, func(r *Reader) { r.Dims("target_shape") }, "want a list of non-negative integers and -1"},
		{`{"dims": [2, -1]}`, func(r *Reader) { r.Ints("dims") }, "want a list of non-negative integers"},
		{`{"dtype": {"class_name": "DTypePolicy", "config": {"name": "float64"}}}`, func(r *Reader) { r.DType("dtype") }, "kerasgo has the dtype policies float32"},
		{`{"dtype": "int8"}`, func(r *Reader) { r.DType("dtype") }, "set the layer's dtype to one of them"},
		{`{"dtype": {"class_name": "DTypePolicy", "config": {"name": "mixed_float16"}}}`, func(r *Reader) {
			if p := r.DType("dtype"); p != "mixed_float16" {
				r.Fail("dtype", "read as %q", p)
			}
		}, ""},
		{`{"dtype": "bfloat16"}`, func(r *Reader) {
			if p := r.DType("dtype"); p != "bfloat16" {
				r.Fail("dtype", "read as %q", p)
			}
		}, ""},
		{`{"dtype": "float32"}`, func(r *Reader) {
			if p := r.DType("dtype"); p != "" {
				r.Fail("dtype", "read as %q", p)
			}
		}, ""},
	}
	for _, c := range cases {
		r := NewReader(`layer "x" (X)`, decode(t, c.cfg))
		c.read(r)
		err := r.Finish()
		switch {
		case c.want == "" && err != nil:
			t.Errorf("%s: unexpected error %v", c.cfg, err)
		case c.want != "" && (err == nil || !strings.Contains(err.Error(), c.want)):
			t.Errorf("%s: error %v, want one containing %q", c.cfg, err, c.want)
		case err != nil && !strings.Contains(err.Error(), `layer "x" (X)`):
			t.Errorf("%s: error %v does not name the layer", c.cfg, err)
		}
	}
}
