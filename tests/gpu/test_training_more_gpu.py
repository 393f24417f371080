"""The TF1 fused optimizer ops (Adadelta ... PowerSign) on the GPU: variables and slots
made inside `opgen.device("/GPU:0")` stay there and a few steps give the CPU kernels'
numbers (the CPU kernels are compared with TensorFlow in
tests/python_runtime/test_training_ops_more.py)."""

from __future__ import annotations

import numpy as np
import pytest

import opgen
from opgen import ops
from opgen.langs.naming import snake_case

RNG = np.random.default_rng(17)

# op -> (slots, scalars in OpDef order, attrs, gradient input name)
OPS = {
    "ResourceApplyAdadelta": (["accum", "accum_update"],
                              {"lr": 1.0, "rho": 0.95, "epsilon": 1e-6}, {}, "grad"),
    "ResourceApplyAdagradV2": (["accum"], {"lr": 0.1, "epsilon": 0.01}, {}, "grad"),
    "ResourceApplyProximalAdagrad": (["accum"], {"lr": 0.1, "l1": 0.05, "l2": 0.2}, {}, "grad"),
    "ResourceApplyProximalGradientDescent": ([], {"alpha": 0.1, "l1": 0.05, "l2": 0.2}, {},
                                             "delta"),
    "ResourceApplyCenteredRMSProp": (["mg", "ms", "mom"], {"lr": 0.01, "rho": 0.9,
                                     "momentum": 0.5, "epsilon": 1e-6}, {}, "grad"),
    "ResourceApplyFtrl": (["accum", "linear"], {"lr": 0.1, "l1": 0.05, "l2": 0.1,
                          "lr_power": -0.3}, {"multiply_linear_by_lr": True}, "grad"),
    "ResourceApplyFtrlV2": (["accum", "linear"], {"lr": 0.1, "l1": 0.05, "l2": 0.1,
                            "l2_shrinkage": 0.05, "lr_power": -0.5}, {}, "grad"),
    "ResourceApplyAdaMax": (["m", "v"], {"beta1_power": 0.9, "lr": 0.01, "beta1": 0.9,
                            "beta2": 0.999, "epsilon": 1e-7}, {}, "grad"),
    "ResourceApplyAdamWithAmsgrad": (["m", "v", "vhat"], {"beta1_power": 0.9,
                                     "beta2_power": 0.999, "lr": 0.01, "beta1": 0.9,
                                     "beta2": 0.999, "epsilon": 1e-7}, {}, "grad"),
    "ResourceApplyAddSign": (["m"], {"lr": 0.1, "alpha": 1.0, "sign_decay": 0.5, "beta": 0.9},
                             {}, "grad"),
    "ResourceApplyPowerSign": (["m"], {"lr": 0.1, "logbase": 0.7, "sign_decay": 0.5,
                               "beta": 0.9}, {}, "grad"),
}


def _run(op, values, grads, dtype, device):
    slots, scalars, attrs, grad_name = OPS[op]
    with opgen.device(device):
        variables = [opgen.Variable(v) for v in values]
        for g in grads:
            kw = {n: v.handle for n, v in zip(["var", *slots], variables)}
            kw.update({k: dtype(x) for k, x in scalars.items()})
            kw[grad_name] = g
            getattr(ops, snake_case(op))(**kw, **attrs)
        assert device[1:4] in variables[0].read_value().device
        return [v.numpy() for v in variables]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("op", sorted(OPS))
def test_steps_on_the_gpu_match_the_cpu(op, dtype):
    shape = (64, 33)
    values = [RNG.uniform(-1, 1, shape).astype(dtype)]
    values += [RNG.uniform(0.1, 0.5, shape).astype(dtype) for _ in OPS[op][0]]
    grads = [RNG.uniform(-1, 1, shape).astype(dtype) for _ in range(3)]
    rtol = 2e-6 if dtype == np.float32 else 1e-13
    for gpu, cpu in zip(_run(op, values, grads, dtype, "/GPU:0"),
                        _run(op, values, grads, dtype, "/CPU:0")):
        np.testing.assert_allclose(gpu, cpu, rtol=rtol, atol=rtol)
