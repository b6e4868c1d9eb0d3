package optimizers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/optimizers/schedules"
	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Serialize returns an optimizer in Keras's schema, as compile_config
// holds it: {"module": "keras.optimizers", "class_name": "Adam", "config": {...}}.
func Serialize(o Optimizer) (serialization.Object, error) {
	if l, ok := o.(*LossScaleOptimizer); ok {
		inner, err := Serialize(l.Inner)
		if err != nil {
			return serialization.Object{}, err
		}
		return serialization.NewObject("keras.optimizers", "LossScaleOptimizer", serialization.Config{
			"name": l.Name(), "inner_optimizer": inner, "initial_scale": serialization.Float(l.scale()), "dynamic_growth_steps": l.growth()}), nil
	}
	if m, ok := o.(*MultiOptimizer); ok {
		return serializeMulti(m)
	}
	r, ok := o.(rated)
	if !ok {
		return serialization.Object{}, fmt.Errorf("optimizer %s (%T) cannot be saved in Keras's format", o.Name(), o)
	}
	ResolveDefaults(o)
	opts := r.Common()
	cfg := serialization.Config{
		"name": o.Name(), "weight_decay": nullIfZero(opts.WeightDecay), "clipnorm": nullIfZero(opts.ClipNorm),
		"global_clipnorm": nullIfZero(opts.GlobalClipNorm), "clipvalue": nullIfZero(opts.ClipValue),
		"use_ema": opts.UseEMA, "ema_momentum": opts.emaMomentum(), "ema_overwrite_frequency": nullIfZeroInt(opts.EMAOverwriteFrequency),
		"loss_scale_factor": nil, "gradient_accumulation_steps": nullIfZeroInt(opts.GradientAccumulationSteps),
	}
	lr, sched, _ := r.rate()
	cfg["learning_rate"] = *lr
	if *sched != nil {
		s, err := schedules.Serialize(*sched)
		if err != nil {
			return serialization.Object{}, fmt.Errorf("optimizer %s: %w", o.Name(), err)
		}
		cfg["learning_rate"] = s
	}
	var class string
	switch v := o.(type) {
	case *SGD:
		class = "SGD"
		cfg["momentum"], cfg["nesterov"] = v.Momentum, v.Nesterov
	case *Adam:
		class = "Adam"
		cfg["beta_1"], cfg["beta_2"], cfg["epsilon"], cfg["amsgrad"] = v.Beta1, v.Beta2, v.Epsilon, v.AMSGrad
	case *AdamW:
		class = "AdamW"
		cfg["beta_1"], cfg["beta_2"], cfg["epsilon"], cfg["amsgrad"] = v.Beta1, v.Beta2, v.Epsilon, v.AMSGrad
	case *RMSprop:
		class = "RMSprop"
		cfg["rho"], cfg["momentum"], cfg["epsilon"], cfg["centered"] = v.Rho, v.Momentum, v.Epsilon, v.Centered
	case *Adadelta:
		class = "Adadelta"
		cfg["rho"], cfg["epsilon"] = v.Rho, v.Epsilon
	case *Adagrad:
		class = "Adagrad"
		cfg["initial_accumulator_value"], cfg["epsilon"] = v.InitialAccumulatorValue, v.Epsilon
	case *Adamax:
		class = "Adamax"
		cfg["beta_1"], cfg["beta_2"], cfg["epsilon"] = v.Beta1, v.Beta2, v.Epsilon
	case *Nadam:
		class = "Nadam"
		cfg["beta_1"], cfg["beta_2"], cfg["epsilon"] = v.Beta1, v.Beta2, v.Epsilon
	case *Lion:
		class = "Lion"
		cfg["beta_1"], cfg["beta_2"] = v.Beta1, v.Beta2
	case *Lamb:
		class = "Lamb"
		cfg["beta_1"], cfg["beta_2"], cfg["epsilon"] = v.Beta1, v.Beta2, v.Epsilon
	case *Adafactor:
		class = "Adafactor"
		cfg["beta_2_decay"], cfg["epsilon_1"], cfg["epsilon_2"] = v.Beta2Decay, v.Epsilon1, v.Epsilon2
		cfg["clip_threshold"], cfg["relative_step"] = v.ClipThreshold, !v.FixedStep
	case *ScheduleFreeAdamW:
		class = "ScheduleFreeAdamW"
		cfg["beta_1"], cfg["beta_2"], cfg["epsilon"], cfg["warmup_steps"] = v.Beta1, v.Beta2, v.Epsilon, v.WarmupSteps
	case *Muon:
		class = "Muon"
		cfg["adam_beta_1"], cfg["adam_beta_2"], cfg["epsilon"], cfg["adam_weight_decay"] = v.AdamBeta1, v.AdamBeta2, v.Epsilon, v.AdamWeightDecay
		cfg["exclude_layers"], cfg["exclude_embeddings"] = append([]string{}, v.ExcludeLayers...), !v.IncludeEmbeddings
		cfg["muon_a"], cfg["muon_b"], cfg["muon_c"], cfg["adam_lr_ratio"] = v.MuonA, v.MuonB, v.MuonC, v.AdamLRRatio
		cfg["momentum"], cfg["ns_steps"], cfg["nesterov"] = v.Momentum, v.NSSteps, !v.NoNesterov
		cfg["rms_rate"] = v.RMSRate
		if v.NoRMSRate {
			cfg["rms_rate"] = nil
		}
	case *Ftrl:
		class = "Ftrl"
		cfg["learning_rate_power"], cfg["initial_accumulator_value"] = v.LearningRatePower, v.InitialAccumulatorValue
		cfg["l1_regularization_strength"], cfg["l2_regularization_strength"] = v.L1RegularizationStrength, v.L2RegularizationStrength
		cfg["l2_shrinkage_regularization_strength"], cfg["beta"] = v.L2ShrinkageRegularizationStrength, v.Beta
	default:
		return serialization.Object{}, fmt.Errorf("optimizer %s (%T) cannot be saved in Keras's format", o.Name(), o)
	}
	for k, v := range cfg { // written as floats, as Keras checks some are
		if f, ok := v.(float64); ok {
			cfg[k] = serialization.Float(f)
		}
	}
	return serialization.NewObject("keras.optimizers", class, cfg), nil
}

func nullIfZero(v float64) any {
	if v == 0 {
		return nil
	}
	return v
}

func nullIfZeroInt(v int) any {
	if v == 0 {
		return nil
	}
	return v
}

// Deserialize builds an optimizer from Keras's schema (a class object or a
// name). Settings kerasgo does not implement (loss scaling) are errors
// naming them.
func Deserialize(v any) (Optimizer, error) {
	class, cfg, ok := serialization.ClassOrName(v)
	if !ok {
		return nil, fmt.Errorf("cannot read optimizer %v", v)
	}
	if cfg == nil { // a name such as "adam"
		return Get(class)
	}
	r := serialization.NewReader("optimizer "+class, cfg)
	r.Ignore("name")
	if class == "MultiOptimizer" {
		return deserializeMulti(r)
	}
	if class == "LossScaleOptimizer" {
		rawInner, _ := r.Value("inner_optimizer")
		inner, err := Deserialize(rawInner)
		if err != nil {
			return nil, fmt.Errorf("optimizer LossScaleOptimizer: inner_optimizer: %w", err)
		}
		l := &LossScaleOptimizer{Inner: inner, InitialScale: r.Float("initial_scale", 32768), DynamicGrowthSteps: r.Int("dynamic_growth_steps", 2000)}
		if !r.IsNull("dynamic") && r.Has("dynamic") && !r.Bool("dynamic", true) {
			r.Fail("dynamic", "LossScaleOptimizer no longer supports dynamic=False (as Keras 3): set loss_scale_factor on the inner optimizer")
		}
		if err := r.Finish(); err != nil {
			return nil, err
		}
		return l, Check(l)
	}
	var lr float64
	var sched schedules.LearningRateSchedule
	if raw, ok := r.Value("learning_rate"); ok {
		if _, isNum := raw.(float64); isNum {
			lr = r.Float("learning_rate", 0)
		} else {
			s, err := schedules.Deserialize(raw)
			if err != nil {
				return nil, fmt.Errorf("optimizer %s: learning_rate: %w", class, err)
			}
			sched = s
		}
	}
	opts := Options{exact: true, ClipNorm: r.Float("clipnorm", 0), GlobalClipNorm: r.Float("global_clipnorm", 0),
		ClipValue: r.Float("clipvalue", 0), WeightDecay: r.Float("weight_decay", 0),
		UseEMA: r.Bool("use_ema", false), EMAMomentum: r.Float("ema_momentum", 0.99),
		EMAOverwriteFrequency: r.Int("ema_overwrite_frequency", 0), GradientAccumulationSteps: r.Int("gradient_accumulation_steps", 0)}
	r.ExpectNull("loss_scale_factor")
	var o Optimizer
	switch class {
	case "SGD", "sgd":
		o = &SGD{LearningRate: lr, Schedule: sched, Momentum: r.Float("momentum", 0), Nesterov: r.Bool("nesterov", false), Options: opts}
	case "Adam", "adam":
		o = &Adam{LearningRate: lr, Schedule: sched, Beta1: r.Float("beta_1", 0.9), Beta2: r.Float("beta_2", 0.999), Epsilon: r.Float("epsilon", 1e-7),
			AMSGrad: r.Bool("amsgrad", false), Options: opts}
	case "AdamW", "adamw":
		if !r.Has("weight_decay") {
			opts.WeightDecay = 0.004
		}
		o = &AdamW{LearningRate: lr, Schedule: sched, Beta1: r.Float("beta_1", 0.9), Beta2: r.Float("beta_2", 0.999), Epsilon: r.Float("epsilon", 1e-7),
			AMSGrad: r.Bool("amsgrad", false), Options: opts}
	case "RMSprop", "rmsprop":
		o = &RMSprop{LearningRate: lr, Schedule: sched, Rho: r.Float("rho", 0.9), Epsilon: r.Float("epsilon", 1e-7),
			Momentum: r.Float("momentum", 0), Centered: r.Bool("centered", false), Options: opts}
	case "Adadelta", "adadelta":
		o = &Adadelta{LearningRate: lr, Schedule: sched, Rho: r.Float("rho", 0.95), Epsilon: r.Float("epsilon", 1e-7), Options: opts}
	case "Adagrad", "adagrad":
		o = &Adagrad{LearningRate: lr, Schedule: sched, InitialAccumulatorValue: r.Float("initial_accumulator_value", 0.1), Epsilon: r.Float("epsilon", 1e-7), Options: opts}
	case "Adamax", "adamax":
		o = &Adamax{LearningRate: lr, Schedule: sched, Beta1: r.Float("beta_1", 0.9), Beta2: r.Float("beta_2", 0.999), Epsilon: r.Float("epsilon", 1e-7), Options: opts}
	case "Nadam", "nadam":
		o = &Nadam{LearningRate: lr, Schedule: sched, Beta1: r.Float("beta_1", 0.9), Beta2: r.Float("beta_2", 0.999), Epsilon: r.Float("epsilon", 1e-7), Options: opts}
	case "Lion", "lion":
		o = &Lion{LearningRate: lr, Schedule: sched, Beta1: r.Float("beta_1", 0.9), Beta2: r.Float("beta_2", 0.99), Options: opts}
	case "Lamb", "lamb":
		o = &Lamb{LearningRate: lr, Schedule: sched, Beta1: r.Float("beta_1", 0.9), Beta2: r.Float("beta_2", 0.999), Epsilon: r.Float("epsilon", 1e-7), Options: opts}
	case "Adafactor", "adafactor":
		o = &Adafactor{LearningRate: lr, Schedule: sched, Beta2Decay: r.Float("beta_2_decay", -0.8), Epsilon1: r.Float("epsilon_1", 1e-30),
			Epsilon2: r.Float("epsilon_2", 1e-3), ClipThreshold: r.Float("clip_threshold", 1), FixedStep: !r.Bool("relative_step", true), Options: opts}
	case "ScheduleFreeAdamW", "schedule_free_adamw", "schedulefreeadamw":
		o = &ScheduleFreeAdamW{LearningRate: lr, Schedule: sched, Beta1: r.Float("beta_1", 0.9), Beta2: r.Float("beta_2", 0.999), Epsilon: r.Float("epsilon", 1e-8),
			WarmupSteps: r.Int("warmup_steps", 0), Options: opts}
	case "Muon", "muon":
		if !r.Has("weight_decay") {
			opts.WeightDecay = 0.004
		}
		mu := &Muon{LearningRate: lr, Schedule: sched, AdamBeta1: r.Float("adam_beta_1", 0.9), AdamBeta2: r.Float("adam_beta_2", 0.999),
			AdamWeightDecay: r.Float("adam_weight_decay", 0.004), Epsilon: r.Float("epsilon", 1e-7), IncludeEmbeddings: !r.Bool("exclude_embeddings", true),
			MuonA: r.Float("muon_a", 3.4445), MuonB: r.Float("muon_b", -4.7750), MuonC: r.Float("muon_c", 2.0315), AdamLRRatio: r.Float("adam_lr_ratio", 1),
			Momentum: r.Float("momentum", 0.95), NSSteps: r.Int("ns_steps", 5), NoNesterov: !r.Bool("nesterov", true), Options: opts}
		if v, ok := r.Value("exclude_layers"); ok && v != nil {
			list, _ := v.([]any)
			for _, e := range list {
				if str, isStr := e.(string); isStr {
					mu.ExcludeLayers = append(mu.ExcludeLayers, str)
				} else {
					r.Fail("exclude_layers", "want a list of regular expressions, got %v", v)
				}
			}
		}
		if r.IsNull("rms_rate") {
			mu.NoRMSRate = true
		} else {
			mu.RMSRate = r.Float("rms_rate", 0.2)
		}
		o = mu
	case "Ftrl", "ftrl":
		o = &Ftrl{LearningRate: lr, Schedule: sched, LearningRatePower: r.Float("learning_rate_power", -0.5),
			InitialAccumulatorValue: r.Float("initial_accumulator_value", 0.1), L1RegularizationStrength: r.Float("l1_regularization_strength", 0),
			L2RegularizationStrength: r.Float("l2_regularization_strength", 0), L2ShrinkageRegularizationStrength: r.Float("l2_shrinkage_regularization_strength", 0),
			Beta: r.Float("beta", 0), Options: opts}
	default:
		return nil, fmt.Errorf("kerasgo has no %s optimizer yet (it has SGD, Adam, AdamW, RMSprop, Adadelta, Adagrad, Adamax, Nadam, Lion, Ftrl, Lamb, Adafactor, ScheduleFreeAdamW, Muon, and the wrappers LossScaleOptimizer and MultiOptimizer)", class)
	}
	if err := r.Finish(); err != nil {
		return nil, err
	}
	return o, Check(o)
}
