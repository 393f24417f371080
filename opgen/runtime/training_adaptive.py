"""The other ``tf.compat.v1.train`` optimizers, on the runtime's fused update ops (one
``ResourceApply*`` per variable, ``ResourceSparseApply*`` for an ``IndexedSlices``
gradient): Adagrad, Adadelta, RMSProp (plain and centered), Ftrl (and FtrlV2 with
l2 shrinkage), ProximalAdagrad and ProximalGradientDescent. Their constructors,
defaults, slot names and argument checks are TensorFlow's; the base class
(:class:`opgen.runtime.training.Optimizer`) gives slots, hyperparameters and
``apply_gradients``. Exported as ``opgen.train.AdagradOptimizer`` and so on."""

from __future__ import annotations

from typing import Any

import numpy as np

from opgen.runtime import dtypes
from opgen.runtime.graph import Graph
from opgen.runtime.training import Optimizer
from opgen.runtime.training_sparse import run1
from opgen.runtime.variables import Variable


def _is_number(value: Any) -> bool:
    return isinstance(value, (bool, int, float, np.generic, np.ndarray))


class _FusedOptimizer(Optimizer):
    """An optimizer whose dense and sparse steps are one op each: `_DENSE` and `_SPARSE`
    name them, `_slot_inputs` gives the slot handles and `_hyper_inputs` the
    hyperparameters, in the op's order (the sparse op takes the gradient's indices right
    after its values)."""

    _DENSE = _SPARSE = ""
    _GRAD_FIRST = False  # Ftrl takes the gradient before the hyperparameters

    def _slot_inputs(self, var: Variable) -> list[Any]:
        return []

    def _hyper_inputs(self, var: Variable, graph: Graph | None) -> list[Any]:
        raise NotImplementedError

    def _op(self, var: Variable) -> tuple[str, str]:
        return self._DENSE, self._SPARSE

    def _step(self, op_type: str, grad: list[Any], var: Variable,
              graph: Graph | None) -> Any:
        head = [var.handle] + self._slot_inputs(var)
        hypers = self._hyper_inputs(var, graph)
        inputs = head + grad + hypers if self._GRAD_FIRST else head + hypers + grad
        return self._run(op_type, inputs, {"use_locking": self._use_locking}, graph)

    def _apply(self, grad: Any, var: Variable, graph: Graph | None) -> Any:
        return self._step(self._op(var)[0], [grad], var, graph)

    def _apply_sparse(self, values: Any, indices: Any, var: Variable,
                      graph: Graph | None) -> Any:
        return self._step(self._op(var)[1], [values, indices], var, graph)

    def _slot(self, var: Variable, name: str) -> Any:
        slot = self.get_slot(var, name)
        assert slot is not None  # made by _create_slots
        return slot.handle


def _check_positive_accumulator(value: Any) -> None:
    if _is_number(value) and value <= 0.0:
        raise ValueError(f"initial_accumulator_value must be positive: {value}")


class _AccumulatorOptimizer(_FusedOptimizer):
    """Adagrad's and ProximalAdagrad's one slot, ``"accumulator"``, which starts at
    `initial_accumulator_value` (positive, as TensorFlow checks)."""

    def __init__(self, learning_rate: Any, initial_accumulator_value: Any,
                 use_locking: bool, name: str) -> None:
        _check_positive_accumulator(initial_accumulator_value)
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._initial_accumulator_value = initial_accumulator_value

    def _create_slots(self, var_list: list[Variable]) -> None:
        for var in var_list:
            self._filled_slot(var, "accumulator", self._name,
                              self._initial_accumulator_value)

    def _slot_inputs(self, var: Variable) -> list[Any]:
        return [self._slot(var, "accumulator")]


class AdagradOptimizer(_AccumulatorOptimizer):
    """``accum += grad^2; var -= learning_rate * grad / sqrt(accum)`` (ResourceApplyAdagrad).
    The slot ``"accumulator"`` starts at `initial_accumulator_value`."""

    _DENSE, _SPARSE = "ResourceApplyAdagrad", "ResourceSparseApplyAdagrad"

    def __init__(self, learning_rate: Any, initial_accumulator_value: Any = 0.1,
                 use_locking: bool = False, name: str = "Adagrad") -> None:
        super().__init__(learning_rate, initial_accumulator_value, use_locking, name)

    def _hyper_inputs(self, var: Variable, graph: Graph | None) -> list[Any]:
        return [self._hyper("learning_rate", self._learning_rate, var.dtype, graph)]


class AdadeltaOptimizer(_FusedOptimizer):
    """Adadelta (Zeiler), ResourceApplyAdadelta: slots ``"accum"`` (of squared gradients)
    and ``"accum_update"`` (of squared updates)."""

    _DENSE, _SPARSE = "ResourceApplyAdadelta", "ResourceSparseApplyAdadelta"

    def __init__(self, learning_rate: Any = 0.001, rho: Any = 0.95, epsilon: Any = 1e-8,
                 use_locking: bool = False, name: str = "Adadelta") -> None:
        super().__init__(use_locking, name)
        self._lr, self._rho, self._epsilon = learning_rate, rho, epsilon

    def _create_slots(self, var_list: list[Variable]) -> None:
        for var in var_list:
            self._zeros_slot(var, "accum", self._name)
            self._zeros_slot(var, "accum_update", self._name + "_1")

    def _slot_inputs(self, var: Variable) -> list[Any]:
        return [self._slot(var, "accum"), self._slot(var, "accum_update")]

    def _hyper_inputs(self, var: Variable, graph: Graph | None) -> list[Any]:
        return [self._hyper("lr", self._lr, var.dtype, graph),
                self._hyper("rho", self._rho, var.dtype, graph),
                self._hyper("epsilon", self._epsilon, var.dtype, graph)]


class RMSPropOptimizer(_FusedOptimizer):
    """RMSProp (ResourceApplyRMSProp; with ``centered``, ResourceApplyCenteredRMSProp,
    which also subtracts the squared mean gradient). Slots ``"rms"`` (starting at ones),
    ``"momentum"`` and, centered, ``"mg"``."""

    def __init__(self, learning_rate: Any, decay: Any = 0.9, momentum: Any = 0.0,
                 epsilon: Any = 1e-10, use_locking: bool = False, centered: bool = False,
                 name: str = "RMSProp") -> None:
        super().__init__(use_locking, name)
        self._learning_rate, self._decay = learning_rate, decay
        self._momentum, self._epsilon = momentum, epsilon
        self._centered = bool(centered)

    def _op(self, var: Variable) -> tuple[str, str]:
        if self._centered:
            return "ResourceApplyCenteredRMSProp", "ResourceSparseApplyCenteredRMSProp"
        return "ResourceApplyRMSProp", "ResourceSparseApplyRMSProp"

    def _create_slots(self, var_list: list[Variable]) -> None:
        # TensorFlow's order, which numbers the graph names: rms, mg, momentum.
        for var in var_list:
            self._filled_slot(var, "rms", self._name, 1)
            if self._centered:
                self._zeros_slot(var, "mg", self._name + "_1")
            self._zeros_slot(var, "momentum", self._name + ("_2" if self._centered else "_1"))

    def _slot_inputs(self, var: Variable) -> list[Any]:
        mg = [self._slot(var, "mg")] if self._centered else []
        return mg + [self._slot(var, "rms"), self._slot(var, "momentum")]

    def _hyper_inputs(self, var: Variable, graph: Graph | None) -> list[Any]:
        return [self._hyper("learning_rate", self._learning_rate, var.dtype, graph),
                self._hyper("decay", self._decay, var.dtype, graph),
                self._hyper("momentum", self._momentum, var.dtype, graph),
                self._hyper("epsilon", self._epsilon, var.dtype, graph)]


class ProximalAdagradOptimizer(_AccumulatorOptimizer):
    """Adagrad with l1/l2 regularization by the proximal step
    (ResourceApplyProximalAdagrad); slot ``"accumulator"``."""

    _DENSE, _SPARSE = "ResourceApplyProximalAdagrad", "ResourceSparseApplyProximalAdagrad"

    def __init__(self, learning_rate: Any, initial_accumulator_value: Any = 0.1,
                 l1_regularization_strength: Any = 0.0, l2_regularization_strength: Any = 0.0,
                 use_locking: bool = False, name: str = "ProximalAdagrad") -> None:
        super().__init__(learning_rate, initial_accumulator_value, use_locking, name)
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength

    def _hyper_inputs(self, var: Variable, graph: Graph | None) -> list[Any]:
        return [self._hyper("learning_rate", self._learning_rate, var.dtype, graph),
                self._hyper("l1_regularization_strength", self._l1, var.dtype, graph),
                self._hyper("l2_regularization_strength", self._l2, var.dtype, graph)]


class ProximalGradientDescentOptimizer(_FusedOptimizer):
    """Gradient descent with l1/l2 regularization by the proximal step
    (ResourceApplyProximalGradientDescent); no slots."""

    _DENSE = "ResourceApplyProximalGradientDescent"
    _SPARSE = "ResourceSparseApplyProximalGradientDescent"

    def __init__(self, learning_rate: Any, l1_regularization_strength: Any = 0.0,
                 l2_regularization_strength: Any = 0.0, use_locking: bool = False,
                 name: str = "ProximalGradientDescent") -> None:
        super().__init__(use_locking, name)
        self._learning_rate = learning_rate
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength

    def _hyper_inputs(self, var: Variable, graph: Graph | None) -> list[Any]:
        return [self._hyper("learning_rate", self._learning_rate, var.dtype, graph),
                self._hyper("l1_regularization_strength", self._l1, var.dtype, graph),
                self._hyper("l2_regularization_strength", self._l2, var.dtype, graph)]


class FtrlOptimizer(_FusedOptimizer):
    """FTRL-Proximal (McMahan et al.), ResourceApplyFtrl, or ResourceApplyFtrlV2 when
    ``l2_shrinkage_regularization_strength`` is positive. Slots ``"accum"`` (starting at
    `initial_accumulator_value`) and ``"linear"``; `beta` adds ``beta / (2 *
    learning_rate)`` to the l2 strength, as TensorFlow does."""

    _GRAD_FIRST = True

    def __init__(self, learning_rate: Any, learning_rate_power: Any = -0.5,
                 initial_accumulator_value: Any = 0.1, l1_regularization_strength: Any = 0.0,
                 l2_regularization_strength: Any = 0.0, use_locking: bool = False,
                 name: str = "Ftrl", accum_name: str | None = None,
                 linear_name: str | None = None,
                 l2_shrinkage_regularization_strength: Any = 0.0, beta: Any = None) -> None:
        super().__init__(use_locking, name)
        for value, what in ((initial_accumulator_value, "initial_accumulator_value"),
                            (l1_regularization_strength, "l1_regularization_strength"),
                            (l2_regularization_strength, "l2_regularization_strength"),
                            (l2_shrinkage_regularization_strength,
                             "l2_shrinkage_regularization_strength")):
            if _is_number(value) and value < 0.0:
                raise ValueError(f"{what} {value:f} needs to be positive or zero")
        if _is_number(learning_rate_power) and learning_rate_power > 0.0:
            raise ValueError(f"learning_rate_power {learning_rate_power:f} needs to be "
                             "negative or zero")
        self._learning_rate = learning_rate
        self._learning_rate_power = learning_rate_power
        self._initial_accumulator_value = initial_accumulator_value
        self._l1 = l1_regularization_strength
        self._l2 = l2_regularization_strength
        self._l2_shrinkage = l2_shrinkage_regularization_strength
        self._beta = 0.0 if beta is None else beta
        self._accum_name, self._linear_name = accum_name, linear_name

    def _op(self, var: Variable) -> tuple[str, str]:
        # TensorFlow picks the op by the Python value (a tensor here means V2).
        if _is_number(self._l2_shrinkage) and self._l2_shrinkage <= 0.0:
            return "ResourceApplyFtrl", "ResourceSparseApplyFtrl"
        return "ResourceApplyFtrlV2", "ResourceSparseApplyFtrlV2"

    def _create_slots(self, var_list: list[Variable]) -> None:
        accum = self._accum_name or self._name
        linear = self._linear_name or self._name
        if linear == accum:  # the graph would number the second one
            linear += "_1"
        for var in var_list:
            self._filled_slot(var, "accum", accum, self._initial_accumulator_value)
            self._zeros_slot(var, "linear", linear)

    def _slot_inputs(self, var: Variable) -> list[Any]:
        return [self._slot(var, "accum"), self._slot(var, "linear")]

    def _hyper_inputs(self, var: Variable, graph: Graph | None) -> list[Any]:
        dtype = var.dtype
        shrinkage = ([self._hyper("l2_shrinkage_regularization_strength", self._l2_shrinkage,
                                  dtype, graph)]
                     if self._op(var)[0].endswith("V2") else [])
        return ([self._hyper("learning_rate", self._learning_rate, dtype, graph),
                 self._hyper("l1_regularization_strength", self._l1, dtype, graph),
                 self._adjusted_l2(dtype, graph)] + shrinkage
                + [self._hyper("learning_rate_power", self._learning_rate_power, dtype, graph)])

    def _adjusted_l2(self, dtype: dtypes.DType, graph: Graph | None) -> Any:
        """``l2 + beta / (2 * max(learning_rate, 1e-36))``, in float32 as TensorFlow
        computes it, cast to `dtype`."""
        name = "adjusted_l2_regularization_strength"
        if _is_number(self._beta) and self._beta == 0:
            return self._hyper(name, self._l2, dtype, graph)
        if all(_is_number(x) for x in (self._l2, self._beta, self._learning_rate)):
            f32 = np.float32
            value = f32(self._l2) + f32(self._beta) / (
                f32(2.0) * np.maximum(f32(self._learning_rate), f32(1e-36)))
            return self._hyper(name, value, dtype, graph)
        single = dtypes.float32
        lr = run1("Maximum", [self._hyper("learning_rate", self._learning_rate, single, graph),
                              np.float32(1e-36)], graph)
        l2 = self._hyper("l2_regularization_strength", self._l2, single, graph)
        beta = self._hyper("beta", self._beta, single, graph)
        value = run1("AddV2", [l2, run1("RealDiv", [beta, run1("Mul", [np.float32(2.0), lr],
                                                                 graph)], graph)], graph)
        return value if dtype == single else run1("Cast", [value], graph, {"DstT": dtype})


__all__ = ["AdadeltaOptimizer", "AdagradOptimizer", "FtrlOptimizer",
           "ProximalAdagradOptimizer", "ProximalGradientDescentOptimizer", "RMSPropOptimizer"]
