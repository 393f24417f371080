// Part of opgen's Go API, the same for every OpList: `opgen generate --lang go`
// copies this file unchanged. Do not edit the copy: regenerate instead.

package op

import (
	"fmt"
	"strings"

	tf "opgen.dev/tf"
)

// Optimizer builds train ops as Python's opgen.train (TensorFlow's tf.compat.v1.train)
// does in a graph: ApplyGradients returns a NoOp named after the optimizer
// ("GradientDescent", made unique in the scope) whose control inputs are one
// ResourceApply* per variable ("<name>/update_<variable>/...") and, for Adam, the updates
// of beta1_power and beta2_power after them. Hyperparameters are float32 constants
// "<name>/<hyperparameter>", cast for a variable of another dtype. Slots are zero-filled
// Variables "<variable>/<name>" made on the first step built for a variable; their
// initializers join GlobalVariablesInitializer, so build the train op first. Variables
// need a fully known float32 or float64 shape.
type Optimizer struct {
	name                  string
	kind                  string // "GradientDescent", "Momentum" or "Adam"
	learningRate          float32
	momentum              float32
	useNesterov           bool
	beta1, beta2, epsilon float32
	slots                 map[string]*Variable // slot name + "\x00" + variable name -> slot
	powers                [2]*Variable         // Adam's beta1_power and beta2_power
	hyper                 map[string]tf.Output // per train op: name + dtype -> the value
}

// NewGradientDescentOptimizer: var -= learningRate * gradient (ResourceApplyGradientDescent).
func NewGradientDescentOptimizer(learningRate float32) *Optimizer {
	return &Optimizer{name: "GradientDescent", kind: "GradientDescent", learningRate: learningRate}
}

// NewMomentumOptimizer: accum = momentum * accum + gradient; var -= learningRate * accum
// (ResourceApplyMomentum; slot "momentum" named "<var>/Momentum").
func NewMomentumOptimizer(learningRate, momentum float32, useNesterov bool) *Optimizer {
	return &Optimizer{name: "Momentum", kind: "Momentum", learningRate: learningRate,
		momentum: momentum, useNesterov: useNesterov}
}

// NewAdamOptimizer: Adam as ResourceApplyAdam computes it (slots "m", "<var>/Adam", and
// "v", "<var>/Adam_1"), TensorFlow's defaults being 0.001, 0.9, 0.999, 1e-8.
func NewAdamOptimizer(learningRate, beta1, beta2, epsilon float32) *Optimizer {
	return &Optimizer{name: "Adam", kind: "Adam", learningRate: learningRate,
		beta1: beta1, beta2: beta2, epsilon: epsilon}
}

// Name is the train op's name (before it is made unique).
func (o *Optimizer) Name() string { return o.name }

// Slot is the slot name ("momentum", "m", "v") of v, nil before a train op made it.
func (o *Optimizer) Slot(v *Variable, name string) *Variable {
	return o.slots[name+"\x00"+v.Name()]
}

// GradAndVar is a gradient and the variable it updates; a gradient with a nil Op leaves
// the variable alone.
type GradAndVar struct {
	Grad tf.Output
	Var  *Variable
}

// Minimize applies the gradients of loss with respect to vars (Graph.AddGradients over
// their handles, under a prefix unique in the scope).
func (o *Optimizer) Minimize(s *Scope, loss tf.Output, vars []*Variable) (*tf.Operation, error) {
	handles := make([]tf.Output, len(vars))
	for i, v := range vars {
		handles[i] = v.Handle()
	}
	grads, err := s.graph.AddGradients(s.uniqueName("gradients"), []tf.Output{loss}, handles, nil)
	if err != nil {
		return nil, err
	}
	pairs := make([]GradAndVar, len(vars))
	for i, v := range vars {
		pairs[i] = GradAndVar{grads[i], v}
	}
	return o.ApplyGradients(s, pairs)
}

func invalid(format string, args ...interface{}) error {
	return &tf.Error{Code: tf.InvalidArgument, Message: fmt.Sprintf(format, args...)}
}

// ApplyGradients returns the train op applying each gradient to its variable. Errors as
// Python's: no pairs, no gradient at all, a gradient of another dtype (InvalidArgument).
func (o *Optimizer) ApplyGradients(s *Scope, gradsAndVars []GradAndVar) (*tf.Operation, error) {
	if len(gradsAndVars) == 0 {
		return nil, invalid("No variables provided.")
	}
	var checked []GradAndVar
	var names []string
	for _, gv := range gradsAndVars {
		names = append(names, "'"+gv.Var.Name()+"'")
		if gv.Grad.Op == nil {
			continue
		}
		if gv.Grad.DataType() != gv.Var.DataType() {
			return nil, invalid("the gradient of variable '%s' (%v) is %v", gv.Var.Name(), gv.Var.DataType(), gv.Grad.DataType())
		}
		checked = append(checked, gv)
	}
	if len(checked) == 0 {
		return nil, invalid("No gradients provided for any variable: [%s].", strings.Join(names, ", "))
	}
	outer := *s
	outer.control = nil
	if err := o.createSlots(&outer, checked); err != nil {
		return nil, err
	}
	train := outer.SubScope(o.name)
	o.hyper = map[string]tf.Output{}
	var deps []*tf.Operation
	for _, gv := range checked {
		update := train.SubScope("update_" + strings.ReplaceAll(gv.Var.Name(), "/", "_"))
		op, err := o.apply(train, update, gv.Grad, gv.Var)
		if err != nil {
			return nil, err
		}
		deps = append(deps, op)
	}
	if o.kind == "Adam" {
		after := train.SubScope("update").WithControlDependencies(deps...)
		for i, beta := range []float32{o.beta1, o.beta2} {
			b, err := o.hyperparameter(train, []string{"beta1", "beta2"}[i], beta, tf.Float)
			if err != nil {
				return nil, err
			}
			read, err := o.powers[i].Read(after)
			if err != nil {
				return nil, err
			}
			mul, err := after.addOperation("Mul", []tf.Input{read, b}, nil)
			if err != nil {
				return nil, err
			}
			assign, err := after.addOperation("AssignVariableOp", []tf.Input{o.powers[i].Handle(), mul.Output(0)}, nil)
			if err != nil {
				return nil, err
			}
			deps = append(deps, assign)
		}
	}
	return outer.WithControlDependencies(deps...).addNamed("NoOp", train.namespace, nil, nil)
}

func (o *Optimizer) createSlots(s *Scope, pairs []GradAndVar) error {
	var slots [][2]string
	switch o.kind {
	case "Momentum":
		slots = [][2]string{{"momentum", o.name}}
	case "Adam":
		if o.powers[0] == nil {
			for i, beta := range []float32{o.beta1, o.beta2} {
				t, err := tf.NewScalar(beta)
				if err != nil {
					return err
				}
				o.powers[i], err = NewVariable(s, tf.Float, tf.ScalarShape(),
					VariableName([]string{"beta1_power", "beta2_power"}[i]), VariableInitialTensor(t))
				if err != nil {
					return err
				}
			}
		}
		slots = [][2]string{{"m", o.name}, {"v", o.name + "_1"}}
	}
	if o.slots == nil {
		o.slots = map[string]*Variable{}
	}
	for _, gv := range pairs {
		for _, slot := range slots {
			key := slot[0] + "\x00" + gv.Var.Name()
			if o.slots[key] != nil {
				continue
			}
			zeros, err := zerosLike(gv.Var)
			if err != nil {
				return err
			}
			made, err := NewVariable(s, gv.Var.DataType(), gv.Var.Shape(),
				VariableName(gv.Var.Name()+"/"+slot[1]), VariableInitialTensor(zeros))
			if err != nil {
				return err
			}
			o.slots[key] = made
		}
	}
	return nil
}

// hyperparameter is a float32 Const in the train op's scope (once per train op), cast to
// dtype when it differs.
func (o *Optimizer) hyperparameter(train *Scope, name string, value float32, dtype tf.DataType) (tf.Output, error) {
	key := fmt.Sprint(name, dtype)
	if found, ok := o.hyper[key]; ok {
		return found, nil
	}
	t, err := tf.NewScalar(value)
	if err != nil {
		return tf.Output{}, err
	}
	plain := *train
	plain.control = nil
	constant, err := plain.addNamed("Const", plain.uniqueName(name), nil,
		map[string]interface{}{"value": t, "dtype": tf.Float})
	if err != nil {
		return tf.Output{}, err
	}
	result, err := cast(&plain, constant.Output(0), dtype)
	if err != nil {
		return tf.Output{}, err
	}
	o.hyper[key] = result
	return result, nil
}

func cast(s *Scope, value tf.Output, dtype tf.DataType) (tf.Output, error) {
	if value.DataType() == dtype {
		return value, nil
	}
	op, err := s.addOperation("Cast", []tf.Input{value}, map[string]interface{}{"DstT": dtype})
	if err != nil {
		return tf.Output{}, err
	}
	return op.Output(0), nil
}

func (o *Optimizer) apply(train, update *Scope, grad tf.Output, v *Variable) (*tf.Operation, error) {
	dtype := v.DataType()
	lr, err := o.hyperparameter(train, "learning_rate", o.learningRate, dtype)
	if err != nil {
		return nil, err
	}
	switch o.kind {
	case "GradientDescent":
		return update.addOperation("ResourceApplyGradientDescent", []tf.Input{v.Handle(), lr, grad},
			map[string]interface{}{"use_locking": false})
	case "Momentum":
		m, err := o.hyperparameter(train, "momentum", o.momentum, dtype)
		if err != nil {
			return nil, err
		}
		return update.addOperation("ResourceApplyMomentum",
			[]tf.Input{v.Handle(), o.Slot(v, "momentum").Handle(), lr, grad, m},
			map[string]interface{}{"use_locking": false, "use_nesterov": o.useNesterov})
	}
	inputs := []tf.Input{v.Handle(), o.Slot(v, "m").Handle(), o.Slot(v, "v").Handle()}
	for _, power := range o.powers {
		read, err := power.Read(update)
		if err != nil {
			return nil, err
		}
		read, err = cast(update, read, dtype)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, read)
	}
	inputs = append(inputs, lr)
	for i, value := range []float32{o.beta1, o.beta2, o.epsilon} {
		h, err := o.hyperparameter(train, []string{"beta1", "beta2", "epsilon"}[i], value, dtype)
		if err != nil {
			return nil, err
		}
		inputs = append(inputs, h)
	}
	inputs = append(inputs, grad)
	return update.addOperation("ResourceApplyAdam", inputs, map[string]interface{}{"use_locking": false})
}

func zerosLike(v *Variable) (*tf.Tensor, error) {
	dims := v.Shape().Dims
	n := int64(1)
	for _, d := range dims {
		n *= d
		if d < 0 {
			dims = nil
			break
		}
	}
	if dims == nil {
		return nil, invalid("variable '%s' needs a known shape for its slots", v.Name())
	}
	switch v.DataType() {
	case tf.Float:
		return tf.NewTensor(dims, make([]float32, n))
	case tf.Double:
		return tf.NewTensor(dims, make([]float64, n))
	}
	return nil, invalid("variable '%s': the optimizers take float32 and float64 variables, not %v", v.Name(), v.DataType())
}
