package serialization

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// Config is the "config" object of a serialized Keras object, decoded
// from JSON (numbers are float64, lists []any, objects map[string]any).
type Config map[string]any

// Object is a serialized Keras object: module, class and config.
type Object struct {
	Module         string `json:"module"`
	ClassName      string `json:"class_name"`
	Config         Config `json:"config"`
	RegisteredName any    `json:"registered_name"`
}

// NewObject returns the serialized form of a built-in Keras object.
func NewObject(module, class string, cfg Config) Object {
	if cfg == nil {
		cfg = Config{}
	}
	return Object{Module: module, ClassName: class, Config: cfg}
}

// DTypePolicy is how Keras 3 serializes a layer's float32 dtype policy.
func DTypePolicy() Object {
	return NewObject("keras", "DTypePolicy", Config{"name": "float32"})
}

// Reader reads a Config strictly. Each accessor records the key as
// understood; Finish reports the first error and every key nobody read
// whose value is not a default (null, false, empty), so that a Keras
// setting kerasgo does not implement is never silently dropped. Errors
// name the object (What) and the key.
type Reader struct {
	What string // e.g. `layer "dense" (Dense)`
	cfg  Config
	used map[string]bool
	err  error
}

// NewReader returns a Reader over cfg; what names the object in errors.
func NewReader(what string, cfg Config) *Reader {
	return &Reader{What: what, cfg: cfg, used: map[string]bool{}}
}

// Err returns the first error met so far.
func (r *Reader) Err() error { return r.err }

// Fail records an error about key (the first one wins).
func (r *Reader) Fail(key, format string, args ...any) {
	if r.err == nil {
		r.err = fmt.Errorf("%s: option %q: %s", r.What, key, fmt.Sprintf(format, args...))
	}
}

func (r *Reader) get(key string) (any, bool) {
	r.used[key] = true
	v, ok := r.cfg[key]
	if !ok || v == nil {
		return nil, false
	}
	return v, true
}

// Value returns the raw value of key, marking it read; ok is false when it
// is absent or null.
func (r *Reader) Value(key string) (v any, ok bool) { return r.get(key) }

// Has reports whether key is present and not null.
func (r *Reader) Has(key string) bool {
	v, ok := r.cfg[key]
	return ok && v != nil
}

// IsNull reports whether key is present with the value null (Python's
// None), which for some settings means something other than absent.
func (r *Reader) IsNull(key string) bool {
	v, ok := r.cfg[key]
	return ok && v == nil
}

// Ignore marks keys as understood without reading them (settings with no
// effect on what kerasgo computes, such as an initializer's seed).
func (r *Reader) Ignore(keys ...string) {
	for _, k := range keys {
		r.used[k] = true
	}
}

// Int reads an integer (def when absent or null).
func (r *Reader) Int(key string, def int) int {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	f, isNum := v.(float64)
	if isNum && f == math.Trunc(f) && math.Abs(f) > maxInt {
		r.Fail(key, "%s is too large: want an integer of at most %d", strconv.FormatFloat(f, 'g', -1, 64), maxInt)
		return def
	}
	if !isNum || f != math.Trunc(f) {
		r.Fail(key, "want an integer, got %v", describe(v))
		return def
	}
	return int(f)
}

// maxInt is the largest integer setting kerasgo reads (2^31).
const maxInt = 1 << 31

// PositiveInt reads an integer of at least 1 that Keras requires (a
// Dense's units, a Conv2D's filters or groups): def when absent, but null
// or a value below 1 is an error naming the key. def 0 makes the key
// required.
func (r *Reader) PositiveInt(key string, def int) int {
	v, present := r.cfg[key]
	switch {
	case present && v == nil:
		r.used[key] = true
		r.Fail(key, "is null (Python's None): want an integer >= 1")
		return def
	case !present && def < 1:
		r.used[key] = true
		r.Fail(key, "is missing: want an integer >= 1")
		return def
	}
	n := r.Int(key, def)
	if r.err == nil && n < 1 {
		r.Fail(key, "want an integer >= 1, got %d", n)
	}
	return n
}

// NotNull refuses each of keys that is present with the value null, for
// settings Keras does not accept None for (a convolution's strides):
// reading null as the default would silently change the model.
func (r *Reader) NotNull(keys ...string) {
	for _, k := range keys {
		if v, present := r.cfg[k]; present && v == nil {
			r.Fail(k, "is null (Python's None), which Keras does not accept here: give its value")
		}
	}
}

// Float reads a number (def when absent or null).
func (r *Reader) Float(key string, def float64) float64 {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	f, isNum := v.(float64)
	if !isNum {
		r.Fail(key, "want a number, got %v", describe(v))
		return def
	}
	return f
}

// String reads a string (def when absent or null).
func (r *Reader) String(key, def string) string {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	s, isStr := v.(string)
	if !isStr {
		r.Fail(key, "want a string, got %v", describe(v))
		return def
	}
	return s
}

// Bool reads a boolean (def when absent or null).
func (r *Reader) Bool(key string, def bool) bool {
	v, ok := r.get(key)
	if !ok {
		return def
	}
	b, isBool := v.(bool)
	if !isBool {
		r.Fail(key, "want true or false, got %v", describe(v))
		return def
	}
	return b
}

// Ints reads a list of integers; null entries (Keras's None for an unknown
// dimension) become -1. Absent or null gives nil.
func (r *Reader) Ints(key string) []int { return r.ints(key, 0) }

// Dims reads a list of dimensions, as Ints does, where -1 may also stand
// for a dimension to infer (Reshape's target_shape).
func (r *Reader) Dims(key string) []int { return r.ints(key, -1) }

// ints reads a list of integers of at least least.
func (r *Reader) ints(key string, least float64) []int {
	v, ok := r.get(key)
	if !ok {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		r.Fail(key, "want a list of integers, got %v", describe(v))
		return nil
	}
	out := make([]int, len(list))
	for i, e := range list {
		if e == nil {
			out[i] = -1
			continue
		}
		f, isNum := e.(float64)
		if !isNum || f != math.Trunc(f) || f < least || f > 1<<31 {
			if least < 0 {
				r.Fail(key, "want a list of non-negative integers and -1, got %v", v)
			} else {
				r.Fail(key, "want a list of non-negative integers, got %v", v)
			}
			return nil
		}
		out[i] = int(f)
	}
	return out
}

// Floats reads a list of numbers; absent or null gives nil.
func (r *Reader) Floats(key string) []float64 {
	v, ok := r.get(key)
	if !ok || v == nil {
		return nil
	}
	list, isList := v.([]any)
	if !isList {
		r.Fail(key, "want a list of numbers, got %v", describe(v))
		return nil
	}
	out := make([]float64, len(list))
	for i, e := range list {
		f, isNum := e.(float64)
		if !isNum {
			r.Fail(key, "want a list of numbers, got %v", describe(v))
			return nil
		}
		out[i] = f
	}
	return out
}

// Numbers reads a number or a nested list of numbers (a NumPy array's
// tolist(), such as Normalization's mean): its values in row-major order
// and its shape (empty for a number). Absent or null gives nil, nil.
func (r *Reader) Numbers(key string) ([]float64, []int) {
	v, ok := r.get(key)
	if !ok {
		return nil, nil
	}
	values, shape, ok := flattenNumbers(v)
	if !ok {
		r.Fail(key, "want a number or a nested list of numbers of one shape, got %v", describe(v))
		return nil, nil
	}
	return values, shape
}

// flattenNumbers flattens a number or a rectangular nested list.
func flattenNumbers(v any) ([]float64, []int, bool) {
	switch v := v.(type) {
	case float64:
		return []float64{v}, []int{}, true
	case []any:
		var values []float64
		var inner []int
		for i, e := range v {
			ev, es, ok := flattenNumbers(e)
			if !ok || i > 0 && fmt.Sprint(es) != fmt.Sprint(inner) {
				return nil, nil, false
			}
			inner = es
			values = append(values, ev...)
		}
		if len(v) == 0 {
			inner = []int{}
		}
		return values, append([]int{len(v)}, inner...), true
	}
	return nil, nil, false
}

// Pair reads Keras's int-or-tuple of two integers (kernel_size, strides).
func (r *Reader) Pair(key string, def [2]int) [2]int {
	t := r.tuple(key, def[:], "two")
	return [2]int{t[0], t[1]}
}

// Triple reads Keras's int-or-tuple of three integers (a 3-D layer's
// kernel_size, strides, pool_size).
func (r *Reader) Triple(key string, def [3]int) [3]int {
	t := r.tuple(key, def[:], "three")
	return [3]int{t[0], t[1], t[2]}
}

// tuple reads an int-or-tuple of len(def) integers (count names how
// many, for the error).
func (r *Reader) tuple(key string, def []int, count string) []int {
	v, ok := r.cfg[key]
	if !ok || v == nil {
		r.used[key] = true
		return def
	}
	if _, isNum := v.(float64); isNum {
		n := r.Int(key, 0)
		out := make([]int, len(def))
		for i := range out {
			out[i] = n
		}
		return out
	}
	l := r.Ints(key)
	if r.err != nil {
		return def
	}
	if len(l) != len(def) {
		r.Fail(key, "want %s integers, got %v", count, describe(v))
		return def
	}
	return l
}

// PositivePair is Pair for a setting whose values are at least 1 (a
// kernel size, strides, a dilation rate, a pool size): 0 or less is an
// error naming the key, never a value silently replaced by a default.
func (r *Reader) PositivePair(key string, def [2]int) [2]int {
	p := r.Pair(key, def)
	if !r.positive(key, p[:]) {
		return def
	}
	return p
}

// PositiveTriple is Triple for a setting whose values are at least 1.
func (r *Reader) PositiveTriple(key string, def [3]int) [3]int {
	t := r.Triple(key, def)
	if !r.positive(key, t[:]) {
		return def
	}
	return t
}

// positive reports whether the given values of key are at least 1,
// failing the read if not.
func (r *Reader) positive(key string, got []int) bool {
	if v, given := r.cfg[key]; !given || v == nil {
		return true
	}
	for _, n := range got {
		if n < 1 {
			r.Fail(key, "want integers >= 1, got %v", got)
			return false
		}
	}
	return true
}

// Expect checks that key holds Keras's default want (or is absent): for
// settings kerasgo does not implement. want is compared after JSON
// decoding (numbers as float64, lists as []any).
func (r *Reader) Expect(key string, want any, hint string) {
	v, ok := r.cfg[key]
	r.used[key] = true
	if !ok || v == nil || fmt.Sprint(v) == fmt.Sprint(want) {
		return
	}
	msg := fmt.Sprintf("%v is not supported by kerasgo (only %v)", describe(v), want)
	if hint != "" {
		msg += ": " + hint
	}
	r.Fail(key, "%s", msg)
}

// ExpectNull checks that key is null or absent (regularizers, constraints).
func (r *Reader) ExpectNull(key string) {
	v, ok := r.cfg[key]
	r.used[key] = true
	if ok && v != nil {
		r.Fail(key, "%v is not supported by kerasgo yet: remove it from the model to load it", describe(v))
	}
}

// Finish returns the first error, or an error naming the first key that
// no accessor read and that holds a setting (not null, false, 0 or empty).
func (r *Reader) Finish() error {
	if r.err != nil {
		return r.err
	}
	keys := make([]string, 0, len(r.cfg))
	for k := range r.cfg {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for _, k := range keys {
		if r.used[k] || isDefault(r.cfg[k]) {
			continue
		}
		return fmt.Errorf("%s: option %q = %v is not supported by kerasgo", r.What, k, describe(r.cfg[k]))
	}
	return nil
}

func isDefault(v any) bool {
	switch x := v.(type) {
	case nil:
		return true
	case bool:
		return !x
	case float64:
		return x == 0
	case string:
		return x == ""
	case []any:
		return len(x) == 0
	case map[string]any:
		return len(x) == 0
	}
	return false
}

// describe formats a JSON value compactly for messages.
func describe(v any) string {
	if str, ok := v.(string); ok { // "8" where 8 goes: say it is a string
		b, _ := json.Marshal(str)
		return "the string " + string(b)
	}
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	s := string(b)
	if len(s) > 120 {
		s = s[:117] + "..."
	}
	return s
}

// CommonLayerKeys reads the settings every Keras layer has but trainable
// (which the caller reads): name and dtype. It returns the name and the
// layer's dtype policy when it is a reduced-precision one
// (see DType); "" means float32.
func (r *Reader) CommonLayerKeys() (name, policy string) {
	name = r.String("name", "")
	return name, r.DType("dtype")
}

// ReducedPrecisionPolicies are the Keras dtype policies kerasgo reads
// besides float32: the mixed-precision ones (float32 variables, float16
// or bfloat16 computation) and the half-precision ones, whose variables
// kerasgo keeps in float32. A layer under one computes in its
// half-precision dtype on an engine that has it
// (backend.Capabilities.Autocast) and in float32 on others, whose
// results then differ from Keras's by the half-precision rounding
// (about 1e-3 relative for float16).
var ReducedPrecisionPolicies = []string{"mixed_float16", "mixed_bfloat16", "float16", "bfloat16"}

// DType reads a dtype setting, a string or a DTypePolicy object. It
// accepts float32, returning "", and the ReducedPrecisionPolicies,
// returning the policy's name (the layer keeps it); any other dtype is
// an error.
func (r *Reader) DType(key string) string {
	v, ok := r.get(key)
	if !ok {
		return ""
	}
	name := ""
	switch x := v.(type) {
	case string:
		name = x
	case map[string]any:
		if cfg, ok := x["config"].(map[string]any); ok {
			name, _ = cfg["name"].(string)
		}
	}
	if name == "float32" {
		return ""
	}
	if slices.Contains(ReducedPrecisionPolicies, name) {
		return name
	}
	r.Fail(key, "%s: kerasgo has the dtype policies float32, %s; set the layer's dtype to one of them in Keras before saving", describe(v), strings.Join(ReducedPrecisionPolicies, ", "))
	return ""
}

// DTypePolicyNamed is how Keras 3 serializes the dtype policy name
// ("mixed_float16", ...); "" is float32.
func DTypePolicyNamed(name string) Object {
	if name == "" {
		return DTypePolicy()
	}
	return NewObject("keras", "DTypePolicy", Config{"name": name})
}

// ClassOrName returns the class name of a serialized object (a map with
// "class_name") or the string itself, for settings Keras writes either
// way (losses, metrics, initializers, activations).
func ClassOrName(v any) (class string, cfg Config, ok bool) {
	switch x := v.(type) {
	case string:
		return x, nil, true
	case map[string]any:
		c, _ := x["class_name"].(string)
		inner, _ := x["config"].(map[string]any)
		return c, Config(inner), c != ""
	}
	return "", nil, false
}

// SnakeCase converts a class name to Keras's snake_case
// (keras/src/utils/naming.py, to_snake_case): "MaxPooling2D" ->
// "max_pooling2d", "BatchNormalization" -> "batch_normalization".
func SnakeCase(name string) string {
	name = nonWord.ReplaceAllString(name, "")
	name = snake1.ReplaceAllString(name, "${1}_${2}")
	return strings.ToLower(snake2.ReplaceAllString(name, "${1}_${2}"))
}

var (
	nonWord = regexp.MustCompile(`\W+`)
	snake1  = regexp.MustCompile(`(.)([A-Z][a-z]+)`)
	snake2  = regexp.MustCompile(`([a-z])([A-Z])`)
)

// Float is a float64 that encodes in JSON as Python writes a float,
// always with a fraction or an exponent ("0.0", "1.0", "1e-07"): Keras
// checks that some settings are floats (an optimizer's learning_rate,
// SGD's momentum) and refuses the 0 or 1 that Go's encoding writes.
type Float float64

// MarshalJSON writes f as Python's json module does; NaN and infinities,
// which JSON cannot hold, are an error.
func (f Float) MarshalJSON() ([]byte, error) {
	v := float64(f)
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return nil, fmt.Errorf("cannot write %v in a Keras config: JSON has no NaN or infinity", v)
	}
	s := strconv.FormatFloat(v, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eE") {
		s += ".0"
	}
	return []byte(s), nil
}

// NestedList is the inverse of Reader.Numbers: values of the given shape
// as a number (empty shape) or nested lists, as NumPy's tolist() writes
// them into Keras's configs.
func NestedList(values []float64, shape []int) any {
	if len(shape) == 0 {
		return values[0]
	}
	out := make([]any, shape[0])
	step := 1
	for _, d := range shape[1:] {
		step *= d
	}
	for i := range out {
		out[i] = NestedList(values[i*step:(i+1)*step], shape[1:])
	}
	return out
}

// UniqueName returns name the first time, then name_1, name_2, ... (used
// counts them), as Keras names the elements of a container it saves.
func UniqueName(name string, used map[string]int) string {
	n, ok := used[name]
	if !ok {
		used[name] = 0
		return name
	}
	used[name] = n + 1
	return fmt.Sprintf("%s_%d", name, n+1)
}
