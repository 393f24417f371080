"""examples/rust and examples/go, compiled against the generated bindings and the
installed runtime, print what numpy computes for y = relu(x @ W + b); a second program in
each language checks errors (TensorFlow's codes), default names, optional attrs and list
inputs and outputs; a third uses resource variables (Variable) across session runs;
generated/rust and generated/go are `opgen generate` on ops.pbtxt."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from opgen import _paths

# the resource-variable programs' expected lines, beside this file (importlib mode)
sys.path.insert(0, str(Path(__file__).resolve().parent))
import variable_programs

REPO = Path(__file__).resolve().parents[2]

# The example's inputs (examples/c/graph_example.c uses the same).
X = np.array([[1, 2, 3], [-4, 0.5, 6]], np.float32)
W = np.array([[0.5, -1, 2, 0], [1, 0.25, -0.5, 1], [-1, 0.5, 1, 2]], np.float32)
B = np.array([0.1, -0.2, 0.3, -4], np.float32)


def _expected() -> np.ndarray:
    return np.maximum(X @ W + B, 0)


def _printed(stdout: str) -> np.ndarray:
    return np.array([[float(v) for v in line.split()] for line in stdout.strip().splitlines()])


def _runtime_dir() -> Path:
    try:
        return _paths.runtime_library_path().parent
    except FileNotFoundError as e:
        pytest.skip(str(e))


@pytest.mark.parametrize("lang", ["rust", "go"])
def test_generated_bindings_are_fresh(lang):
    result = subprocess.run(
        [sys.executable, "-m", "opgen", "generate", "--check", "--lang", lang,
         "--ops", str(REPO / "ops.pbtxt"), "--out", str(REPO / "generated")],
        capture_output=True, text=True)
    assert result.returncode == 0, (
        f"generated/{lang} is stale; run `opgen generate --lang {lang} --ops ops.pbtxt "
        f"--out generated`:\n" + result.stdout + result.stderr)


# Both behaviour programs print these lines; the numbers are numpy's.
C = np.array([[1, 2], [3, 4]], np.float32)


def _behaviour_expected() -> dict[str, str]:
    def row(values) -> str:
        return " ".join(f"{v:.1f}" for v in np.asarray(values, np.float32).ravel())
    return {
        "names": "Placeholder Placeholder_1",
        "mismatch": "InvalidArgument",
        "transpose_b": row(C @ C.T),
        "add_n": row(C + C + C),
        "unpack": f"2 {row(C[0])} | {row(C[1])}",
        "wrong_type": "InvalidArgument",
        "wrong_type_message": "the tensor holds float32, not int32",
        "unfed": "InvalidArgument",
        # as TFE_NewOp says in C and NotFoundError in Python (one code, every language)
        "unregistered": "NotFound",
        "unregistered_message": "true",   # the runtime's message, passed through
        "dtype": "float32 int64 bfloat16 bool string",
    }


def _behaviour(stdout: str) -> dict[str, str]:
    return dict(line.split(": ", 1) for line in stdout.strip().splitlines())


@pytest.fixture(scope="module")
def build_cache(tmp_path_factory) -> Path:
    """A cargo target folder and Go build cache the programs share: the bindings compile once."""
    return tmp_path_factory.mktemp("build-cache")


def _run_rust(tmp_path: Path, cache: Path, main_rs: str = "") -> str:
    """Builds and runs examples/rust (with ``main_rs`` as its main.rs, if given)."""
    cargo = shutil.which("cargo") or os.path.expanduser("~/.cargo/bin/cargo")
    if not os.path.isfile(cargo):
        pytest.skip("cargo is not installed: the Rust programs are not built")
    lib_dir = _runtime_dir()
    example = tmp_path / "example"
    shutil.copytree(REPO / "examples" / "rust", example, ignore=shutil.ignore_patterns("target", "Cargo.lock"))
    if main_rs:
        (example / "src" / "main.rs").write_text(main_rs)
    manifest = example / "Cargo.toml"
    crate = (REPO / "generated" / "rust").as_posix()
    manifest.write_text(manifest.read_text().replace('"../../generated/rust"', f'"{crate}"'))
    env = {**os.environ, "OPGEN_LIB_DIR": str(lib_dir), "CARGO_TARGET_DIR": str(cache / "target"),
           "LD_LIBRARY_PATH": f"{lib_dir}{os.pathsep}{os.environ.get('LD_LIBRARY_PATH', '')}"}
    result = subprocess.run([cargo, "run", "--offline", "--quiet"], cwd=example, env=env,
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-5000:]
    return result.stdout


def _run_go(tmp_path: Path, cache: Path, main_go: str = "") -> str:
    """Builds and runs examples/go (with ``main_go`` as its main.go, if given)."""
    go = shutil.which("go")
    if go is None:
        pytest.skip("the go toolchain is not installed (Debian: apt-get install golang-go)")
    lib_dir = _runtime_dir()
    example = tmp_path / "example"
    shutil.copytree(REPO / "examples" / "go", example)
    if main_go:
        (example / "main.go").write_text(main_go)
    go_mod = example / "go.mod"
    package = (REPO / "generated" / "go").as_posix()
    go_mod.write_text(go_mod.read_text().replace("=> ../../generated/go", f"=> {package}"))
    env = {**os.environ, "GOFLAGS": "-mod=mod", "GOPROXY": "off", "GOTOOLCHAIN": "local",
           "GOPATH": str(tmp_path / "gopath"),
           "GOCACHE": os.environ.get("GOCACHE", str(cache / "gocache")),
           "CGO_ENABLED": "1", "CGO_CFLAGS": f"-I{_paths.include_dir()}",
           "CGO_LDFLAGS": f"-L{lib_dir} -Wl,-rpath,{lib_dir}"}
    result = subprocess.run([go, "run", "."], cwd=example, env=env, capture_output=True,
                            text=True, timeout=600)
    assert result.returncode == 0, result.stderr[-5000:]
    return result.stdout


def test_rust_example_prints_what_numpy_computes(tmp_path, build_cache):
    np.testing.assert_allclose(_printed(_run_rust(tmp_path, build_cache)), _expected(),
                               rtol=1e-6, atol=1e-6)


def test_go_example_prints_what_numpy_computes(tmp_path, build_cache):
    np.testing.assert_allclose(_printed(_run_go(tmp_path, build_cache)), _expected(),
                               rtol=1e-6, atol=1e-6)


RUST_BEHAVIOUR = r"""
use opgen_ops::{ops, DataType, Graph, OpSpec, Session, Tensor};

fn row(values: &[f32]) -> String {
    values.iter().map(|v| format!("{:.1}", v)).collect::<Vec<_>>().join(" ")
}

fn main() {
    let graph = Graph::new();
    let a = ops::placeholder(DataType::Float).build(&graph).unwrap();
    let b = ops::placeholder(DataType::Int32).build(&graph).unwrap();
    println!("names: {} {}", a.name(), b.name());
    println!("mismatch: {:?}", ops::mat_mul(&a, &b).build(&graph).unwrap_err().code);

    let c = ops::const_(Tensor::new(&[2, 2], &[1f32, 2.0, 3.0, 4.0]).unwrap(), DataType::Float)
        .build(&graph).unwrap();
    let t = ops::mat_mul(&c, &c).transpose_b(true).build(&graph).unwrap();
    let n = ops::add_n(vec![c.output(0), c.output(0), c.output(0)]).build(&graph).unwrap();
    let u = ops::unpack(&c, 2).build(&graph).unwrap();
    let session = Session::new(&graph).unwrap();
    let out = session.run(&[], &[t.output(0), n.output(0), u.output(0), u.output(1)], &[]).unwrap();
    println!("transpose_b: {}", row(out[0].data::<f32>().unwrap()));
    println!("add_n: {}", row(out[1].data::<f32>().unwrap()));
    println!("unpack: {} {} | {}", u.output_list_length("output").unwrap(),
             row(out[2].data::<f32>().unwrap()), row(out[3].data::<f32>().unwrap()));
    let wrong = out[0].data::<i32>().unwrap_err();
    println!("wrong_type: {:?}", wrong.code);
    println!("wrong_type_message: {}", wrong.message);
    println!("unfed: {:?}", session.run(&[], &[a.output(0)], &[]).unwrap_err().code);
    let unregistered = graph.add_operation(OpSpec::new("NoSuchOp")).unwrap_err();
    println!("unregistered: {:?}", unregistered.code);
    println!("unregistered_message: {}",
             unregistered.message.contains("Op type not registered 'NoSuchOp'"));
    println!("dtype: {} {} {} {} {}", DataType::Float, DataType::Int64, DataType::BFloat16,
             DataType::Bool, DataType::String);
}
"""

GO_BEHAVIOUR = r"""
package main

import (
	"fmt"
	"strings"

	tf "opgen.dev/tf"
	"opgen.dev/tf/op"
)

func row(t *tf.Tensor) string {
	values, err := tf.TensorData[float32](t)
	must(err)
	cells := []string{}
	for _, v := range values {
		cells = append(cells, fmt.Sprintf("%.1f", v))
	}
	return strings.Join(cells, " ")
}

func code(err error) tf.Code { return err.(*tf.Error).Code }

func must(err error) {
	if err != nil {
		panic(err)
	}
}

func main() {
	s := op.NewScope()
	a, err := op.Placeholder(s, tf.Float)
	must(err)
	b, err := op.Placeholder(s, tf.Int32)
	must(err)
	fmt.Printf("names: %s %s\n", a.Op.Name(), b.Op.Name())
	_, err = op.MatMul(s, a, b)
	fmt.Printf("mismatch: %v\n", code(err))

	value, err := tf.NewTensor([]int64{2, 2}, []float32{1, 2, 3, 4})
	must(err)
	c, err := op.Const(s, value, tf.Float)
	must(err)
	t, err := op.MatMul(s, c, c, op.MatMulTransposeB(true))
	must(err)
	n, err := op.AddN(s, []tf.Output{c, c, c})
	must(err)
	u, err := op.Unpack(s, c, 2)
	must(err)
	session, err := tf.NewSession(s.Graph())
	must(err)
	defer session.Close()
	out, err := session.Run(nil, []tf.Output{t, n, u[0], u[1]}, nil)
	must(err)
	fmt.Printf("transpose_b: %s\n", row(out[0]))
	fmt.Printf("add_n: %s\n", row(out[1]))
	fmt.Printf("unpack: %d %s | %s\n", len(u), row(out[2]), row(out[3]))
	_, err = tf.TensorData[int32](out[0])
	fmt.Printf("wrong_type: %v\n", code(err))
	fmt.Printf("wrong_type_message: %s\n", err.(*tf.Error).Message)
	_, err = session.Run(nil, []tf.Output{a}, nil)
	fmt.Printf("unfed: %v\n", code(err))
	_, err = s.Graph().AddOperation(tf.OpSpec{Type: "NoSuchOp", Name: "n"})
	fmt.Printf("unregistered: %v\n", code(err))
	fmt.Printf("unregistered_message: %v\n", strings.Contains(err.(*tf.Error).Message, "Op type not registered 'NoSuchOp'"))
	fmt.Printf("dtype: %v %v %v %v %v\n", tf.Float, tf.Int64, tf.BFloat16, tf.Bool, tf.String)
}
"""


def test_rust_bindings_behave_like_tensorflow(tmp_path, build_cache):
    assert _behaviour(_run_rust(tmp_path, build_cache, RUST_BEHAVIOUR)) == _behaviour_expected()


def test_go_bindings_behave_like_tensorflow(tmp_path, build_cache):
    assert _behaviour(_run_go(tmp_path, build_cache, GO_BEHAVIOUR)) == _behaviour_expected()


# Resource variables (Variable in variable.rs and op/variable.go): the steps and lines of
# examples/cpp/variable_example.cc, checked against numpy by variable_programs.
RUST_VARIABLES = r"""
use opgen_ops::{global_variables_initializer, ops, DataType, Error, Graph, Output, Session, Tensor};

fn print(what: &str, session: &Session, fetch: &Output) -> Result<(), Error> {
    let value = &session.run(&[], &[fetch.clone()], &[])?[0];
    let cells: Vec<String> = value.data::<f32>()?.iter().map(|v| v.to_string()).collect();
    println!("{}: {}", what, cells.join(" "));
    Ok(())
}

fn constant(dims: &[i64], values: &[f32], graph: &Graph) -> Result<Output, Error> {
    Ok(ops::const_(Tensor::new(dims, values)?, DataType::Float).build(graph)?.output(0))
}

fn main() -> Result<(), Error> {
    let graph = Graph::new();
    let weights = opgen_ops::Variable::builder()
        .name("weights")
        .const_initial_value(Tensor::new(&[2, 2], &[1f32, 2.0, 3.0, 4.0])?)
        .build(&graph)?;
    let counter = opgen_ops::Variable::builder()
        .name("counter")
        .data_type(DataType::Int64)
        .shape([])
        .build(&graph)?;
    let init = global_variables_initializer(&graph)?;

    let add = weights.assign_add(constant(&[2, 2], &[0.5; 4], &graph)?)?;
    let ones = ops::ones_like(weights.read()?).build(&graph)?;
    let sub = weights.assign_sub(&ones)?;
    let assign = weights.assign(constant(&[2, 2], &[10.0, 20.0, 30.0, 40.0], &graph)?)?;
    let read = weights.read()?;
    let five = ops::const_(Tensor::scalar(5i64)?, DataType::Int64).build(&graph)?;
    let one = ops::const_(Tensor::scalar(1i64)?, DataType::Int64).build(&graph)?;
    let set_counter = counter.assign(&five)?;
    let count = counter.assign_add(&one)?;

    let session = Session::new(&graph)?;
    session.run(&[], &[], &[init])?;
    print("init", &session, &read)?;
    for step in 1..=3 {
        print(&format!("add_{}", step), &session, &add)?;
    }
    print("assign", &session, &assign)?;
    for step in 1..=2 {
        print(&format!("sub_{}", step), &session, &sub)?;
    }
    print("read", &session, &read)?;
    let mut counts = vec![session.run(&[], &[set_counter], &[])?[0].data::<i64>()?[0]];
    for _ in 0..3 {
        counts.push(session.run(&[], &[count.clone()], &[])?[0].data::<i64>()?[0]);
    }
    let counts: Vec<String> = counts.iter().map(|c| c.to_string()).collect();
    println!("counter: {}", counts.join(" "));

    // A second session has values of its own: nothing is assigned there yet.
    let fresh = Session::new(&graph)?;
    let error = fresh.run(&[], &[read], &[]).unwrap_err();
    println!("uninitialized: {:?} | {}", error.code, error.message);
    let ints = ops::const_(Tensor::new(&[2, 2], &[1i32, 2, 3, 4])?, DataType::Int32).build(&graph)?;
    let error = weights.assign(&ints).unwrap_err();
    println!("wrong_dtype: {:?} | {}", error.code, error.message);
    let error = weights.assign(constant(&[3], &[1.0, 2.0, 3.0], &graph)?).unwrap_err();
    println!("wrong_shape: {:?} | {}", error.code, error.message);
    println!("no_initializer: {}", counter.initializer().is_none());
    println!("handle: {} {} {:?}", weights.handle().operation.op_type(), weights.name(),
             weights.shape().0);
    Ok(())
}
"""

GO_VARIABLES = r"""
package main

import (
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

func print(what string, session *tf.Session, fetch tf.Output) {
	out, err := session.Run(nil, []tf.Output{fetch}, nil)
	must(err)
	values, err := tf.TensorData[float32](out[0])
	must(err)
	cells := []string{}
	for _, v := range values {
		cells = append(cells, fmt.Sprint(v))
	}
	fmt.Printf("%s: %s\n", what, strings.Join(cells, " "))
}

func constant(s *op.Scope, dims []int64, values []float32) tf.Output {
	t, err := tf.NewTensor(dims, values)
	must(err)
	c, err := op.Const(s, t, tf.Float)
	must(err)
	return c
}

func scalar(s *op.Scope, value int64) tf.Output {
	t, err := tf.NewScalar(value)
	must(err)
	c, err := op.Const(s, t, tf.Int64)
	must(err)
	return c
}

func main() {
	s := op.NewScope()
	initial, err := tf.NewTensor([]int64{2, 2}, []float32{1, 2, 3, 4})
	must(err)
	weights, err := op.NewVariable(s, tf.Float, tf.MakeShape(2, 2), op.VariableName("weights"),
		op.VariableInitialTensor(initial))
	must(err)
	counter, err := op.NewVariable(s, tf.Int64, tf.ScalarShape(), op.VariableName("counter"))
	must(err)
	init, err := op.GlobalVariablesInitializer(s)
	must(err)

	add, err := weights.AssignAdd(s, constant(s, []int64{2, 2}, []float32{0.5, 0.5, 0.5, 0.5}))
	must(err)
	current, err := weights.Read(s)
	must(err)
	ones, err := op.OnesLike(s, current)
	must(err)
	sub, err := weights.AssignSub(s, ones)
	must(err)
	assign, err := weights.Assign(s, constant(s, []int64{2, 2}, []float32{10, 20, 30, 40}))
	must(err)
	read, err := weights.Read(s)
	must(err)
	setCounter, err := counter.Assign(s, scalar(s, 5))
	must(err)
	count, err := counter.AssignAdd(s, scalar(s, 1))
	must(err)

	session, err := tf.NewSession(s.Graph())
	must(err)
	defer session.Close()
	_, err = session.Run(nil, nil, []*tf.Operation{init})
	must(err)
	print("init", session, read)
	for step := 1; step <= 3; step++ {
		print(fmt.Sprintf("add_%d", step), session, add)
	}
	print("assign", session, assign)
	for step := 1; step <= 2; step++ {
		print(fmt.Sprintf("sub_%d", step), session, sub)
	}
	print("read", session, read)
	counts := []string{}
	for _, fetch := range []tf.Output{setCounter, count, count, count} {
		out, err := session.Run(nil, []tf.Output{fetch}, nil)
		must(err)
		values, err := tf.TensorData[int64](out[0])
		must(err)
		counts = append(counts, fmt.Sprint(values[0]))
	}
	fmt.Printf("counter: %s\n", strings.Join(counts, " "))

	// A second session has values of its own: nothing is assigned there yet.
	fresh, err := tf.NewSession(s.Graph())
	must(err)
	defer fresh.Close()
	_, err = fresh.Run(nil, []tf.Output{read}, nil)
	fmt.Printf("uninitialized: %v | %s\n", err.(*tf.Error).Code, err.(*tf.Error).Message)
	ints, err := tf.NewTensor([]int64{2, 2}, []int32{1, 2, 3, 4})
	must(err)
	intConst, err := op.Const(s, ints, tf.Int32)
	must(err)
	_, err = weights.Assign(s, intConst)
	fmt.Printf("wrong_dtype: %v | %s\n", err.(*tf.Error).Code, err.(*tf.Error).Message)
	_, err = weights.Assign(s, constant(s, []int64{3}, []float32{1, 2, 3}))
	fmt.Printf("wrong_shape: %v | %s\n", err.(*tf.Error).Code, err.(*tf.Error).Message)
	fmt.Printf("no_initializer: %v\n", counter.Initializer() == nil)
	fmt.Printf("handle: %s %s %v\n", weights.Handle().Op.Type(), weights.Name(), weights.Shape().Dims)
}
"""


def test_rust_variables_update_across_runs_as_numpy_computes(tmp_path, build_cache):
    lines = variable_programs.check(_run_rust(tmp_path, build_cache, RUST_VARIABLES),
                                    "FailedPrecondition", "InvalidArgument")
    assert lines["no_initializer"] == "true"
    assert lines["handle"] == "VarHandleOp weights Some([2, 2])"


def test_go_variables_update_across_runs_as_numpy_computes(tmp_path, build_cache):
    lines = variable_programs.check(_run_go(tmp_path, build_cache, GO_VARIABLES),
                                    "FailedPrecondition", "InvalidArgument")
    assert lines["no_initializer"] == "true"
    assert lines["handle"] == "VarHandleOp weights [2 2]"


# Gradients and optimizers (Graph::add_gradients / Optimizer in Rust, Graph.AddGradients /
# op.Optimizer in Go): the lines of examples/cpp/train_example.cc, checked by
# train_programs against numpy and, exactly, against Python's opgen.gradients + opgen.train.
RUST_TRAIN = r"""
use opgen_ops::{global_variables_initializer, ops, DataType, Error, Graph, Optimizer, Output, Session, Tensor, Variable};

struct Model { graph: Graph, w: Variable, b: Variable, loss: Output }

fn model() -> Result<Model, Error> {
    let graph = Graph::new();
    let c = |dims: &[i64], v: &[f32]| -> Result<Output, Error> {
        Ok(ops::const_(Tensor::new(dims, v)?, DataType::Float).build(&graph)?.output(0))
    };
    let w = Variable::builder().name("w").const_initial_value(Tensor::new(&[2, 1], &[0.1f32, -0.2])?).build(&graph)?;
    let b = Variable::builder().name("b").const_initial_value(Tensor::new(&[1], &[0f32])?).build(&graph)?;
    let x = c(&[4, 2], &[1.0, 2.0, -1.0, 0.5, 0.5, -2.0, 2.0, 1.0])?;
    let y = c(&[4, 1], &[1.0, 0.0, -2.0, 3.0])?;
    let xw = ops::mat_mul(x, w.read()?).build(&graph)?;
    let pred = ops::add_v2(xw, b.read()?).build(&graph)?;
    let sq = ops::square(ops::sub(pred, y).build(&graph)?).build(&graph)?;
    let axes = ops::const_(Tensor::new(&[2], &[0i32, 1])?, DataType::Int32).build(&graph)?;
    let loss = ops::mean(sq, axes).build(&graph)?.output(0);
    Ok(Model { graph, w, b, loss })
}

fn print(what: &str, values: &[f32]) {
    let cells: Vec<String> = values.iter().map(|v| v.to_string()).collect();
    println!("{}: {}", what, cells.join(" "));
}

fn train(m: &Model, opt: &mut Optimizer, minimize: bool) -> Result<Vec<f32>, Error> {
    let step = if minimize {
        opt.minimize(&m.loss, &[&m.w, &m.b])?
    } else {
        let g = m.graph.add_gradients(None, &[m.loss.clone()], &[m.w.handle(), m.b.handle()], None)?;
        opt.apply_gradients(&[(g[0].clone(), &m.w), (g[1].clone(), &m.b)])?
    };
    let init = global_variables_initializer(&m.graph)?;
    let session = Session::new(&m.graph)?;
    session.run(&[], &[], &[init])?;
    let mut losses = Vec::new();
    for _ in 0..20 {
        losses.push(session.run(&[], &[m.loss.clone()], &[])?[0].data::<f32>()?[0]);
        session.run(&[], &[], &[step.clone()])?;
    }
    losses.push(session.run(&[], &[m.loss.clone()], &[])?[0].data::<f32>()?[0]);
    Ok(losses)
}

fn main() -> Result<(), Error> {
    let m = model()?;
    let g = m.graph.add_gradients(Some("grads"), &[m.loss.clone()], &[m.w.handle(), m.b.handle()], None)?;
    let session = Session::new(&m.graph)?;
    session.run(&[], &[], &[global_variables_initializer(&m.graph)?])?;
    let fetches = [m.loss.clone(), g[0].clone().unwrap(), g[1].clone().unwrap()];
    let out = session.run(&[], &fetches, &[])?;
    print("loss", out[0].data::<f32>()?);
    print("grad_w", out[1].data::<f32>()?);
    print("grad_b", out[2].data::<f32>()?);
    print("sgd", &train(&model()?, &mut Optimizer::gradient_descent(0.1), true)?);
    print("momentum", &train(&model()?, &mut Optimizer::momentum(0.05, 0.9), true)?);
    print("adam", &train(&model()?, &mut Optimizer::adam(0.1), false)?);

    let unused = Variable::builder().name("unused").const_initial_value(Tensor::new(&[1], &[1f32])?).build(&m.graph)?;
    let g = m.graph.add_gradients(None, &[m.loss.clone()], &[m.w.handle(), unused.handle()], None)?;
    println!("unconnected: {} {}", g[0].is_some(), g[1].is_some());
    let entered = ops::enter(m.loss.clone(), "frame").build(&m.graph)?.output(0);
    let err = m.graph.add_gradients(None, &[entered], &[m.w.handle()], None).unwrap_err();
    println!("no_gradient: {:?} | {}", err.code, err.message);
    let err = m.graph.add_gradients(None, &[m.loss.clone()], &[m.w.handle()], Some(&[])).unwrap_err();
    println!("wrong_length: {:?} | {}", err.code, err.message);
    let err = m.graph.add_gradients(Some("grads"), &[m.loss.clone()], &[m.w.handle()], None).unwrap_err();
    println!("taken_prefix: {:?}", err.code);
    let err = Optimizer::gradient_descent(0.1).apply_gradients(&[(None, &m.w)]).unwrap_err();
    println!("no_gradients: {:?} | {}", err.code, err.message);
    Ok(())
}
"""

GO_TRAIN = r"""
package main

import (
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

type model struct {
	s    *op.Scope
	w, b *op.Variable
	loss tf.Output
}

func constant[T tf.TensorElement](s *op.Scope, dims []int64, values []T, dtype tf.DataType) tf.Output {
	t, err := tf.NewTensor(dims, values)
	must(err)
	c, err := op.Const(s, t, dtype)
	must(err)
	return c
}

func newModel() model {
	s := op.NewScope()
	wt, err := tf.NewTensor([]int64{2, 1}, []float32{0.1, -0.2})
	must(err)
	w, err := op.NewVariable(s, tf.Float, tf.MakeShape(2, 1), op.VariableName("w"), op.VariableInitialTensor(wt))
	must(err)
	bt, err := tf.NewTensor([]int64{1}, []float32{0})
	must(err)
	b, err := op.NewVariable(s, tf.Float, tf.MakeShape(1), op.VariableName("b"), op.VariableInitialTensor(bt))
	must(err)
	x := constant(s, []int64{4, 2}, []float32{1, 2, -1, 0.5, 0.5, -2, 2, 1}, tf.Float)
	y := constant(s, []int64{4, 1}, []float32{1, 0, -2, 3}, tf.Float)
	wr, err := w.Read(s)
	must(err)
	br, err := b.Read(s)
	must(err)
	xw, err := op.MatMul(s, x, wr)
	must(err)
	pred, err := op.AddV2(s, xw, br)
	must(err)
	diff, err := op.Sub(s, pred, y)
	must(err)
	sq, err := op.Square(s, diff)
	must(err)
	loss, err := op.Mean(s, sq, constant(s, []int64{2}, []int32{0, 1}, tf.Int32))
	must(err)
	return model{s, w, b, loss}
}

func print(what string, values []float32) {
	cells := []string{}
	for _, v := range values {
		cells = append(cells, fmt.Sprint(v))
	}
	fmt.Printf("%s: %s\n", what, strings.Join(cells, " "))
}

func scalar(session *tf.Session, out tf.Output) float32 {
	v, err := session.Run(nil, []tf.Output{out}, nil)
	must(err)
	d, err := tf.TensorData[float32](v[0])
	must(err)
	return d[0]
}

func train(m model, opt *op.Optimizer, minimize bool) []float32 {
	var step *tf.Operation
	var err error
	if minimize {
		step, err = opt.Minimize(m.s, m.loss, []*op.Variable{m.w, m.b})
	} else {
		g, gerr := m.s.Graph().AddGradients("", []tf.Output{m.loss}, []tf.Output{m.w.Handle(), m.b.Handle()}, nil)
		must(gerr)
		step, err = opt.ApplyGradients(m.s, []op.GradAndVar{{Grad: g[0], Var: m.w}, {Grad: g[1], Var: m.b}})
	}
	must(err)
	init, err := op.GlobalVariablesInitializer(m.s)
	must(err)
	session, err := tf.NewSession(m.s.Graph())
	must(err)
	_, err = session.Run(nil, nil, []*tf.Operation{init})
	must(err)
	losses := []float32{}
	for i := 0; i < 20; i++ {
		losses = append(losses, scalar(session, m.loss))
		_, err = session.Run(nil, nil, []*tf.Operation{step})
		must(err)
	}
	return append(losses, scalar(session, m.loss))
}

func code(err error) string {
	if e, ok := err.(*tf.Error); ok {
		return fmt.Sprintf("%v | %s", e.Code, e.Message)
	}
	return fmt.Sprint("not a *tf.Error: ", err)
}

func main() {
	m := newModel()
	g, err := m.s.Graph().AddGradients("grads", []tf.Output{m.loss}, []tf.Output{m.w.Handle(), m.b.Handle()}, nil)
	must(err)
	init, err := op.GlobalVariablesInitializer(m.s)
	must(err)
	session, err := tf.NewSession(m.s.Graph())
	must(err)
	_, err = session.Run(nil, nil, []*tf.Operation{init})
	must(err)
	out, err := session.Run(nil, []tf.Output{m.loss, g[0], g[1]}, nil)
	must(err)
	for i, what := range []string{"loss", "grad_w", "grad_b"} {
		d, err := tf.TensorData[float32](out[i])
		must(err)
		print(what, d)
	}
	print("sgd", train(newModel(), op.NewGradientDescentOptimizer(0.1), true))
	print("momentum", train(newModel(), op.NewMomentumOptimizer(0.05, 0.9, false), true))
	print("adam", train(newModel(), op.NewAdamOptimizer(0.1, 0.9, 0.999, 1e-8), false))

	ut, err := tf.NewTensor([]int64{1}, []float32{1})
	must(err)
	unused, err := op.NewVariable(m.s, tf.Float, tf.MakeShape(1), op.VariableName("unused"), op.VariableInitialTensor(ut))
	must(err)
	g, err = m.s.Graph().AddGradients("", []tf.Output{m.loss}, []tf.Output{m.w.Handle(), unused.Handle()}, nil)
	must(err)
	fmt.Printf("unconnected: %v %v\n", g[0].Op != nil, g[1].Op != nil)
	entered, err := op.Enter(m.s, m.loss, "frame")
	must(err)
	_, err = m.s.Graph().AddGradients("", []tf.Output{entered}, []tf.Output{m.w.Handle()}, nil)
	fmt.Printf("no_gradient: %s\n", code(err))
	_, err = m.s.Graph().AddGradients("", []tf.Output{m.loss}, []tf.Output{m.w.Handle()}, []tf.Output{})
	fmt.Printf("wrong_length: %s\n", code(err))
	_, err = m.s.Graph().AddGradients("grads", []tf.Output{m.loss}, []tf.Output{m.w.Handle()}, nil)
	fmt.Printf("taken_prefix: %s\n", strings.SplitN(code(err), " |", 2)[0])
	_, err = op.NewGradientDescentOptimizer(0.1).ApplyGradients(m.s, []op.GradAndVar{{Var: m.w}})
	fmt.Printf("no_gradients: %s\n", code(err))
}
"""


def _check_train_errors(lines: dict[str, str], true: str) -> None:
    assert lines["unconnected"] == f"{true} false"
    code, message = lines["no_gradient"].split(" | ", 1)
    assert code == "NotFound" and message.startswith("No gradient defined for op: Enter"), message
    assert lines["wrong_length"].startswith("InvalidArgument | ")
    assert lines["taken_prefix"] == "InvalidArgument"
    assert lines["no_gradients"] == "InvalidArgument | No gradients provided for any variable: ['w']."


def test_rust_gradients_and_optimizers_equal_pythons(tmp_path, build_cache):
    import train_programs
    lines = train_programs.check(_run_rust(tmp_path, build_cache, RUST_TRAIN))
    _check_train_errors(lines, "true")
    assert lines["wrong_length"].endswith("dx.len() = 0, y.len() = 1")


def test_go_gradients_and_optimizers_equal_pythons(tmp_path, build_cache):
    import train_programs
    lines = train_programs.check(_run_go(tmp_path, build_cache, GO_TRAIN))
    _check_train_errors(lines, "true")
    assert lines["wrong_length"].endswith("0 dx for 1 y: give one per y, or nil")
