package ops

import (
	"fmt"
	"strings"
)

// Rearrange reorders, merges and splits x's axes as an einops pattern
// says (Keras's ops.rearrange): "b h w c -> b c h w" transposes,
// "b h w c -> b (h w) c" merges h and w into one axis, and
// "b (h1 h) w c -> (b h1) h w c" splits the second axis into h1 and h,
// where axesLengths gives h1 (at most one length of a group may be left
// to infer). Every name on the left must appear once on the right, as in
// Keras; kerasgo checks the pattern and says what is wrong with it where
// Keras fails inside NumPy or a regular expression.
//
// It is a reshape, a transpose and a reshape: differentiable, and free
// of copies where the transpose is the identity.
func Rearrange(b Builder, x Value, pattern string, axesLengths map[string]int) Value {
	if missing(b, "Rearrange", []string{"x"}, x) {
		return b.Fail(nil, b.Err())
	}
	plan, err := planRearrange(x.Shape(), pattern, axesLengths)
	if err != nil {
		return failf(b, "Rearrange", nil, "pattern %q for an input of shape %v: %v", pattern, x.Shape(), err)
	}
	y := Reshape(b, x, plan.split...)
	y = Transpose(b, y, plan.perm...)
	return Reshape(b, y, plan.out...)
}

// rearrangePlan is a Rearrange as a reshape to the split axes, a
// permutation and a reshape to the merged output axes.
type rearrangePlan struct {
	split, perm, out []int
}

// planRearrange reads an einops pattern against an input shape.
func planRearrange(s Shape, pattern string, axesLengths map[string]int) (rearrangePlan, error) {
	var plan rearrangePlan
	left, right, ok := strings.Cut(pattern, "->")
	if !ok {
		return plan, fmt.Errorf("want \"input axes -> output axes\", with \"->\" between them")
	}
	in, err := rearrangeGroups(left)
	if err != nil {
		return plan, fmt.Errorf("left of \"->\": %v", err)
	}
	out, err := rearrangeGroups(right)
	if err != nil {
		return plan, fmt.Errorf("right of \"->\": %v", err)
	}
	if len(in) != len(s) {
		return plan, fmt.Errorf("the left side names %d axes, the input has %d", len(in), len(s))
	}
	for name, n := range axesLengths {
		if n <= 0 {
			return plan, fmt.Errorf("axis length %s=%d must be positive", name, n)
		}
	}
	size := map[string]int{}
	position := map[string]int{}
	for i, group := range in {
		known, unknown := 1, ""
		for _, name := range group {
			if _, dup := position[name]; dup {
				return plan, fmt.Errorf("axis %q is named twice on the left", name)
			}
			position[name] = len(position)
			if n, ok := axesLengths[name]; ok && len(group) > 1 {
				known *= n
				size[name] = n
				continue
			}
			if unknown != "" {
				return plan, fmt.Errorf("group (%s) leaves both %s and %s to infer: give all but one of them a length", strings.Join(group, " "), unknown, name)
			}
			unknown = name
		}
		if unknown != "" {
			if s[i]%known != 0 {
				return plan, fmt.Errorf("axis %d has %d values, which the lengths given in (%s) (product %d) do not divide", i, s[i], strings.Join(group, " "), known)
			}
			size[unknown] = s[i] / known
			if n, ok := axesLengths[unknown]; ok && n != size[unknown] {
				return plan, fmt.Errorf("axis %s has length %d, not the %d given", unknown, size[unknown], n)
			}
		} else if known != s[i] {
			return plan, fmt.Errorf("axis %d has %d values, but the lengths given in (%s) multiply to %d", i, s[i], strings.Join(group, " "), known)
		}
		for _, name := range group {
			plan.split = append(plan.split, size[name])
		}
	}
	seen := map[string]bool{}
	for _, group := range out {
		merged := 1
		for _, name := range group {
			p, ok := position[name]
			if !ok {
				return plan, fmt.Errorf("axis %q on the right is not on the left (rearrange only reorders, merges and splits the input's axes)", name)
			}
			if seen[name] {
				return plan, fmt.Errorf("axis %q is named twice on the right", name)
			}
			seen[name] = true
			plan.perm = append(plan.perm, p)
			merged *= size[name]
		}
		plan.out = append(plan.out, merged)
	}
	for name := range position {
		if !seen[name] {
			return plan, fmt.Errorf("axis %q on the left is missing on the right (rearrange cannot drop or reduce an axis)", name)
		}
	}
	return plan, nil
}

// rearrangeGroups splits one side of a pattern into its axes, each a
// list of names: one for a plain name, several for a parenthesised group.
func rearrangeGroups(side string) ([][]string, error) {
	var groups [][]string
	var group []string
	open := false
	name := strings.Builder{}
	flush := func() {
		if name.Len() == 0 {
			return
		}
		if open {
			group = append(group, name.String())
		} else {
			groups = append(groups, []string{name.String()})
		}
		name.Reset()
	}
	for _, r := range side {
		switch {
		case r == '_' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z':
			name.WriteRune(r)
		case r == ' ' || r == '\t':
			flush()
		case r == '(':
			flush()
			if open {
				return nil, fmt.Errorf("groups do not nest")
			}
			open, group = true, nil
		case r == ')':
			flush()
			if !open {
				return nil, fmt.Errorf("\")\" without \"(\"")
			}
			if len(group) == 0 {
				return nil, fmt.Errorf("an empty group \"()\"")
			}
			groups = append(groups, group)
			open = false
		default:
			return nil, fmt.Errorf("unexpected %q: axes are names of letters, digits and _, groups are in parentheses (kerasgo, as Keras, has no ... or 1 axes)", r)
		}
	}
	flush()
	if open {
		return nil, fmt.Errorf("\"(\" without \")\"")
	}
	if len(groups) == 0 {
		return nil, fmt.Errorf("no axes")
	}
	return groups, nil
}
