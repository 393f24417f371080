// Part of opgen's Rust crate, the same for every OpList: `opgen generate --lang rust`
// copies this file unchanged. Do not edit the copy: regenerate instead.

//! Resource variables: [`Variable`], built by [`Variable::builder`], and
//! [`global_variables_initializer`].
//!
//! A variable is a `VarHandleOp` whose value a [`Session`](crate::Session) keeps between
//! runs (one value per session). For a variable named NAME (`.name(..)`, else
//! `Variable`, made unique in the graph) the graph gets `NAME` (the `VarHandleOp`,
//! shared_name NAME), `NAME/Initializer/initial_value` (a `Const`, for a constant
//! initial value) and `NAME/Assign` (the initializer). The operations are added through
//! [`OpSpec`], as the generated builders add theirs, so this module compiles for any
//! OpList; the ops must be registered in the runtime when they are built.
//!
//! ```text
//! let w = Variable::builder().name("w").const_initial_value(Tensor::new(&[2], &[1f32, 2.0])?).build(&graph)?;
//! let step = w.assign_add(&delta)?;                  // the value after the update
//! let session = Session::new(&graph)?;
//! session.run(&[], &[], &[global_variables_initializer(&graph)?])?;
//! let value = session.run(&[], &[step], &[])?;
//! ```

use std::os::raw::c_int;

use crate::{ffi, AttrValue, DataType, Error, Graph, OpSpec, Operation, Output, Shape, Tensor};

enum InitialValue {
    Output(Output),
    Tensor(Tensor),
}

/// Collects a variable's settings; [`build`](VariableBuilder::build) adds it to a graph.
#[must_use = "call .build(&graph) to add the variable"]
pub struct VariableBuilder {
    name: Option<String>,
    data_type: Option<DataType>,
    shape: Option<Shape>,
    initial_value: Option<InitialValue>,
    container: String,
    shared_name: Option<String>,
    device: Option<String>,
}

impl VariableBuilder {
    /// The name of the `VarHandleOp` and the prefix of the variable's other operations;
    /// `Variable` by default, made unique in the graph either way.
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// The dtype; by default the initial value's.
    pub fn data_type(mut self, data_type: DataType) -> Self {
        self.data_type = Some(data_type);
        self
    }

    /// The shape (-1 dims and [`Shape::unknown`] leave it open); by default the initial
    /// value's static shape.
    pub fn shape(mut self, shape: impl Into<Shape>) -> Self {
        self.shape = Some(shape.into());
        self
    }

    /// The value the initializer assigns: an output of the same graph.
    pub fn initial_value(mut self, value: impl Into<Output>) -> Self {
        self.initial_value = Some(InitialValue::Output(value.into()));
        self
    }

    /// The value the initializer assigns: a constant (a `Const` operation).
    pub fn const_initial_value(mut self, value: Tensor) -> Self {
        self.initial_value = Some(InitialValue::Tensor(value));
        self
    }

    /// The resource container (`""`, the default, is `localhost`).
    pub fn container(mut self, container: impl Into<String>) -> Self {
        self.container = container.into();
        self
    }

    /// The name the value is kept under; by default the `VarHandleOp`'s name. Variables
    /// of one session with the same shared name share their value.
    pub fn shared_name(mut self, shared_name: impl Into<String>) -> Self {
        self.shared_name = Some(shared_name.into());
        self
    }

    /// The device of the variable's operations.
    pub fn device(mut self, device: impl Into<String>) -> Self {
        self.device = Some(device.into());
        self
    }

    /// Adds the variable's operations to `graph`.
    pub fn build(self, graph: &Graph) -> Result<Variable, Error> {
        let name = graph.unique_name(self.name.as_deref().unwrap_or("Variable"));
        let device = self.device;
        let spec = |op_type: &'static str, op_name: String| {
            let mut spec = OpSpec::new(op_type);
            spec.set_name(op_name);
            if let Some(device) = &device {
                spec.set_device(device.clone());
            }
            spec
        };
        // The initial value first: the dtype and shape may come from it.
        let initial = match self.initial_value {
            None => None,
            Some(InitialValue::Output(output)) => Some(output),
            Some(InitialValue::Tensor(tensor)) => {
                let dtype = tensor.data_type().ok_or_else(|| {
                    Error::invalid_argument(
                        "the initial value has a dtype this crate does not know",
                    )
                })?;
                let mut constant = spec("Const", format!("{}/Initializer/initial_value", name));
                constant.set_attr("value", AttrValue::Tensor(tensor));
                constant.set_attr("dtype", AttrValue::Type(dtype));
                Some(graph.add_operation(constant)?.output(0))
            }
        };
        let data_type = match (self.data_type, &initial) {
            (Some(data_type), _) => data_type,
            (None, Some(value)) => value.data_type().ok_or_else(|| {
                Error::invalid_argument("the initial value has a dtype this crate does not know")
            })?,
            (None, None) => {
                return Err(Error::invalid_argument(format!(
                    "variable '{}' needs a data_type or an initial value",
                    name
                )))
            }
        };
        let shape = match (self.shape, &initial) {
            (Some(shape), _) => shape,
            (None, Some(value)) => static_shape(value),
            (None, None) => Shape::unknown(),
        };
        let mut handle = spec("VarHandleOp", name.clone());
        handle.set_attr("container", AttrValue::string(&self.container));
        let shared_name = self.shared_name.unwrap_or_else(|| name.clone());
        handle.set_attr("shared_name", AttrValue::string(shared_name));
        handle.set_attr("debug_name", AttrValue::string(&name));
        handle.set_attr("dtype", AttrValue::Type(data_type));
        handle.set_attr("shape", AttrValue::Shape(shape.clone()));
        let handle = graph.add_operation(handle)?;
        let mut variable = Variable {
            handle,
            name,
            data_type,
            shape,
            initializer: None,
        };
        if let Some(value) = initial {
            variable.check_value(&value, "assign")?;
            let mut assign = spec("AssignVariableOp", format!("{}/Assign", variable.name));
            assign.add_input(variable.handle());
            assign.add_input(value);
            let initializer = graph.add_operation(assign)?;
            graph
                .inner
                .variable_initializers
                .borrow_mut()
                .push(initializer.ptr);
            variable.initializer = Some(initializer);
        }
        Ok(variable)
    }
}

/// A resource variable of a graph; see the [module documentation](self).
///
/// [`read`](Variable::read), [`assign`](Variable::assign),
/// [`assign_add`](Variable::assign_add) and [`assign_sub`](Variable::assign_sub) add
/// operations to the variable's graph. A value of another dtype, or of a static shape
/// that cannot be the variable's, is refused with `Code::InvalidArgument` when the
/// operation is added; reading a variable no run has assigned fails in
/// [`Session::run`](crate::Session::run) with `Code::FailedPrecondition`, naming it.
#[derive(Debug, Clone)]
pub struct Variable {
    handle: Operation,
    name: String,
    data_type: DataType,
    shape: Shape,
    initializer: Option<Operation>,
}

impl Variable {
    /// A builder: set a data type and shape, or an initial value, then `.build(&graph)`.
    pub fn builder() -> VariableBuilder {
        VariableBuilder {
            name: None,
            data_type: None,
            shape: None,
            initial_value: None,
            container: String::new(),
            shared_name: None,
            device: None,
        }
    }

    /// The `DT_RESOURCE` scalar naming the variable: the input of the generated
    /// `ops::read_variable_op`, `ops::assign_variable_op`...
    pub fn handle(&self) -> Output {
        self.handle.output(0)
    }

    /// The `VarHandleOp`'s name.
    pub fn name(&self) -> &str {
        &self.name
    }

    pub fn data_type(&self) -> DataType {
        self.data_type
    }

    pub fn shape(&self) -> &Shape {
        &self.shape
    }

    /// The operation assigning the initial value (run it once per session); `None` for a
    /// variable built without one.
    pub fn initializer(&self) -> Option<&Operation> {
        self.initializer.as_ref()
    }

    /// The value when the returned output is computed (a `ReadVariableOp`).
    pub fn read(&self) -> Result<Output, Error> {
        self.read_after(None)
    }

    /// Sets the value; returns the value read after the assignment (fetch it, or run its
    /// operation as a target, to assign).
    pub fn assign(&self, value: impl Into<Output>) -> Result<Output, Error> {
        self.update("AssignVariableOp", "assign", value.into())
    }

    /// Adds `delta` (same shape); returns the value after the addition.
    pub fn assign_add(&self, delta: impl Into<Output>) -> Result<Output, Error> {
        self.update("AssignAddVariableOp", "add", delta.into())
    }

    /// Subtracts `delta` (same shape); returns the value after the subtraction.
    pub fn assign_sub(&self, delta: impl Into<Output>) -> Result<Output, Error> {
        self.update("AssignSubVariableOp", "subtract", delta.into())
    }

    fn graph(&self) -> &Graph {
        self.handle.graph()
    }

    fn read_after(&self, update: Option<&Operation>) -> Result<Output, Error> {
        let mut read = OpSpec::new("ReadVariableOp");
        read.add_input(self.handle());
        read.set_attr("dtype", AttrValue::Type(self.data_type));
        if let Some(update) = update {
            read.add_control_input(update);
        }
        Ok(self.graph().add_operation(read)?.output(0))
    }

    fn update(&self, op_type: &'static str, what: &str, value: Output) -> Result<Output, Error> {
        self.check_value(&value, what)?;
        let mut update = OpSpec::new(op_type);
        update.add_input(self.handle());
        update.add_input(value);
        let update = self.graph().add_operation(update)?;
        self.read_after(Some(&update))
    }

    fn check_value(&self, value: &Output, what: &str) -> Result<(), Error> {
        if !self.graph().same_graph(value.operation.graph()) {
            return Err(Error::invalid_argument(format!(
                "cannot {} a value of another graph to variable '{}'",
                what, self.name
            )));
        }
        let dtype = value.data_type();
        if dtype != Some(self.data_type) {
            let got = dtype.map_or_else(|| "unknown".to_string(), |d| d.name().to_string());
            return Err(Error::invalid_argument(format!(
                "cannot {} a {} value to variable '{}' of dtype {}",
                what,
                got,
                self.name,
                self.data_type.name()
            )));
        }
        let shape = static_shape(value);
        if !compatible(&self.shape, &shape) {
            return Err(Error::invalid_argument(format!(
                "cannot {} a value of shape {} to variable '{}' of shape {}",
                what,
                shape_string(&shape),
                self.name,
                shape_string(&self.shape)
            )));
        }
        Ok(())
    }
}

/// One `NoOp` (`init`, made unique) running the initializers of every [`Variable`] built
/// in `graph` so far.
pub fn global_variables_initializer(graph: &Graph) -> Result<Operation, Error> {
    let mut init = OpSpec::new("NoOp");
    init.set_name(graph.unique_name("init"));
    for &ptr in graph.inner.variable_initializers.borrow().iter() {
        init.add_control_input(&Operation {
            ptr,
            graph: graph.clone(),
        });
    }
    graph.add_operation(init)
}

/// The static shape shape inference gave `output` (unknown when it gave none).
fn static_shape(output: &Output) -> Shape {
    let graph = output.operation.graph();
    let status = crate::Status::new();
    let rank =
        unsafe { ffi::TF_GraphGetTensorNumDims(graph.as_ptr(), output.to_c(), status.ptr()) };
    if status.result().is_err() || rank < 0 {
        return Shape::unknown();
    }
    let mut dims = vec![0i64; rank as usize];
    unsafe {
        ffi::TF_GraphGetTensorShape(
            graph.as_ptr(),
            output.to_c(),
            dims.as_mut_ptr(),
            rank as c_int,
            status.ptr(),
        )
    };
    match status.result() {
        Ok(()) => Shape(Some(dims)),
        Err(_) => Shape::unknown(),
    }
}

/// Whether a value of shape `b` may be stored in a variable of shape `a`.
fn compatible(a: &Shape, b: &Shape) -> bool {
    match (&a.0, &b.0) {
        (Some(a), Some(b)) => {
            a.len() == b.len() && a.iter().zip(b).all(|(&x, &y)| x < 0 || y < 0 || x == y)
        }
        _ => true,
    }
}

/// A shape as Python prints it: `(2, 3)`, `(2,)`, `()`, `<unknown>`.
fn shape_string(shape: &Shape) -> String {
    match &shape.0 {
        None => "<unknown>".to_string(),
        Some(dims) => {
            let dims: Vec<String> = dims
                .iter()
                .map(|&d| {
                    if d < 0 {
                        "None".to_string()
                    } else {
                        d.to_string()
                    }
                })
                .collect();
            let comma = if dims.len() == 1 { "," } else { "" };
            format!("({}{})", dims.join(", "), comma)
        }
    }
}
