// Part of opgen's Go API, the same for every OpList: `opgen generate --lang go`
// copies this file unchanged. Do not edit the copy: regenerate instead.

package op

import (
	"fmt"
	"strings"

	tf "opgen.dev/tf"
)

// Variable is a resource variable, as TensorFlow's graph-mode ResourceVariable builds it:
// a VarHandleOp whose value a tf.Session keeps between Run calls (one value per
// session). For a variable named NAME (VariableName, else "Variable", made unique in the
// graph under the scope's namespace) the graph gets NAME (the VarHandleOp, shared_name
// NAME), NAME/Initializer/initial_value (a Const, for VariableInitialTensor) and
// NAME/Assign (the Initializer). Its operations are added as the op functions add theirs,
// so this file compiles for any OpList; the ops must be registered in the runtime.
//
// Read, Assign, AssignAdd and AssignSub add operations to the scope they are given. A
// value of another dtype, or of a static shape that cannot be the variable's, is refused
// with a *tf.Error of code tf.InvalidArgument; reading a variable no run has assigned
// fails in Session.Run with tf.FailedPrecondition, naming it.
//
//	w, err := op.NewVariable(s, tf.Float, tf.MakeShape(2), op.VariableName("w"),
//		op.VariableInitialTensor(initial))
//	step, err := w.AssignAdd(s, delta) // the value after the update
//	init, err := op.GlobalVariablesInitializer(s)
//	_, err = session.Run(nil, nil, []*tf.Operation{init})
//	values, err := session.Run(nil, []tf.Output{step}, nil)
type Variable struct {
	handle      tf.Output
	name        string
	dtype       tf.DataType
	shape       tf.Shape
	initializer *tf.Operation
}

// VariableAttr is an optional setting of NewVariable.
type VariableAttr func(*variableOptions)

type variableOptions struct {
	name, container, sharedName string
	initialValue                *tf.Output
	initialTensor               *tf.Tensor
}

// VariableName names the VarHandleOp and prefixes the variable's other operations
// ("Variable" by default; made unique either way).
func VariableName(name string) VariableAttr {
	return func(o *variableOptions) { o.name = name }
}

// VariableInitialValue is the value the Initializer assigns: an output of the graph.
func VariableInitialValue(value tf.Output) VariableAttr {
	return func(o *variableOptions) { o.initialValue, o.initialTensor = &value, nil }
}

// VariableInitialTensor is the value the Initializer assigns: a constant.
func VariableInitialTensor(value *tf.Tensor) VariableAttr {
	return func(o *variableOptions) { o.initialValue, o.initialTensor = nil, value }
}

// VariableContainer is the resource container ("", the default, is "localhost").
func VariableContainer(container string) VariableAttr {
	return func(o *variableOptions) { o.container = container }
}

// VariableSharedName is the name the value is kept under; by default the VarHandleOp's
// name. Variables of one session with the same shared name share their value.
func VariableSharedName(name string) VariableAttr {
	return func(o *variableOptions) { o.sharedName = name }
}

// NewVariable adds a variable of dtype and shape (-1 dims and tf.UnknownShape() leave it
// open) to the scope's graph. Without VariableInitialValue or VariableInitialTensor it has
// no Initializer: assign it before reading it.
func NewVariable(s *Scope, dtype tf.DataType, shape tf.Shape, optional ...VariableAttr) (*Variable, error) {
	var opts variableOptions
	for _, opt := range optional {
		opt(&opts)
	}
	base := opts.name
	if base == "" {
		base = "Variable"
	}
	v := &Variable{name: s.uniqueName(base), dtype: dtype, shape: shape}
	sharedName := opts.sharedName
	if sharedName == "" {
		sharedName = v.name
	}
	handle, err := s.addNamed("VarHandleOp", v.name, nil, map[string]interface{}{
		"container": opts.container, "shared_name": sharedName, "debug_name": v.name,
		"dtype": dtype, "shape": shape,
	})
	if err != nil {
		return nil, err
	}
	v.handle = handle.Output(0)
	var initial tf.Output
	switch {
	case opts.initialValue != nil:
		initial = *opts.initialValue
	case opts.initialTensor != nil:
		constant, err := s.addNamed("Const", v.name+"/Initializer/initial_value", nil,
			map[string]interface{}{"value": opts.initialTensor, "dtype": opts.initialTensor.DataType()})
		if err != nil {
			return nil, err
		}
		initial = constant.Output(0)
	default:
		return v, nil
	}
	if err := v.checkValue(initial, "assign"); err != nil {
		return nil, err
	}
	v.initializer, err = s.addNamed("AssignVariableOp", v.name+"/Assign", []tf.Input{v.handle, initial}, nil)
	if err != nil {
		return nil, err
	}
	*s.variables = append(*s.variables, v.initializer)
	return v, nil
}

// Handle is the DT_RESOURCE scalar naming the variable: the input of ReadVariableOp,
// AssignVariableOp...
func (v *Variable) Handle() tf.Output { return v.handle }

// Name is the VarHandleOp's name.
func (v *Variable) Name() string { return v.name }

// DataType is the variable's dtype.
func (v *Variable) DataType() tf.DataType { return v.dtype }

// Shape is the variable's shape, as NewVariable was given it.
func (v *Variable) Shape() tf.Shape { return v.shape }

// Initializer is the operation assigning the initial value (run it once per session);
// nil for a variable made without one.
func (v *Variable) Initializer() *tf.Operation { return v.initializer }

// Read is the value when the returned output is computed (a ReadVariableOp).
func (v *Variable) Read(s *Scope) (tf.Output, error) {
	op, err := s.addOperation("ReadVariableOp", []tf.Input{v.handle}, map[string]interface{}{"dtype": v.dtype})
	if err != nil {
		return tf.Output{}, err
	}
	return op.Output(0), nil
}

// Assign sets the value; it returns the value read after the assignment (fetch it, or
// run its Op as a target, to assign).
func (v *Variable) Assign(s *Scope, value tf.Output) (tf.Output, error) {
	return v.update(s, "AssignVariableOp", "assign", value)
}

// AssignAdd adds delta (same shape); it returns the value after the addition.
func (v *Variable) AssignAdd(s *Scope, delta tf.Output) (tf.Output, error) {
	return v.update(s, "AssignAddVariableOp", "add", delta)
}

// AssignSub subtracts delta (same shape); it returns the value after the subtraction.
func (v *Variable) AssignSub(s *Scope, delta tf.Output) (tf.Output, error) {
	return v.update(s, "AssignSubVariableOp", "subtract", delta)
}

func (v *Variable) update(s *Scope, opType, what string, value tf.Output) (tf.Output, error) {
	if err := v.checkValue(value, what); err != nil {
		return tf.Output{}, err
	}
	op, err := s.addOperation(opType, []tf.Input{v.handle, value}, nil)
	if err != nil {
		return tf.Output{}, err
	}
	return v.Read(s.WithControlDependencies(op))
}

func (v *Variable) checkValue(value tf.Output, what string) error {
	if value.Op == nil {
		return &tf.Error{Code: tf.InvalidArgument, Message: fmt.Sprintf("cannot %s an empty tf.Output to variable '%s'", what, v.name)}
	}
	if got := value.DataType(); got != v.dtype {
		return &tf.Error{Code: tf.InvalidArgument, Message: fmt.Sprintf(
			"cannot %s a %v value to variable '%s' of dtype %v", what, got, v.name, v.dtype)}
	}
	if got := value.Shape(); !shapesCompatible(v.shape, got) {
		return &tf.Error{Code: tf.InvalidArgument, Message: fmt.Sprintf(
			"cannot %s a value of shape %s to variable '%s' of shape %s", what, shapeString(got), v.name, shapeString(v.shape))}
	}
	return nil
}

// GlobalVariablesInitializer is one NoOp ("init", made unique) running the initializers
// of every Variable made so far through a scope of s's root.
func GlobalVariablesInitializer(s *Scope) (*tf.Operation, error) {
	return s.WithControlDependencies(*s.variables...).addNamed("NoOp", s.uniqueName("init"), nil, nil)
}

// addNamed adds an operation named name (already unique) with the scope's device and
// control inputs.
func (s *Scope) addNamed(opType, name string, inputs []tf.Input, attrs map[string]interface{}) (*tf.Operation, error) {
	return s.graph.AddOperation(tf.OpSpec{
		Type: opType, Name: name, Device: s.device, Input: inputs, Attrs: attrs, ControlInputs: s.control,
	})
}

// shapesCompatible says whether a value of shape b may be stored in a variable of shape a.
func shapesCompatible(a, b tf.Shape) bool {
	if a.Dims == nil || b.Dims == nil {
		return true
	}
	if len(a.Dims) != len(b.Dims) {
		return false
	}
	for i, d := range a.Dims {
		if d >= 0 && b.Dims[i] >= 0 && d != b.Dims[i] {
			return false
		}
	}
	return true
}

// shapeString prints a shape as Python does: (2, 3), (2,), (), <unknown>.
func shapeString(shape tf.Shape) string {
	if shape.Dims == nil {
		return "<unknown>"
	}
	dims := make([]string, len(shape.Dims))
	for i, d := range shape.Dims {
		dims[i] = fmt.Sprint(d)
		if d < 0 {
			dims[i] = "None"
		}
	}
	if len(dims) == 1 {
		return "(" + dims[0] + ",)"
	}
	return "(" + strings.Join(dims, ", ") + ")"
}
