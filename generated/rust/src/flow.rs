// Part of opgen's Rust crate, the same for every OpList: `opgen generate --lang rust`
// copies this file unchanged. Do not edit the copy: regenerate instead.

//! Functions and functional control flow over the C API: [`Function`] (a `TF_Function`,
//! made with [`Graph::to_function`] or [`Function::trace`]) called through a [`Call`];
//! [`cond`] (a `StatelessIf` or `If` over two traced branch functions) and [`while_loop`]
//! (`TF_NewWhile` / `TF_FinishWhile`, one functional `While` node).

use std::ffi::CStr;
use std::os::raw::{c_char, c_int};
use std::ptr::{self, NonNull};
use std::rc::Rc;

use crate::{
    c_string, ffi, AttrValue, Code, DataType, Error, Graph, OpSpec, Operation, Output, Status,
};

// -------------------------------------------------------------------------- functions

/// A function (`TF_Function`, a FunctionDef): a graph with typed arguments and results
/// that nodes of a graph call once it is in that graph's library. Freed on `Drop`.
pub struct Function {
    ptr: NonNull<ffi::TF_Function>,
    input_types: Vec<DataType>,
    output_types: Vec<DataType>,
    /// functions the body calls (its graph's library), copied along with it
    library: Vec<Function>,
}

impl Function {
    /// Traces `body` into a function named `name`: `body` gets a fresh graph and one
    /// placeholder (`arg_0`, `arg_1`...) per `input_types` entry and returns the results.
    /// An error `body` returns comes back unchanged.
    ///
    /// ```text
    /// let f = Function::trace("square_plus", &[DataType::Float; 2], |g, args| {
    ///     let sq = ops::mul(&args[0], &args[0]).build(g)?;
    ///     Ok(vec![ops::add_v2(sq, &args[1]).build(g)?.output(0)])
    /// })?;
    /// let y = f.call([x, b]).build(&graph)?;
    /// ```
    pub fn trace<F>(name: &str, input_types: &[DataType], body: F) -> Result<Function, Error>
    where
        F: FnOnce(&Graph, &[Output]) -> Result<Vec<Output>, Error>,
    {
        trace(name, false, input_types, body)
    }

    /// The function's name (with the hash suffix when one was asked for).
    pub fn name(&self) -> String {
        unsafe { CStr::from_ptr(ffi::TF_FunctionName(self.ptr.as_ptr())) }
            .to_string_lossy()
            .into_owned()
    }

    /// The dtypes of the function's arguments, in order.
    pub fn input_types(&self) -> &[DataType] {
        &self.input_types
    }

    /// The dtypes of the function's results, in order.
    pub fn output_types(&self) -> &[DataType] {
        &self.output_types
    }

    pub fn as_ptr(&self) -> *mut ffi::TF_Function {
        self.ptr.as_ptr()
    }

    /// Whether a stateful op (a variable update, a random op, a call of a stateful
    /// function...) is inside: the `is_stateful` flag `TF_GraphToFunction` sets on the
    /// FunctionDef's signature. Calls of a stateful function go through
    /// `StatefulPartitionedCall` and `If`, as TensorFlow builds them. A FunctionDef the
    /// C API cannot write reads as stateful.
    pub fn is_stateful(&self) -> bool {
        let status = Status::new();
        unsafe {
            let buffer = ffi::TF_NewBuffer();
            if buffer.is_null() {
                return true;
            }
            ffi::TF_FunctionToFunctionDef(self.ptr.as_ptr(), buffer, status.ptr());
            let data = (*buffer).data as *const u8;
            let stateful = status.result().is_err()
                || (!data.is_null()
                    && signature_is_stateful(
                        std::slice::from_raw_parts(data, (*buffer).length),
                        0,
                    ));
            ffi::TF_DeleteBuffer(buffer);
            stateful
        }
    }

    /// A builder of a call of this function on `inputs` (one per argument).
    pub fn call(&self, inputs: impl IntoIterator<Item = impl Into<Output>>) -> Call<'_> {
        Call {
            function: self,
            inputs: inputs.into_iter().map(Into::into).collect(),
            name: None,
            stateful: false,
            function_op: false,
        }
    }
}

impl Drop for Function {
    fn drop(&mut self) {
        unsafe { ffi::TF_DeleteFunction(self.ptr.as_ptr()) }
    }
}

impl std::fmt::Debug for Function {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "Function({}: {:?} -> {:?})",
            self.name(),
            self.input_types,
            self.output_types
        )
    }
}

/// Field 17 (`is_stateful`) of the signature (field 1, an OpDef) in serialized FunctionDef
/// bytes (`depth` 0) or in the signature itself (`depth` 1). The C API offers no other
/// way to ask; malformed bytes read as stateful.
fn signature_is_stateful(data: &[u8], depth: u8) -> bool {
    let mut at = 0usize;
    let varint = |at: &mut usize| -> Option<u64> {
        let mut value = 0u64;
        let mut shift = 0;
        while *at < data.len() && shift < 64 {
            let byte = data[*at];
            *at += 1;
            value |= u64::from(byte & 0x7f) << shift;
            if byte & 0x80 == 0 {
                return Some(value);
            }
            shift += 7;
        }
        None
    };
    while at < data.len() {
        let key = match varint(&mut at) {
            Some(key) => key,
            None => return true,
        };
        let (field, wire) = (key >> 3, key & 7);
        match wire {
            0 => match varint(&mut at) {
                Some(value) if depth == 1 && field == 17 => return value != 0,
                Some(_) => {}
                None => return true,
            },
            2 => {
                let length = match varint(&mut at) {
                    Some(length) if length <= (data.len() - at) as u64 => length as usize,
                    _ => return true,
                };
                if depth == 0 && field == 1 {
                    return signature_is_stateful(&data[at..at + length], 1);
                }
                at += length;
            }
            1 => at += 8,
            5 => at += 4,
            _ => return true,
        }
    }
    false
}

fn dtype_of(output: &Output, what: &str) -> Result<DataType, Error> {
    output.data_type().ok_or_else(|| {
        Error::invalid_argument(format!(
            "{} ({}:{}) has a dtype this crate does not know",
            what,
            output.operation.name(),
            output.index
        ))
    })
}

fn check_graph(graph: &Graph, outputs: &[Output], what: &str) -> Result<(), Error> {
    match outputs
        .iter()
        .find(|o| !graph.same_graph(o.operation.graph()))
    {
        Some(o) => Err(Error::invalid_argument(format!(
            "{}: {} is in another graph",
            what,
            o.operation.name()
        ))),
        None => Ok(()),
    }
}

fn dtype_names(types: &[DataType]) -> String {
    let names: Vec<&str> = types.iter().map(|t| t.name()).collect();
    format!("[{}]", names.join(", "))
}

/// `Function::trace`, optionally with a hash of the contents appended to the name.
fn trace<F>(
    name: &str,
    append_hash: bool,
    input_types: &[DataType],
    body: F,
) -> Result<Function, Error>
where
    F: FnOnce(&Graph, &[Output]) -> Result<Vec<Output>, Error>,
{
    let graph = Graph::new();
    let mut args = Vec::with_capacity(input_types.len());
    for (i, &dtype) in input_types.iter().enumerate() {
        let mut spec = OpSpec::new("Placeholder");
        spec.set_name(format!("arg_{}", i));
        spec.set_attr("dtype", AttrValue::Type(dtype));
        args.push(graph.add_operation(spec)?.output(0));
    }
    let results = body(&graph, &args)?;
    let mut function = graph.to_function(name, append_hash, None, &args, &results, None, None)?;
    function.library = graph.functions()?;
    Ok(function)
}

impl Graph {
    /// Makes a function of this graph (TensorFlow's `TF_GraphToFunction`, as the
    /// `tensorflow` crate's `Graph::to_function`, without its reserved options): the
    /// operations `opers` (`None`: all but the nodes of `inputs`) with `inputs` as the
    /// arguments and `outputs` as the results, named `output_names` (`None`: from the
    /// nodes). With `append_hash_to_fn_name` the name gets a suffix made from the
    /// contents. An edge into the body from outside it is `Code::InvalidArgument`.
    #[allow(clippy::too_many_arguments)]
    pub fn to_function(
        &self,
        fn_name: &str,
        append_hash_to_fn_name: bool,
        opers: Option<&[&Operation]>,
        inputs: &[Output],
        outputs: &[Output],
        output_names: Option<&[&str]>,
        description: Option<&str>,
    ) -> Result<Function, Error> {
        check_graph(self, inputs, "to_function")?;
        check_graph(self, outputs, "to_function")?;
        if let Some(names) = output_names {
            if names.len() != outputs.len() {
                return Err(Error::invalid_argument(format!(
                    "to_function: {} output names for {} outputs",
                    names.len(),
                    outputs.len()
                )));
            }
        }
        let input_types = inputs
            .iter()
            .map(|o| dtype_of(o, "an input"))
            .collect::<Result<Vec<_>, _>>()?;
        let output_types = outputs
            .iter()
            .map(|o| dtype_of(o, "an output"))
            .collect::<Result<Vec<_>, _>>()?;
        let c_name = c_string(fn_name)?;
        let c_description = description.map(c_string).transpose()?;
        let c_names = output_names
            .map(|names| {
                names
                    .iter()
                    .map(|n| c_string(n))
                    .collect::<Result<Vec<_>, _>>()
            })
            .transpose()?;
        let name_ptrs: Option<Vec<*const c_char>> = c_names
            .as_ref()
            .map(|names| names.iter().map(|n| n.as_ptr()).collect());
        let c_opers: Option<Vec<*const ffi::TF_Operation>> = opers.map(|ops| {
            ops.iter()
                .map(|op| op.as_ptr() as *const ffi::TF_Operation)
                .collect()
        });
        if let Some(op) = opers.and_then(|ops| ops.iter().find(|op| !self.same_graph(op.graph()))) {
            return Err(Error::invalid_argument(format!(
                "to_function: {} is in another graph",
                op.name()
            )));
        }
        let c_inputs: Vec<ffi::TF_Output> = inputs.iter().map(Output::to_c).collect();
        let c_outputs: Vec<ffi::TF_Output> = outputs.iter().map(Output::to_c).collect();
        let status = Status::new();
        let raw = unsafe {
            ffi::TF_GraphToFunction(
                self.as_ptr(),
                c_name.as_ptr(),
                append_hash_to_fn_name as u8,
                c_opers.as_ref().map_or(-1, |o| o.len() as c_int),
                c_opers.as_ref().map_or(ptr::null(), |o| o.as_ptr()),
                c_inputs.len() as c_int,
                c_inputs.as_ptr(),
                c_outputs.len() as c_int,
                c_outputs.as_ptr(),
                name_ptrs.as_ref().map_or(ptr::null(), |n| n.as_ptr()),
                ptr::null(),
                c_description.as_ref().map_or(ptr::null(), |d| d.as_ptr()),
                status.ptr(),
            )
        };
        status.result()?;
        let ptr = NonNull::new(raw).ok_or_else(|| Error {
            code: Code::Internal,
            message: "TF_GraphToFunction returned NULL with an OK status".to_string(),
        })?;
        Ok(Function {
            ptr,
            input_types,
            output_types,
            library: Vec::new(),
        })
    }

    /// Adds `func` (and the functions it calls; `grad`, when given, as its gradient
    /// function) to the graph's library (`TF_GraphCopyFunction`). Adding the same
    /// function again does nothing; another function of the same name is
    /// `Code::InvalidArgument`.
    pub fn copy_function(&self, func: &Function, grad: Option<&Function>) -> Result<(), Error> {
        for called in &func.library {
            self.copy_function(called, None)?;
        }
        let status = Status::new();
        let grad = grad.map_or(ptr::null(), |g| g.as_ptr() as *const ffi::TF_Function);
        unsafe { ffi::TF_GraphCopyFunction(self.as_ptr(), func.as_ptr(), grad, status.ptr()) };
        status.result()
    }

    /// How many functions the graph's library holds.
    pub fn num_functions(&self) -> usize {
        unsafe { ffi::TF_GraphNumFunctions(self.as_ptr()) as usize }
    }

    /// Copies of the functions in the graph's library (their dtypes are not recorded).
    fn functions(&self) -> Result<Vec<Function>, Error> {
        let count = self.num_functions();
        let mut raw = vec![ptr::null_mut(); count];
        let status = Status::new();
        let written = unsafe {
            ffi::TF_GraphGetFunctions(
                self.as_ptr(),
                raw.as_mut_ptr(),
                count as c_int,
                status.ptr(),
            )
        };
        let functions = raw
            .into_iter()
            .take(written.max(0) as usize)
            .filter_map(NonNull::new)
            .map(|ptr| Function {
                ptr,
                input_types: Vec::new(),
                output_types: Vec::new(),
                library: Vec::new(),
            })
            .collect();
        status.result()?;
        Ok(functions)
    }
}

/// A call of a [`Function`] being built: [`Function::call`], then options, then `build`.
pub struct Call<'a> {
    function: &'a Function,
    inputs: Vec<Output>,
    name: Option<String>,
    stateful: bool,
    function_op: bool,
}

impl<'a> Call<'a> {
    /// The node's name (by default the op type, made unique).
    pub fn name(mut self, name: impl Into<String>) -> Self {
        self.name = Some(name.into());
        self
    }

    /// A `StatefulPartitionedCall` rather than a `PartitionedCall` (for a function with
    /// stateful ops, such as variable updates, inside).
    pub fn stateful(mut self, stateful: bool) -> Self {
        self.stateful = stateful;
        self
    }

    /// A node whose op type is the function's name, rather than a `PartitionedCall`.
    pub fn function_op(mut self, function_op: bool) -> Self {
        self.function_op = function_op;
        self
    }

    /// Adds the function to `graph`'s library (when not there yet) and the call to
    /// `graph`; returns the call's outputs, one per result of the function. Inputs of
    /// another count or dtype than the function's arguments are `Code::InvalidArgument`.
    pub fn build(self, graph: &Graph) -> Result<Vec<Output>, Error> {
        let function = self.function;
        let name = function.name();
        let expected = function.input_types();
        let given = self
            .inputs
            .iter()
            .map(|o| dtype_of(o, "an input"))
            .collect::<Result<Vec<_>, _>>()?;
        if given != expected {
            return Err(Error::invalid_argument(format!(
                "function '{}' takes {}, not {}",
                name,
                dtype_names(expected),
                dtype_names(&given)
            )));
        }
        graph.copy_function(function, None)?;
        let mut spec = if self.function_op {
            let mut spec = OpSpec::new(name.clone());
            for input in self.inputs {
                spec.add_input(input);
            }
            spec
        } else {
            let op_type = if self.stateful {
                "StatefulPartitionedCall"
            } else {
                "PartitionedCall"
            };
            let mut spec = OpSpec::new(op_type);
            spec.add_input_list(self.inputs);
            spec.set_attr("Tin", AttrValue::TypeList(given));
            spec.set_attr(
                "Tout",
                AttrValue::TypeList(function.output_types().to_vec()),
            );
            spec.set_attr("f", AttrValue::Func(name));
            spec
        };
        if let Some(node_name) = self.name {
            spec.set_name(node_name);
        }
        Ok(graph.add_operation(spec)?.outputs())
    }
}

// ------------------------------------------------------------------------------- cond

/// `then_fn(inputs)` when `pred` is true, else `else_fn(inputs)`, as one `StatelessIf`
/// node (`If` when a branch is stateful, as TensorFlow builds it; named `cond`, made
/// unique) whose branches are functions traced from the closures. Each
/// closure gets a graph of its own with one placeholder per input and returns its
/// results; both must return as many results, of the same dtypes
/// (`Code::InvalidArgument`). An error a closure returns comes back unchanged and adds
/// nothing to `graph`. Gradients flow through the node (`Graph::add_gradients`).
///
/// ```text
/// let y = cond(&graph, &pred, &[x.clone()],
///              |g, a| Ok(vec![ops::mul(&a[0], &a[0]).build(g)?.output(0)]),
///              |g, a| Ok(vec![ops::sub(&a[0], one(g)?).build(g)?.output(0)]))?;
/// ```
pub fn cond<T, E>(
    graph: &Graph,
    pred: impl Into<Output>,
    inputs: &[Output],
    then_fn: T,
    else_fn: E,
) -> Result<Vec<Output>, Error>
where
    T: FnOnce(&Graph, &[Output]) -> Result<Vec<Output>, Error>,
    E: FnOnce(&Graph, &[Output]) -> Result<Vec<Output>, Error>,
{
    let pred = pred.into();
    check_graph(graph, std::slice::from_ref(&pred), "cond")?;
    check_graph(graph, inputs, "cond")?;
    let types = inputs
        .iter()
        .map(|o| dtype_of(o, "an input"))
        .collect::<Result<Vec<_>, _>>()?;
    let node = graph.unique_name("cond");
    // The hash keeps the names apart from functions of other graphs merged in later.
    let then_f = trace(&format!("{}_true", node), true, &types, then_fn)?;
    let else_f = trace(&format!("{}_false", node), true, &types, else_fn)?;
    if then_f.output_types() != else_f.output_types() {
        return Err(Error::invalid_argument(format!(
            "cond: then_fn returns {} but else_fn returns {}",
            dtype_names(then_f.output_types()),
            dtype_names(else_f.output_types())
        )));
    }
    graph.copy_function(&then_f, None)?;
    graph.copy_function(&else_f, None)?;
    let stateful = then_f.is_stateful() || else_f.is_stateful();
    let mut spec = OpSpec::new(if stateful { "If" } else { "StatelessIf" });
    spec.set_name(node);
    spec.add_input(pred);
    spec.add_input_list(inputs.to_vec());
    spec.set_attr("Tin", AttrValue::TypeList(types));
    spec.set_attr("Tout", AttrValue::TypeList(then_f.output_types().to_vec()));
    spec.set_attr("then_branch", AttrValue::Func(then_f.name()));
    spec.set_attr("else_branch", AttrValue::Func(else_f.name()));
    Ok(graph.add_operation(spec)?.outputs())
}

// ------------------------------------------------------------------------- while loops

/// A loop `TF_NewWhile` started: aborted on `Drop` unless finished. The two graphs are
/// the C API's; should a closure have kept a clone of one (or of an output in it), they
/// are leaked rather than freed under it.
struct PendingWhile {
    params: ffi::TF_WhileParams,
    cond: Graph,
    body: Graph,
    done: bool,
}

impl PendingWhile {
    /// Whether nothing but this loop holds its graphs.
    fn graphs_unshared(&self) -> bool {
        Rc::strong_count(&self.cond.inner) == 1 && Rc::strong_count(&self.body.inner) == 1
    }

    fn inputs(graph: &Graph, raw: *const ffi::TF_Output, n: usize) -> Vec<Output> {
        let raw = unsafe { std::slice::from_raw_parts(raw, n) };
        raw.iter()
            .map(|o| Output {
                operation: Operation {
                    ptr: NonNull::new(o.oper).expect("TF_NewWhile made a NULL placeholder"),
                    graph: graph.clone(),
                },
                index: o.index as usize,
            })
            .collect()
    }
}

impl Drop for PendingWhile {
    fn drop(&mut self) {
        if !self.done && self.graphs_unshared() {
            unsafe { ffi::TF_AbortWhile(&self.params) }
        }
    }
}

/// Repeats `vars = body_fn(vars)` while `cond_fn(vars)` is true, starting from `inputs`,
/// as one `While` node (named `while`, made unique) built with `TF_NewWhile` /
/// `TF_FinishWhile`; returns the final values, one per input.
///
/// Each closure gets a graph of its own (the C API's) with one placeholder per loop
/// variable and may use only those: `cond_fn` returns a bool scalar, `body_fn` the next
/// values, as many as `inputs` and of the same dtypes (else `Code::InvalidArgument`,
/// naming both dtypes). On any failure, an error a closure returns included (it comes
/// back unchanged), the loop is aborted (`TF_AbortWhile`) and `graph` is left as it was.
/// Outputs of the closures' graphs must not outlive the closures. Gradients flow
/// through the loop (`Graph::add_gradients`).
///
/// ```text
/// let out = while_loop(&graph, &[i, n, v],
///     |g, a| Ok(ops::less(&a[0], &a[1]).build(g)?.output(0)),
///     |g, a| Ok(vec![ops::add_v2(&a[0], one(g)?).build(g)?.output(0), a[1].clone(), ...]))?;
/// ```
pub fn while_loop<C, B>(
    graph: &Graph,
    inputs: &[Output],
    cond_fn: C,
    body_fn: B,
) -> Result<Vec<Output>, Error>
where
    C: FnOnce(&Graph, &[Output]) -> Result<Output, Error>,
    B: FnOnce(&Graph, &[Output]) -> Result<Vec<Output>, Error>,
{
    check_graph(graph, inputs, "while_loop")?;
    let types = inputs
        .iter()
        .map(|o| dtype_of(o, "a loop variable"))
        .collect::<Result<Vec<_>, _>>()?;
    let n = inputs.len();
    let mut c_inputs: Vec<ffi::TF_Output> = inputs.iter().map(Output::to_c).collect();
    let status = Status::new();
    let params = unsafe {
        ffi::TF_NewWhile(
            graph.as_ptr(),
            c_inputs.as_mut_ptr(),
            n as c_int,
            status.ptr(),
        )
    };
    status.result()?;
    let (cond_ptr, body_ptr) = match (
        NonNull::new(params.cond_graph),
        NonNull::new(params.body_graph),
    ) {
        (Some(c), Some(b)) => (c, b),
        _ => {
            return Err(Error {
                code: Code::Internal,
                message: "TF_NewWhile returned no graphs with an OK status".to_string(),
            })
        }
    };
    let mut pending = PendingWhile {
        params,
        cond: Graph::wrap(cond_ptr, false),
        body: Graph::wrap(body_ptr, false),
        done: false,
    };
    let node = c_string(&graph.unique_name("while"))?;
    {
        let cond_inputs = PendingWhile::inputs(&pending.cond, pending.params.cond_inputs, n);
        let result = cond_fn(&pending.cond, &cond_inputs)?;
        check_graph(
            &pending.cond,
            std::slice::from_ref(&result),
            "while_loop: cond_fn's result",
        )?;
        pending.params.cond_output = result.to_c();
    }
    {
        let body_inputs = PendingWhile::inputs(&pending.body, pending.params.body_inputs, n);
        let results = body_fn(&pending.body, &body_inputs)?;
        if results.len() != n {
            return Err(Error::invalid_argument(format!(
                "while_loop: body_fn returned {} values for {} loop variables",
                results.len(),
                n
            )));
        }
        check_graph(&pending.body, &results, "while_loop: body_fn's results")?;
        for (i, (result, &dtype)) in results.iter().zip(&types).enumerate() {
            let got = dtype_of(result, "a body_fn result")?;
            if got != dtype {
                return Err(Error::invalid_argument(format!(
                    "while_loop: body_fn returned {} for loop variable {}, which is {}",
                    got, i, dtype
                )));
            }
            unsafe { *pending.params.body_outputs.add(i) = result.to_c() };
        }
    }
    if !pending.graphs_unshared() {
        return Err(Error::invalid_argument(
            "while_loop: a graph or output of cond_fn or body_fn outlived the closure",
        ));
    }
    pending.params.name = node.as_ptr();
    let mut c_outputs = vec![
        ffi::TF_Output {
            oper: ptr::null_mut(),
            index: 0,
        };
        n
    ];
    pending.done = true; // TF_FinishWhile frees the two graphs, failing or not
    unsafe { ffi::TF_FinishWhile(&pending.params, status.ptr(), c_outputs.as_mut_ptr()) };
    status.result()?;
    c_outputs
        .into_iter()
        .map(|o| {
            NonNull::new(o.oper)
                .map(|ptr| Output {
                    operation: Operation {
                        ptr,
                        graph: graph.clone(),
                    },
                    index: o.index as usize,
                })
                .ok_or_else(|| Error {
                    code: Code::Internal,
                    message: "TF_FinishWhile returned a NULL output with an OK status".to_string(),
                })
        })
        .collect()
}
