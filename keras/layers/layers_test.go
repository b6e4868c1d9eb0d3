package layers_test

import (
	"encoding/json"
	"math"
	"strings"
	"testing"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/backend/backendtest"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// build applies l to an input of the given sample shape and returns the
// output KerasTensor.
func build(t *testing.T, l layers.Layer, sample ...int) *layers.KerasTensor {
	t.Helper()
	out := layers.Apply(l, layers.Input(sample...))
	if out.Err() != nil {
		t.Fatal(out.Err())
	}
	return out
}

// callFunc returns a Func computing l on input 0 with its weights as
// inputs 1.. .
func callFunc(l layers.Layer, training bool) func(b backend.Builder, v []backend.Value) backend.Value {
	return func(b backend.Builder, v []backend.Value) backend.Value {
		ctx := &layers.Context{B: b, Training: training, Values: map[*layers.Weight]backend.Value{}}
		for i, w := range layers.WeightsOf(l) {
			ctx.Values[w] = v[1+i]
		}
		return l.Call(ctx, v[:1])
	}
}

func inputsFor(l layers.Layer, batch int, sample []int) []backendtest.Array {
	in := []backendtest.Array{backendtest.Random(1, -1, 1, append([]int{batch}, sample...)...)}
	for i, w := range layers.WeightsOf(l) {
		in = append(in, backendtest.Random(uint64(10+i), -0.5, 0.5, w.Shape...))
	}
	return in
}

type layerCase struct {
	name   string
	layer  func() layers.Layer
	sample []int
	params int // Keras's parameter count
}

func layerCases() []layerCase {
	return []layerCase{
		{"Dense", func() layers.Layer { return &layers.Dense{Units: 4, Activation: "tanh"} }, []int{3}, 16},
		{"Dense3D", func() layers.Layer { return &layers.Dense{Units: 2, NoBias: true} }, []int{2, 3}, 6},
		{"Activation", func() layers.Layer { return &layers.Activation{Fn: "sigmoid"} }, []int{5}, 0},
		{"Softmax", func() layers.Layer { return &layers.Activation{Fn: "softmax"} }, []int{5}, 0},
		{"Flatten", func() layers.Layer { return &layers.Flatten{} }, []int{2, 3, 2}, 0},
		{"Reshape", func() layers.Layer { return &layers.Reshape{TargetShape: []int{3, -1}} }, []int{6}, 0},
		{"Conv2D", func() layers.Layer {
			return &layers.Conv2D{Filters: 3, KernelSize: [2]int{2, 3}, Activation: "tanh"}
		}, []int{4, 5, 2}, 2*3*2*3 + 3},
		{"Conv2DSameStrided", func() layers.Layer {
			return &layers.Conv2D{Filters: 2, KernelSize: [2]int{3, 3}, Padding: "same", Strides: [2]int{1, 1}}
		}, []int{4, 4, 1}, 9*2 + 2},
		{"MaxPooling2D", func() layers.Layer { return &layers.MaxPooling2D{} }, []int{4, 6, 2}, 0},
		{"DropoutInference", func() layers.Layer { return &layers.Dropout{Rate: 0.5} }, []int{4}, 0},
		{"GlobalAveragePooling2D", func() layers.Layer { return &layers.GlobalAveragePooling2D{} }, []int{3, 4, 2}, 0},
		{"GlobalMaxPooling2D", func() layers.Layer { return &layers.GlobalMaxPooling2D{} }, []int{3, 4, 2}, 0},
		{"Rescaling", func() layers.Layer { return &layers.Rescaling{Scale: 1.0 / 255, Offset: -0.5} }, []int{3}, 0},
		{"Identity", func() layers.Layer { return &layers.Identity{} }, []int{2, 3}, 0},
		{"RescalingPerChannel", func() layers.Layer {
			return &layers.Rescaling{ChannelScale: []float64{2, -1}, ChannelOffset: []float64{0.5, 1}}
		}, []int{3, 2}, 0},
		{"NormalizationGiven", func() layers.Layer {
			return &layers.Normalization{Mean: []float64{0.5, -1, 2}, Variance: []float64{4, 0.25, 1}}
		}, []int{2, 3}, 0},
		{"NormalizationInvert", func() layers.Layer {
			return &layers.Normalization{AxisNone: true, Mean: []float64{2}, Variance: []float64{9}, Invert: true}
		}, []int{2, 3}, 0},
		{"ResizingBilinear", func() layers.Layer { return &layers.Resizing{Height: 5, Width: 3} }, []int{3, 4, 2}, 0},
		{"ResizingBicubicAntialias", func() layers.Layer {
			return &layers.Resizing{Height: 2, Width: 6, Interpolation: "bicubic", Antialias: true}
		}, []int{5, 4, 1}, 0},
		{"ResizingNearest", func() layers.Layer { return &layers.Resizing{Height: 5, Width: 2, Interpolation: "nearest"} }, []int{3, 4, 2}, 0},
		{"ResizingPadToAspect", func() layers.Layer {
			return &layers.Resizing{Height: 4, Width: 4, PadToAspectRatio: true, FillValue: 0.5}
		}, []int{2, 4, 1}, 0},
		{"CenterCrop", func() layers.Layer { return &layers.CenterCrop{Height: 2, Width: 3} }, []int{4, 5, 2}, 0},
		{"CenterCropSmall", func() layers.Layer { return &layers.CenterCrop{Height: 5, Width: 2} }, []int{3, 4, 2}, 0},
		{"RandomCropInference", func() layers.Layer { return &layers.RandomCrop{Height: 2, Width: 2} }, []int{3, 4, 1}, 0},
		{"RandomFlipInference", func() layers.Layer { return &layers.RandomFlip{} }, []int{3, 4, 1}, 0},
		{"RandomContrastInference", func() layers.Layer { return &layers.RandomContrast{Factor: 0.5} }, []int{3, 4, 1}, 0},
		{"RandomBrightnessInference", func() layers.Layer { return &layers.RandomBrightness{Factor: 0.5} }, []int{3, 4, 1}, 0},
		{"Conv3D", func() layers.Layer {
			return &layers.Conv3D{Filters: 2, KernelSize: [3]int{2, 2, 2}, Padding: "same", Strides: [3]int{2, 1, 1}, Activation: "tanh"}
		}, []int{3, 3, 2, 2}, 2*2*2*2*2 + 2},
		{"Conv3DTranspose", func() layers.Layer {
			return &layers.Conv3DTranspose{Filters: 2, KernelSize: [3]int{2, 2, 1}, Strides: [3]int{2, 1, 1}, OutputPadding: []int{1, 0, 0}}
		}, []int{2, 2, 2, 1}, 2*2*1*2*1 + 2},
		{"Conv1DTranspose", func() layers.Layer { return &layers.Conv1DTranspose{Filters: 2, KernelSize: 3, Strides: 2} }, []int{3, 2}, 3*2*2 + 2},
		{"DepthwiseConv1D", func() layers.Layer { return &layers.DepthwiseConv1D{KernelSize: 2, DepthMultiplier: 2} }, []int{4, 2}, 2*2*2 + 4},
		{"SeparableConv1D", func() layers.Layer { return &layers.SeparableConv1D{Filters: 3, KernelSize: 2, Padding: "same"} }, []int{4, 2}, 2*2 + 2*3 + 3},
		{"MaxPooling3D", func() layers.Layer { return &layers.MaxPooling3D{} }, []int{2, 4, 2, 1}, 0},
		{"AveragePooling3DSame", func() layers.Layer {
			return &layers.AveragePooling3D{PoolSize: [3]int{2, 2, 2}, Strides: [3]int{1, 1, 1}, Padding: "same"}
		}, []int{2, 3, 2, 1}, 0},
		{"GlobalMaxPooling3D", func() layers.Layer { return &layers.GlobalMaxPooling3D{} }, []int{2, 3, 2, 2}, 0},
		{"UpSampling3D", func() layers.Layer { return &layers.UpSampling3D{Size: [3]int{2, 1, 2}} }, []int{2, 2, 2, 1}, 0},
		{"ZeroPadding3D", func() layers.Layer { return layers.NewZeroPadding3D(1, 0, 1) }, []int{2, 2, 2, 1}, 0},
		{"Cropping3D", func() layers.Layer { return layers.NewCropping3D(1, 0, 1) }, []int{3, 2, 3, 1}, 0},
		{"AdaptiveAveragePooling3D", func() layers.Layer { return &layers.AdaptiveAveragePooling3D{OutputSize: [3]int{2, 1, 2}} }, []int{3, 2, 3, 1}, 0},
		{"EinsumDense", func() layers.Layer {
			return &layers.EinsumDense{Equation: "abc,cde->abde", OutputShape: []int{-1, 2, 3}, BiasAxes: "de", Activation: "tanh"}
		}, []int{3, 4}, 4*2*3 + 2*3},
		{"ConvLSTM2D", func() layers.Layer {
			return &layers.ConvLSTM2D{Filters: 2, KernelSize: [2]int{2, 2}, Padding: "same", ReturnSequences: true}
		}, []int{2, 3, 2, 1}, 2*2*1*8 + 2*2*2*8 + 8},
		{"ConvLSTM1D", func() layers.Layer { return &layers.ConvLSTM1D{Filters: 1, KernelSize: 2, GoBackwards: true} }, []int{3, 4, 2}, 2*2*4 + 2*1*4 + 4},
		{"RNNLSTMCell", func() layers.Layer { return &layers.RNN{Cell: &layers.LSTMCell{Units: 2}, ReturnSequences: true} }, []int{3, 2}, 2*8 + 2*8 + 8},
		{"RNNStackedCells", func() layers.Layer {
			return &layers.RNN{Cell: &layers.StackedRNNCells{Cells: []layers.RecurrentCell{&layers.GRUCell{Units: 2}, &layers.SimpleRNNCell{Units: 1}}}}
		}, []int{3, 2}, (2*6 + 2*6 + 12) + (2 + 1 + 1)},
		{"EinsumDenseLeftEllipsis", func() layers.Layer { return &layers.EinsumDense{Equation: "...b,bc->...c", OutputShape: []int{2}} }, []int{2, 3}, 3 * 2},
	}
}

// TestLayers checks, on every engine, that each layer's output has the
// shape Build predicted, that its parameter count is Keras's, and that its
// gradients (input and weights) match finite differences.
func TestLayers(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range layerCases() {
			t.Run(c.name, func(t *testing.T) {
				l := c.layer()
				out := build(t, l, c.sample...)
				params := 0
				for _, w := range layers.WeightsOf(l) {
					params += w.Shape.Size()
				}
				if params != c.params {
					t.Errorf("%d parameters, Keras has %d", params, c.params)
				}
				in := inputsFor(l, 2, c.sample)
				fn := callFunc(l, false)
				got, err := backendtest.Eval(be, backend.Float64, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
					return []backend.Value{fn(b, v)}, nil
				}, in)
				if err != nil {
					t.Fatal(err)
				}
				want := out.Shape()
				want[0] = 2
				if !got[0].Shape.Equal(want) {
					t.Fatalf("output shape %v, Build predicted %v", got[0].Shape, want)
				}
				if c.name == "MaxPooling2D" || c.name == "GlobalMaxPooling2D" {
					in[0] = distinct(in[0].Shape) // no ties within a finite-difference step
				}
				wts := backendtest.Random(99, -1, 1, got[0].Shape...)
				all := make([]int, len(in))
				for i := range all {
					all[i] = i
				}
				backendtest.CheckGradient(t, be, func(b backend.Builder, v []backend.Value) backend.Value {
					return b.Sum(b.Mul(fn(b, v), b.Constant(wts.Data, wts.Shape)))
				}, in, all, 1e-5)
			})
		}
	})
}

func distinct(s backend.Shape) backendtest.Array {
	a := backendtest.Array{Shape: s, Data: make([]float64, s.Size())}
	for i := range a.Data {
		a.Data[i] = math.Sin(float64(i)*1.7) + float64(i)*1e-3
	}
	return a
}

// TestDenseValues checks Dense against x·W + b computed by hand.
func TestDenseValues(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		l := &layers.Dense{Units: 2, Activation: "relu"}
		build(t, l, 3)
		x := backendtest.Array{Shape: backend.Shape{2, 3}, Data: []float64{1, 2, 3, -1, -2, -3}}
		w := backendtest.Array{Shape: backend.Shape{3, 2}, Data: []float64{1, 0, 0, 1, 1, -1}}
		b := backendtest.Array{Shape: backend.Shape{2}, Data: []float64{0.5, -0.5}}
		fn := callFunc(l, false)
		got, err := backendtest.Eval(be, backend.Float32, func(bl backend.Builder, v []backend.Value) ([]backend.Value, error) {
			return []backend.Value{fn(bl, v)}, nil
		}, []backendtest.Array{x, w, b})
		if err != nil {
			t.Fatal(err)
		}
		// row 1: (1+3+0.5, 2-3-0.5) = (4.5, -1.5) -> relu (4.5, 0)
		// row 2: (-1-3+0.5, -2+3-0.5) = (-3.5, 0.5) -> relu (0, 0.5)
		backendtest.AssertClose(t, "Dense", got[0], backendtest.Array{Shape: backend.Shape{2, 2}, Data: []float64{4.5, 0, 0, 0.5}}, 1e-6)
	})
}

// dropOnes builds l for samples of shape sample and returns what it makes
// of a batch of ones in training, on be.
func dropOnes(t *testing.T, be backend.Backend, l layers.Layer, batch int, sample ...int) backendtest.Array {
	t.Helper()
	build(t, l, sample...)
	ones := backendtest.Array{Shape: append(backend.Shape{batch}, sample...), Data: make([]float64, batch*backend.Shape(sample).Size())}
	for i := range ones.Data {
		ones.Data[i] = 1
	}
	fn := callFunc(l, true)
	got, err := backendtest.Eval(be, backend.Float32, func(b backend.Builder, v []backend.Value) ([]backend.Value, error) {
		return []backend.Value{fn(b, v)}, nil
	}, []backendtest.Array{ones})
	if err != nil {
		t.Fatal(err)
	}
	return got[0]
}

// TestDropoutTraining checks inverted dropout: in training about Rate of
// the values are zero and the rest are scaled by 1/(1-Rate), so the mean is
// kept; at inference the input passes unchanged (TestLayers).
func TestDropoutTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		got := dropOnes(t, be, &layers.Dropout{Rate: 0.25}, 4, 1000)
		zeros := 0
		for _, v := range got.Data {
			switch {
			case v == 0:
				zeros++
			case math.Abs(v-1/0.75) > 1e-6:
				t.Fatalf("kept value %v, want 1/(1-0.25)", v)
			}
		}
		if frac := float64(zeros) / 4000; frac < 0.22 || frac > 0.28 {
			t.Errorf("dropped %.3f of the values, want about 0.25", frac)
		}
	})
}

// TestDropoutNoiseShape checks Keras's noise_shape: with (-1, 1, 1) one
// keep-or-drop draw covers a whole sample, so each sample is either all
// zeros or all 1/(1-Rate); its config writes the -1 back as Keras's None.
func TestDropoutNoiseShape(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		got := dropOnes(t, be, &layers.Dropout{Rate: 0.5, NoiseShape: []int{-1, 1, 1}}, 64, 5, 4)
		dropped := 0
		for s := range 64 {
			sample := got.Data[s*20 : (s+1)*20]
			if sample[0] == 0 {
				dropped++
			}
			for _, v := range sample {
				if v != sample[0] || (v != 0 && math.Abs(v-2) > 1e-6) {
					t.Fatalf("sample %d is %v: want all 0 or all 2 (one draw per sample)", s, sample)
				}
			}
		}
		if dropped == 0 || dropped == 64 {
			t.Errorf("%d of 64 samples dropped at rate 0.5", dropped)
		}
	})
	cfg, err := layers.Config(&layers.Dropout{Rate: 0.5, NoiseShape: []int{-1, 1, 1, 1}})
	if err != nil {
		t.Fatal(err)
	}
	if data, _ := json.Marshal(cfg["noise_shape"]); string(data) != "[null,1,1,1]" {
		t.Errorf("noise_shape is written as %s, want Keras's [null,1,1,1]", data)
	}
}

// SpatialDropout1D and 3D drop whole channels in training: each sample's
// channel is all 0 or all 1/(1-Rate), about Rate of them 0; AlphaDropout
// keeps Keras's affine values (a·1 + b kept, a·α′ + b dropped) and the
// mean and variance of standard normal inputs.
func TestSpatialAndAlphaDropoutTraining(t *testing.T) {
	backendtest.ForEachEngine(t, func(t *testing.T, be backend.Backend) {
		for _, c := range []struct {
			l      layers.Layer
			sample []int
		}{{&layers.SpatialDropout1D{Rate: 0.5}, []int{6, 8}}, {&layers.SpatialDropout3D{Rate: 0.5}, []int{2, 3, 2, 8}}} {
			got := dropOnes(t, be, c.l, 32, c.sample...)
			channels := c.sample[len(c.sample)-1]
			positions := backend.Shape(c.sample).Size() / channels
			dropped := 0
			for s := range 32 {
				for ch := range channels {
					first := got.Data[s*positions*channels+ch]
					if first == 0 {
						dropped++
					} else if math.Abs(first-2) > 1e-6 {
						t.Fatalf("%T: kept value %v, want 2", c.l, first)
					}
					for p := range positions {
						if v := got.Data[(s*positions+p)*channels+ch]; v != first {
							t.Fatalf("%T: sample %d channel %d is not dropped whole (%v and %v)", c.l, s, ch, first, v)
						}
					}
				}
			}
			if frac := float64(dropped) / float64(32*channels); frac < 0.35 || frac > 0.65 {
				t.Errorf("%T dropped %.2f of the channels at rate 0.5", c.l, frac)
			}
		}
		rate := 0.2
		const alpha, scale = 1.6732632423543772848170429916717, 1.0507009873554804934193349852946
		alphaP := -alpha * scale
		a := math.Pow((1-rate)*(1+rate*alphaP*alphaP), -0.5)
		b := -a * alphaP * rate
		got := dropOnes(t, be, &layers.AlphaDropout{Rate: rate}, 100, 50)
		dropped := 0
		for _, v := range got.Data {
			switch {
			case math.Abs(v-(a*alphaP+b)) < 1e-5:
				dropped++
			case math.Abs(v-(a+b)) > 1e-5:
				t.Fatalf("AlphaDropout gave %v, want %v (kept) or %v (dropped)", v, a+b, a*alphaP+b)
			}
		}
		if frac := float64(dropped) / 5000; frac < 0.17 || frac > 0.23 {
			t.Errorf("AlphaDropout dropped %.3f of the values, want about %v", frac, rate)
		}
	})
}

// Every golden case's layer survives Keras's config: GetConfig, then
// FromConfig, gives a layer with the same config.
func TestConfigRoundTrip(t *testing.T) {
	for _, c := range loadGolden(t) {
		l := c.build(t)
		cfg, err := layers.Config(l)
		if err != nil {
			t.Fatalf("%s: %v", c.Name, err)
		}
		data, _ := json.Marshal(cfg)
		var decoded serialization.Config
		if err := json.Unmarshal(data, &decoded); err != nil {
			t.Fatal(err)
		}
		again, err := layers.FromConfig(c.Class, decoded)
		if err != nil {
			t.Fatalf("%s: reading back %s: %v", c.Name, data, err)
		}
		cfg2, err := layers.Config(again)
		if err != nil {
			t.Fatal(err)
		}
		if data2, _ := json.Marshal(cfg2); string(data2) != string(data) {
			t.Errorf("%s: config %s read back as %s", c.Name, data, data2)
		}
	}
}

func TestShapeErrorsNameTheLayer(t *testing.T) {
	cases := []struct {
		layer  layers.Layer
		sample []int
		want   []string
	}{
		{&layers.Conv2D{Filters: 2, KernelSize: [2]int{3, 3}, Base: layers.Base{Name: "conv"}}, []int{784}, []string{`"conv" (Conv2D)`, "(None, 784)", "(batch, rows, cols, channels)"}},
		{&layers.Conv2D{Filters: 2, KernelSize: [2]int{5, 5}}, []int{3, 3, 1}, []string{"Conv2D", "larger than"}},
		{&layers.Dense{Units: 0}, []int{3}, []string{"Dense", "units must be positive"}},
		{&layers.Dense{Units: 2, Activation: "swish2"}, []int{3}, []string{"unknown activation", "relu"}},
		{&layers.Reshape{TargetShape: []int{4, 4}}, []int{10}, []string{"Reshape", "cannot reshape 10 values"}},
		{&layers.Dropout{Rate: 1}, []int{3}, []string{"rate must be in [0, 1)"}},
		{&layers.Dropout{Rate: 0.5, NoiseShape: []int{-1, 1}}, []int{3, 3}, []string{"Dropout", "noise shape [-1 1] has 2 axes", "one entry per axis"}},
		{&layers.Dropout{Rate: 0.5, NoiseShape: []int{-1, 2}}, []int{3}, []string{"Dropout", "does not broadcast", "axis 1 must be 1, -1 or 3"}},
		{&layers.MaxPooling2D{}, []int{1, 1, 1}, []string{"MaxPooling2D", "larger than"}},
		{&layers.ZeroPadding2D{Padding: [2][2]int{{-1, 0}, {0, 0}}}, []int{4, 4, 1}, []string{"ZeroPadding2D", "must not be negative"}},
		{&layers.ZeroPadding2D{}, []int{4, 4}, []string{"ZeroPadding2D", "(batch, height, width, channels)", "(None, 4, 4)"}},
		{&layers.UpSampling2D{Size: [2]int{0, 2}}, []int{4, 4, 1}, []string{"UpSampling2D", "size must be positive"}},
		{&layers.RepeatVector{}, []int{3}, []string{"RepeatVector", "n must be positive"}},
		{&layers.RepeatVector{N: 2}, []int{3, 3}, []string{"RepeatVector", "(batch, features)"}},
		{&layers.SpatialDropout2D{Rate: 1.5}, []int{4, 4, 1}, []string{"SpatialDropout2D", "rate must be in [0, 1)"}},
		{&layers.SpatialDropout1D{Rate: 0.5}, []int{4, 4, 1}, []string{"SpatialDropout1D", "(batch, steps, channels)"}},
		{&layers.SpatialDropout3D{Rate: -0.5}, []int{4, 4, 4, 1}, []string{"SpatialDropout3D", "rate must be in [0, 1)"}},
		{&layers.AlphaDropout{Rate: 1}, []int{4}, []string{"AlphaDropout", "rate must be in [0, 1)"}},
		{&layers.PReLU{SharedAxes: []int{3}}, []int{4, 4}, []string{"PReLU", "shared axis 3 is out of range"}},
		{&layers.ReLU{MaxValue: -1}, []int{4}, []string{"ReLU", "must be >= 0"}},
		{&layers.Cropping2D{Cropping: [2][2]int{{2, 2}, {0, 0}}}, []int{4, 4, 1}, []string{"Cropping2D", "leaves nothing", "(None, 4, 4, 1)"}},
		{&layers.Permute{Dims: []int{1, 1}}, []int{3, 4}, []string{"Permute", "permutation of 1..2"}},
		{&layers.Permute{Dims: []int{1}}, []int{3, 4}, []string{"Permute", "axes after the batch"}},
		{&layers.Conv2DTranspose{Filters: 2}, []int{4, 4, 1}, []string{"Conv2DTranspose", "must be positive"}},
		{&layers.Conv2D{Filters: 4, KernelSize: [2]int{3, 3}, Groups: 3}, []int{5, 5, 4}, []string{"Conv2D", "groups 3 must divide the input channels (4)"}},
		{&layers.Conv2D{Filters: 4, KernelSize: [2]int{3, 3}, DilationRate: [2]int{2, 2}, Strides: [2]int{2, 2}}, []int{9, 9, 1}, []string{"Conv2D", "needs strides of 1"}},
		{&layers.Conv2D{Filters: 4, KernelSize: [2]int{3, 3}, DilationRate: [2]int{3, 3}}, []int{5, 5, 1}, []string{"Conv2D", "larger than the input"}},
		{&layers.AveragePooling2D{PoolSize: [2]int{3, 3}}, []int{2, 2, 1}, []string{"AveragePooling2D", "larger than the input"}},
		{&layers.DepthwiseConv2D{}, []int{4, 4, 1}, []string{"DepthwiseConv2D", "must be positive"}},
		{&layers.GroupNormalization{}, []int{4, 6}, []string{"GroupNormalization", "number of groups (32) must divide the number of channels (6)"}},
		{&layers.GaussianNoise{Stddev: -1}, []int{4}, []string{"GaussianNoise", "stddev must be >= 0"}},
		{&layers.SeparableConv2D{KernelSize: [2]int{3, 3}}, []int{4, 4, 1}, []string{"SeparableConv2D", "filters and depth_multiplier must be positive"}},
		{&layers.MultiHeadAttention{NumHeads: 2}, []int{5, 4}, []string{"MultiHeadAttention", "expects query and value"}},
		{&layers.Attention{}, []int{5, 4}, []string{"Attention", "expects [query, value] or [query, value, key]"}},
		{&layers.LSTM{Units: 4}, []int{10}, []string{"LSTM", "(batch, timesteps, features)", "(None, 10)", "Reshape"}},
		{&layers.GRU{Units: 0}, []int{5, 2}, []string{"GRU", "units must be positive"}},
		{&layers.SimpleRNN{Units: 2, Dropout: 1}, []int{5, 2}, []string{"SimpleRNN", "dropout and recurrent_dropout must be in [0, 1)"}},
		{&layers.LSTM{Units: 2, RecurrentActivation: "sigmoid2"}, []int{5, 2}, []string{"LSTM", "unknown activation"}},
		{&layers.Conv1D{Filters: 2, KernelSize: 3}, []int{4, 4, 1}, []string{"Conv1D", "(batch, steps, channels)", "(None, 4, 4, 1)"}},
		{&layers.Conv1D{Filters: 2, KernelSize: 3, Padding: "full"}, []int{5, 1}, []string{"Conv1D", `"valid", "same" or "causal"`}},
		{&layers.Conv1D{Filters: 2, KernelSize: 6}, []int{5, 1}, []string{"Conv1D", "larger than the input"}},
		{&layers.MaxPooling1D{}, []int{8}, []string{"MaxPooling1D", "(batch, steps, channels)"}},
		{&layers.Cropping1D{Cropping: [2]int{2, 3}}, []int{5, 2}, []string{"Cropping1D", "leaves nothing"}},
		{&layers.UpSampling1D{Size: -2}, []int{5, 2}, []string{"UpSampling1D", "size must be positive"}},
		{&layers.ZeroPadding1D{Padding: [2]int{-1, 0}}, []int{5, 2}, []string{"ZeroPadding1D", "must not be negative"}},
		{&layers.Conv2DTranspose{Filters: 2, KernelSize: [2]int{2, 2}, Padding: "full"}, []int{4, 4, 1}, []string{"Conv2DTranspose", `padding must be "valid" or "same"`}},
		{&layers.Conv3D{Filters: 2, KernelSize: [3]int{3, 3, 3}}, []int{4, 4, 1}, []string{"Conv3D", "(batch, depth, rows, cols, channels)", "(None, 4, 4, 1)"}},
		{&layers.Conv3D{Filters: 2, KernelSize: [3]int{3, 1, 1}}, []int{2, 4, 4, 1}, []string{"Conv3D", "larger than the input"}},
		{&layers.Conv3D{Filters: 2, KernelSize: [3]int{1, 1, 1}, Strides: [3]int{2, 1, 1}, DilationRate: [3]int{1, 2, 1}}, []int{4, 4, 4, 1}, []string{"Conv3D", "needs strides of 1"}},
		{&layers.Conv3DTranspose{Filters: 2, KernelSize: [3]int{2, 2, 2}, Strides: [3]int{2, 2, 2}, OutputPadding: []int{2}}, []int{2, 2, 2, 1}, []string{"Conv3DTranspose", "output_padding [2 2 2]", "strictly less than the strides"}},
		{&layers.Conv1DTranspose{Filters: 2, KernelSize: 2, Strides: 2, DilationRate: 2}, []int{4, 1}, []string{"Conv1DTranspose", "cannot be used with dilation_rate"}},
		{&layers.MaxPooling3D{}, []int{1, 4, 4, 1}, []string{"MaxPooling3D", "larger than the input"}},
		{&layers.GlobalAveragePooling3D{}, []int{4, 4, 1}, []string{"GlobalAveragePooling3D", "(batch, depth, rows, cols, channels)"}},
		{&layers.UpSampling3D{Size: [3]int{1, 0, 1}}, []int{2, 2, 2, 1}, []string{"UpSampling3D", "size must be positive"}},
		{&layers.Cropping3D{Cropping: [3][2]int{{0, 0}, {1, 1}, {0, 0}}}, []int{2, 2, 2, 1}, []string{"Cropping3D", "leaves nothing"}},
		{&layers.ZeroPadding3D{Padding: [3][2]int{{0, -1}, {0, 0}, {0, 0}}}, []int{2, 2, 2, 1}, []string{"ZeroPadding3D", "must not be negative"}},
		{&layers.DepthwiseConv1D{KernelSize: 3}, []int{4, 4, 1}, []string{"DepthwiseConv1D", "(batch, steps, channels)"}},
		{&layers.SeparableConv1D{KernelSize: 3}, []int{5, 1}, []string{"SeparableConv1D", "must be positive"}},
		{&layers.AdaptiveMaxPooling3D{OutputSize: [3]int{2, 2, 2}}, []int{4, 4, 1}, []string{"AdaptiveMaxPooling3D", "(batch, depth, height, width, channels)"}},
		{&layers.ConvLSTM2D{Filters: 2, KernelSize: [2]int{3, 3}}, []int{4, 4, 1}, []string{"ConvLSTM2D", "(batch, time, rows, cols, channels)", "(None, 4, 4, 1)"}},
		{&layers.ConvLSTM2D{Filters: 2, KernelSize: [2]int{5, 5}}, []int{3, 4, 4, 1}, []string{"ConvLSTM2D", "larger than"}},
		{&layers.ConvLSTM3D{KernelSize: [3]int{1, 1, 1}}, []int{3, 2, 2, 2, 1}, []string{"ConvLSTM3D", "filters must be positive"}},
		{&layers.ConvLSTM1D{Filters: 1, KernelSize: 2, Dropout: 1}, []int{3, 4, 1}, []string{"ConvLSTM1D", "dropout and recurrent_dropout must be in [0, 1)"}},
		{&layers.RNN{}, []int{3, 2}, []string{"RNN", "has no cell"}},
		{&layers.RNN{Cell: &layers.LSTMCell{Units: 2}}, []int{3}, []string{"RNN", "(batch, timesteps, features)"}},
		{&layers.RNN{Cell: &layers.GRUCell{Units: 0}}, []int{3, 2}, []string{"RNN", "GRUCell", "units must be positive"}},
		{&layers.RNN{Cell: &layers.StackedRNNCells{}}, []int{3, 2}, []string{"StackedRNNCells", "has no cells"}},
		{&layers.LSTMCell{Units: 2}, []int{3, 2}, []string{"LSTMCell", "a cell takes one step (batch, features)", "wrap it in an RNN"}},
		{&layers.EinsumDense{Equation: "ab,bc", OutputShape: []int{3}}, []int{4}, []string{"EinsumDense", `equation "ab,bc" must be of the form`}},
		{&layers.EinsumDense{Equation: "ab,bc->ac", OutputShape: []int{3, 2}}, []int{4}, []string{"EinsumDense", "output_shape [3 2] gives 2 axes", "1 besides the batch"}},
		{&layers.EinsumDense{Equation: "abc,cd->abd", OutputShape: []int{5, 2}}, []int{4, 3}, []string{"EinsumDense", `shared axis "b"`, "4 and 5"}},
		{&layers.EinsumDense{Equation: "ab,bc->ac", OutputShape: []int{3}, BiasAxes: "x"}, []int{4}, []string{"EinsumDense", `bias axis "x"`}},
		{&layers.EinsumDense{Equation: "ab,bcd->ac", OutputShape: []int{3}}, []int{4}, []string{"EinsumDense", `kernel axis "d"`, "fully specified"}},
		{&layers.EinsumDense{Equation: "abc,cd->abd", OutputShape: []int{-1, 2}}, []int{4}, []string{"EinsumDense", "names 3 input axes", "(None, 4)"}},
		{&layers.RandomGrayscale{Factor: 1.5}, []int{4, 4, 3}, []string{"RandomGrayscale", "factor must be between 0 and 1, got 1.5"}},
		{&layers.RandomGrayscale{Factor: 0.5}, []int{4, 4, 1}, []string{"RandomGrayscale", "3 channels (RGB)", "(None, 4, 4, 1)"}},
		{&layers.RandomInvert{Factor: 2}, []int{4, 4, 3}, []string{"RandomInvert", "in [0, 1], got 2"}},
		{&layers.RandomInvert{Factor: 1, ValueRange: [2]float64{1, 1}}, []int{4, 4, 3}, []string{"RandomInvert", "value_range must be two different numbers", "[1 1]"}},
		{&layers.RandomPosterization{Factor: 9}, []int{4, 4, 3}, []string{"RandomPosterization", "in [1, 8], got 9"}},
		{&layers.RandomPosterization{Factor: 4}, []int{4, 4}, []string{"RandomPosterization", "(batch, height, width, channels)"}},
		{&layers.RandomColorDegeneration{FactorRange: [2]float64{1.5, 2}}, []int{4, 4, 3}, []string{"RandomColorDegeneration", "in [-1, 1], got [1.5 2]"}},
		{&layers.RandomSaturation{Factor: 0.5}, []int{4, 4, 4}, []string{"RandomSaturation", "3 channels (RGB)"}},
		{&layers.RandomHue{Factor: -0.5}, []int{4, 4, 3}, []string{"RandomHue", "in [0, 1], got -0.5"}},
		{&layers.Solarization{ThresholdFactorRange: [2]float64{0.2, 1.2}}, []int{4, 4, 3}, []string{"Solarization", "threshold_factor", "in [0, 1], got [0.2 1.2]"}},
		{&layers.AutoContrast{ValueRange: [2]float64{3, 3}}, []int{4, 4, 3}, []string{"AutoContrast", "value_range must be two different numbers"}},
		{&layers.RandomSharpness{Factor: 1.1}, []int{4, 4, 3}, []string{"RandomSharpness", "in [0, 1], got 1.1"}},
		{&layers.RandomGaussianBlur{Factor: 1, Sigma: 1, KernelSize: [2]int{3, 4}}, []int{4, 4, 3}, []string{"RandomGaussianBlur", "kernel_size must be odd positive numbers, got [3 4]"}},
		{&layers.RandomGaussianBlur{Factor: 1, Sigma: 2}, []int{4, 4, 3}, []string{"RandomGaussianBlur", "sigma", "in [0, 1], got 2"}},
		{&layers.RandomColorJitter{Hue: &layers.JitterFactor{Value: 0.2}}, []int{4, 4, 1}, []string{"RandomColorJitter", "RandomHue", "3 channels (RGB)"}},
		{&layers.RandomColorJitter{Brightness: &layers.JitterFactor{Value: 3}}, []int{4, 4, 3}, []string{"RandomColorJitter", "RandomBrightness", "got 3"}},
		{&layers.RandomShear{XFactorRange: [2]float64{-0.2, 0.2}}, []int{4, 4, 3}, []string{"RandomShear", "x_factor must be a number or a pair of numbers in [0, 1], got [-0.2 0.2]"}},
		{&layers.RandomShear{YFactor: 0.2, FillMode: "mirror"}, []int{4, 4, 3}, []string{"RandomShear", `unknown fill mode "mirror"`}},
		{&layers.RandomErasing{Factor: 1, FillValue: []float64{1, 2}}, []int{4, 4, 3}, []string{"RandomErasing", "fill_value has 2 numbers", "one per channel (3)"}},
		{&layers.RandomErasing{Factor: 1, ScaleRange: [2]float64{1.5, 2}}, []int{4, 4, 3}, []string{"RandomErasing", "scale", "got [1.5 2]"}},
		{&layers.Equalization{Bins: 1}, []int{4, 4, 3}, []string{"Equalization", "bins must be at least 2, got 1"}},
		{&layers.Pipeline{}, []int{4, 4, 3}, []string{"Pipeline", "has no layers"}},
		{&layers.Pipeline{Layers: []layers.Layer{&layers.RandomFlip{}, &layers.RandomHue{Factor: 0.1}}}, []int{4, 4, 1}, []string{"Pipeline", "random_hue", "RandomHue", "3 channels (RGB)"}},
		{&layers.MixUp{Alpha: -1}, []int{4, 4, 3}, []string{"MixUp", "alpha must be positive, got -1"}},
		{&layers.CutMix{Factor: 2}, []int{4, 4, 3}, []string{"CutMix", "in [0, 1], got 2"}},
		{&layers.RandomPerspective{Factor: 1, Scale: 1.5}, []int{4, 4, 3}, []string{"RandomPerspective", "scale must be a number in [0, 1], got 1.5"}},
		{&layers.RandomPerspective{Factor: 1, Interpolation: "bicubic"}, []int{4, 4, 3}, []string{"RandomPerspective", `unknown interpolation "bicubic"`}},
		{&layers.STFTSpectrogram{FrameLength: 8, FrameStep: 9}, []int{20, 1}, []string{"STFTSpectrogram", "frame_step should be a positive integer not greater than frame_length (8), got 9"}},
		{&layers.STFTSpectrogram{FrameLength: 8, FFTLength: 4}, []int{20, 1}, []string{"STFTSpectrogram", "fft_length should be not less than frame_length (8), got 4"}},
		{&layers.STFTSpectrogram{FrameLength: 8, Mode: "power"}, []int{20, 1}, []string{"STFTSpectrogram", `mode "power" is invalid`}},
		{&layers.STFTSpectrogram{FrameLength: 8, Window: "kaiser"}, []int{20, 1}, []string{"STFTSpectrogram", `unknown window "kaiser"`}},
		{&layers.STFTSpectrogram{FrameLength: 8}, []int{20}, []string{"STFTSpectrogram", "(batch, time, channels)"}},
		{&layers.STFTSpectrogram{FrameLength: 32}, []int{20, 1}, []string{"STFTSpectrogram", "shorter than frame_length 32"}},
		{&layers.MelSpectrogram{FFTLength: 16, SequenceLength: 32}, []int{64}, []string{"MelSpectrogram", "fft_length must be greater than or equal to sequence_length"}},
		{&layers.MelSpectrogram{FFTLength: 16, MinFreq: 5000, SamplingRate: 8000}, []int{64}, []string{"MelSpectrogram", "min_freq 5000 and max_freq 4000"}},
		{&layers.MelSpectrogram{}, []int{64, 1}, []string{"MelSpectrogram", "(batch, time)"}},
		{&layers.RandomElasticTransform{Factor: 1, ScaleRange: [2]float64{1.2, 2}}, []int{8, 8, 3}, []string{"RandomElasticTransform", "scale", "got [1.2 2]"}},
		{&layers.RandomElasticTransform{Factor: 1, Scale: 1, FillMode: "edge"}, []int{8, 8, 3}, []string{"RandomElasticTransform", `unknown fill mode "edge"`}},
	}
	for _, c := range cases {
		out := layers.Apply(c.layer, layers.Input(c.sample...))
		if out.Err() == nil {
			t.Errorf("%s on %v: no error", c.layer.ClassName(), c.sample)
			continue
		}
		for _, w := range c.want {
			if !strings.Contains(out.Err().Error(), w) {
				t.Errorf("error %q does not mention %q", out.Err(), w)
			}
		}
	}
	// Attention inputs: ranks, key/value steps and the mask's shape.
	mha := func() *layers.MultiHeadAttention { return &layers.MultiHeadAttention{NumHeads: 2, KeyDim: 3} }
	for _, c := range []struct {
		in   []*layers.KerasTensor
		want string
	}{
		{[]*layers.KerasTensor{layers.Input(4), layers.Input(4)}, "query must be (batch, steps, features), received (None, 4)"},
		{[]*layers.KerasTensor{layers.Input(5, 4), layers.Input(6, 4), layers.Input(7, 4)}, "key and value must have the same steps"},
		{[]*layers.KerasTensor{layers.Input(5, 4), layers.Input(6, 4), layers.Input(6, 4), layers.Input(6, 5)}, "attention mask has shape (None, 6, 5), expected (batch, 5, 6)"},
	} {
		if err := layers.Apply(mha(), c.in...).Err(); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "MultiHeadAttention") {
			t.Errorf("MultiHeadAttention: %v, want %q", err, c.want)
		}
	}
	for _, c := range []struct {
		gqa  *layers.GroupedQueryAttention
		want string
	}{
		{&layers.GroupedQueryAttention{HeadDim: 2, NumQueryHeads: 3, NumKeyValueHeads: 2}, "num_query_heads (3) must be divisible by num_key_value_heads (2)"},
		{&layers.GroupedQueryAttention{HeadDim: 2, NumQueryHeads: 2}, "must be positive, got 2, 2 and 0"},
	} {
		if err := layers.Apply(c.gqa, layers.Input(5, 4), layers.Input(5, 4)).Err(); err == nil || !strings.Contains(err.Error(), c.want) || !strings.Contains(err.Error(), "GroupQueryAttention") {
			t.Errorf("GroupedQueryAttention: %v, want %q", err, c.want)
		}
	}
	if err := layers.Apply(&layers.AdditiveAttention{}, layers.Input(5, 4), layers.Input(6, 3)).Err(); err == nil || !strings.Contains(err.Error(), "query and key the same dim") {
		t.Errorf("AdditiveAttention with query dim 4 and key dim 3: %v", err)
	}
	if err := layers.Apply(&layers.Attention{ScoreMode: "general"}, layers.Input(5, 4), layers.Input(6, 4)).Err(); err == nil || !strings.Contains(err.Error(), `score_mode must be "dot" or "concat"`) {
		t.Errorf("Attention with score_mode general: %v", err)
	}
	// Initial states must match the layer's state count and width.
	lstm := &layers.LSTM{Units: 3}
	if err := layers.Apply(lstm, layers.Input(5, 2), layers.Input(3)).Err(); err == nil || !strings.Contains(err.Error(), "expects 2 initial state(s) after the sequence, received 1") {
		t.Errorf("LSTM with one initial state: %v", err)
	}
	if err := layers.Apply(&layers.GRU{Units: 3}, layers.Input(5, 2), layers.Input(4)).Err(); err == nil || !strings.Contains(err.Error(), "initial state 0 has shape (None, 4), expected (batch, 3)") {
		t.Errorf("GRU with a wrong initial state: %v", err)
	}
	// A Dense layer built for 3 features rejects 4.
	d := &layers.Dense{Units: 2}
	layers.Apply(d, layers.Input(3))
	if err := layers.Apply(d, layers.Input(4)).Err(); err == nil || !strings.Contains(err.Error(), "expected axis -1 of input shape to have value 3") {
		t.Errorf("reusing Dense on another width: %v", err)
	}
}
