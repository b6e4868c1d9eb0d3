package optimizers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Serialize returns an optimizer in Keras's schema, as compile_config
// holds it: {"module": "keras.optimizers", "class_name": "Adam", "config": {...}}.
func Serialize(o Optimizer) (serialization.Object, error) {
	cfg := serialization.Config{
		"name": o.Name(), "weight_decay": nil, "clipnorm": nil, "global_clipnorm": nil, "clipvalue": nil,
		"use_ema": false, "ema_momentum": 0.99, "ema_overwrite_frequency": nil, "loss_scale_factor": nil,
		"gradient_accumulation_steps": nil,
	}
	var class string
	switch v := o.(type) {
	case *SGD:
		class = "SGD"
		cfg["learning_rate"], cfg["momentum"], cfg["nesterov"] = or(v.LearningRate, 0.01), v.Momentum, v.Nesterov
	case *Adam:
		class = "Adam"
		cfg["learning_rate"], cfg["beta_1"], cfg["beta_2"], cfg["epsilon"], cfg["amsgrad"] = or(v.LearningRate, 0.001), or(v.Beta1, 0.9), or(v.Beta2, 0.999), or(v.Epsilon, 1e-7), false
	case *RMSprop:
		class = "RMSprop"
		cfg["learning_rate"], cfg["rho"], cfg["momentum"], cfg["epsilon"], cfg["centered"] = or(v.LearningRate, 0.001), or(v.Rho, 0.9), 0.0, or(v.Epsilon, 1e-7), false
	case *Adadelta:
		class = "Adadelta"
		cfg["learning_rate"], cfg["rho"], cfg["epsilon"] = or(v.LearningRate, 0.001), or(v.Rho, 0.95), or(v.Epsilon, 1e-7)
	default:
		return serialization.Object{}, fmt.Errorf("optimizer %s (%T) cannot be saved in Keras's format", o.Name(), o)
	}
	return serialization.NewObject("keras.optimizers", class, cfg), nil
}

// LearningRate returns the learning rate the optimizer uses, for the
// learning_rate variable Keras saves.
func LearningRate(o Optimizer) float64 {
	switch v := o.(type) {
	case *SGD:
		return or(v.LearningRate, 0.01)
	case *Adam:
		return or(v.LearningRate, 0.001)
	case *RMSprop:
		return or(v.LearningRate, 0.001)
	case *Adadelta:
		return or(v.LearningRate, 0.001)
	}
	return 0
}

// SetLearningRate sets the learning rate of the built-in optimizers (for
// a loaded optimizer whose saved learning rate differs from its config).
func SetLearningRate(o Optimizer, lr float64) {
	switch v := o.(type) {
	case *SGD:
		v.LearningRate = lr
	case *Adam:
		v.LearningRate = lr
	case *RMSprop:
		v.LearningRate = lr
	case *Adadelta:
		v.LearningRate = lr
	}
}

// Deserialize builds an optimizer from Keras's schema (a class object or a
// name). Settings kerasgo does not implement (weight decay, clipping, EMA,
// AMSGrad, centered RMSprop, a learning-rate schedule) are errors naming
// them.
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
	if lr, ok := r.Value("learning_rate"); ok {
		if _, isNum := lr.(float64); !isNum {
			r.Fail("learning_rate", "a learning-rate schedule is not supported by kerasgo yet")
		}
	}
	lr := r.Float("learning_rate", 0)
	for _, k := range []string{"weight_decay", "clipnorm", "global_clipnorm", "clipvalue", "ema_overwrite_frequency", "loss_scale_factor", "gradient_accumulation_steps"} {
		r.ExpectNull(k)
	}
	r.Expect("use_ema", false, "")
	r.Ignore("ema_momentum") // only used with use_ema
	var o Optimizer
	switch class {
	case "SGD", "sgd":
		o = &SGD{LearningRate: lr, Momentum: r.Float("momentum", 0), Nesterov: r.Bool("nesterov", false)}
	case "Adam", "adam":
		o = &Adam{LearningRate: lr, Beta1: r.Float("beta_1", 0.9), Beta2: r.Float("beta_2", 0.999), Epsilon: r.Float("epsilon", 1e-7)}
		r.Expect("amsgrad", false, "")
	case "RMSprop", "rmsprop":
		o = &RMSprop{LearningRate: lr, Rho: r.Float("rho", 0.9), Epsilon: r.Float("epsilon", 1e-7)}
		r.Expect("momentum", 0.0, "")
		r.Expect("centered", false, "")
	case "Adadelta", "adadelta":
		o = &Adadelta{LearningRate: lr, Rho: r.Float("rho", 0.95), Epsilon: r.Float("epsilon", 1e-7)}
	default:
		return nil, fmt.Errorf("kerasgo has no %s optimizer yet (it has SGD, Adam, RMSprop, Adadelta)", class)
	}
	return o, r.Finish()
}
