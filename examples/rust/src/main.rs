//! Builds y = relu(x @ W + b) with the generated op builders, runs it in a session with
//! x fed, and prints y one row per line (the numbers of examples/c/graph_example.c).

use opgen_ops::{ops, DataType, Error, Graph, Session, Tensor};

fn main() -> Result<(), Error> {
    let x_values: [f32; 6] = [1.0, 2.0, 3.0, -4.0, 0.5, 6.0];
    let w_values: [f32; 12] = [0.5, -1.0, 2.0, 0.0, 1.0, 0.25, -0.5, 1.0, -1.0, 0.5, 1.0, 2.0];
    let b_values: [f32; 4] = [0.1, -0.2, 0.3, -4.0];

    let graph = Graph::new();
    // Any number of rows of 3 features.
    let x = ops::placeholder(DataType::Float).shape([-1, 3]).name("x").build(&graph)?;
    let w = ops::const_(Tensor::new(&[3, 4], &w_values)?, DataType::Float).name("W").build(&graph)?;
    let b = ops::const_(Tensor::new(&[4], &b_values)?, DataType::Float).name("b").build(&graph)?;
    let xw = ops::mat_mul(&x, &w).build(&graph)?;
    let pre = ops::bias_add(&xw, &b).build(&graph)?;
    let y = ops::relu(&pre).name("y").build(&graph)?;

    let session = Session::new(&graph)?;
    let x_tensor = Tensor::new(&[2, 3], &x_values)?;
    let result = session.run(&[(x.output(0), &x_tensor)], &[y.output(0)], &[])?;
    let y_tensor = &result[0];
    let columns = y_tensor.dims()[1] as usize;
    for row in y_tensor.data::<f32>()?.chunks(columns) {
        let cells: Vec<String> = row.iter().map(|v| format!("{:.6}", v)).collect();
        println!("{}", cells.join(" "));
    }
    Ok(())
}
