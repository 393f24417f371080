"""Functions, Cond and WhileLoop in Go (templates/go/static/function.go and flow.go): the
program flow_programs describes prints what numpy computes, and the binding's own errors
(a builder's error, a body of the wrong length, branches that disagree, a body reading
the outer graph) leave the graph usable."""

from __future__ import annotations

import sys
from pathlib import Path

import numpy as np
import pytest

# flow_programs and the Go runner, beside this file (importlib mode)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import flow_programs
from test_examples_rust_go import _run_go, build_cache  # noqa: F401  (a fixture)

from opgen.protos import function_pb2, types_pb2

GO_FLOW = r"""
package main

import (
	"encoding/hex"
	"errors"
	"fmt"
	"strings"

	tf "opgen.dev/tf"
	"opgen.dev/tf/op"
)

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func constant[T tf.TensorElement](s *op.Scope, dtype tf.DataType, dims []int64, values ...T) tf.Output {
	t, err := tf.NewTensor(dims, values)
	must(err)
	c, err := op.Const(s, t, dtype)
	must(err)
	return c
}

func row[T tf.TensorElement](t *tf.Tensor) string {
	values, err := tf.TensorData[T](t)
	must(err)
	cells := []string{}
	for _, v := range values {
		cells = append(cells, fmt.Sprint(v))
	}
	return strings.Join(cells, " ")
}

func failure(what string, err error) {
	if err == nil {
		fmt.Printf("%s: no error\n", what)
		return
	}
	var e *tf.Error
	if !errors.As(err, &e) {
		fmt.Printf("%s: not a *tf.Error | %v\n", what, err)
		return
	}
	fmt.Printf("%s: %v | %s\n", what, e.Code, e.Message)
}

func squarePlus(s *op.Scope, args []tf.Output) ([]tf.Output, error) {
	square, err := op.Mul(s, args[0], args[0])
	if err != nil {
		return nil, err
	}
	sum, err := op.AddV2(s, square, args[1])
	return []tf.Output{sum}, err
}

func square(s *op.Scope, args []tf.Output) ([]tf.Output, error) {
	out, err := op.Mul(s, args[0], args[0])
	return []tf.Output{out}, err
}

func minusOne(s *op.Scope, args []tf.Output) ([]tf.Output, error) {
	out, err := op.Sub(s, args[0], constant(s, tf.Float, []int64{}, float32(1)))
	return []tf.Output{out}, err
}

// probedSquare is square with a variable probed first: a stateful branch.
func probedSquare(s *op.Scope, args []tf.Output) ([]tf.Output, error) {
	handle, err := op.VarHandleOp(s, tf.Float, tf.ScalarShape())
	must(err)
	initialized, err := op.VarIsInitializedOp(s, handle)
	must(err)
	return square(s.WithControlDependencies(initialized.Op), args)
}

func below(s *op.Scope, vars []tf.Output) (tf.Output, error) { return op.Less(s, vars[0], vars[1]) }

// loopBody is (i + 1, n, v * 1.5 + 1), with v cast to dtype.
func loopBody(dtype tf.DataType) op.FunctionBuilder {
	return func(s *op.Scope, vars []tf.Output) ([]tf.Output, error) {
		next, err := op.AddV2(s, vars[0], constant(s, tf.Int32, []int64{}, int32(1)))
		must(err)
		scaled, err := op.Mul(s, vars[2], constant(s, tf.Float, []int64{}, float32(1.5)))
		must(err)
		v, err := op.AddV2(s, scaled, constant(s, tf.Float, []int64{}, float32(1)))
		must(err)
		if dtype != tf.Float {
			if v, err = op.Cast(s, v, dtype); err != nil {
				return nil, err
			}
		}
		return []tf.Output{next, vars[1], v}, nil
	}
}

// nested builds control flow inside control flow and returns (name, output) pairs to print:
// a loop whose body holds a Cond, a Cond whose branch holds a loop and one that calls a
// function, each with d sum / dx.
func nested(s *op.Scope, pred, x, n tf.Output) ([]string, []tf.Output) {
	g := s.Graph()
	i0 := constant(s, tf.Int32, []int64{}, int32(0))
	loop, err := op.WhileLoop(s, []tf.Output{i0, n, x}, below, func(s *op.Scope, vars []tf.Output) ([]tf.Output, error) {
		next, err := op.AddV2(s, vars[0], constant(s, tf.Int32, []int64{}, int32(1)))
		must(err)
		early, err := op.Less(s, vars[0], constant(s, tf.Int32, []int64{}, int32(2)))
		must(err)
		v, err := op.Cond(s, early, vars[2:], func(s *op.Scope, args []tf.Output) ([]tf.Output, error) {
			out, err := op.Mul(s, args[0], constant(s, tf.Float, []int64{}, float32(2)))
			return []tf.Output{out}, err
		}, func(s *op.Scope, args []tf.Output) ([]tf.Output, error) {
			out, err := op.AddV2(s, args[0], constant(s, tf.Float, []int64{}, float32(1)))
			return []tf.Output{out}, err
		})
		if err != nil {
			return nil, err
		}
		return []tf.Output{next, vars[1], v[0]}, nil
	})
	must(err)
	doubling, err := op.Cond(s, pred, []tf.Output{x}, func(s *op.Scope, args []tf.Output) ([]tf.Output, error) {
		return op.WhileLoop(s, args, func(s *op.Scope, vars []tf.Output) (tf.Output, error) {
			sum, err := op.Sum(s, vars[0], constant(s, tf.Int32, []int64{1}, int32(0)))
			must(err)
			return op.Less(s, sum, constant(s, tf.Float, []int64{}, float32(100)))
		}, func(s *op.Scope, vars []tf.Output) ([]tf.Output, error) {
			out, err := op.Mul(s, vars[0], constant(s, tf.Float, []int64{}, float32(2)))
			return []tf.Output{out}, err
		})
	}, func(s *op.Scope, args []tf.Output) ([]tf.Output, error) { return args, nil })
	must(err)
	vector := op.TensorSpec{DataType: tf.Float, Shape: tf.MakeShape(3)}
	f, err := op.NewFunction("square_plus", []op.TensorSpec{vector, vector}, squarePlus)
	must(err)
	calling, err := op.Cond(s, pred, []tf.Output{x}, func(s *op.Scope, args []tf.Output) ([]tf.Output, error) {
		return op.Call(s, f, args[0], args[0])
	}, func(s *op.Scope, args []tf.Output) ([]tf.Output, error) { return args, nil })
	must(err)
	return []string{"loop_cond", "loop_cond_grad", "cond_loop", "cond_loop_grad", "cond_call", "cond_call_grad"},
		[]tf.Output{loop[2], grad(g, loop[2], x), doubling[0], grad(g, doubling[0], x), calling[0], grad(g, calling[0], x)}
}

func grad(g *tf.Graph, y, x tf.Output) tf.Output {
	dx, err := g.AddGradients("", []tf.Output{y}, []tf.Output{x}, nil)
	must(err)
	return dx[0]
}

func main() {
	s := op.NewScope()
	g := s.Graph()
	x, err := op.Placeholder(s, tf.Float, op.PlaceholderShape(tf.MakeShape(3)))
	must(err)
	y := constant(s, tf.Float, []int64{3}, float32(0.5), -1, 2)
	pred, err := op.Placeholder(s, tf.Bool, op.PlaceholderShape(tf.ScalarShape()))
	must(err)
	n, err := op.Placeholder(s, tf.Int32, op.PlaceholderShape(tf.ScalarShape()))
	must(err)

	vector := op.TensorSpec{DataType: tf.Float, Shape: tf.MakeShape(3)}
	f, err := op.NewFunction("square_plus", []op.TensorSpec{vector, vector}, squarePlus)
	must(err)
	inner, err := op.Call(s, f, x, y)
	must(err)
	twice, err := op.Call(s, f, inner[0], y)
	must(err)
	partitioned, err := op.PartitionedCall(s, []tf.Output{x, y}, []tf.DataType{tf.Float}, f.Name())
	must(err)
	def, err := f.FunctionDef()
	must(err)
	imported, err := tf.ImportFunctionDef(def)
	must(err)
	fmt.Printf("function_names: %s %s %s %s %d\n", f.Name(), imported.Name(), inner[0].Op.Type(),
		twice[0].Op.Name(), g.NumFunctions())
	probe, err := op.NewFunction("probe", []op.TensorSpec{vector}, probedSquare)
	must(err)
	fmt.Printf("stateful_fns: %v %v\n", f.IsStateful(), probe.IsStateful())
	f.Delete()
	f.Delete()

	branch, err := op.Cond(s, pred, []tf.Output{x}, square, minusOne)
	must(err)
	i0 := constant(s, tf.Int32, []int64{}, int32(0))
	loop, err := op.WhileLoop(s, []tf.Output{i0, n, x}, below, loopBody(tf.Float))
	must(err)
	statefulBranch, err := op.Cond(s, pred, []tf.Output{x}, probedSquare, minusOne)
	must(err)
	fmt.Printf("node_types: %s %s %s %s\n", branch[0].Op.Type(), branch[0].Op.Name(), loop[0].Op.Name(),
		statefulBranch[0].Op.Type())

	fetches := []tf.Output{twice[0], grad(g, twice[0], x), partitioned[0], inner[0], branch[0],
		grad(g, branch[0], x), loop[0], loop[2], grad(g, loop[2], x), statefulBranch[0],
		grad(g, statefulBranch[0], x)}
	session, err := tf.NewSession(g)
	must(err)
	defer session.Close()
	xValue, err := tf.NewTensor([]int64{3}, []float32{1, 2, 3})
	must(err)
	count, err := tf.NewScalar(int32(4))
	must(err)
	for _, p := range []bool{true, false} {
		predValue, err := tf.NewScalar(p)
		must(err)
		feeds := map[tf.Output]*tf.Tensor{x: xValue, n: count, pred: predValue}
		out, err := session.Run(feeds, fetches, nil)
		must(err)
		suffix := map[bool]string{true: "true", false: "false"}[p]
		fmt.Printf("cond_%s: %s\n", suffix, row[float32](out[4]))
		fmt.Printf("cond_grad_%s: %s\n", suffix, row[float32](out[5]))
		fmt.Printf("stateful_cond_%s: %s\n", suffix, row[float32](out[9]))
		fmt.Printf("stateful_cond_grad_%s: %s\n", suffix, row[float32](out[10]))
		if p {
			fmt.Printf("function: %s\n", row[float32](out[0]))
			fmt.Printf("function_grad: %s\n", row[float32](out[1]))
			fmt.Printf("partitioned_call: %s | %s\n", row[float32](out[2]), row[float32](out[3]))
			fmt.Printf("while_count: %s\n", row[int32](out[6]))
			fmt.Printf("while: %s\n", row[float32](out[7]))
			fmt.Printf("while_grad: %s\n", row[float32](out[8]))
		}
	}

	nestedNames, nestedFetches := nested(s, pred, x, n)
	for _, p := range []bool{true, false} {
		predValue, err := tf.NewScalar(p)
		must(err)
		out, err := session.Run(map[tf.Output]*tf.Tensor{x: xValue, n: count, pred: predValue}, nestedFetches, nil)
		must(err)
		for i, name := range nestedNames {
			fmt.Printf("nested_%s_%v: %s\n", name, p, row[float32](out[i]))
		}
	}

	_, err = g.AddOperation(tf.OpSpec{Type: "no_such_function", Name: "missing", Input: []tf.Input{x}})
	failure("missing_function", err)
	// The errors, in a scope of their own: each leaves the graph as it was.
	e := s.SubScope("errors")
	functions := g.NumFunctions()
	_, err = op.WhileLoop(e, []tf.Output{i0, n, x}, below, loopBody(tf.Int32))
	failure("while_dtype", err)
	_, err = op.WhileLoop(e, []tf.Output{i0, n, x}, below, func(s *op.Scope, vars []tf.Output) ([]tf.Output, error) {
		return nil, &tf.Error{Code: tf.Unimplemented, Message: "the body gives up"}
	})
	failure("body_error", err)
	_, err = op.WhileLoop(e, []tf.Output{i0, n, x}, func(s *op.Scope, vars []tf.Output) (tf.Output, error) {
		return tf.Output{}, errors.New("a plain error")
	}, loopBody(tf.Float))
	fmt.Printf("cond_error: %v\n", err)
	_, err = op.WhileLoop(e, []tf.Output{i0, n, x}, below, func(s *op.Scope, vars []tf.Output) ([]tf.Output, error) {
		return vars[:2], nil
	})
	failure("body_count", err)
	_, err = op.WhileLoop(e, []tf.Output{i0, n, x}, below, func(s *op.Scope, vars []tf.Output) ([]tf.Output, error) {
		v, err := op.AddV2(s, vars[2], y) // y is in the outer graph
		return []tf.Output{vars[0], vars[1], v}, err
	})
	failure("outer_tensor", err)
	_, err = op.Cond(e, pred, []tf.Output{x}, square, func(s *op.Scope, args []tf.Output) ([]tf.Output, error) {
		out, err := op.Cast(s, args[0], tf.Int32)
		return []tf.Output{out}, err
	})
	failure("cond_dtypes", err)
	_, err = op.Cond(e, pred, []tf.Output{x}, square, func(s *op.Scope, args []tf.Output) ([]tf.Output, error) {
		return nil, &tf.Error{Code: tf.OutOfRange, Message: "the branch gives up"}
	})
	failure("branch_error", err)
	func() {
		defer func() { fmt.Printf("panicked: %v\n", recover()) }()
		_, _ = op.WhileLoop(e, []tf.Output{i0, n, x}, below, func(s *op.Scope, vars []tf.Output) ([]tf.Output, error) {
			panic("the body panics")
		})
	}()
	fmt.Printf("functions_unchanged: %v\n", g.NumFunctions() == functions)
	leftover := []string{}
	for _, name := range []string{"errors/while", "errors/while_1", "errors/cond", "errors/cond_1"} {
		if g.Operation(name) != nil {
			leftover = append(leftover, name)
		}
	}
	fmt.Printf("leftover_nodes: %d%v\n", len(leftover), leftover)

	// A loop and a cond without inputs, built after the failures, run.
	again, err := op.WhileLoop(e, []tf.Output{i0, n, x}, below, loopBody(tf.Float))
	must(err)
	constantCond, err := op.Cond(e, pred, nil, func(s *op.Scope, _ []tf.Output) ([]tf.Output, error) {
		return []tf.Output{constant(s, tf.Float, []int64{}, float32(7))}, nil
	}, func(s *op.Scope, _ []tf.Output) ([]tf.Output, error) {
		return []tf.Output{constant(s, tf.Float, []int64{}, float32(8))}, nil
	})
	must(err)
	predTrue, err := tf.NewScalar(true)
	must(err)
	fresh, err := tf.NewSession(g)
	must(err)
	defer fresh.Close()
	out, err := fresh.Run(map[tf.Output]*tf.Tensor{x: xValue, n: count, pred: predTrue},
		[]tf.Output{again[2], constantCond[0]}, nil)
	must(err)
	fmt.Printf("after_errors: %s | %s | %s\n", again[2].Op.Name(), row[float32](out[0]), row[float32](out[1]))
	branchFns, err := g.Functions()
	must(err)
	branchArgs := []string{}
	for _, f := range branchFns {
		if strings.HasPrefix(f.Name(), strings.ReplaceAll(constantCond[0].Op.Name(), "/", "_")+"_") {
			def, err := f.FunctionDef()
			must(err)
			branchArgs = append(branchArgs, hex.EncodeToString(def))
		}
	}
	fmt.Printf("cond_without_inputs: %s\n", strings.Join(branchArgs, " "))

	// A cond without inputs inside a loop's body (a function): times 2 while i < 2.
	scaled, err := op.WhileLoop(e, []tf.Output{i0, n, x}, below, func(s *op.Scope, vars []tf.Output) ([]tf.Output, error) {
		next, err := op.AddV2(s, vars[0], constant(s, tf.Int32, []int64{}, int32(1)))
		must(err)
		early, err := op.Less(s, vars[0], constant(s, tf.Int32, []int64{}, int32(2)))
		must(err)
		k, err := op.Cond(s, early, nil, func(s *op.Scope, _ []tf.Output) ([]tf.Output, error) {
			return []tf.Output{constant(s, tf.Float, []int64{}, float32(2))}, nil
		}, func(s *op.Scope, _ []tf.Output) ([]tf.Output, error) {
			return []tf.Output{constant(s, tf.Float, []int64{}, float32(1))}, nil
		})
		if err != nil {
			return nil, err
		}
		v, err := op.Mul(s, vars[2], k[0])
		return []tf.Output{next, vars[1], v}, err
	})
	must(err)
	out, err = fresh.Run(map[tf.Output]*tf.Tensor{x: xValue, n: count}, []tf.Output{scaled[2], grad(g, scaled[2], x)}, nil)
	must(err)
	fmt.Printf("cond_without_inputs_in_loop: %s | %s\n", row[float32](out[0]), row[float32](out[1]))

	// tf.While, the C API's loop builder, itself.
	w, err := g.NewWhile([]tf.Output{i0, n})
	must(err)
	less, err := below(op.NewScopeWithGraph(w.CondGraph), w.CondInputs)
	must(err)
	next, err := op.AddV2(op.NewScopeWithGraph(w.BodyGraph), w.BodyInputs[0], w.BodyInputs[1])
	must(err)
	raw, err := w.Finish(less, []tf.Output{next, w.BodyInputs[1]}, "raw_loop")
	must(err)
	_, err = w.Finish(less, nil, "again")
	failure("finish_twice", err)
	w.Abort()
	aborted, err := g.NewWhile([]tf.Output{x})
	must(err)
	aborted.Abort()
	aborted.Abort()
	_, err = g.NewWhile(nil)
	failure("no_loop_variables", err)
	out, err = fresh.Run(map[tf.Output]*tf.Tensor{n: count}, []tf.Output{raw[0], raw[1]}, nil)
	must(err)
	fmt.Printf("raw_loop: %s %s %s\n", raw[0].Op.Name(), row[int32](out[0]), row[int32](out[1]))

	// Graph.ToFunction with its options, the FunctionDef printed for Python to read.
	body := op.NewScope()
	arg, err := op.Placeholder(body, tf.Float)
	must(err)
	doubled, err := op.AddV2(body, arg, arg)
	must(err)
	noop, err := op.NoOp(body)
	must(err)
	doubler, err := body.Graph().ToFunction("doubler", []tf.Output{arg}, []tf.Output{doubled},
		tf.FunctionOutputNames("total"), tf.FunctionDescription("doubles its argument"),
		tf.FunctionControlOutputs([]*tf.Operation{noop}, []string{"done"}), tf.FunctionAppendHash())
	must(err)
	_, err = body.Graph().ToFunction("doubler", []tf.Output{arg}, []tf.Output{doubled}, tf.FunctionOutputNames("a", "b"))
	failure("output_names", err)
	_, err = body.Graph().ToFunction("doubler", []tf.Output{x}, []tf.Output{doubled})
	failure("foreign_input", err)
	doublerDef, err := doubler.FunctionDef()
	must(err)
	fmt.Printf("function_def: %s\n", hex.EncodeToString(doublerDef))
	library, err := g.Functions()
	must(err)
	found := false
	for _, f := range branchFns {
		found = found || f.Name() == "square_plus"
	}
	fmt.Printf("library: %v %v\n", len(library) == g.NumFunctions(), found)
}
"""


@pytest.fixture(scope="module")
def flow_stdout(tmp_path_factory, build_cache) -> str:  # noqa: F811
    """GO_FLOW's output: built and run once for the tests below."""
    return _run_go(tmp_path_factory.mktemp("flow"), build_cache, GO_FLOW)


def test_go_functions_cond_and_while_loop_compute_what_numpy_does(flow_stdout):
    lines = flow_programs.check(flow_stdout, "NotFound", "InvalidArgument")
    assert lines["while_dtype"].endswith("from float32 into int32"), lines["while_dtype"]
    # Call: a node of the function's type, named after it; PartitionedCall calls it too
    assert lines["function_names"] == "square_plus square_plus square_plus square_plus_1 1"
    inner = " ".join(f"{v:g}" for v in flow_programs.X * flow_programs.X + flow_programs.Y)
    assert lines["partitioned_call"] == f"{inner} | {inner}"
    # StatelessIf over stateless branches, If where a branch probes a variable (as
    # TensorFlow picks them); the values and gradients are the same
    assert lines["node_types"] == "StatelessIf cond while If"
    assert lines["stateful_fns"] == "false true"
    for value in ("true", "false"):
        assert lines[f"stateful_cond_{value}"] == lines[f"cond_{value}"]
        assert lines[f"stateful_cond_grad_{value}"] == lines[f"cond_grad_{value}"]
    # a builder's own error comes back as it is, *tf.Error or not
    assert lines["body_error"] == "Unimplemented | the body gives up"
    assert lines["branch_error"] == "OutOfRange | the branch gives up"
    assert lines["cond_error"] == "a plain error"
    assert lines["panicked"] == "the body panics"
    code, message = lines["body_count"].split(" | ")
    assert code == "InvalidArgument" and "2 values for 3 loop variables" in message, message
    code, message = lines["outer_tensor"].split(" | ")
    assert code == "InvalidArgument" and "not in its graph" in message, message
    code, message = lines["cond_dtypes"].split(" | ")
    assert code == "InvalidArgument" and "float32" in message and "int32" in message, message
    assert lines["finish_twice"] == (
        "FailedPrecondition | While.Finish: the loop is already finished or aborted")
    assert lines["no_loop_variables"].startswith("InvalidArgument | NewWhile: ")
    assert lines["raw_loop"] == "raw_loop 4 4"     # 0 + 4 once: 4 < 4 is false
    # ... and leaves the graph usable: no node, no function left behind
    assert lines["functions_unchanged"] == "true"
    assert lines["leftover_nodes"] == "0[]"
    loop = " ".join(f"{v:g}" for v in flow_programs.expected_values()["while"])
    assert lines["after_errors"] == f"errors/while_2 | {loop} | 7"
    # Branches without inputs take no arguments (an If with an empty Tin, as TensorFlow's
    # tf.cond builds it), in the outer graph and inside a loop's body.
    branches = [function_pb2.FunctionDef.FromString(bytes.fromhex(h))
                for h in lines["cond_without_inputs"].split()]
    assert len(branches) == 2 and all(not f.signature.input_arg for f in branches)
    assert flow_programs.LOOP_COUNT >= 2  # the loop's first two steps double x
    x = flow_programs.X
    want = " ".join(f"{v:g}" for v in np.float32(4) * x)
    assert lines["cond_without_inputs_in_loop"] == f"{want} | 4 4 4"


def test_go_control_flow_nests_and_differentiates(flow_stdout):
    lines = flow_programs.parse(flow_stdout)
    x = flow_programs.X
    v = x.copy()
    for i in range(flow_programs.LOOP_COUNT):
        v = v * 2 if i < 2 else v + 1
    doubled = x.copy()
    while doubled.sum() < 100:
        doubled = doubled * 2
    expected = {"loop_cond": (v, np.full(3, 4.0)),
                "cond_loop": ({True: doubled, False: x}, {True: doubled / x, False: np.ones(3)}),
                "cond_call": ({True: x * x + x, False: x}, {True: 2 * x + 1, False: np.ones(3)})}
    for name, (values, grads) in expected.items():
        for pred in (True, False):
            for what, want in ((name, values), (name + "_grad", grads)):
                if isinstance(want, dict):
                    want = want[pred]
                printed = np.array([float(c) for c in lines[f"nested_{what}_{str(pred).lower()}"].split()])
                np.testing.assert_allclose(printed, want, rtol=1e-6, err_msg=f"{what} {pred}")


def test_go_graph_to_function_writes_the_function_def_it_was_given(flow_stdout):
    lines = flow_programs.parse(flow_stdout)
    fdef = function_pb2.FunctionDef.FromString(bytes.fromhex(lines["function_def"]))
    signature = fdef.signature
    assert signature.name.startswith("doubler_") and len(signature.name) == len("doubler_") + 16
    assert signature.description == "doubles its argument"
    assert [(a.name, a.type) for a in signature.output_arg] == [("total", types_pb2.DT_FLOAT)]
    assert [a.type for a in signature.input_arg] == [types_pb2.DT_FLOAT]
    assert list(signature.control_output) == ["done"] and dict(fdef.control_ret) == {"done": "NoOp"}
    assert [n.op for n in fdef.node_def] == ["AddV2", "NoOp"]
    assert lines["output_names"] == "InvalidArgument | ToFunction: 2 output names for 1 outputs"
    code, message = lines["foreign_input"].split(" | ")
    assert code == "InvalidArgument" and "input 0 is not an output of this graph" in message
    # Graph.Functions: every function of the library (the gradients' too), in copies
    assert lines["library"] == "true true"
