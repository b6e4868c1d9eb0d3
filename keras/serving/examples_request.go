package serving

import (
	"errors"
	"fmt"
	"strings"
)

// parseExamplesRequest reads a :classify or :regress body in TensorFlow
// Serving's format:
//
//	{"signature_name": ..., "context": {<feature>: <value>|<list>, ...},
//	 "examples": [{<feature>: <value>|<list>, ...}, ...]}
//
// A Keras model has no tf.Example signature, so kerasgo maps features to
// the model's inputs by name: each example (with the context's features,
// which no example may repeat) gives every input its values, a number, a
// string (or {"b64": ...}) or a list of them, as many as one sample of
// the input holds, in row-major order. The model must have one output:
// for :classify, a score per class for each sample; for :regress, one
// value per sample.
func parseExamplesRequest(body []byte, api string, specs, outputs []tensorSpec, allowNonFinite bool) (*predictRequest, error) {
	if err := checkExamplesOutput(api, outputs); err != nil {
		return nil, err
	}
	root, err := parseRequest(body, false, []string{"examples", "context"},
		`an object with "examples" (a list of objects keyed by feature name)`,
		`"examples", and optionally "context" and "signature_name"`)
	if err != nil {
		return nil, err
	}
	examples := root.field("examples")
	if examples == nil || examples.kind != jsonArray || examples.length() == 0 {
		return nil, errors.New("\"examples\" is missing or empty: give a list with one object of features per example")
	}
	context := root.field("context")
	if context != nil && context.kind != jsonObject {
		return nil, fmt.Errorf("\"context\" is %s: want an object of features shared by every example", context.kind)
	}
	isInput := map[string]bool{}
	for _, s := range specs {
		isInput[s.name] = true
		for _, d := range s.shape {
			if d < 0 {
				return nil, fmt.Errorf("input %q has a dimension of any length (Keras shape %s): a feature's list cannot say its shape, so :%s needs inputs of fixed shapes; use :predict", s.name, s.kerasShape(), api)
			}
		}
	}
	if context != nil {
		for _, k := range context.keys {
			if !isInput[k] {
				return nil, fmt.Errorf("\"context\" has the feature %q, which is not an input: the model's inputs are %v", k, names(specs))
			}
		}
	}
	n := examples.length()
	readers := make([]tensorReader, len(specs))
	for i, s := range specs {
		readers[i] = tensorReader{spec: s, allowNonFinite: allowNonFinite}
	}
	for k := range n {
		ex := examples.elem(k)
		where := fmt.Sprintf("example %d", k)
		if ex.kind != jsonObject {
			return nil, fmt.Errorf("%s is %s: want an object of features keyed by input name", where, ex.kind)
		}
		for _, f := range ex.keys {
			switch {
			case !isInput[f]:
				return nil, fmt.Errorf("%s has the feature %q, which is not an input: the model's inputs are %v", where, f, names(specs))
			case context != nil && context.field(f) != nil:
				return nil, fmt.Errorf("%s has the feature %q, which \"context\" has too: a context feature must not appear in the examples", where, f)
			}
		}
		for i, s := range specs {
			v := ex.field(s.name)
			if v == nil && context != nil {
				v = context.field(s.name)
			}
			if v == nil {
				return nil, fmt.Errorf("%s has no feature %q: every input needs one (in the example or the context); the model's inputs are %v", where, s.name, names(specs))
			}
			if err := readers[i].readFeature(v, product(s.shape), where); err != nil {
				return nil, err
			}
		}
	}
	req := &predictRequest{rows: n}
	keys := make([]string, len(specs))
	for i, s := range specs {
		req.x = append(req.x, readers[i].array(append([]int{n}, s.shape...)))
		keys[i] = formatShape(s.shape)
	}
	req.key = strings.Join(keys, " ")
	return req, nil
}

// checkExamplesOutput checks that the model's one output is what the
// method answers with: class scores for :classify, one value for
// :regress.
func checkExamplesOutput(api string, outputs []tensorSpec) error {
	if len(outputs) != 1 {
		return fmt.Errorf(":%s needs a model with one output; this one has %d %v: use :predict", api, len(outputs), names(outputs))
	}
	o := outputs[0]
	switch {
	case api == "classify" && len(o.shape) != 1:
		return fmt.Errorf(":classify needs an output of one score per class (shape (None, classes)); output %q has shape %s: use :predict", o.name, o.kerasShape())
	case api == "regress" && product(o.shape) != 1:
		return fmt.Errorf(":regress needs an output of one value per sample (shape (None, 1)); output %q has shape %s: use :predict", o.name, o.kerasShape())
	}
	return nil
}

// readFeature reads one example's feature for an input: a single value,
// or a list (nested lists are read in row-major order) of exactly want
// values.
func (r *tensorReader) readFeature(v *jsonValue, want int, where string) error {
	at := fmt.Sprintf("%s, feature %q,", where, r.spec.name)
	var leaves []*jsonValue
	var collect func(v *jsonValue)
	collect = func(v *jsonValue) {
		switch {
		case v.isDense():
			for i := range v.denseLen() {
				leaves = append(leaves, &jsonValue{kind: jsonNumber, num: v.denseAt(i)})
			}
		case v.kind == jsonArray:
			for _, e := range v.elems {
				collect(e)
			}
		default:
			leaves = append(leaves, v)
		}
	}
	collect(v)
	if len(leaves) != want {
		return fmt.Errorf("input %q: %s holds %d values, want %d (one sample of shape %s)", r.spec.name, strings.TrimSuffix(at, ","), len(leaves), want, r.spec.sampleShape())
	}
	r.path = r.path[:0]
	for _, leaf := range leaves {
		if err := r.fill(leaf, nil, 0, at); err != nil {
			return err
		}
	}
	return nil
}
