//go:build libtorch && cgo

package distribution_test

import (
	"context"
	"encoding/json"
	"math"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/kerasgo/kerasgo/internal/disttest"
	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/callbacks"
	"github.com/kerasgo/kerasgo/keras/distribution"
	"github.com/kerasgo/kerasgo/keras/optimizers"
)

func init() { workers["train-outside"] = trainOutsideWorker }

// outsideModels are the models of a step over models outside the fitted
// one: fitted trains with the compiled optimizer, critic (outside) with
// its own SGD on the same batch, and target (outside) moves a tenth of
// the way toward fitted after each step (Polyak averaging, by Assign).
type outsideModels struct{ fitted, critic, target *keras.Model }

func newOutsideModels(engine string, dp *distribution.DataParallel) (outsideModels, error) {
	var ms outsideModels
	var err error
	for _, m := range []**keras.Model{&ms.fitted, &ms.critic, &ms.target} {
		if *m, err = mlp(false); err != nil {
			return ms, err
		}
	}
	ms.critic.Name, ms.target.Name = "critic", "target"
	criticOpt := &optimizers.SGD{LearningRate: 0.05}
	opts := compileOpts(engine, dp)
	opts.TrainStep = func(s *keras.Step, d keras.StepData) (keras.StepLogs, error) {
		loss := s.ComputeLoss(d.Y, s.Call(s.Model(), true, d.X...), nil)
		own := s.Model().TrainableWeights()
		s.Apply(nil, s.Gradients(loss, own), own)
		criticLoss := s.ComputeLoss(d.Y, s.Call(ms.critic, true, d.X...), nil)
		cw := ms.critic.TrainableWeights()
		s.Apply(criticOpt, s.Gradients(criticLoss, cw), cw)
		for i, w := range ms.target.Weights() {
			s.Assign(w, s.Add(s.Mul(s.Value(w), s.Scalar(0.9)), s.Mul(s.Value(own[i]), s.Scalar(0.1))))
		}
		return keras.StepLogs{{Name: "loss", Value: loss}, {Name: "critic_loss", Value: criticLoss}}, nil
	}
	if err := ms.fitted.Compile(opts); err != nil {
		return ms, err
	}
	// The outside models start from known values: the fitted model's,
	// and half of them.
	start, err := ms.fitted.GetWeights()
	if err == nil {
		err = ms.critic.SetWeights(start)
	}
	if err == nil {
		for _, w := range start {
			for i := range w {
				w[i] /= 2
			}
		}
		err = ms.target.SetWeights(start)
	}
	return ms, err
}

// outsideReport is what a rank of the train-outside job writes, and what
// one process's training gives.
type outsideReport struct {
	StepHashes             []uint64 // of the three models' weights after every step
	Fitted, Critic, Target [][]float32
	Loss, CriticLoss       float64
}

// train fits ms.fitted on x, y in batches of batch and reports.
func (ms outsideModels) train(x, y keras.Array, batch int) (outsideReport, error) {
	var rep outsideReport
	all := func() ([][]float32, error) {
		var out [][]float32
		for _, m := range []*keras.Model{ms.fitted, ms.critic, ms.target} {
			ws, err := m.GetWeights()
			if err != nil {
				return nil, err
			}
			out = append(out, ws...)
		}
		return out, nil
	}
	record := &callbacks.Lambda{TrainBatchEnd: func(int, callbacks.Logs) {
		if ws, err := all(); err == nil {
			rep.StepHashes = append(rep.StepHashes, hashWeights(ws))
		}
	}}
	h, err := ms.fitted.Fit(context.Background(), x, y, keras.FitOptions{Epochs: 1, BatchSize: batch, NoShuffle: true, Verbose: keras.Silent, Callbacks: []callbacks.Callback{record}})
	if err != nil {
		return rep, err
	}
	rep.Loss, rep.CriticLoss = h.Logs["loss"][0], h.Logs["critic_loss"][0]
	if rep.Fitted, err = ms.fitted.GetWeights(); err == nil {
		if rep.Critic, err = ms.critic.GetWeights(); err == nil {
			rep.Target, err = ms.target.GetWeights()
		}
	}
	return rep, err
}

func trainOutsideWorker() error {
	dp, err := distribution.NewDataParallel(distribution.Config{Timeout: time.Minute})
	if err != nil {
		return err
	}
	defer dp.Close()
	ms, err := newOutsideModels(os.Getenv("TEST_ENGINE"), dp)
	if err != nil {
		return err
	}
	x, y := mlpData(steps * perRank * dp.WorldSize())
	rep, err := ms.train(x, y, perRank)
	if err != nil {
		return err
	}
	data, err := json.Marshal(rep)
	if err != nil {
		return err
	}
	return os.WriteFile(filepath.Join(os.Getenv("TEST_OUT"), "outside"+os.Getenv("RANK")+".json"), data, 0o644)
}

// A step over models outside the fitted one trains data parallel: the
// critic, trained by its own optimizer on the averaged gradients, and the
// target, moved by Assign, stay bit-identical on every rank after every
// step, and end where one process's training on the global batches ends,
// within 1e-5.
func TestOutsideModelsDataParallel(t *testing.T) {
	if err := distribution.Available(); err != nil {
		t.Skipf("distributed tests SKIPPED: %v", err)
	}
	const world = 2
	for _, engine := range openEngines(t) {
		t.Run(engine, func(t *testing.T) {
			dir := t.TempDir()
			for _, r := range disttest.Run(t, "train-outside", world, 3*time.Minute, "TEST_ENGINE="+engine, "TEST_OUT="+dir) {
				if r.Err != nil {
					t.Fatalf("rank %d: %v\n%s", r.Rank, r.Err, r.Output)
				}
			}
			reps := make([]outsideReport, world)
			for r := range reps {
				data, err := os.ReadFile(filepath.Join(dir, "outside"+string(rune('0'+r))+".json"))
				if err == nil {
					err = json.Unmarshal(data, &reps[r])
				}
				if err != nil {
					t.Fatal(err)
				}
			}
			if len(reps[0].StepHashes) != steps {
				t.Fatalf("rank 0 took %d steps, want %d", len(reps[0].StepHashes), steps)
			}
			for s, h := range reps[1].StepHashes {
				if h != reps[0].StepHashes[s] {
					t.Fatalf("after step %d rank 1's weights (the outside models' included) differ from rank 0's", s+1)
				}
			}
			ms, err := newOutsideModels(engine, nil)
			if err != nil {
				t.Fatal(err)
			}
			x, y := mlpData(steps * perRank * world)
			gx, gy := globalOrder(x, y, world)
			want, err := ms.train(gx, gy, perRank*world)
			if err != nil {
				t.Fatal(err)
			}
			for _, c := range []struct {
				name      string
				got, want [][]float32
			}{{"fitted", reps[0].Fitted, want.Fitted}, {"critic", reps[0].Critic, want.Critic}, {"target", reps[0].Target, want.Target}} {
				for i := range c.want {
					for j, w := range c.want[i] {
						if g := c.got[i][j]; math.Abs(float64(g-w)) > 1e-5 {
							t.Fatalf("%s's weight %d[%d]: %d processes %v, one process %v", c.name, i, j, world, g, w)
						}
					}
				}
			}
			if math.Abs(reps[0].CriticLoss-want.CriticLoss) > 1e-5 {
				t.Errorf("critic_loss: %d processes %v, one process %v", world, reps[0].CriticLoss, want.CriticLoss)
			}
			t.Logf("%d ranks, %d steps: the three models equal after every step; critic loss %.6f (one process %.6f)", world, steps, reps[0].CriticLoss, want.CriticLoss)
		})
	}
}
