package serving

import (
	"errors"
	"fmt"
	"slices"
	"strings"

	"github.com/kerasgo/kerasgo/keras"
)

// predictRequest is a parsed :predict request, its inputs checked against
// the model's.
type predictRequest struct {
	x        []keras.Array // one per model input, in the model's order
	rows     int
	columnar bool   // given as "inputs" (answered as "outputs"), not "instances"
	key      string // the sample shapes of every input: requests batch together only when theirs are equal
}

// parsePredictRequest reads a body in TensorFlow Serving's REST format:
// {"instances": [...]} (the row format: one entry per sample, an object
// keyed by input name for a model with several inputs) or {"inputs": ...}
// (the columnar format: one batch per input), with an optional
// "signature_name", which must be "serving_default" if given.
func parsePredictRequest(body []byte, specs []tensorSpec, allowNonFinite bool) (*predictRequest, error) {
	// Tensors are kept as float32 unless an input takes integers (token
	// ids beyond 2^24 need float64 to be read exactly).
	f32 := !slices.ContainsFunc(specs, func(s tensorSpec) bool { return s.ints })
	root, err := parseRequest(body, f32, []string{"instances", "inputs"},
		`an object with "instances" (one entry per sample) or "inputs" (one batch per input)`,
		`"instances" or "inputs", and optionally "signature_name"`)
	if err != nil {
		return nil, err
	}
	instances, inputs := root.field("instances"), root.field("inputs")
	switch {
	case instances != nil && inputs != nil:
		return nil, errors.New("the request has both \"instances\" and \"inputs\": give one of them")
	case instances != nil:
		return parseInstances(instances, specs, allowNonFinite)
	case inputs != nil:
		return parseInputs(inputs, specs, allowNonFinite)
	}
	return nil, errors.New("missing \"instances\" or \"inputs\" in the request")
}

// parseRequest parses a request body (with f32, tensors as float32:
// parseJSONAs) and checks its envelope, shared by every method: an
// object whose keys are among keys and "signature_name", which must name
// the one signature if given. want and allowed say, in errors, what the
// body should be and which keys it may have.
func parseRequest(body []byte, f32 bool, keys []string, want, allowed string) (*jsonValue, error) {
	root, err := parseJSONAs(body, f32)
	if err != nil {
		return nil, err
	}
	if root.kind != jsonObject {
		return nil, fmt.Errorf("the request is %s: want %s", root.kind, want)
	}
	for _, k := range root.keys {
		if k != "signature_name" && !slices.Contains(keys, k) {
			return nil, fmt.Errorf("unknown key %q in the request: want %s", k, allowed)
		}
	}
	if sig := root.field("signature_name"); sig != nil && (sig.kind != jsonString || sig.str != defaultSignature) {
		return nil, fmt.Errorf("unknown signature_name: a Keras model has the one signature %q", defaultSignature)
	}
	return root, nil
}

// parseInstances reads the row format.
func parseInstances(v *jsonValue, specs []tensorSpec, allowNonFinite bool) (*predictRequest, error) {
	if v.kind != jsonArray {
		return nil, fmt.Errorf("\"instances\" is %s: want a list with one entry per sample", v.kind)
	}
	n := v.length()
	if n == 0 {
		return nil, errors.New("\"instances\" is empty: give at least one sample")
	}
	if len(specs) == 1 && v.dense32 != nil && !specs[0].ints && !specs[0].strs {
		// One float input, its instances one tensor: the tensor's numbers
		// are the input's batch as they are, without a copy.
		shape := v.shape[1:]
		if !specs[0].fits(shape) {
			return nil, fmt.Errorf("input %q: instance 0 has shape %s, but the model takes %s per instance (Keras shape %s)", specs[0].name, formatShape(shape), specs[0].sampleShape(), specs[0].kerasShape())
		}
		r := tensorReader{spec: specs[0], allowNonFinite: allowNonFinite}
		if err := r.adopt(v, "instance"); err != nil {
			return nil, err
		}
		return &predictRequest{rows: n, x: []keras.Array{r.array(v.shape)}, key: formatShape(shape)}, nil
	}
	// Each instance's value for each input.
	values := make([][]*jsonValue, len(specs))
	for i := range specs {
		values[i] = make([]*jsonValue, n)
	}
	for k := range n {
		inst := v.elem(k)
		if inst.kind == jsonObject && !(len(specs) == 1 && isB64(inst)) {
			if err := checkNames(inst, specs, fmt.Sprintf("instance %d", k)); err != nil {
				return nil, err
			}
			for i, s := range specs {
				values[i][k] = inst.field(s.name)
			}
			continue
		}
		if len(specs) > 1 {
			return nil, fmt.Errorf("instance %d is %s: the model has %d inputs %v, so each instance is an object with one entry per input", k, inst.kind, len(specs), names(specs))
		}
		values[0][k] = inst
	}
	req := &predictRequest{rows: n}
	keys := make([]string, len(specs))
	for i, s := range specs {
		shape := shapeOf(values[i][0])
		if !s.fits(shape) {
			return nil, fmt.Errorf("input %q: instance 0 has shape %s, but the model takes %s per instance (Keras shape %s)", s.name, formatShape(shape), s.sampleShape(), s.kerasShape())
		}
		r := tensorReader{spec: s, allowNonFinite: allowNonFinite}
		for k, e := range values[i] {
			if err := r.read(e, shape, fmt.Sprintf("instance %d", k)); err != nil {
				return nil, err
			}
		}
		req.x = append(req.x, r.array(append([]int{n}, shape...)))
		keys[i] = formatShape(shape)
	}
	req.key = strings.Join(keys, " ")
	return req, nil
}

// parseInputs reads the columnar format.
func parseInputs(v *jsonValue, specs []tensorSpec, allowNonFinite bool) (*predictRequest, error) {
	values := []*jsonValue{v}
	if v.kind == jsonObject {
		if err := checkNames(v, specs, "\"inputs\""); err != nil {
			return nil, err
		}
		values = values[:0]
		for _, s := range specs {
			values = append(values, v.field(s.name))
		}
	} else if len(specs) > 1 {
		return nil, fmt.Errorf("\"inputs\" is %s: the model has %d inputs %v, so \"inputs\" is an object with one batch per input", v.kind, len(specs), names(specs))
	}
	req := &predictRequest{rows: -1, columnar: true}
	keys := make([]string, len(specs))
	for i, s := range specs {
		shape := shapeOf(values[i])
		if len(shape) == 0 || !s.fits(shape[1:]) {
			return nil, fmt.Errorf("input %q has shape %s, but the model takes %s: samples first, then %s per sample", s.name, formatShape(shape), s.kerasShape(), s.sampleShape())
		}
		if shape[0] == 0 {
			return nil, fmt.Errorf("input %q holds no samples: give at least one", s.name)
		}
		if req.rows >= 0 && shape[0] != req.rows {
			return nil, fmt.Errorf("input %q holds %d samples but input %q holds %d: give every input the same number", s.name, shape[0], specs[0].name, req.rows)
		}
		req.rows = shape[0]
		r := tensorReader{spec: s, allowNonFinite: allowNonFinite}
		if err := r.read(values[i], shape, "\"inputs\""); err != nil {
			return nil, err
		}
		req.x = append(req.x, r.array(shape))
		keys[i] = formatShape(shape[1:])
	}
	req.key = strings.Join(keys, " ")
	return req, nil
}

// checkNames checks that an object has one entry per input, named as the
// inputs are.
func checkNames(obj *jsonValue, specs []tensorSpec, what string) error {
	for _, s := range specs {
		if obj.field(s.name) == nil {
			return fmt.Errorf("%s has no entry for input %q: the model's inputs are %v", what, s.name, names(specs))
		}
	}
	if len(obj.keys) != len(specs) {
		for _, k := range obj.keys {
			if !slices.ContainsFunc(specs, func(s tensorSpec) bool { return s.name == k }) {
				return fmt.Errorf("%s has an entry for %q, which is not an input: the model's inputs are %v", what, k, names(specs))
			}
		}
	}
	return nil
}

func names(specs []tensorSpec) []string {
	out := make([]string, len(specs))
	for i, s := range specs {
		out[i] = s.name
	}
	return out
}
