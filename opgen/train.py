"""``opgen.train``: what ``tf.compat.v1.train`` offers, as far as opgen has it: the
optimizers (:mod:`opgen.runtime.training`) and checkpoints
(:mod:`opgen.runtime.checkpoint`)::

    opt = opgen.train.MomentumOptimizer(learning_rate=0.1, momentum=0.9)
    opt.apply_gradients([(grad, var)])         # eagerly: updates var now
    train_op = opt.apply_gradients(pairs)      # in a graph: the op a Session runs
    opt.apply_gradients([(opgen.train.IndexedSlices(rows, indices), var)])  # sparse

    saver = opgen.train.Saver([v])
    saver.restore(None, saver.save(None, "/tmp/model/ckpt"))

    ckpt = opgen.train.Checkpoint(model=model, optimizer=opt)   # TensorFlow 2's format
    ckpt.restore(ckpt.save("/tmp/run/ckpt"))
"""

from __future__ import annotations

from opgen.runtime.checkpoint import Saver, latest_checkpoint
from opgen.runtime.indexed_slices import IndexedSlices
from opgen.runtime.object_checkpoint import Checkpoint, CheckpointManager
from opgen.runtime.training import (
    AdamOptimizer,
    GradientDescentOptimizer,
    MomentumOptimizer,
    Optimizer,
)
from opgen.runtime.training_adaptive import (
    AdadeltaOptimizer,
    AdagradOptimizer,
    FtrlOptimizer,
    ProximalAdagradOptimizer,
    ProximalGradientDescentOptimizer,
    RMSPropOptimizer,
)

__all__ = ["AdadeltaOptimizer", "AdagradOptimizer", "AdamOptimizer", "Checkpoint",
           "CheckpointManager", "FtrlOptimizer",
           "GradientDescentOptimizer", "IndexedSlices", "MomentumOptimizer", "Optimizer",
           "ProximalAdagradOptimizer", "ProximalGradientDescentOptimizer",
           "RMSPropOptimizer", "Saver", "latest_checkpoint"]
