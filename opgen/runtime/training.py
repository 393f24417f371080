"""Optimizers that apply gradients to ``opgen.Variable``s, as TensorFlow's
``tf.compat.v1.train`` optimizers do: exported as ``opgen.train.GradientDescentOptimizer``,
``MomentumOptimizer`` and ``AdamOptimizer``.

Why these and not Keras-style ones: opgen's Python API is TensorFlow's graph-and-session
one (``opgen.Variable`` with an ``initializer``, ``global_variables_initializer``,
``Session``) that also runs eagerly, and the ``tf.compat.v1.train`` optimizers are the
ones made for it: ``apply_gradients`` updates the variables at once eagerly and returns
the train op (a ``NoOp`` grouping the updates) in a graph, and each step is one fused
``ResourceApply*`` op per variable (Keras 3's optimizers compute the same step from many
small ops instead).

Slots (a momentum accumulator, Adam's ``m`` and ``v``) are zero-initialized
``opgen.Variable``s made on the first ``apply_gradients`` for a variable, named
``VAR/OPTIMIZER`` in a graph as TensorFlow names them; Adam's ``beta1_power`` and
``beta2_power`` are float32 variables, one pair per graph (or per optimizer eagerly).
In a graph the slots' initializers join ``global_variables_initializer()``, so run it
after building the train op, as with TensorFlow.

Hyperparameters given as Python numbers become float32 tensors (what TensorFlow's
conversion gives) and are cast to each variable's dtype, so float64 variables get the
same float32-rounded learning rate TensorFlow gives them; a tensor (or a variable, or
eagerly a callable returning one) is read at each step and cast likewise.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from opgen.runtime import dtypes, eager, graph_mode, training_sparse
from opgen.runtime import variables as variables_module
from opgen.runtime.graph import Graph, Operation, Output
from opgen.runtime.indexed_slices import IndexedSlices
from opgen.runtime.tensor import Tensor, _convert
from opgen.runtime.training_minimize import MinimizeMixin
from opgen.runtime.variables import Variable


class Optimizer(MinimizeMixin):
    """The base of the optimizers: slots, hyperparameters, ``apply_gradients`` (and
    ``compute_gradients`` / ``minimize`` from training_minimize.py).
    Subclasses name their op (`_apply`) and slots (`_create_slots`)."""

    def __init__(self, use_locking: bool, name: str) -> None:
        if not name:
            raise ValueError("Must specify the optimizer name")
        self._use_locking = bool(use_locking)
        self._name = name
        # slot name -> {id(variable): (variable, slot variable)}
        self._slots: dict[str, dict[int, tuple[Variable, Variable]]] = {}
        # (graph or None, name) -> a variable of the optimizer's own (Adam's beta powers)
        self._non_slot: dict[tuple[Graph | None, str], Variable] = {}
        self._eager_hyper: dict[tuple[str, dtypes.DType], Tensor] = {}
        self._graph_hyper: dict[tuple[str, dtypes.DType], Output] = {}
        self._scope = ""  # the name scope of the train op being built
        # Values a checkpoint restored before the variable was made (opgen.train.Checkpoint):
        # (slot name, id(variable)) -> (variable, value), and own variables by name.
        self._deferred_slots: dict[tuple[str, int], tuple[Variable, Any]] = {}
        self._deferred_non_slot: dict[str, Any] = {}

    def get_name(self) -> str:
        return self._name

    # ---- slots ----

    def get_slot_names(self) -> list[str]:
        """The names of the slots this optimizer makes ("momentum", "m", "v" ...)."""
        return sorted(self._slots)

    def get_slot(self, var: Variable, name: str) -> Variable | None:
        """The slot `name` of `var`; None before the first step that made it."""
        entry = self._slots.get(name, {}).get(id(var))
        return entry[1] if entry is not None and entry[0] is var else None

    def variables(self) -> list[Variable]:
        """The variables the optimizer made: its own (beta powers), then the slots."""
        own = [v for _, v in sorted(self._non_slot.items(), key=lambda kv: kv[0][1])]
        return own + [slot for name in sorted(self._slots)
                      for _, slot in self._slots[name].values()]

    def _zeros_slot(self, var: Variable, slot_name: str, op_name: str) -> Variable:
        return self._filled_slot(var, slot_name, op_name, 0)

    def _filled_slot(self, var: Variable, slot_name: str, op_name: str,
                     value: Any) -> Variable:
        """The slot `slot_name` of `var`, made (filled with `value` in `var`'s dtype, as
        TensorFlow's constant initializers) on first use."""
        table = self._slots.setdefault(slot_name, {})
        entry = table.get(id(var))
        if entry is not None and entry[0] is var:
            return entry[1]
        slot = _filled_like_variable(var, f"{_op_name(var)}/{op_name}", value)
        table[id(var)] = (var, slot)
        restored = self._deferred_slots.pop((slot_name, id(var)), None)
        if restored is not None and restored[0] is var:
            slot.assign(restored[1], read_value=False)
        return slot

    def _restore_slot(self, slot_name: str, var: Variable, value: Any) -> None:
        """Sets `var`'s slot `slot_name` to `value` now, or when the slot is made."""
        slot = self.get_slot(var, slot_name)
        if slot is not None:
            slot.assign(value, read_value=False)
        else:
            self._deferred_slots[(slot_name, id(var))] = (var, value)

    def _restore_non_slot(self, name: str, value: Any) -> None:
        """Sets the optimizer's own eager variable `name` now, or when it is made."""
        own = self._non_slot.get((None, name))
        if own is not None:
            own.assign(value, read_value=False)
        else:
            self._deferred_non_slot[name] = value

    def _non_slot_variable(self, graph: Graph | None, name: str, value: float) -> Variable:
        if variables_module.traced_eagerly(graph):
            graph = None  # eager variables' optimizer, traced: its own variables are eager
        key = (graph, name)
        if key not in self._non_slot:
            if graph is None:
                value = self._deferred_non_slot.pop(name, value)
                self._non_slot[key] = Variable(np.float32(value), name=name, trainable=False)
            else:
                with graph.as_default(), graph.name_scope(None):
                    self._non_slot[key] = Variable(np.float32(value), name=name,
                                                   trainable=False)
        return self._non_slot[key]

    def _create_slots(self, var_list: list[Variable]) -> None:
        """Makes the slots of `var_list` (a subclass's)."""

    # ---- hyperparameters ----

    def _hyper(self, name: str, value: Any, dtype: dtypes.DType,
               graph: Graph | None) -> Tensor | Output:
        """Hyperparameter `value` as a scalar of `dtype` (see the module docstring)."""
        if isinstance(value, (bool, int, float, np.generic, np.ndarray)):
            cache = self._eager_hyper if graph is None else self._graph_hyper
            key = (name, dtype)
            if key not in cache:
                array = np.asarray(value)
                if isinstance(value, (bool, int, float)):
                    array = np.float32(value)
                if graph is None:
                    cache[key] = _cast(_convert(array, None, False), dtype, None)
                else:  # at the train op's scope, before (not after) any update
                    with graph.control_dependencies(None), graph.name_scope(self._scope):
                        const = graph.create_op(
                            "Const", [], {"dtype": dtypes.as_dtype(array.dtype), "value": array},
                            name=name)
                        cache[key] = _cast(const.outputs[0], dtype, graph)
            return cache[key]
        if callable(value) and not isinstance(value, (Variable, Tensor, Output)):
            value = value()
        if isinstance(value, Variable):
            value = value.read_value()
        if graph is None and not isinstance(value, Tensor):
            value = _convert(value, None, False)
        return _cast(value, dtype, graph)

    # ---- applying ----

    def _apply(self, grad: Any, var: Variable, graph: Graph | None) -> Any:
        """Runs (eagerly) or builds (in `graph`) the update of `var` by `grad`."""
        raise NotImplementedError

    def _apply_sparse_duplicate_indices(self, values: Any, indices: Any, var: Variable,
                                        graph: Graph | None) -> Any:
        """The update of `var`'s rows `indices` by `values` (an IndexedSlices gradient):
        as TensorFlow, the rows of a repeated index are summed first."""
        values, indices = training_sparse.deduplicate(values, indices, graph)
        return self._apply_sparse(values, indices, var, graph)

    def _apply_sparse(self, values: Any, indices: Any, var: Variable,
                      graph: Graph | None) -> Any:
        """The update of `var`'s rows `indices` (unique) by `values`."""
        raise NotImplementedError(f"{type(self).__name__} takes no IndexedSlices gradients")

    def _apply_one(self, grad: Any, var: Variable, graph: Graph | None) -> Any:
        if isinstance(grad, IndexedSlices):
            values = _gradient(grad.values, var, graph)
            indices = training_sparse.checked_indices(grad.indices, var, graph)
            return self._apply_sparse_duplicate_indices(values, indices, var, graph)
        return self._apply(_gradient(grad, var, graph), var, graph)

    def _finish(self, var_list: list[Variable], updates: list[Any],
                graph: Graph | None) -> list[Any]:
        """What runs after every variable's update (Adam's beta powers): the ops built."""
        return []

    def apply_gradients(self, grads_and_vars: Any, global_step: Variable | None = None,
                        name: str | None = None) -> Operation | None:
        """Applies each gradient to its variable: `grads_and_vars` is a list of
        (gradient, Variable) pairs; a None gradient leaves its variable alone. Gradients
        are tensors, numpy data or Python values of the variable's dtype and shape, or
        `IndexedSlices` of some rows (applied through the optimizer's sparse update).
        `global_step` (an integer Variable), when given, is incremented after the updates.

        Eagerly the variables are updated at once and None is returned. In a graph
        (variables of one graph) the train op is returned: a NoOp named `name` (the
        optimizer's name by default) that runs every update (and the increment)."""
        pairs = list(grads_and_vars)
        if not pairs:
            raise ValueError("No variables provided.")
        checked = []
        for grad, var in pairs:
            if not isinstance(var, Variable):
                raise TypeError(f"apply_gradients takes (gradient, opgen.Variable) pairs; got a "
                                f"{type(var).__name__} for a variable")
            if grad is not None:
                checked.append((grad, var))
        if not checked:
            raise ValueError("No gradients provided for any variable: "
                             f"{[var.name for _, var in pairs]}.")
        graphs = {var.graph for _, var in checked}
        if len(graphs) > 1:
            raise ValueError("apply_gradients takes variables of one graph, or eager ones only")
        graph = graphs.pop()
        if graph is None:  # eager variables updated by a function being traced: in its body
            body = graph_mode._thread_graph()
            graph = body if variables_module.traced_eagerly(body) else None
        var_list = [var for _, var in checked]
        self._create_slots(var_list)
        if graph is None:
            for grad, var in checked:
                self._apply_one(grad, var, None)
            self._finish(var_list, [], None)
            if global_step is not None:
                global_step.assign_add(1, read_value=False)
            return None
        with graph.as_default(), graph.name_scope(name or self._name) as scope:
            self._graph_hyper = {}  # one set of hyperparameter nodes per train op
            self._scope = scope
            updates = []
            for grad, var in checked:
                with graph.name_scope("update_" + _op_name(var).replace("/", "_")):
                    updates.append(self._apply_one(grad, var, graph))
            finish = self._finish(var_list, updates, graph)
            deps = updates + finish
            if global_step is not None:
                with graph.control_dependencies(deps):
                    deps = [global_step.assign_add(1, read_value=False)]
        return graph.create_op("NoOp", [], {}, name=scope, control_inputs=deps)

    def _run(self, op_type: str, inputs: list[Any], attrs: dict[str, Any],
             graph: Graph | None) -> Any:
        return training_sparse.run(op_type, inputs, attrs, graph)


class GradientDescentOptimizer(Optimizer):
    """``var -= learning_rate * gradient`` (ResourceApplyGradientDescent)."""

    def __init__(self, learning_rate: Any, use_locking: bool = False,
                 name: str = "GradientDescent") -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate

    def _apply(self, grad: Any, var: Variable, graph: Graph | None) -> Any:
        lr = self._hyper("learning_rate", self._learning_rate, var.dtype, graph)
        return self._run("ResourceApplyGradientDescent", [var.handle, lr, grad],
                         {"use_locking": self._use_locking}, graph)

    def _apply_sparse_duplicate_indices(self, values: Any, indices: Any, var: Variable,
                                        graph: Graph | None) -> Any:
        # TensorFlow scatter-adds -grad * lr (repeated indices add up by themselves).
        lr = self._hyper("learning_rate", self._learning_rate, var.dtype, graph)
        delta = training_sparse.run1(
            "Mul", [training_sparse.run1("Neg", [values], graph), lr], graph)
        return self._run("ResourceScatterAdd", [var.handle, indices, delta], {}, graph)


class MomentumOptimizer(Optimizer):
    """``accum = momentum * accum + gradient; var -= learning_rate * accum``, or with
    ``use_nesterov`` ``var -= learning_rate * (gradient + momentum * accum)``
    (ResourceApplyMomentum). The slot ``"momentum"`` is the accumulator."""

    def __init__(self, learning_rate: Any, momentum: Any, use_locking: bool = False,
                 name: str = "Momentum", use_nesterov: bool = False) -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._momentum = momentum
        self._use_nesterov = bool(use_nesterov)

    def _create_slots(self, var_list: list[Variable]) -> None:
        for var in var_list:
            self._zeros_slot(var, "momentum", self._name)

    def _apply(self, grad: Any, var: Variable, graph: Graph | None) -> Any:
        accum = self.get_slot(var, "momentum")
        assert accum is not None  # made by _create_slots
        return self._run(
            "ResourceApplyMomentum",
            [var.handle, accum.handle,
             self._hyper("learning_rate", self._learning_rate, var.dtype, graph), grad,
             self._hyper("momentum", self._momentum, var.dtype, graph)],
            {"use_locking": self._use_locking, "use_nesterov": self._use_nesterov}, graph)

    def _apply_sparse(self, values: Any, indices: Any, var: Variable,
                      graph: Graph | None) -> Any:
        accum = self.get_slot(var, "momentum")
        assert accum is not None  # made by _create_slots
        return self._run(
            "ResourceSparseApplyMomentum",
            [var.handle, accum.handle,
             self._hyper("learning_rate", self._learning_rate, var.dtype, graph), values,
             indices, self._hyper("momentum", self._momentum, var.dtype, graph)],
            {"use_locking": self._use_locking, "use_nesterov": self._use_nesterov}, graph)


class AdamOptimizer(Optimizer):
    """Adam (Kingma and Ba), as ResourceApplyAdam computes it: with
    ``lr_t = learning_rate * sqrt(1 - beta2^t) / (1 - beta1^t)``,
    ``m = beta1 * m + (1 - beta1) * g``, ``v = beta2 * v + (1 - beta2) * g^2`` and
    ``var -= lr_t * m / (sqrt(v) + epsilon)`` (epsilon outside the root, the paper's
    "epsilon hat"). Slots ``"m"`` and ``"v"``; ``beta1^t`` and ``beta2^t`` are the
    optimizer's variables ``beta1_power`` and ``beta2_power``, multiplied by beta1 and
    beta2 after each step's updates."""

    def __init__(self, learning_rate: Any = 0.001, beta1: Any = 0.9, beta2: Any = 0.999,
                 epsilon: Any = 1e-8, use_locking: bool = False, name: str = "Adam") -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._beta1 = beta1
        self._beta2 = beta2
        self._epsilon = epsilon

    def _beta_powers(self, graph: Graph | None) -> tuple[Variable, Variable]:
        return (self._non_slot_variable(graph, "beta1_power", _python_value(self._beta1)),
                self._non_slot_variable(graph, "beta2_power", _python_value(self._beta2)))

    def _create_slots(self, var_list: list[Variable]) -> None:
        # TensorFlow makes the beta powers before the slots (with the first variable).
        self._beta_powers(var_list[0].graph)
        for var in var_list:
            self._zeros_slot(var, "m", self._name)
            self._zeros_slot(var, "v", self._name + "_1")

    def _apply(self, grad: Any, var: Variable, graph: Graph | None) -> Any:
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        assert m is not None and v is not None  # made by _create_slots
        beta1_power, beta2_power = self._beta_powers(graph)
        dtype = var.dtype
        return self._run(
            "ResourceApplyAdam",
            [var.handle, m.handle, v.handle,
             _cast(beta1_power.read_value(), dtype, graph),
             _cast(beta2_power.read_value(), dtype, graph),
             self._hyper("learning_rate", self._learning_rate, dtype, graph),
             self._hyper("beta1", self._beta1, dtype, graph),
             self._hyper("beta2", self._beta2, dtype, graph),
             self._hyper("epsilon", self._epsilon, dtype, graph), grad],
            {"use_locking": self._use_locking}, graph)

    def _apply_sparse(self, values: Any, indices: Any, var: Variable,
                      graph: Graph | None) -> Any:
        # No fused op in TensorFlow either: composed of ordinary ops, as it does.
        m, v = self.get_slot(var, "m"), self.get_slot(var, "v")
        beta1_power, beta2_power = self._beta_powers(graph)
        dtype = var.dtype
        deps = training_sparse.adam_sparse(
            var, m, v, _cast(beta1_power.read_value(), dtype, graph),
            _cast(beta2_power.read_value(), dtype, graph),
            self._hyper("learning_rate", self._learning_rate, dtype, graph),
            self._hyper("beta1", self._beta1, dtype, graph),
            self._hyper("beta2", self._beta2, dtype, graph),
            self._hyper("epsilon", self._epsilon, dtype, graph), values, indices, graph,
            self._use_locking)
        if graph is None:
            return None
        return graph.create_op("NoOp", [], {}, name="group_deps", control_inputs=deps)

    def _finish(self, var_list: list[Variable], updates: list[Any],
                graph: Graph | None) -> list[Any]:
        beta1_power, beta2_power = self._beta_powers(graph)
        beta1 = self._hyper("beta1", self._beta1, dtypes.float32, graph)
        beta2 = self._hyper("beta2", self._beta2, dtypes.float32, graph)
        if graph is None:
            beta1_power.assign(beta1_power.read_value() * beta1, read_value=False)
            beta2_power.assign(beta2_power.read_value() * beta2, read_value=False)
            return []
        with graph.control_dependencies(updates), graph.name_scope("update"):
            return [beta1_power.assign(beta1_power.read_value() * beta1, read_value=False),
                    beta2_power.assign(beta2_power.read_value() * beta2, read_value=False)]


# ---- helpers ----

def _op_name(var: Variable) -> str:
    """The variable's name without ":0" ("dense/kernel")."""
    return var.name.rsplit(":", 1)[0]


def _python_value(value: Any) -> float:
    """A beta given as a number (the initial value of its power variable)."""
    if isinstance(value, (bool, int, float, np.generic, np.ndarray)):
        return float(np.float32(value))
    raise TypeError("AdamOptimizer's beta1 and beta2 must be numbers (they start the "
                    "beta-power variables)")


def _cast(value: Any, dtype: dtypes.DType, graph: Graph | None) -> Any:
    """`value` (a Tensor, or an Output of `graph`) as `dtype`: a Cast op when it differs."""
    if value.dtype == dtype:
        return value
    attrs = {"DstT": dtype}
    if graph is None:
        return eager.execute_eager("Cast", [value], attrs)[0]
    return graph_mode.build_op(graph, "Cast", [value], attrs)[0]


def _gradient(grad: Any, var: Variable, graph: Graph | None) -> Any:
    """`grad` checked against `var`'s dtype (a Python value converts to it); `graph` is
    where the update is built (`var`'s graph, or the function body being traced)."""
    if isinstance(grad, Variable):
        grad = grad.value()
    if isinstance(grad, Output):
        if graph is None or grad.graph is not graph:
            raise ValueError(f"the gradient of variable '{var.name}' is an Output of another "
                             "graph")
        if grad.dtype != var.dtype:
            raise TypeError(f"the gradient of variable '{var.name}' ({var.dtype.name}) is "
                            f"{grad.dtype.name}")
        return grad
    try:
        return _convert(grad, var.dtype, True)
    except Exception as e:  # noqa: BLE001 - re-raised naming the variable
        raise type(e)(f"the gradient of variable '{var.name}' ({var.dtype.name}): {e}") from None


def _filled_like_variable(var: Variable, name: str, value: Any) -> Variable:
    """A variable of `var`'s dtype and shape filled with `value`, eager or in `var`'s
    graph (at its root scope, as TensorFlow places slots)."""
    shape = var.shape
    graph = var.graph
    if shape is not None and all(d is not None for d in shape):
        numpy_dtype = var.dtype.numpy_dtype
        filled: Any = np.full(shape, value, numpy_dtype if numpy_dtype is not None
                              else np.float32)
        if graph is None:
            return Variable(filled, dtype=var.dtype, name=name, trainable=False)
        with graph.as_default(), graph.name_scope(None):
            return Variable(filled, dtype=var.dtype, name=name, trainable=False)
    assert graph is not None  # an eager variable's shape is known
    with graph.as_default(), graph.name_scope(None):
        filled = graph_mode.build_op(graph, "ZerosLike", [var.initial_value], {})[0]
        if value:
            filled = graph_mode.build_op(
                graph, "AddV2", [filled, np.asarray(value, var.dtype.numpy_dtype)], {})[0]
        return Variable(filled, name=name, trainable=False)


__all__ = ["AdamOptimizer", "GradientDescentOptimizer", "MomentumOptimizer", "Optimizer"]
