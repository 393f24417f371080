//! The demo in Rust: the generated crate's op builders, `Variable`, and `Optimizer`
//! (`minimize`: `Graph::add_gradients` + one ResourceApplyGradientDescent per variable).
//! Same graph, node for node, as train.py.
//!
//!     cargo run --release -- DATA_DIR mlp|cnn [STEPS]

use opgen_ops::{
    global_variables_initializer, ops, DataType, Error, Graph, Optimizer, Output, Session, Tensor,
    Variable,
};

const BATCH: usize = 64;
const BATCHES: usize = 10;
const LEARNING_RATE: f32 = 0.1;

/// make_data.py's raw little-endian file as 4-byte values.
fn load<T, const N: usize>(dir: &str, file: &str, count: usize, from: fn([u8; 4]) -> T) -> Vec<T> {
    let path = format!("{}/{}", dir, file);
    let bytes = std::fs::read(&path).unwrap_or_default();
    if bytes.len() != count * N {
        eprintln!("cannot read {} (run make_data.py)", path);
        std::process::exit(1);
    }
    bytes
        .chunks_exact(4)
        .map(|c| from(c.try_into().unwrap()))
        .collect()
}

fn floats(dir: &str, file: &str, dims: &[i64]) -> Result<Tensor, Error> {
    let count = dims.iter().product::<i64>() as usize;
    Tensor::new(dims, &load::<f32, 4>(dir, file, count, f32::from_le_bytes))
}

fn variable(graph: &Graph, name: &str, value: Tensor) -> Result<Variable, Error> {
    Variable::builder()
        .name(name)
        .const_initial_value(value)
        .build(graph)
}

fn int32_const(graph: &Graph, dims: &[i64], values: &[i32]) -> Result<Output, Error> {
    Ok(ops::const_(Tensor::new(dims, values)?, DataType::Int32)
        .build(graph)?
        .output(0))
}

fn main() -> Result<(), Error> {
    let args: Vec<String> = std::env::args().collect();
    if args.len() < 3 || args.len() > 4 || (args[2] != "mlp" && args[2] != "cnn") {
        eprintln!("usage: {} DATA_DIR mlp|cnn [STEPS]", args[0]);
        std::process::exit(2);
    }
    let dir = &args[1];
    let steps: usize = args
        .get(3)
        .map_or(100, |s| s.parse().expect("STEPS: a number"));

    let graph = Graph::new();
    let x = ops::placeholder(DataType::Float)
        .shape([BATCH as i64, 64])
        .name("x")
        .build(&graph)?;
    let labels = ops::placeholder(DataType::Int32)
        .shape([BATCH as i64])
        .name("labels")
        .build(&graph)?;
    let (vars, logits) = if args[2] == "mlp" {
        let w1 = variable(&graph, "w1", floats(dir, "mlp_w1.f32", &[64, 32])?)?;
        let b1 = variable(&graph, "b1", floats(dir, "mlp_b1.f32", &[32])?)?;
        let w2 = variable(&graph, "w2", floats(dir, "mlp_w2.f32", &[32, 10])?)?;
        let b2 = variable(&graph, "b2", floats(dir, "mlp_b2.f32", &[10])?)?;
        let xw = ops::mat_mul(&x, w1.read()?).build(&graph)?;
        let hidden = ops::relu(ops::bias_add(xw, b1.read()?).build(&graph)?).build(&graph)?;
        let hw = ops::mat_mul(hidden, w2.read()?).build(&graph)?;
        let logits = ops::bias_add(hw, b2.read()?).build(&graph)?;
        (vec![w1, b1, w2, b2], logits)
    } else {
        let k = variable(&graph, "k", floats(dir, "cnn_k.f32", &[3, 3, 1, 8])?)?;
        let b1 = variable(&graph, "b1", floats(dir, "cnn_b1.f32", &[8])?)?;
        let w2 = variable(&graph, "w2", floats(dir, "cnn_w2.f32", &[128, 10])?)?;
        let b2 = variable(&graph, "b2", floats(dir, "cnn_b2.f32", &[10])?)?;
        let images = ops::reshape(&x, int32_const(&graph, &[4], &[-1, 8, 8, 1])?).build(&graph)?;
        let conv = ops::conv2d(images, k.read()?, &[1, 1, 1, 1], "SAME").build(&graph)?;
        let hidden = ops::relu(ops::bias_add(conv, b1.read()?).build(&graph)?).build(&graph)?;
        let pooled = ops::avg_pool(hidden, &[1, 2, 2, 1], &[1, 2, 2, 1], "VALID").build(&graph)?;
        let flat = ops::reshape(pooled, int32_const(&graph, &[2], &[-1, 128])?).build(&graph)?;
        let hw = ops::mat_mul(flat, w2.read()?).build(&graph)?;
        let logits = ops::bias_add(hw, b2.read()?).build(&graph)?;
        (vec![k, b1, w2, b2], logits)
    };
    let per_example =
        ops::sparse_softmax_cross_entropy_with_logits(logits, &labels).build(&graph)?;
    let loss = ops::mean(per_example.output(0), int32_const(&graph, &[], &[0])?)
        .build(&graph)?
        .output(0);
    let var_refs: Vec<&Variable> = vars.iter().collect();
    let train = Optimizer::gradient_descent(LEARNING_RATE).minimize(&loss, &var_refs)?;
    let init = global_variables_initializer(&graph)?;

    let images = load::<f32, 4>(dir, "x.f32", BATCHES * BATCH * 64, f32::from_le_bytes);
    let classes = load::<i32, 4>(dir, "labels.i32", BATCHES * BATCH, i32::from_le_bytes);
    let session = Session::new(&graph)?;
    session.run(&[], &[], &[init])?;
    for step in 0..steps {
        let first = step % BATCHES * BATCH;
        let x_batch = Tensor::new(
            &[BATCH as i64, 64],
            &images[first * 64..(first + BATCH) * 64],
        )?;
        let label_batch = Tensor::new(&[BATCH as i64], &classes[first..first + BATCH])?;
        let feeds = [(x.output(0), &x_batch), (labels.output(0), &label_batch)];
        let value = session.run(&feeds, &[loss.clone()], &[train.clone()])?[0].data::<f32>()?[0];
        println!("{} {:08x} {}", step, value.to_bits(), Precision9(value));
    }
    Ok(())
}

/// `%.9g` as C's printf writes it: 9 significant digits, trailing zeros dropped.
struct Precision9(f32);

impl std::fmt::Display for Precision9 {
    fn fmt(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        let v = self.0 as f64;
        let scientific = format!("{:.8e}", v); // rounded once: its exponent decides the style
        let (mantissa, exp) = scientific.split_once('e').unwrap();
        let exp: i32 = exp.parse().unwrap();
        let trim = |t: &str| -> String {
            if t.contains('.') {
                t.trim_end_matches('0').trim_end_matches('.').to_string()
            } else {
                t.to_string()
            }
        };
        if (-4..9).contains(&exp) {
            write!(f, "{}", trim(&format!("{:.*}", (8 - exp) as usize, v)))
        } else {
            write!(
                f,
                "{}e{}{:02}",
                trim(mantissa),
                if exp < 0 { '-' } else { '+' },
                exp.abs()
            )
        }
    }
}
