package initializers

import (
	"fmt"
	"strconv"
	"strings"
)

// spec writes an initializer with settings as its name:
// "random_normal(mean=0, stddev=0.02)", the form Get reads back and
// layers keep in their initializer fields.
func spec(name string, kv ...any) string {
	parts := make([]string, 0, len(kv)/2)
	for i := 0; i+1 < len(kv); i += 2 {
		var v string
		switch x := kv[i+1].(type) {
		case float64:
			v = strconv.FormatFloat(x, 'g', -1, 64)
		default:
			v = fmt.Sprint(x)
		}
		parts = append(parts, fmt.Sprintf("%s=%s", kv[i], v))
	}
	return name + "(" + strings.Join(parts, ", ") + ")"
}

// parseSpec splits "name(key=value, ...)" into the name and its settings;
// a plain name has none.
func parseSpec(s string) (name string, args map[string]string, err error) {
	open := strings.IndexByte(s, '(')
	if open < 0 {
		return s, nil, nil
	}
	if !strings.HasSuffix(s, ")") {
		return "", nil, fmt.Errorf("initializer %q: settings go in parentheses, as in random_normal(stddev=0.02)", s)
	}
	name, args = s[:open], map[string]string{}
	body := strings.TrimSpace(s[open+1 : len(s)-1])
	if body == "" {
		return name, args, nil
	}
	for _, part := range strings.Split(body, ",") {
		k, v, ok := strings.Cut(part, "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || k == "" || v == "" {
			return "", nil, fmt.Errorf("initializer %q: %q is not key=value", s, strings.TrimSpace(part))
		}
		args[k] = v
	}
	return name, args, nil
}

// specArgs reads the settings of a spec, failing on unknown keys and
// malformed numbers.
type specArgs struct {
	what string
	args map[string]string
	err  error
}

func (a *specArgs) float(key string, def float64) float64 {
	v, ok := a.args[key]
	if !ok {
		return def
	}
	delete(a.args, key)
	f, err := strconv.ParseFloat(v, 64)
	if err != nil && a.err == nil {
		a.err = fmt.Errorf("initializer %s: %s=%s is not a number", a.what, key, v)
	}
	return f
}

func (a *specArgs) string(key, def string) string {
	v, ok := a.args[key]
	if !ok {
		return def
	}
	delete(a.args, key)
	return v
}

func (a *specArgs) finish() error {
	if a.err != nil {
		return a.err
	}
	for k := range a.args {
		return fmt.Errorf("initializer %s has no setting %q", a.what, k)
	}
	return nil
}
