package callbacks

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
)

var (
	placeholderRE = regexp.MustCompile(`\{([A-Za-z_][A-Za-z0-9_]*)(?::([^{}]*))?\}`)
	intSpecRE     = regexp.MustCompile(`^(0?)(\d*)d$`)
	floatSpecRE   = regexp.MustCompile(`^(0?)(\d*)(?:\.(\d+))?([fFeEgG%]?)$`)
)

// FormatPath fills Python-style placeholders in a checkpoint path, as
// Keras's filepath.format(epoch=..., **logs) does: "{epoch:02d}",
// "{val_loss:.2f}", "{accuracy}". epoch and batch are given from 1 (batch
// 0 means none). An unknown name or a spec it cannot apply is an error.
func FormatPath(pattern string, epoch, batch int, logs Logs) (string, error) {
	var firstErr error
	out := placeholderRE.ReplaceAllStringFunc(pattern, func(ph string) string {
		m := placeholderRE.FindStringSubmatch(ph)
		name, spec := m[1], m[2]
		var s string
		var err error
		switch {
		case name == "epoch":
			s, err = formatInt(epoch, spec)
		case name == "batch" && batch > 0:
			s, err = formatInt(batch, spec)
		default:
			v, ok := logs.Get(name)
			if !ok {
				err = fmt.Errorf("no value called %q (the logs have epoch%s and %v)", name, map[bool]string{true: ", batch", false: ""}[batch > 0], logs.Names())
			} else {
				s, err = formatFloat(v, spec)
			}
		}
		if err != nil && firstErr == nil {
			firstErr = fmt.Errorf("cannot format the path %q: %s: %w", pattern, ph, err)
		}
		return s
	})
	return out, firstErr
}

func formatInt(v int, spec string) (string, error) {
	if spec == "" {
		return strconv.Itoa(v), nil
	}
	m := intSpecRE.FindStringSubmatch(spec)
	if m == nil {
		return formatFloat(float64(v), spec)
	}
	return fmt.Sprintf("%"+m[1]+m[2]+"d", v), nil
}

func formatFloat(v float64, spec string) (string, error) {
	if spec == "" { // Python's str(float)
		if v == math.Trunc(v) && math.Abs(v) < 1e16 {
			return strconv.FormatFloat(v, 'f', 1, 64), nil
		}
		return strconv.FormatFloat(v, 'g', -1, 64), nil
	}
	if strings.HasSuffix(spec, "d") {
		return "", fmt.Errorf("format %q needs an integer, the value is %v", spec, v)
	}
	m := floatSpecRE.FindStringSubmatch(spec)
	if m == nil {
		return "", fmt.Errorf("format spec %q is not supported (use forms like 02d, .2f, .3e)", spec)
	}
	verb := m[4]
	if verb == "" {
		verb = "g"
	}
	if verb == "%" {
		v *= 100
		verb = "f"
	}
	f := "%" + m[1] + m[2]
	if m[3] != "" {
		f += "." + m[3]
	} else if verb == "f" || verb == "F" || verb == "e" || verb == "E" {
		f += ".6"
	}
	s := fmt.Sprintf(f+verb, v)
	if m[4] == "%" {
		s += "%"
	}
	return s, nil
}
