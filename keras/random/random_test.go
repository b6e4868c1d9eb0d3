package random_test

import (
	"math"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/random"
)

// runTwice compiles fn (one unused scalar input gives it its dtype) and
// returns two runs' outputs.
func runTwice(t *testing.T, be backend.Backend, fn func(b backend.Builder) []backend.Value) [2][][]float64 {
	t.Helper()
	exe, err := be.Compile(func(b backend.Builder, _ []backend.Value) ([]backend.Value, error) {
		return fn(b), b.Err()
	}, []backend.Spec{{Shape: backend.Shape{}, DType: backend.Float64}}, backend.CompileOptions{Seed: 7})
	if err != nil {
		t.Fatal(err)
	}
	defer exe.Close()
	in, err := be.FromFloat64([]float64{0}, backend.Shape{})
	if err != nil {
		t.Fatal(err)
	}
	var out [2][][]float64
	for r := range out {
		res, err := exe.Run([]backend.Tensor{in})
		if err != nil {
			t.Fatal(err)
		}
		for _, o := range res {
			d, err := be.ToFloat64(o)
			if err != nil {
				t.Fatal(err)
			}
			out[r] = append(out[r], d)
		}
	}
	return out
}

func moments(v []float64) (mean, std float64) {
	for _, x := range v {
		mean += x
	}
	mean /= float64(len(v))
	for _, x := range v {
		std += (x - mean) * (x - mean)
	}
	return mean, math.Sqrt(std / float64(len(v)))
}

func same(a, b []float64) bool {
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

const n = 20000

// Each distribution has its moments and range (20000 draws: the means
// within 5 standard errors), on every engine; a Fixed seed gives the same
// numbers on every run, the stream fresh ones.
func TestDistributions(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, seed := range []struct {
			name string
			seed random.Seed
		}{{"stream", random.Stream()}, {"fixed", random.Fixed(42)}} {
			t.Run(seed.name, func(t *testing.T) {
				sd := seed.seed
				runs := runTwice(t, be, func(b backend.Builder) []backend.Value {
					logits := b.Constant([]float64{0, math.Log(3), math.Log(6)}, backend.Shape{1, 3})
					return []backend.Value{
						random.Normal(b, []int{n}, 2, 3, sd),
						random.Uniform(b, []int{n}, -1, 3, sd),
						random.TruncatedNormal(b, []int{n}, 1, 2, sd),
						random.Randint(b, []int{n}, 3, 7, sd),
						random.Categorical(b, logits, n, sd),
						random.Dropout(b, b.Add(b.Constant(make([]float64, n), backend.Shape{n}), b.Scalar(1)), 0.25, nil, sd),
						random.Shuffle(b, b.Constant(iota(50), backend.Shape{50}), 0, sd),
					}
				})
				out := runs[0]
				check := func(what string, got, want, tol float64) {
					t.Helper()
					if math.Abs(got-want) > tol {
						t.Errorf("%s = %.4f, want %.4f ± %.4f", what, got, want, tol)
					}
				}
				m, s := moments(out[0])
				check("normal mean", m, 2, 5*3/math.Sqrt(n))
				check("normal std", s, 3, 0.05*3)
				m, _ = moments(out[1])
				check("uniform mean", m, 1, 5*4/math.Sqrt(12*n))
				for _, v := range out[1] {
					if v < -1 || v >= 3 {
						t.Fatalf("uniform value %v outside [-1, 3)", v)
					}
				}
				m, s = moments(out[2])
				check("truncated normal mean", m, 1, 5*2/math.Sqrt(n))
				check("truncated normal std", s, 2*0.87962566, 0.05*2)
				for _, v := range out[2] {
					if v < 1-4-1e-9 || v > 1+4+1e-9 {
						t.Fatalf("truncated normal value %v beyond two standard deviations", v)
					}
				}
				counts := map[float64]int{}
				for _, v := range out[3] {
					counts[v]++
				}
				for _, k := range []float64{3, 4, 5, 6} {
					check("randint frequency of "+string(rune('0'+int(k))), float64(counts[k])/n, 0.25, 0.02)
				}
				if len(counts) != 4 {
					t.Errorf("randint drew %v, want only 3..6", counts)
				}
				cat := map[float64]int{}
				for _, v := range out[4] {
					cat[v]++
				}
				for k, p := range []float64{0.1, 0.3, 0.6} {
					check("categorical frequency of class "+string(rune('0'+k)), float64(cat[float64(k)])/n, p, 0.02)
				}
				zeros := 0
				for _, v := range out[5] {
					if v == 0 {
						zeros++
					} else if math.Abs(v-1/0.75) > 1e-12 {
						t.Fatalf("dropout kept a value as %v, want 1/(1-rate)", v)
					}
				}
				check("dropout rate", float64(zeros)/n, 0.25, 0.02)
				seen := map[float64]bool{}
				for _, v := range out[6] {
					seen[v] = true
				}
				if len(seen) != 50 || same(out[6], iota(50)) {
					t.Errorf("shuffle of 0..49 gave %v", out[6])
				}
				for i := range out {
					if got := same(runs[0][i], runs[1][i]); got != sd.IsFixed() {
						t.Errorf("output %d: two runs drew the same numbers: %v, want %v", i, got, sd.IsFixed())
					}
				}
			})
		}
	})
}

func iota(n int) []float64 {
	out := make([]float64, n)
	for i := range out {
		out[i] = float64(i)
	}
	return out
}
