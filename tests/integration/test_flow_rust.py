"""Functions, cond and while_loop in Rust (flow.rs: Function, Graph::to_function /
copy_function, Call, cond, while_loop): the program of flow_programs, checked against
numpy, and the Rust API's own errors (a closure's Err comes back unchanged and leaves the
graph usable; a body of the wrong arity or dtypes is a clear InvalidArgument)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

# flow_programs and test_examples_rust_go beside this file (importlib mode)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import flow_programs
from test_examples_rust_go import _run_rust


@pytest.fixture(scope="module")
def build_cache(tmp_path_factory) -> Path:
    """A cargo target folder the programs share: the crate compiles once."""
    return tmp_path_factory.mktemp("build-cache")


RUST_FLOW = r"""
use opgen_ops::{cond, ops, while_loop, Code, DataType, Error, Function, Graph, OpSpec, Output, Session, Tensor};

fn print(what: &str, tensor: &Tensor) -> Result<(), Error> {
    let cells: Vec<String> = match tensor.data_type() {
        Some(DataType::Int32) => tensor.data::<i32>()?.iter().map(|v| v.to_string()).collect(),
        _ => tensor.data::<f32>()?.iter().map(|v| v.to_string()).collect(),
    };
    println!("{}: {}", what, cells.join(" "));
    Ok(())
}

fn scalar_i32(graph: &Graph, value: i32) -> Result<Output, Error> {
    Ok(ops::const_(Tensor::scalar(value)?, DataType::Int32).build(graph)?.output(0))
}

fn scalar_f32(graph: &Graph, value: f32) -> Result<Output, Error> {
    Ok(ops::const_(Tensor::scalar(value)?, DataType::Float).build(graph)?.output(0))
}

fn grad(graph: &Graph, y: &Output, x: &Output) -> Result<Output, Error> {
    let g = graph.add_gradients(None, &[y.clone()], &[x.clone()], None)?;
    g[0].clone().ok_or_else(|| Error { code: Code::Internal, message: "no gradient".into() })
}

fn square_plus() -> Result<Function, Error> {
    Function::trace("square_plus", &[DataType::Float, DataType::Float], |g, args| {
        let square = ops::mul(&args[0], &args[0]).build(g)?;
        Ok(vec![ops::add_v2(square, &args[1]).build(g)?.output(0)])
    })
}

// The loop of the program: (i, n, v) -> (i + 1, n, v * 1.5 + 1) while i < n; `cast`
// makes the body turn v into int32 (the while_dtype error).
fn loop_over(graph: &Graph, x: &Output, n: &Output, cast: bool) -> Result<Vec<Output>, Error> {
    let zero = scalar_i32(graph, 0)?;
    while_loop(graph, &[zero, n.clone(), x.clone()],
        |g, a| Ok(ops::less(&a[0], &a[1]).build(g)?.output(0)),
        |g, a| {
            let i = ops::add_v2(&a[0], scalar_i32(g, 1)?).build(g)?.output(0);
            let scaled = ops::mul(&a[2], scalar_f32(g, 1.5)?).build(g)?;
            let mut v = ops::add_v2(scaled, scalar_f32(g, 1.0)?).build(g)?.output(0);
            if cast {
                v = ops::cast(v, DataType::Int32).build(g)?.output(0);
            }
            Ok(vec![i, a[1].clone(), v])
        })
}

fn main() -> Result<(), Error> {
    let graph = Graph::new();
    let x = ops::placeholder(DataType::Float).shape([3]).build(&graph)?.output(0);
    let y = ops::const_(Tensor::new(&[3], &[0.5f32, -1.0, 2.0])?, DataType::Float).build(&graph)?.output(0);
    let pred = ops::placeholder(DataType::Bool).shape([]).build(&graph)?.output(0);
    let n = ops::placeholder(DataType::Int32).shape([]).build(&graph)?.output(0);

    // f(f(x, y), y): the inner call a PartitionedCall, the outer a node of op "square_plus".
    let f = square_plus()?;
    graph.copy_function(&f, None)?;
    let inner = f.call([&x, &y]).build(&graph)?;
    let outer = f.call([&inner[0], &y]).function_op(true).name("outer").build(&graph)?;
    let function_grad = grad(&graph, &outer[0], &x)?;

    let branches = cond(&graph, &pred, &[x.clone()],
        |g, a| Ok(vec![ops::mul(&a[0], &a[0]).build(g)?.output(0)]),
        |g, a| Ok(vec![ops::sub(&a[0], scalar_f32(g, 1.0)?).build(g)?.output(0)]))?;
    let cond_grad = grad(&graph, &branches[0], &x)?;
    // The same cond with a variable probed in the then branch: a stateful branch, so If.
    let stateful_branches = cond(&graph, &pred, &[x.clone()],
        |g, a| {
            let handle = ops::var_handle_op(DataType::Float, [0i64; 0]).build(g)?.output(0);
            let probe = ops::var_is_initialized_op(handle).build(g)?;
            Ok(vec![ops::mul(&a[0], &a[0]).control_input(&probe).build(g)?.output(0)])
        },
        |g, a| Ok(vec![ops::sub(&a[0], scalar_f32(g, 1.0)?).build(g)?.output(0)]))?;
    let stateful_cond_grad = grad(&graph, &stateful_branches[0], &x)?;

    let looped = loop_over(&graph, &x, &n, false)?;
    let while_grad = grad(&graph, &looped[2], &x)?;

    let session = Session::new(&graph)?;
    let x_value = Tensor::new(&[3], &[1f32, 2.0, 3.0])?;
    let n_value = Tensor::scalar(4i32)?;
    let fetch = |fetches: &[Output], pred_value: bool| -> Result<Vec<Tensor>, Error> {
        let p = Tensor::scalar(pred_value)?;
        session.run(&[(x.clone(), &x_value), (pred.clone(), &p), (n.clone(), &n_value)], fetches, &[])
    };
    let out = fetch(&[outer[0].clone(), function_grad, looped[0].clone(), looped[2].clone(), while_grad], true)?;
    print("function", &out[0])?;
    print("function_grad", &out[1])?;
    print("while_count", &out[2])?;
    print("while", &out[3])?;
    print("while_grad", &out[4])?;
    for (value, name) in [(true, "true"), (false, "false")] {
        let out = fetch(&[branches[0].clone(), cond_grad.clone(), stateful_branches[0].clone(),
                          stateful_cond_grad.clone()], value)?;
        print(&format!("cond_{}", name), &out[0])?;
        print(&format!("cond_grad_{}", name), &out[1])?;
        print(&format!("stateful_cond_{}", name), &out[2])?;
        print(&format!("stateful_cond_grad_{}", name), &out[3])?;
    }

    let mut missing = OpSpec::new("no_such_function");
    missing.add_input(x.clone());
    let err = graph.add_operation(missing).unwrap_err();
    println!("missing_function: {:?} | {}", err.code, err.message);
    let err = loop_over(&graph, &x, &n, true).unwrap_err();
    println!("while_dtype: {:?} | {}", err.code, err.message);

    // The Rust API's own checks.
    println!("function_name: {} {:?} {:?}", f.name(), f.input_types(), f.output_types());
    let functions = graph.num_functions();
    let mine = Error { code: Code::Aborted, message: "from the body".into() };
    let err = while_loop(&graph, &[x.clone()],
        |g, a| Ok(ops::less(&a[0], scalar_f32(g, 0.0)?).build(g)?.output(0)),
        |_, _| Err(mine.clone())).unwrap_err();
    println!("closure_error: {}", err == mine);
    let err = cond(&graph, &pred, &[x.clone()], |_, a| Ok(vec![a[0].clone()]),
                   |_, _| Err(mine.clone())).unwrap_err();
    println!("cond_closure_error: {}", err == mine);
    // (the names the failed loop and cond took are taken by no node; cond_1 is the
    // stateful cond)
    println!("unchanged: {} {} {}", graph.num_functions() == functions,
             graph.operation_by_name("while_1").is_none(), graph.operation_by_name("cond_2").is_none());
    let err = while_loop(&graph, &[x.clone(), n.clone()],
        |g, a| Ok(ops::less(&a[1], scalar_i32(g, 0)?).build(g)?.output(0)),
        |_, a| Ok(vec![a[0].clone()])).unwrap_err();
    println!("wrong_arity: {:?} | {}", err.code, err.message);
    let err = while_loop(&graph, &[x.clone()], |_, _| Ok(pred.clone()), |_, a| Ok(a.to_vec())).unwrap_err();
    println!("outer_tensor: {:?} | {}", err.code, err.message);
    let err = cond(&graph, &pred, &[x.clone(), n.clone()], |_, a| Ok(vec![a[0].clone()]),
                   |_, a| Ok(vec![a[1].clone()])).unwrap_err();
    println!("cond_mismatch: {:?} | {}", err.code, err.message);
    let err = f.call([&x]).build(&graph).unwrap_err();
    println!("call_arity: {:?} | {}", err.code, err.message);
    let other = Function::trace("square_plus", &[DataType::Float], |_, a| Ok(a.to_vec()))?;
    let err = graph.copy_function(&other, None).unwrap_err();
    println!("name_taken: {:?}", err.code);

    // A placeholder of the loop's graph kept past the closure: the call fails and the
    // loop's graphs are leaked, not freed, so the kept output is still valid.
    let kept = std::cell::RefCell::new(None);
    let err = while_loop(&graph, &[x.clone()],
        |g, a| {
            kept.replace(Some(a[0].clone()));
            Ok(ops::less(&a[0], scalar_f32(g, 0.0)?).build(g)?.output(0))
        },
        |_, a| Ok(a.to_vec())).unwrap_err();
    let name = kept.borrow().as_ref().map(|o| o.operation.name()).unwrap_or_default();
    println!("escaped: {:?} | {} | {}", err.code, err.message, name);

    // After all that the graph still builds and runs: the loop again, by itself.
    let again = loop_over(&graph, &x, &n, false)?;
    let stateful = f.call([&x, &y]).stateful(true).build(&graph)?;
    let out = fetch(&[again[2].clone(), stateful[0].clone()], true)?;
    print("while_again", &out[0])?;
    print("stateful_call", &out[1])?;
    println!("call_ops: {} {} {}", inner[0].operation.op_type(), outer[0].operation.op_type(),
             stateful[0].operation.op_type());

    // Graph::to_function: a function of some of a graph's nodes; hashed names.
    let body = Graph::new();
    let a = ops::placeholder(DataType::Float).build(&body)?.output(0);
    let double = ops::add_v2(&a, &a).build(&body)?.output(0);
    let g2 = body.to_function("double", true, None, &[a], &[double], Some(&["twice"]), Some("2a"))?;
    let twice = g2.call([&x]).build(&graph)?;
    print("to_function", &fetch(&[twice[0].clone()], true)?[0])?;
    println!("hashed_name: {}", g2.name());

    // A cond inside a function (its branches go along into the graph's library), and a
    // cond over no inputs.
    let relu_like = Function::trace("relu_like", &[DataType::Float, DataType::Bool], |g, a| {
        let zero = ops::zeros_like(&a[0]).build(g)?.output(0);
        cond(g, &a[1], &[a[0].clone(), zero], |_, b| Ok(vec![b[0].clone()]), |_, b| Ok(vec![b[1].clone()]))
    })?;
    let called = relu_like.call([&x, &pred]).build(&graph)?;
    let constant = cond(&graph, &pred, &[], |g, _| Ok(vec![scalar_f32(g, 1.0)?]),
                        |g, _| Ok(vec![scalar_f32(g, 2.0)?]))?;
    let out = fetch(&[called[0].clone(), constant[0].clone()], false)?;
    print("nested_cond", &out[0])?;
    print("no_inputs", &out[1])?;
    // (relu_like is stateless: the cond inside it is a StatelessIf too)
    println!("cond_ops: {} {} {}", branches[0].operation.op_type(),
             stateful_branches[0].operation.op_type(), constant[0].operation.op_type());
    println!("stateful_fns: {} {} {}", square_plus()?.is_stateful(), relu_like.is_stateful(),
             Function::trace("probe", &[], |g, _| {
                 let handle = ops::var_handle_op(DataType::Float, [0i64; 0]).build(g)?.output(0);
                 Ok(vec![ops::var_is_initialized_op(handle).build(g)?.output(0)])
             })?.is_stateful());
    Ok(())
}
"""


def test_rust_flow_program_prints_what_numpy_computes(tmp_path, build_cache):
    lines = flow_programs.check(_run_rust(tmp_path, build_cache, RUST_FLOW),
                                "NotFound", "InvalidArgument")
    assert "while_dtype" in lines and "loop variable 2" in lines["while_dtype"]
    assert lines["function_name"] == "square_plus [Float, Float] [Float]"
    assert lines["closure_error"] == "true"
    assert lines["cond_closure_error"] == "true"
    assert lines["unchanged"] == "true true true"
    assert lines["wrong_arity"] == (
        "InvalidArgument | while_loop: body_fn returned 1 values for 2 loop variables")
    code, message = lines["outer_tensor"].split(" | ", 1)
    assert code == "InvalidArgument" and "another graph" in message, message
    assert lines["cond_mismatch"] == (
        "InvalidArgument | cond: then_fn returns [float32] but else_fn returns [int32]")
    assert lines["call_arity"] == (
        "InvalidArgument | function 'square_plus' takes [float32, float32], not [float32]")
    assert lines["name_taken"] == "InvalidArgument"
    assert lines["escaped"] == ("InvalidArgument | while_loop: a graph or output of cond_fn or "
                                "body_fn outlived the closure | input_0")
    assert lines["call_ops"] == "PartitionedCall square_plus StatefulPartitionedCall"
    assert [float(v) for v in lines["stateful_call"].split()] == pytest.approx(
        flow_programs.X ** 2 + flow_programs.Y)
    values = flow_programs.expected_values()
    assert [float(v) for v in lines["while_again"].split()] == pytest.approx(values["while"])
    assert [float(v) for v in lines["to_function"].split()] == [2, 4, 6]
    assert lines["nested_cond"] == "0 0 0"
    assert lines["no_inputs"] == "2"
    # StatelessIf where both branches are stateless (in a graph and inside a function),
    # If where one has a stateful op; the values and gradients are the same
    assert lines["cond_ops"] == "StatelessIf If StatelessIf"
    assert lines["stateful_fns"] == "false false true"
    for value in ("true", "false"):
        assert lines[f"stateful_cond_{value}"] == lines[f"cond_{value}"]
        assert lines[f"stateful_cond_grad_{value}"] == lines[f"cond_grad_{value}"]
    assert lines["hashed_name"].startswith("double_") and len(lines["hashed_name"]) == 23
