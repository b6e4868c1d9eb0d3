package serving

import (
	"fmt"
	"math"
	"strconv"
	"unicode/utf16"
	"unicode/utf8"
)

// jsonKind is the kind of a parsed JSON value.
type jsonKind uint8

const (
	jsonNull jsonKind = iota
	jsonBool
	jsonNumber
	jsonString
	jsonArray
	jsonObject
)

func (k jsonKind) String() string {
	return [...]string{"null", "a boolean", "a number", "a string", "a list", "an object"}[k]
}

// jsonValue is a parsed JSON value. A list of numbers, or of lists of
// numbers nested evenly (a tensor), is kept dense: its numbers in one
// slice, row-major, with its shape; so a request's tensors cost two
// slices, not a value per number or per innermost list.
type jsonValue struct {
	kind    jsonKind
	num     float64
	str     string
	elems   []*jsonValue // a list that is not a tensor
	dense   []float64    // a tensor's numbers (elems is nil), or
	dense32 []float32    // them as float32, when the parser was asked for float32
	shape   []int        // a tensor's shape (non-nil for a tensor)
	keys    []string     // an object's keys, in the order written
	vals    []*jsonValue // an object's values
}

// isDense reports whether v is a list kept as a tensor.
func (v *jsonValue) isDense() bool { return v.shape != nil }

// length returns the number of elements of a list.
func (v *jsonValue) length() int {
	if v.isDense() {
		return v.shape[0]
	}
	return len(v.elems)
}

// elem returns element k of a list (for a tensor, a view of its numbers).
func (v *jsonValue) elem(k int) *jsonValue {
	if !v.isDense() {
		return v.elems[k]
	}
	if len(v.shape) == 1 {
		return &jsonValue{kind: jsonNumber, num: v.denseAt(k)}
	}
	step := v.denseLen() / v.shape[0]
	if v.dense32 != nil {
		return &jsonValue{kind: jsonArray, dense32: v.dense32[k*step : (k+1)*step], shape: v.shape[1:]}
	}
	return &jsonValue{kind: jsonArray, dense: v.dense[k*step : (k+1)*step], shape: v.shape[1:]}
}

// denseLen is the number of a tensor's numbers.
func (v *jsonValue) denseLen() int {
	if v.dense32 != nil {
		return len(v.dense32)
	}
	return len(v.dense)
}

// denseAt is a tensor's number i, row-major.
func (v *jsonValue) denseAt(i int) float64 {
	if v.dense32 != nil {
		return float64(v.dense32[i])
	}
	return v.dense[i]
}

// field returns an object's value for key, or nil.
func (v *jsonValue) field(key string) *jsonValue {
	for i, k := range v.keys {
		if k == key {
			return v.vals[i]
		}
	}
	return nil
}

// maxJSONDepth bounds nesting, so that a body of a million '[' is an
// error, not a stack overflow.
const maxJSONDepth = 64

// parseJSON parses a request body. It accepts what TensorFlow Serving's
// parser accepts beyond strict JSON: the number tokens NaN, Infinity and
// -Infinity, so that a request holding them gets an error naming the
// input (or passes, where non-finite values are allowed) instead of a
// syntax error.
func parseJSON(data []byte) (*jsonValue, error) { return parseJSONAs(data, false) }

// parseJSONAs is parseJSON; with f32, tensors keep their numbers as
// float32 (rounded as a float32 input rounds them anyway): half the
// memory, and a float input's batch can use them as they are. A list
// holding a number outside float32's range is kept as values, so that
// the reader names it.
func parseJSONAs(data []byte, f32 bool) (*jsonValue, error) {
	p := jsonParser{data: data, f32: f32}
	p.space()
	v, err := p.value(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.pos != len(p.data) {
		return nil, p.errorf("unexpected %q after the JSON value", p.data[p.pos])
	}
	return v, nil
}

type jsonParser struct {
	data []byte
	pos  int
	f32  bool // keep tensors' numbers as float32
}

func (p *jsonParser) errorf(format string, args ...any) error {
	return fmt.Errorf("invalid JSON at byte %d: %s", p.pos, fmt.Sprintf(format, args...))
}

func (p *jsonParser) space() {
	for p.pos < len(p.data) {
		switch p.data[p.pos] {
		case ' ', '\t', '\n', '\r':
			p.pos++
		default:
			return
		}
	}
}

func (p *jsonParser) value(depth int) (*jsonValue, error) {
	if depth > maxJSONDepth {
		return nil, p.errorf("nested more than %d levels deep", maxJSONDepth)
	}
	if p.pos >= len(p.data) {
		return nil, p.errorf("unexpected end of the body")
	}
	switch c := p.data[p.pos]; {
	case c == '{':
		return p.object(depth)
	case c == '[':
		return p.list(depth)
	case c == '"':
		s, err := p.string()
		return &jsonValue{kind: jsonString, str: s}, err
	case c == 't' || c == 'f' || c == 'n':
		for _, lit := range [...]struct {
			text string
			v    jsonValue
		}{{"true", jsonValue{kind: jsonBool, num: 1}}, {"false", jsonValue{kind: jsonBool}}, {"null", jsonValue{kind: jsonNull}}} {
			if p.has(lit.text) {
				p.pos += len(lit.text)
				v := lit.v
				return &v, nil
			}
		}
		return nil, p.errorf("unexpected %q", c)
	default:
		f, err := p.number()
		return &jsonValue{kind: jsonNumber, num: f}, err
	}
}

func (p *jsonParser) has(lit string) bool {
	return len(p.data)-p.pos >= len(lit) && string(p.data[p.pos:p.pos+len(lit)]) == lit
}

func (p *jsonParser) object(depth int) (*jsonValue, error) {
	p.pos++ // '{'
	v := &jsonValue{kind: jsonObject}
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == '}' {
		p.pos++
		return v, nil
	}
	for {
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != '"' {
			return nil, p.errorf("want a quoted key")
		}
		k, err := p.string()
		if err != nil {
			return nil, err
		}
		for _, seen := range v.keys {
			if seen == k {
				return nil, p.errorf("the key %q appears twice", k)
			}
		}
		p.space()
		if p.pos >= len(p.data) || p.data[p.pos] != ':' {
			return nil, p.errorf("want ':' after the key %q", k)
		}
		p.pos++
		p.space()
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.keys, v.vals = append(v.keys, k), append(v.vals, e)
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of the body inside an object")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case '}':
			p.pos++
			return v, nil
		default:
			return nil, p.errorf("want ',' or '}' in an object, got %q", p.data[p.pos])
		}
	}
}

func (p *jsonParser) list(depth int) (*jsonValue, error) {
	start := p.pos
	if v, ok := p.tensor(depth); ok {
		return v, nil
	}
	p.pos = start
	p.pos++ // '['
	v := &jsonValue{kind: jsonArray, elems: []*jsonValue{}}
	p.space()
	if p.pos < len(p.data) && p.data[p.pos] == ']' {
		p.pos++
		return v, nil
	}
	for {
		p.space()
		e, err := p.value(depth + 1)
		if err != nil {
			return nil, err
		}
		v.elems = append(v.elems, e)
		p.space()
		if p.pos >= len(p.data) {
			return nil, p.errorf("unexpected end of the body inside a list")
		}
		switch p.data[p.pos] {
		case ',':
			p.pos++
		case ']':
			p.pos++
			return v, nil
		default:
			return nil, p.errorf("want ',' or ']' in a list, got %q", p.data[p.pos])
		}
	}
}

// tensor parses a list of numbers, or of lists of numbers nested evenly,
// into one dense value. It reports false for anything else (a string or
// an object inside, lists of unequal lengths, a syntax error), and the
// caller parses the list again as values, which names the problem.
func (p *jsonParser) tensor(depth int) (*jsonValue, bool) {
	v := &jsonValue{kind: jsonArray}
	n := countNumbers(p.data[p.pos:])
	if p.f32 {
		v.dense32 = make([]float32, 0, n)
	} else {
		v.dense = make([]float64, 0, n)
	}
	var lens [maxJSONDepth + 1]int // every list's length, by nesting level
	var seen [maxJSONDepth + 1]bool
	levels := 0 // the levels seen
	leaf := -1  // the level of the lists that hold the numbers
	var list func(l int) bool
	list = func(l int) bool {
		if depth+l > maxJSONDepth {
			return false
		}
		p.pos++ // '['
		n := 0
		p.space()
		if p.pos < len(p.data) && p.data[p.pos] == ']' {
			p.pos++
		} else {
			for {
				p.space()
				if p.pos >= len(p.data) {
					return false
				}
				if p.data[p.pos] == '[' {
					if leaf >= 0 && leaf <= l || !list(l+1) {
						return false // a list where numbers were, or a bad list
					}
				} else {
					if leaf >= 0 && leaf != l {
						return false // numbers at two depths
					}
					f, err := p.number()
					if err != nil {
						return false
					}
					leaf = l
					if p.f32 {
						if math.Abs(f) > math.MaxFloat32 && !math.IsInf(f, 0) {
							return false // parsed again as values, which names it
						}
						v.dense32 = append(v.dense32, float32(f))
					} else {
						v.dense = append(v.dense, f)
					}
				}
				n++
				p.space()
				if p.pos >= len(p.data) {
					return false
				}
				if p.data[p.pos] == ']' {
					p.pos++
					break
				}
				if p.data[p.pos] != ',' {
					return false
				}
				p.pos++
			}
		}
		if !seen[l] {
			seen[l], lens[l], levels = true, n, max(levels, l+1)
		}
		return lens[l] == n
	}
	if !list(0) {
		return nil, false
	}
	shape := append([]int(nil), lens[:levels]...)
	if (leaf >= 0 && levels != leaf+1) || v.denseLen() != product(shape) {
		return nil, false
	}
	v.shape = shape
	return v, true
}

// countNumbers counts the number tokens of the list that data starts
// with (up to its closing bracket), to size a tensor's slice once instead
// of growing it by copies; it stops early at anything a tensor cannot
// hold (a string, an object), where the count does not matter.
func countNumbers(data []byte) int {
	n, depth, expect := 0, 0, false
	for _, c := range data {
		switch c {
		case '[':
			depth++
			expect = true
		case ']':
			depth--
			if depth == 0 {
				return n
			}
			expect = false
		case ',':
			expect = true
		case ' ', '\t', '\n', '\r':
		case '"', '{':
			return n
		default:
			if expect {
				n++
				expect = false
			}
		}
	}
	return n
}

func product(shape []int) int {
	n := 1
	for _, d := range shape {
		n *= d
	}
	return n
}

// number parses a JSON number, or NaN, Infinity or -Infinity.
func (p *jsonParser) number() (float64, error) {
	start := p.pos
	neg := p.pos < len(p.data) && p.data[p.pos] == '-'
	if neg {
		p.pos++
	}
	switch {
	case p.has("NaN") && !neg:
		p.pos += 3
		return math.NaN(), nil
	case p.has("Infinity"):
		p.pos += 8
		if neg {
			return math.Inf(-1), nil
		}
		return math.Inf(1), nil
	}
	digits := func() int {
		n := 0
		for p.pos < len(p.data) && p.data[p.pos] >= '0' && p.data[p.pos] <= '9' {
			p.pos++
			n++
		}
		return n
	}
	if p.pos < len(p.data) && p.data[p.pos] == '0' {
		p.pos++
	} else if digits() == 0 {
		p.pos = start
		return 0, p.errorf("want a value")
	}
	if p.pos < len(p.data) && p.data[p.pos] == '.' {
		p.pos++
		if digits() == 0 {
			return 0, p.errorf("want digits after the decimal point")
		}
	}
	if p.pos < len(p.data) && (p.data[p.pos] == 'e' || p.data[p.pos] == 'E') {
		p.pos++
		if p.pos < len(p.data) && (p.data[p.pos] == '+' || p.data[p.pos] == '-') {
			p.pos++
		}
		if digits() == 0 {
			return 0, p.errorf("want digits in the exponent")
		}
	}
	f, err := strconv.ParseFloat(string(p.data[start:p.pos]), 64)
	if err != nil { // out of range: ParseFloat returns ±Inf, which is what it is
		if ne, ok := err.(*strconv.NumError); !ok || ne.Err != strconv.ErrRange {
			return 0, p.errorf("bad number %q", p.data[start:p.pos])
		}
	}
	return f, nil
}

// string parses a quoted JSON string.
func (p *jsonParser) string() (string, error) {
	p.pos++ // '"'
	var out []byte
	for {
		if p.pos >= len(p.data) {
			return "", p.errorf("unterminated string")
		}
		c := p.data[p.pos]
		switch {
		case c == '"':
			p.pos++
			return string(out), nil
		case c < 0x20:
			return "", p.errorf("control character in a string")
		case c == '\\':
			if p.pos+1 >= len(p.data) {
				return "", p.errorf("unterminated string")
			}
			esc := p.data[p.pos+1]
			p.pos += 2
			switch esc {
			case '"', '\\', '/':
				out = append(out, esc)
			case 'b':
				out = append(out, '\b')
			case 'f':
				out = append(out, '\f')
			case 'n':
				out = append(out, '\n')
			case 'r':
				out = append(out, '\r')
			case 't':
				out = append(out, '\t')
			case 'u':
				r, err := p.hex4()
				if err != nil {
					return "", err
				}
				if utf16.IsSurrogate(r) && p.has(`\u`) {
					p.pos += 2
					r2, err := p.hex4()
					if err != nil {
						return "", err
					}
					if pair := utf16.DecodeRune(r, r2); pair != utf8.RuneError {
						r = pair
					} else {
						p.pos -= 6 // not a pair: the second escape stands alone
					}
				}
				out = utf8.AppendRune(out, r)
			default:
				return "", p.errorf("bad escape \\%c", esc)
			}
		case c >= utf8.RuneSelf: // invalid UTF-8 becomes U+FFFD, as encoding/json reads it
			r, size := utf8.DecodeRune(p.data[p.pos:])
			out = utf8.AppendRune(out, r)
			p.pos += size
		default:
			out = append(out, c)
			p.pos++
		}
	}
}

func (p *jsonParser) hex4() (rune, error) {
	if len(p.data)-p.pos < 4 {
		return 0, p.errorf("short \\u escape")
	}
	n, err := strconv.ParseUint(string(p.data[p.pos:p.pos+4]), 16, 32)
	if err != nil {
		return 0, p.errorf("bad \\u escape")
	}
	p.pos += 4
	return rune(n), nil
}
