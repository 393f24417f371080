"""``opgen.train``: optimizers, as ``tf.compat.v1.train`` has them (the implementation is
:mod:`opgen.runtime.training`)::

    opt = opgen.train.MomentumOptimizer(learning_rate=0.1, momentum=0.9)
    opt.apply_gradients([(grad, var)])         # eagerly: updates var now
    train_op = opt.apply_gradients(pairs)      # in a graph: the op a Session runs
"""

from __future__ import annotations

from opgen.runtime.training import (
    AdamOptimizer,
    GradientDescentOptimizer,
    MomentumOptimizer,
    Optimizer,
)

__all__ = ["AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "Optimizer"]
