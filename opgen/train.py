"""``opgen.train``: what ``tf.compat.v1.train`` offers, as far as opgen has it:
checkpoints (:mod:`opgen.runtime.checkpoint`)::

    saver = opgen.train.Saver([v])
    saver.restore(None, saver.save(None, "/tmp/model/ckpt"))
"""

from __future__ import annotations

from opgen.runtime.checkpoint import Saver, latest_checkpoint

__all__ = ["Saver", "latest_checkpoint"]
