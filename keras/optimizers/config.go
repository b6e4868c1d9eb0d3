package optimizers

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/serialization"
)

// Serialize returns an optimizer in Keras's schema, as compile_config
// holds it: {"module": "keras.optimizers", "class_name": "Adam", "config": {...}}.
func Serialize(o Optimizer) (serialization.Object, error) {
	ResolveDefaults(o)
	cfg := serialization.Config{
		"name": o.Name(), "weight_decay": nil, "clipnorm": nil, "global_clipnorm": nil, "clipvalue": nil,
		"use_ema": false, "ema_momentum": 0.99, "ema_overwrite_frequency": nil, "loss_scale_factor": nil,
		"gradient_accumulation_steps": nil,
	}
	var class string
	switch v := o.(type) {
	case *SGD:
		class = "SGD"
		cfg["learning_rate"], cfg["momentum"], cfg["nesterov"] = *LearningRate(v), v.Momentum, v.Nesterov
	case *Adam:
		class = "Adam"
		cfg["learning_rate"], cfg["beta_1"], cfg["beta_2"], cfg["epsilon"], cfg["amsgrad"] = *LearningRate(v), or(v.Beta1, 0.9), or(v.Beta2, 0.999), or(v.Epsilon, 1e-7), false
	case *RMSprop:
		class = "RMSprop"
		cfg["learning_rate"], cfg["rho"], cfg["momentum"], cfg["epsilon"], cfg["centered"] = *LearningRate(v), or(v.Rho, 0.9), 0.0, or(v.Epsilon, 1e-7), false
	case *Adadelta:
		class = "Adadelta"
		cfg["learning_rate"], cfg["rho"], cfg["epsilon"] = *LearningRate(v), or(v.Rho, 0.95), or(v.Epsilon, 1e-7)
	default:
		return serialization.Object{}, fmt.Errorf("optimizer %s (%T) cannot be saved in Keras's format", o.Name(), o)
	}
	return serialization.NewObject("keras.optimizers", class, cfg), nil
}

// LearningRate returns a pointer to the optimizer's learning rate, or nil
// for an optimizer kerasgo does not know. Training reads it before every
// step, so a change through it (by a callback, or by setting the field)
// takes effect at the next step. Compile first replaces an unset (zero)
// rate by Keras's default (ResolveDefaults); after that zero means zero.
func LearningRate(o Optimizer) *float64 {
	switch v := o.(type) {
	case *SGD:
		return &v.LearningRate
	case *Adam:
		return &v.LearningRate
	case *RMSprop:
		return &v.LearningRate
	case *Adadelta:
		return &v.LearningRate
	}
	return nil
}

// ResolveDefaults replaces an unset (zero) learning rate by Keras's
// default for the optimizer (SGD 0.01, the others 0.001).
func ResolveDefaults(o Optimizer) {
	p := LearningRate(o)
	if p == nil || *p != 0 {
		return
	}
	if _, ok := o.(*SGD); ok {
		*p = 0.01
	} else {
		*p = 0.001
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
