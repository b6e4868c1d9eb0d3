// Command weather is Keras's example "Timeseries forecasting for weather
// prediction" (keras.io/examples/timeseries/timeseries_weather_forecasting)
// on hourly weather it simulates, with windows of several lengths: the
// model's input is a window of any length (Keras's None), it trains on
// windows of one, two and three days of history, cut by
// utils.TimeseriesDatasetFromArray as the page cuts them, and it
// forecasts the temperature 12 hours after the end of a window of any of
// those lengths. It prints each length's held-out mean squared error
// beside persistence (the temperature now), in the page's normalized
// units.
//
//	go run ./examples/weather -epochs 10
//
// The page uses the Jena climate record (not downloaded here: 420,551
// records of 14 features every 10 minutes, of which it keeps 7, hourly,
// with 120 hours of history); this program's weather has a daily cycle, a
// season, and fronts: the pressure wanders, and the temperature follows
// its changes half a day later, so that the history says where the
// temperature is going.
package main

import (
	"context"
	"fmt"
	"math"
	"math/rand/v2"

	_ "github.com/kerasgo/kerasgo/backends/all"
	"github.com/kerasgo/kerasgo/examples/internal/example"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/layers"
	"github.com/kerasgo/kerasgo/keras/optimizers"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// The page's future: forecast 12 hours ahead. Features: pressure,
// temperature, humidity, wind speed.
const (
	future      = 12
	features    = 4
	temperature = 1 // its column
)

// pastHours are the window lengths the model learns from and is tested
// on; the page has one, 120 hours.
var pastHours = []int{24, 48, 72}

// simulate returns hours of weather, (hours, features), starting at hour
// t0.
func simulate(hours, t0 int, seed uint64) [][features]float64 {
	r := rand.New(rand.NewPCG(seed, 19))
	out := make([][features]float64, hours)
	pressure, front := 1000.0, 0.0
	trend := make([]float64, hours) // the pressure's change, remembered for the lag
	for i := range out {
		t := float64(t0 + i)
		pressure += 0.3*r.NormFloat64() - 0.01*(pressure-1000)
		if i > 0 {
			trend[i] = pressure - out[i-1][0]
		}
		if i >= 12 { // the temperature follows the pressure's change of half a day ago
			front = 0.97*front + 0.8*trend[i-12]
		}
		daily := 4 * math.Sin(2*math.Pi*(t-9)/24)
		season := 8 * math.Sin(2*math.Pi*t/(24*365))
		temp := 10 + season + daily + front + 0.3*r.NormFloat64()
		humidity := 70 - 2*daily - 3*front + 2*r.NormFloat64()
		wind := 3 + 2*math.Abs(trend[i]) + 0.5*math.Abs(r.NormFloat64())
		out[i] = [features]float64{pressure, temp, humidity, wind}
	}
	return out
}

// normalizer is the page's normalize: each feature's mean and standard
// deviation over the training hours.
type normalizer struct{ mean, std [features]float64 }

func fitNormalizer(rows [][features]float64) normalizer {
	var n normalizer
	for f := range features {
		for _, r := range rows {
			n.mean[f] += r[f]
		}
		n.mean[f] /= float64(len(rows))
		for _, r := range rows {
			n.std[f] += (r[f] - n.mean[f]) * (r[f] - n.mean[f])
		}
		n.std[f] = math.Sqrt(n.std[f] / float64(len(rows)))
	}
	return n
}

// apply returns the rows normalized as a (hours, features) Array.
func (n normalizer) apply(rows [][features]float64) keras.Array {
	a := keras.Array{Shape: []int{len(rows), features}, Data: make([]float32, 0, len(rows)*features)}
	for _, r := range rows {
		for f := range features {
			a.Data = append(a.Data, float32((r[f]-n.mean[f])/n.std[f]))
		}
	}
	return a
}

// windowsOf is the page's dataset_train: windows of past hours over data,
// each with the (normalized) temperature future hours after its last
// hour as its target.
func windowsOf(data keras.Array, past int, shuffle bool, seed int64) (*utils.TimeseriesDataset, error) {
	delay := past + future - 1
	n := data.Samples()
	targets := keras.Array{Shape: []int{n - delay, 1}, Data: make([]float32, n-delay)}
	for i := range targets.Data {
		targets.Data[i] = data.Data[(i+delay)*features+temperature]
	}
	return utils.TimeseriesDatasetFromArray(data.Rows(0, n-delay), &targets, utils.TimeseriesOptions{SequenceLength: past, BatchSize: 64, Shuffle: shuffle, Seed: seed})
}

// mixedLengths is one Dataset of the batches of several, taking turns,
// so that an epoch trains on every window length.
type mixedLengths []*utils.TimeseriesDataset

// Len returns the batches of all of them.
func (m mixedLengths) Len() int {
	n := 0
	for _, d := range m {
		n += d.Len()
	}
	return n
}

// Batch returns batch i: the datasets take turns while each has batches.
func (m mixedLengths) Batch(ctx context.Context, i int) (keras.Batch, error) {
	next := make([]int, len(m))
	for {
		for k, d := range m {
			if next[k] >= d.Len() {
				continue
			}
			if i == 0 {
				return d.Batch(ctx, next[k])
			}
			i--
			next[k]++
		}
	}
}

// result is, for each window length, the held-out MSE and persistence's.
type result struct {
	mse, persistence []float64
	loss             []float64
}

func run(ctx context.Context, o example.Options, units int) (result, error) {
	hours := o.Train
	weather := simulate(hours+o.Test, 0, uint64(o.Seed))
	norm := fitNormalizer(weather[:hours])
	train, test := norm.apply(weather[:hours]), norm.apply(weather[hours:])
	var trainSets mixedLengths
	for _, past := range pastHours {
		d, err := windowsOf(train, past, true, max(o.Seed, 1))
		if err != nil {
			return result{}, err
		}
		trainSets = append(trainSets, d)
	}
	in := layers.Input(-1, features) // a window of any number of hours
	out := layers.Apply(&layers.Dense{Units: 1}, layers.Apply(&layers.LSTM{Units: units}, in))
	m, err := keras.NewModel(in, out)
	if err != nil {
		return result{}, err
	}
	if err := m.Compile(keras.CompileOptions{Optimizer: &optimizers.Adam{LearningRate: 0.001}, Loss: keras.Loss("mse"), Backend: o.Backend, Seed: o.Seed}); err != nil {
		return result{}, err
	}
	h, err := m.Fit(ctx, keras.Batches{Dataset: trainSets}, nil, keras.FitOptions{Epochs: o.Epochs, Verbose: o.Verbose, Seed: o.Seed})
	if err != nil {
		return result{}, err
	}
	r := result{loss: h.Logs["loss"]}
	for _, past := range pastHours {
		d, err := windowsOf(test, past, false, 0)
		if err != nil {
			return result{}, err
		}
		logs, err := m.Evaluate(ctx, keras.Batches{Dataset: d}, nil, keras.EvaluateOptions{Verbose: keras.Silent})
		if err != nil {
			return result{}, err
		}
		mse, _ := logs.Get("loss")
		r.mse = append(r.mse, mse)
		r.persistence = append(r.persistence, persistence(test, past))
	}
	return r, nil
}

// persistence is the MSE of forecasting the temperature at the window's
// last hour.
func persistence(data keras.Array, past int) float64 {
	n, sum, count := data.Samples(), 0.0, 0
	for end := past - 1; end+future < n; end++ {
		d := float64(data.Data[(end+future)*features+temperature] - data.Data[end*features+temperature])
		sum += d * d
		count++
	}
	return sum / float64(count)
}

func main() {
	o := example.ParseFlags(10, 24*365, 24*60)
	r, err := run(context.Background(), o, 32)
	example.Exit("weather", err)
	for i, past := range pastHours {
		fmt.Printf("%d hours of history: held-out MSE %.4f (persistence %.4f)\n", past, r.mse[i], r.persistence[i])
	}
}
