// Part of opgen's Rust crate, the same for every OpList: `opgen generate --lang rust`
// copies this file unchanged. Do not edit the copy: regenerate instead.

//! Optimizers as Python's `opgen.train` (TensorFlow's `tf.compat.v1.train`) builds them in
//! a graph: [`Optimizer::apply_gradients`] returns the train op, a `NoOp` named after the
//! optimizer (`GradientDescent`, made unique) whose control inputs are one
//! `ResourceApply*` per variable (`<name>/update_<variable>/...`) and, for Adam, the
//! updates of `beta1_power` and `beta2_power` after them. Hyperparameters are float32
//! constants `<name>/<hyperparameter>`, cast for a variable of another dtype. Slots are
//! zero-initialized [`Variable`]s `<variable>/<name>` made on the first step built for a
//! variable; their initializers join [`global_variables_initializer`](crate::global_variables_initializer),
//! so build the train op first. Variables need a fully known float32 or float64 shape.

use std::collections::HashMap;

use crate::{AttrValue, DataType, Error, Graph, OpSpec, Operation, Output, Tensor, Variable};

#[derive(Debug, Clone, Copy)]
enum Rule {
    GradientDescent,
    Momentum {
        momentum: f32,
        use_nesterov: bool,
    },
    Adam {
        beta1: f32,
        beta2: f32,
        epsilon: f32,
    },
}

/// Gradient descent, momentum or Adam (see the [module documentation](self)); made by
/// [`Optimizer::gradient_descent`], [`Optimizer::momentum`] or [`Optimizer::adam`].
#[derive(Debug)]
pub struct Optimizer {
    name: String,
    learning_rate: f32,
    rule: Rule,
    use_locking: bool,
    /// (slot name, the variable's VarHandleOp name) -> the slot
    slots: HashMap<(String, String), Variable>,
    /// Adam's beta1_power and beta2_power (one graph per optimizer)
    powers: Option<(Variable, Variable)>,
    /// one set of hyperparameter constants per train op
    hyper: HashMap<(&'static str, DataType), Output>,
}

impl Optimizer {
    fn new(name: &str, learning_rate: f32, rule: Rule) -> Optimizer {
        Optimizer {
            name: name.to_string(),
            learning_rate,
            rule,
            use_locking: false,
            slots: HashMap::new(),
            powers: None,
            hyper: HashMap::new(),
        }
    }

    /// `var -= learning_rate * gradient` (ResourceApplyGradientDescent).
    pub fn gradient_descent(learning_rate: f32) -> Optimizer {
        Optimizer::new("GradientDescent", learning_rate, Rule::GradientDescent)
    }

    /// `accum = momentum * accum + gradient; var -= learning_rate * accum`
    /// (ResourceApplyMomentum; slot `momentum`, named `<var>/Momentum`).
    pub fn momentum(learning_rate: f32, momentum: f32) -> Optimizer {
        let rule = Rule::Momentum {
            momentum,
            use_nesterov: false,
        };
        Optimizer::new("Momentum", learning_rate, rule)
    }

    /// Adam with beta1 0.9, beta2 0.999, epsilon 1e-8 (see [`with_adam`](Self::with_adam)):
    /// ResourceApplyAdam, slots `m` (`<var>/Adam`) and `v` (`<var>/Adam_1`).
    pub fn adam(learning_rate: f32) -> Optimizer {
        let rule = Rule::Adam {
            beta1: 0.9,
            beta2: 0.999,
            epsilon: 1e-8,
        };
        Optimizer::new("Adam", learning_rate, rule)
    }

    /// Adam's beta1, beta2 and epsilon (an Adam optimizer only).
    pub fn with_adam(mut self, beta1: f32, beta2: f32, epsilon: f32) -> Optimizer {
        if let Rule::Adam { .. } = self.rule {
            self.rule = Rule::Adam {
                beta1,
                beta2,
                epsilon,
            };
        }
        self
    }

    /// Nesterov momentum (a momentum optimizer only).
    pub fn with_nesterov(mut self, use_nesterov: bool) -> Optimizer {
        if let Rule::Momentum { momentum, .. } = self.rule {
            self.rule = Rule::Momentum {
                momentum,
                use_nesterov,
            };
        }
        self
    }

    /// The train op's name (made unique) and the prefix of its operations.
    pub fn with_name(mut self, name: impl Into<String>) -> Optimizer {
        self.name = name.into();
        self
    }

    pub fn name(&self) -> &str {
        &self.name
    }

    /// The slot `slot` (`momentum`, `m`, `v`) of `var`, once a train op made it.
    pub fn slot(&self, var: &Variable, slot: &str) -> Option<&Variable> {
        self.slots.get(&(slot.to_string(), var.name().to_string()))
    }

    /// The gradients of `loss` with respect to `vars` ([`Graph::add_gradients`] over their
    /// handles), applied.
    pub fn minimize(&mut self, loss: &Output, vars: &[&Variable]) -> Result<Operation, Error> {
        let graph = loss.operation.graph().clone();
        let handles: Vec<Output> = vars.iter().map(|v| v.handle()).collect();
        let grads = graph.add_gradients(None, &[loss.clone()], &handles, None)?;
        let pairs: Vec<(Option<Output>, &Variable)> =
            grads.into_iter().zip(vars.iter().copied()).collect();
        self.apply_gradients(&pairs)
    }

    /// One step for each (gradient, variable) pair (a `None` gradient leaves its variable
    /// alone): the train op. Errors as Python's: no pairs, no gradient at all, a gradient
    /// of another dtype (`Code::InvalidArgument`).
    pub fn apply_gradients(
        &mut self,
        grads_and_vars: &[(Option<Output>, &Variable)],
    ) -> Result<Operation, Error> {
        if grads_and_vars.is_empty() {
            return Err(Error::invalid_argument("No variables provided."));
        }
        let mut checked = Vec::new();
        for (grad, var) in grads_and_vars {
            if let Some(grad) = grad {
                if grad.data_type() != Some(var.data_type()) {
                    let got = grad.data_type().map_or("unknown", |d| d.name());
                    return Err(Error::invalid_argument(format!(
                        "the gradient of variable '{}' ({}) is {}",
                        var.name(),
                        var.data_type().name(),
                        got
                    )));
                }
                checked.push((grad.clone(), *var));
            }
        }
        if checked.is_empty() {
            let names: Vec<String> = grads_and_vars
                .iter()
                .map(|(_, v)| format!("'{}'", v.name()))
                .collect();
            return Err(Error::invalid_argument(format!(
                "No gradients provided for any variable: [{}].",
                names.join(", ")
            )));
        }
        let graph = checked[0].1.handle().operation.graph().clone();
        self.create_slots(&graph, &checked)?;
        let train = graph.unique_name(&self.name);
        self.hyper.clear();
        let mut deps = Vec::new();
        for (grad, var) in &checked {
            let scope = format!("{}/update_{}", train, var.name().replace('/', "_"));
            deps.push(self.apply(&graph, &train, &scope, grad, var)?);
        }
        if let Rule::Adam { beta1, beta2, .. } = self.rule {
            let (p1, p2) = self.powers.clone().expect("made by create_slots");
            let b1 = self.hyper(&graph, &train, "beta1", beta1, DataType::Float)?;
            let b2 = self.hyper(&graph, &train, "beta2", beta2, DataType::Float)?;
            let after = [
                scale_by(&graph, &p1, b1, &deps)?,
                scale_by(&graph, &p2, b2, &deps)?,
            ];
            deps.extend(after);
        }
        let mut noop = OpSpec::new("NoOp");
        noop.set_name(train);
        for dep in &deps {
            noop.add_control_input(dep);
        }
        graph.add_operation(noop)
    }

    fn create_slots(&mut self, graph: &Graph, pairs: &[(Output, &Variable)]) -> Result<(), Error> {
        let slots: &[(&str, String)] = &match self.rule {
            Rule::GradientDescent => vec![],
            Rule::Momentum { .. } => vec![("momentum", self.name.clone())],
            Rule::Adam { beta1, beta2, .. } => {
                if self.powers.is_none() {
                    let power = |name: &str, value: f32| {
                        Variable::builder()
                            .name(name)
                            .const_initial_value(Tensor::scalar(value)?)
                            .build(graph)
                    };
                    self.powers =
                        Some((power("beta1_power", beta1)?, power("beta2_power", beta2)?));
                }
                vec![("m", self.name.clone()), ("v", format!("{}_1", self.name))]
            }
        };
        for (_, var) in pairs {
            for (slot, op_name) in slots {
                let key = (slot.to_string(), var.name().to_string());
                if self.slots.contains_key(&key) {
                    continue;
                }
                let zeros = zeros_like(var)?;
                let made = Variable::builder()
                    .name(format!("{}/{}", var.name(), op_name))
                    .data_type(var.data_type())
                    .shape(var.shape().clone())
                    .const_initial_value(zeros)
                    .build(graph)?;
                self.slots.insert(key, made);
            }
        }
        Ok(())
    }

    /// Hyperparameter `name` as a scalar of `dtype` (a float32 `Const`, cast if needed).
    fn hyper(
        &mut self,
        graph: &Graph,
        train: &str,
        name: &'static str,
        value: f32,
        dtype: DataType,
    ) -> Result<Output, Error> {
        if let Some(found) = self.hyper.get(&(name, dtype)) {
            return Ok(found.clone());
        }
        let mut constant = OpSpec::new("Const");
        constant.set_name(graph.unique_name(&format!("{}/{}", train, name)));
        constant.set_attr("value", AttrValue::Tensor(Tensor::scalar(value)?));
        constant.set_attr("dtype", AttrValue::Type(DataType::Float));
        let value = cast(graph, graph.add_operation(constant)?.output(0), dtype)?;
        self.hyper.insert((name, dtype), value.clone());
        Ok(value)
    }

    fn apply(
        &mut self,
        graph: &Graph,
        train: &str,
        scope: &str,
        grad: &Output,
        var: &Variable,
    ) -> Result<Operation, Error> {
        let dtype = var.data_type();
        let lr = self.hyper(graph, train, "learning_rate", self.learning_rate, dtype)?;
        let slot = |name: &str| self.slot(var, name).expect("made by create_slots").handle();
        let (op_type, inputs, nesterov): (&'static str, Vec<Output>, Option<bool>) = match self.rule
        {
            Rule::GradientDescent => (
                "ResourceApplyGradientDescent",
                vec![var.handle(), lr, grad.clone()],
                None,
            ),
            Rule::Momentum {
                momentum,
                use_nesterov,
            } => {
                let accum = slot("momentum");
                let m = self.hyper(graph, train, "momentum", momentum, dtype)?;
                let inputs = vec![var.handle(), accum, lr, grad.clone(), m];
                ("ResourceApplyMomentum", inputs, Some(use_nesterov))
            }
            Rule::Adam {
                beta1,
                beta2,
                epsilon,
            } => {
                let (m, v) = (slot("m"), slot("v"));
                let (p1, p2) = self.powers.clone().expect("made by create_slots");
                let p1 = cast(graph, p1.read()?, dtype)?;
                let p2 = cast(graph, p2.read()?, dtype)?;
                let b1 = self.hyper(graph, train, "beta1", beta1, dtype)?;
                let b2 = self.hyper(graph, train, "beta2", beta2, dtype)?;
                let eps = self.hyper(graph, train, "epsilon", epsilon, dtype)?;
                let inputs = vec![var.handle(), m, v, p1, p2, lr, b1, b2, eps, grad.clone()];
                ("ResourceApplyAdam", inputs, None)
            }
        };
        let mut spec = OpSpec::new(op_type);
        spec.set_name(graph.unique_name(&format!("{}/{}", scope, op_type)));
        for input in inputs {
            spec.add_input(input);
        }
        spec.set_attr("use_locking", AttrValue::Bool(self.use_locking));
        if let Some(nesterov) = nesterov {
            spec.set_attr("use_nesterov", AttrValue::Bool(nesterov));
        }
        graph.add_operation(spec)
    }
}

fn cast(graph: &Graph, value: Output, dtype: DataType) -> Result<Output, Error> {
    if value.data_type() == Some(dtype) {
        return Ok(value);
    }
    let mut spec = OpSpec::new("Cast");
    spec.add_input(value);
    spec.set_attr("DstT", AttrValue::Type(dtype));
    Ok(graph.add_operation(spec)?.output(0))
}

/// `power = power * beta` after `updates` (Adam's beta powers).
fn scale_by(
    graph: &Graph,
    power: &Variable,
    beta: Output,
    updates: &[Operation],
) -> Result<Operation, Error> {
    let mut read = OpSpec::new("ReadVariableOp");
    read.add_input(power.handle());
    read.set_attr("dtype", AttrValue::Type(DataType::Float));
    for update in updates {
        read.add_control_input(update);
    }
    let mut mul = OpSpec::new("Mul");
    mul.add_input(graph.add_operation(read)?.output(0));
    mul.add_input(beta);
    let mut assign = OpSpec::new("AssignVariableOp");
    assign.add_input(power.handle());
    assign.add_input(graph.add_operation(mul)?.output(0));
    graph.add_operation(assign)
}

fn zeros_like(var: &Variable) -> Result<Tensor, Error> {
    let dims = match &var.shape().0 {
        Some(dims) if dims.iter().all(|&d| d >= 0) => dims.clone(),
        _ => {
            return Err(Error::invalid_argument(format!(
                "variable '{}' needs a known shape for its slots",
                var.name()
            )))
        }
    };
    let n = dims.iter().product::<i64>() as usize;
    match var.data_type() {
        DataType::Float => Tensor::new(&dims, &vec![0f32; n]),
        DataType::Double => Tensor::new(&dims, &vec![0f64; n]),
        other => Err(Error::invalid_argument(format!(
            "variable '{}': the optimizers take float32 and float64 variables, not {}",
            var.name(),
            other.name()
        ))),
    }
}
