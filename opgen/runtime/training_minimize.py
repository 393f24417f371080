"""``compute_gradients`` and ``minimize`` of the ``opgen.train`` optimizers, as
``tf.compat.v1.train.Optimizer``'s: in a graph the gradients come from
``opgen.gradients`` (the runtime's ``TF_AddGradients``); eagerly `loss` is a callable
run under an ``opgen.GradientTape``. A variable read only through gathers (an
embedding table) gets an ``IndexedSlices`` there, as in TensorFlow, so ``minimize``
takes the sparse update path for it."""

from __future__ import annotations

from typing import Any

from opgen.runtime import graph_mode, variables
from opgen.runtime.backprop import GradientTape
from opgen.runtime.gradients_impl import gradients
from opgen.runtime.graph import Operation, Output
from opgen.runtime.variables import Variable

GATE_NONE, GATE_OP, GATE_GRAPH = 0, 1, 2


class MinimizeMixin:
    """The gradient half of a TF1 optimizer; the class mixing it in has
    ``apply_gradients``."""

    GATE_NONE, GATE_OP, GATE_GRAPH = GATE_NONE, GATE_OP, GATE_GRAPH

    def compute_gradients(self, loss: Any, var_list: Any = None,
                          gate_gradients: int = GATE_OP, aggregation_method: Any = None,
                          colocate_gradients_with_ops: bool = False,
                          grad_loss: Any = None) -> list[tuple[Any, Variable]]:
        """(gradient of `loss`, variable) for each variable of `var_list` (by default the
        trainable variables: of `loss`'s graph, or eagerly those `loss()` reads); a
        gradient is None where the loss does not depend on the variable.
        `aggregation_method` and `colocate_gradients_with_ops` are accepted and ignored."""
        if callable(loss) and not isinstance(loss, (Output, Variable)):
            body = graph_mode._thread_graph()
            if body is None or variables.traced_eagerly(body):  # eagerly, or traced from it
                return _eager_gradients(loss, var_list, grad_loss)
            loss = loss()
        if not isinstance(loss, Output):
            raise RuntimeError("`loss` passed to Optimizer.compute_gradients should be a "
                               "function when eager execution is enabled.")
        if gate_gradients not in (GATE_NONE, GATE_OP, GATE_GRAPH):
            raise ValueError("gate_gradients must be one of: Optimizer.GATE_NONE, "
                             f"Optimizer.GATE_OP, Optimizer.GATE_GRAPH.  Not {gate_gradients}")
        if var_list is None:
            var_list = [v for v in variables._graph_variables.get(loss.graph, [])
                        if v.trainable]
        else:
            var_list = list(var_list)
        if not var_list:
            raise ValueError("No variables to optimize.")
        grads = gradients(loss, var_list, None if grad_loss is None else [grad_loss])
        return list(zip(grads, var_list))

    def minimize(self, loss: Any, global_step: Variable | None = None, var_list: Any = None,
                 gate_gradients: int = GATE_OP, aggregation_method: Any = None,
                 colocate_gradients_with_ops: bool = False, name: str | None = None,
                 grad_loss: Any = None) -> Operation | None:
        """``compute_gradients`` then ``apply_gradients``: eagerly the step runs now
        (`loss` a callable) and None is returned; in a graph, the train op."""
        grads_and_vars = self.compute_gradients(
            loss, var_list=var_list, gate_gradients=gate_gradients,
            aggregation_method=aggregation_method,
            colocate_gradients_with_ops=colocate_gradients_with_ops, grad_loss=grad_loss)
        if all(g is None for g, _ in grads_and_vars):
            raise ValueError(
                "No gradients provided for any variable, check your graph for ops that do "
                f"not support gradients, between variables {[str(v) for _, v in grads_and_vars]}"
                f" and loss {loss}.")
        return self.apply_gradients(  # type: ignore[attr-defined]
            grads_and_vars, global_step=global_step, name=name)


def _eager_gradients(loss: Any, var_list: Any,
                     grad_loss: Any) -> list[tuple[Any, Variable]]:
    with GradientTape() as tape:
        if var_list is not None:
            var_list = list(var_list)
            for var in var_list:
                tape.watch(var)
        value = loss()
    if var_list is None:
        var_list = list(tape.watched_variables())
    if not var_list:
        raise ValueError("No variables to optimize.")
    grads = tape.gradient(value, var_list, None if grad_loss is None else [grad_loss])
    return list(zip(grads, var_list))


__all__ = ["GATE_GRAPH", "GATE_NONE", "GATE_OP", "MinimizeMixin"]
