// Part of opgen's Go API, the same for every OpList: `opgen generate --lang go`
// copies this file unchanged. Do not edit the copy: regenerate instead.

package op

import (
	"fmt"
	"strings"

	tf "opgen.dev/tf"
)

// TensorSpec is the dtype and static shape of a function argument (TensorFlow's
// tf.TensorSpec); tf.UnknownShape() leaves the shape open.
type TensorSpec struct {
	DataType tf.DataType
	Shape    tf.Shape
}

// FunctionBuilder builds a function's results from its arguments, adding operations
// through s: a scope over the function's own graph, whose arguments are Placeholders.
// An error it returns is passed on as it is, and nothing is added to the outer graph.
type FunctionBuilder func(s *Scope, args []tf.Output) ([]tf.Output, error)

// CondBuilder builds a while loop's condition, a scalar, from the loop variables.
type CondBuilder func(s *Scope, vars []tf.Output) (tf.Output, error)

// NewFunction traces build into a function named name taking one argument per spec (a
// Placeholder in the function's graph) and returning what build returns. Call calls it;
// tf.Graph.AddFunction adds it to a graph for PartitionedCall and the like.
//
//	f, err := op.NewFunction("square_plus", []op.TensorSpec{{tf.Float, tf.MakeShape(3)},
//		{tf.Float, tf.MakeShape(3)}}, func(s *op.Scope, args []tf.Output) ([]tf.Output, error) {
//		square, err := op.Mul(s, args[0], args[0])
//		if err != nil {
//			return nil, err
//		}
//		sum, err := op.AddV2(s, square, args[1])
//		return []tf.Output{sum}, err
//	})
//	out, err := op.Call(s, f, x, y)
func NewFunction(name string, args []TensorSpec, build FunctionBuilder) (*tf.Function, error) {
	f, _, err := trace(name, args, build, false)
	return f, err
}

// trace is NewFunction, with a hash of the contents after the name when appendHash, and
// the results' dtypes.
func trace(name string, args []TensorSpec, build FunctionBuilder, appendHash bool) (*tf.Function, []tf.DataType, error) {
	s := NewScope()
	inputs := make([]tf.Output, len(args))
	for i, arg := range args {
		placeholder, err := s.addOperation("Placeholder", nil, map[string]interface{}{"dtype": arg.DataType, "shape": arg.Shape})
		if err != nil {
			return nil, nil, err
		}
		inputs[i] = placeholder.Output(0)
	}
	results, err := build(s, inputs)
	if err != nil {
		return nil, nil, err
	}
	types := make([]tf.DataType, len(results))
	for i, r := range results {
		if r.Op == nil {
			return nil, nil, &tf.Error{Code: tf.InvalidArgument, Message: fmt.Sprintf("function %s: result %d is an empty tf.Output", name, i)}
		}
		types[i] = r.DataType()
	}
	var options []tf.FunctionOption
	if appendHash {
		options = append(options, tf.FunctionAppendHash())
	}
	f, err := s.graph.ToFunction(name, inputs, results, options...)
	return f, types, err
}

// Call adds f (and the functions it calls) to the scope's graph and calls it on args:
// one operation whose type is f's name (named after it, made unique), returning its
// results.
func Call(s *Scope, f *tf.Function, args ...tf.Output) ([]tf.Output, error) {
	if err := s.graph.AddFunction(f, nil); err != nil {
		return nil, err
	}
	inputs := make([]tf.Input, len(args))
	for i, arg := range args {
		inputs[i] = arg
	}
	op, err := s.addOperation(f.Name(), inputs, nil)
	if err != nil {
		return nil, err
	}
	return allOutputs(op), nil
}

func allOutputs(op *tf.Operation) []tf.Output {
	out := make([]tf.Output, op.NumOutputs())
	for i := range out {
		out[i] = op.Output(i)
	}
	return out
}

// Cond is thenFn(inputs) where pred is true, elseFn(inputs) where it is false, as
// TensorFlow's tf.cond builds it in a graph: the two builders are traced into functions
// ("<name>_then_<hash>", "<name>_else_<hash>") called by one StatelessIf node (If when a
// branch is stateful, Function.IsStateful) named "cond" (made unique). They take the inputs (Placeholders of their dtypes and static shapes) and
// must return as many results, of the same dtypes; gradients flow through both. With no
// inputs they take no arguments (the If's Tin is empty, as TensorFlow's). A non-scalar
// pred is true when it has elements.
func Cond(s *Scope, pred tf.Output, inputs []tf.Output, thenFn, elseFn FunctionBuilder) ([]tf.Output, error) {
	specs := make([]TensorSpec, len(inputs))
	for i, in := range inputs {
		if in.Op == nil {
			return nil, &tf.Error{Code: tf.InvalidArgument, Message: fmt.Sprintf("Cond: input %d is an empty tf.Output", i)}
		}
		specs[i] = TensorSpec{DataType: in.DataType(), Shape: in.Shape()}
	}
	build := [2]FunctionBuilder{thenFn, elseFn}
	name := s.uniqueName("cond")
	base := strings.ReplaceAll(name, "/", "_")
	var branches [2]*tf.Function
	var types [2][]tf.DataType
	for i, branch := range [2]string{"then", "else"} {
		var err error
		if branches[i], types[i], err = trace(base+"_"+branch, specs, build[i], true); err != nil {
			return nil, err
		}
	}
	if err := sameResults(types[0], types[1]); err != nil {
		return nil, err
	}
	for _, f := range branches {
		if err := s.graph.AddFunction(f, nil); err != nil {
			return nil, err
		}
	}
	opType := "StatelessIf"
	if branches[0].IsStateful() || branches[1].IsStateful() {
		opType = "If"
	}
	op, err := s.addNamed(opType, name, []tf.Input{pred, tf.OutputList(inputs)}, map[string]interface{}{
		"Tout": types[0], "then_branch": tf.Func(branches[0].Name()), "else_branch": tf.Func(branches[1].Name()),
	})
	if err != nil {
		return nil, err
	}
	return allOutputs(op), nil
}

func sameResults(then, otherwise []tf.DataType) error {
	if len(then) != len(otherwise) {
		return &tf.Error{Code: tf.InvalidArgument, Message: fmt.Sprintf(
			"Cond: the then branch returns %d results and the else branch %d", len(then), len(otherwise))}
	}
	for i := range then {
		if then[i] != otherwise[i] {
			return &tf.Error{Code: tf.InvalidArgument, Message: fmt.Sprintf(
				"Cond: result %d is %v in the then branch and %v in the else branch", i, then[i], otherwise[i])}
		}
	}
	return nil
}

// WhileLoop repeats vars = body(vars) while cond(vars) is true, starting from inputs, as
// one functional While node named "while" (made unique): TF_NewWhile, then cond and body
// build in scopes over the loop's two graphs from Placeholders of the loop variables
// (they cannot read the outer graph: pass what they need as loop variables), then
// TF_FinishWhile. body must return one value per loop variable, of its dtype. When a
// builder returns an error, or the loop is refused, the loop is aborted (TF_AbortWhile),
// the outer graph is left as it was and the error is returned. Gradients flow through it.
func WhileLoop(s *Scope, inputs []tf.Output, cond CondBuilder, body FunctionBuilder) ([]tf.Output, error) {
	w, err := s.graph.NewWhile(inputs)
	if err != nil {
		return nil, err
	}
	defer w.Abort() // nothing left to do after Finish; frees the graphs after a panic
	predicate, err := cond(NewScopeWithGraph(w.CondGraph), w.CondInputs)
	if err != nil {
		return nil, err
	}
	next, err := body(NewScopeWithGraph(w.BodyGraph), w.BodyInputs)
	if err != nil {
		return nil, err
	}
	return w.Finish(predicate, next, s.uniqueName("while"))
}
