"""What the gradient-and-optimizer programs in C++ (examples/cpp/train_example.cc), Rust
and Go print, "what: values" a line, and what they must equal: the loss and gradients of
a linear regression y = X w + b under the mean squared error as numpy computes them, and
the losses of 20 steps of each optimizer exactly as Python's opgen.gradients and
opgen.train give them for the same graph and initial values (same runtime, same ops)."""

from __future__ import annotations

import numpy as np

from variable_programs import parse

X = np.float32([[1, 2], [-1, 0.5], [0.5, -2], [2, 1]])
Y = np.float32([[1], [0], [-2], [3]])
W0 = np.float32([[0.1], [-0.2]])
B0 = np.float32([0])
STEPS = 20
#: optimizer -> (opgen.train class name, constructor arguments), as the programs make them
OPTIMIZERS = {"sgd": ("GradientDescentOptimizer", (0.1,)),
              "momentum": ("MomentumOptimizer", (0.05, 0.9)),
              "adam": ("AdamOptimizer", (0.1,))}


def numpy_loss_and_gradients() -> tuple[float, np.ndarray, np.ndarray]:
    r = X @ W0 + B0 - Y
    n = r.size
    return float(np.mean(r * r)), (2 / n) * (X.T @ r).ravel(), np.float32([2 / n * r.sum()])


def python_losses(kind: str) -> list[np.float32]:
    """The loss before each of STEPS steps and after the last, by opgen's Python API."""
    import opgen
    import opgen.train
    from opgen import ops

    g = opgen.Graph()
    with g.as_default():
        w = opgen.Variable(W0, name="w")
        b = opgen.Variable(B0, name="b")
        pred = ops.add_v2(ops.mat_mul(X, w.read_value()), b.read_value())
        loss = ops.mean(ops.square(ops.sub(pred, Y)), np.int32([0, 1]))
        grads = opgen.gradients(loss, [w, b])
        cls, args = OPTIMIZERS[kind]
        train = getattr(opgen.train, cls)(*args).apply_gradients(zip(grads, [w, b]))
        init = opgen.global_variables_initializer()
    losses = []
    with opgen.Session(g) as sess:
        sess.run(init)
        for _ in range(STEPS):
            losses.append(np.float32(sess.run(loss)))
            sess.run(train)
        losses.append(np.float32(sess.run(loss)))
    return losses


def check(stdout: str, opgen_runtime: bool = True) -> dict[str, str]:
    """Asserts the gradients (numpy) and, on opgen's runtime, the losses (exactly Python's);
    returns the lines for the error checks of each language."""
    lines = parse(stdout)
    loss, grad_w, grad_b = numpy_loss_and_gradients()
    np.testing.assert_allclose(float(lines["loss"]), loss, rtol=1e-6)
    np.testing.assert_allclose([float(v) for v in lines["grad_w"].split()], grad_w, rtol=1e-6)
    np.testing.assert_allclose([float(v) for v in lines["grad_b"].split()], grad_b, rtol=1e-6)
    for kind in OPTIMIZERS:
        printed = [np.float32(v) for v in lines[kind].split()]
        assert len(printed) == STEPS + 1, lines[kind]
        assert printed[-1] < printed[0], kind                 # it trains
        if opgen_runtime:
            assert printed == python_losses(kind), kind       # bit for bit
    return lines
