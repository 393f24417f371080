// Part of opgen's Rust crate, the same for every OpList: `opgen generate --lang rust`
// copies this file unchanged. Do not edit the copy: regenerate instead.

//! Safe Rust wrappers over the opgen runtime's TensorFlow C API.
//!
//! Build a [`Graph`] with the op builders of [`ops`], run it in a [`Session`]:
//!
//! ```text
//! let graph = Graph::new();
//! let x = ops::placeholder(DataType::Float).shape(&[-1, 3][..]).name("x").build(&graph)?;
//! let y = ops::relu(ops::mat_mul(&x, &w).build(&graph)?).build(&graph)?;
//! let out = Session::new(&graph)?.run(&[(x.output(0), &x_value)], &[y.output(0)], &[])?;
//! ```
//!
//! Every C handle is owned by a Rust value that frees it on `Drop`; every C status
//! becomes a `Result<_, Error>` carrying TensorFlow's error code.
//!
//! Resource variables: [`Variable`] (`read`, `assign`, `assign_add`, `assign_sub`) and
//! [`global_variables_initializer`], in `variable.rs`. Gradients: [`Graph::add_gradients`];
//! optimizers: [`Optimizer`] (`train.rs`). Functions, `cond` and `while_loop`: [`Function`],
//! [`cond`], [`while_loop`] (`flow.rs`).

#![allow(clippy::all)]

use std::borrow::Cow;
use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::fmt;
use std::os::raw::{c_char, c_int, c_void};
use std::ptr::{self, NonNull};
use std::rc::Rc;

mod flow;
pub mod ops;
mod train;
mod variable;
pub use flow::{cond, while_loop, Call, Function};
pub use train::Optimizer;
pub use variable::{global_variables_initializer, Variable, VariableBuilder};

/// The C API this crate calls, declared by hand (no bindgen, no dependencies).
#[allow(non_camel_case_types, dead_code)]
pub mod ffi {
    use std::os::raw::{c_char, c_int, c_uchar, c_void};

    #[repr(C)]
    pub struct TF_Status {
        _private: [u8; 0],
    }
    #[repr(C)]
    pub struct TF_Graph {
        _private: [u8; 0],
    }
    #[repr(C)]
    pub struct TF_OperationDescription {
        _private: [u8; 0],
    }
    #[repr(C)]
    pub struct TF_Operation {
        _private: [u8; 0],
    }
    #[repr(C)]
    pub struct TF_Tensor {
        _private: [u8; 0],
    }
    #[repr(C)]
    pub struct TF_SessionOptions {
        _private: [u8; 0],
    }
    #[repr(C)]
    pub struct TF_Session {
        _private: [u8; 0],
    }
    /// TensorFlow's `TF_Buffer` (`tensorflow/c/tf_buffer.h`): bytes and their deallocator.
    #[repr(C)]
    pub struct TF_Buffer {
        pub data: *const c_void,
        pub length: usize,
        pub data_deallocator: Option<unsafe extern "C" fn(data: *mut c_void, length: usize)>,
    }
    #[repr(C)]
    pub struct TF_Function {
        _private: [u8; 0],
    }

    #[repr(C)]
    #[derive(Clone, Copy)]
    pub struct TF_Output {
        pub oper: *mut TF_Operation,
        pub index: c_int,
    }

    /// `TF_DataType` and `TF_Code` are C enums: `int` on every platform the runtime builds on.
    pub type TF_DataType = c_int;
    pub type TF_Code = c_int;

    /// What `TF_NewWhile` hands out: the loop's two graphs, their placeholders, and the
    /// slots (`cond_output`, `body_outputs`, `name`) the caller fills in.
    #[repr(C)]
    pub struct TF_WhileParams {
        pub ninputs: c_int,
        pub cond_graph: *mut TF_Graph,
        pub cond_inputs: *const TF_Output,
        pub cond_output: TF_Output,
        pub body_graph: *mut TF_Graph,
        pub body_inputs: *const TF_Output,
        pub body_outputs: *mut TF_Output,
        pub name: *const c_char,
    }

    extern "C" {
        pub fn TF_NewStatus() -> *mut TF_Status;
        pub fn TF_DeleteStatus(s: *mut TF_Status);
        pub fn TF_GetCode(s: *const TF_Status) -> TF_Code;
        pub fn TF_Message(s: *const TF_Status) -> *const c_char;

        pub fn TF_NewGraph() -> *mut TF_Graph;
        pub fn TF_DeleteGraph(g: *mut TF_Graph);
        pub fn TF_GraphOperationByName(g: *mut TF_Graph, name: *const c_char) -> *mut TF_Operation;
        pub fn TF_GraphGetTensorNumDims(
            g: *mut TF_Graph,
            output: TF_Output,
            status: *mut TF_Status,
        ) -> c_int;
        pub fn TF_GraphGetTensorShape(
            g: *mut TF_Graph,
            output: TF_Output,
            dims: *mut i64,
            num_dims: c_int,
            status: *mut TF_Status,
        );

        pub fn TF_NewOperation(
            g: *mut TF_Graph,
            op_type: *const c_char,
            name: *const c_char,
        ) -> *mut TF_OperationDescription;
        pub fn TF_SetDevice(d: *mut TF_OperationDescription, device: *const c_char);
        pub fn TF_AddInput(d: *mut TF_OperationDescription, input: TF_Output);
        pub fn TF_AddInputList(d: *mut TF_OperationDescription, inputs: *const TF_Output, n: c_int);
        pub fn TF_AddControlInput(d: *mut TF_OperationDescription, op: *mut TF_Operation);
        pub fn TF_SetAttrString(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            value: *const c_void,
            len: usize,
        );
        pub fn TF_SetAttrStringList(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            values: *const *const c_void,
            lens: *const usize,
            n: c_int,
        );
        pub fn TF_SetAttrInt(d: *mut TF_OperationDescription, name: *const c_char, value: i64);
        pub fn TF_SetAttrIntList(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            values: *const i64,
            n: c_int,
        );
        pub fn TF_SetAttrFloat(d: *mut TF_OperationDescription, name: *const c_char, value: f32);
        pub fn TF_SetAttrFloatList(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            values: *const f32,
            n: c_int,
        );
        pub fn TF_SetAttrBool(d: *mut TF_OperationDescription, name: *const c_char, value: c_uchar);
        pub fn TF_SetAttrBoolList(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            values: *const c_uchar,
            n: c_int,
        );
        pub fn TF_SetAttrType(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            value: TF_DataType,
        );
        pub fn TF_SetAttrTypeList(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            values: *const TF_DataType,
            n: c_int,
        );
        pub fn TF_SetAttrFuncName(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            value: *const c_char,
            len: usize,
        );
        pub fn TF_SetAttrShape(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            dims: *const i64,
            num_dims: c_int,
        );
        pub fn TF_SetAttrShapeList(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            dims: *const *const i64,
            num_dims: *const c_int,
            n: c_int,
        );
        pub fn TF_SetAttrTensor(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            value: *mut TF_Tensor,
            status: *mut TF_Status,
        );
        pub fn TF_SetAttrTensorList(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            values: *const *mut TF_Tensor,
            n: c_int,
            status: *mut TF_Status,
        );
        pub fn TF_SetAttrValueProto(
            d: *mut TF_OperationDescription,
            name: *const c_char,
            proto: *const c_void,
            len: usize,
            status: *mut TF_Status,
        );
        pub fn TF_FinishOperation(
            d: *mut TF_OperationDescription,
            status: *mut TF_Status,
        ) -> *mut TF_Operation;

        pub fn TF_OperationName(op: *mut TF_Operation) -> *const c_char;
        pub fn TF_OperationOpType(op: *mut TF_Operation) -> *const c_char;
        pub fn TF_OperationNumOutputs(op: *mut TF_Operation) -> c_int;
        pub fn TF_OperationOutputType(output: TF_Output) -> TF_DataType;
        pub fn TF_OperationOutputListLength(
            op: *mut TF_Operation,
            arg_name: *const c_char,
            status: *mut TF_Status,
        ) -> c_int;

        pub fn TF_AddGradients(
            g: *mut TF_Graph,
            y: *const TF_Output,
            ny: c_int,
            x: *const TF_Output,
            nx: c_int,
            dx: *const TF_Output,
            status: *mut TF_Status,
            dy: *mut TF_Output,
        );
        pub fn TF_AddGradientsWithPrefix(
            g: *mut TF_Graph,
            prefix: *const c_char,
            y: *const TF_Output,
            ny: c_int,
            x: *const TF_Output,
            nx: c_int,
            dx: *const TF_Output,
            status: *mut TF_Status,
            dy: *mut TF_Output,
        );

        pub fn TF_GraphToFunction(
            fn_body: *const TF_Graph,
            fn_name: *const c_char,
            append_hash_to_fn_name: c_uchar,
            num_opers: c_int,
            opers: *const *const TF_Operation,
            ninputs: c_int,
            inputs: *const TF_Output,
            noutputs: c_int,
            outputs: *const TF_Output,
            output_names: *const *const c_char,
            opts: *const c_void,
            description: *const c_char,
            status: *mut TF_Status,
        ) -> *mut TF_Function;
        pub fn TF_FunctionName(func: *mut TF_Function) -> *const c_char;
        pub fn TF_DeleteFunction(func: *mut TF_Function);
        pub fn TF_FunctionToFunctionDef(
            func: *mut TF_Function,
            output_func_def: *mut TF_Buffer,
            status: *mut TF_Status,
        );
        pub fn TF_NewBuffer() -> *mut TF_Buffer;
        pub fn TF_DeleteBuffer(buffer: *mut TF_Buffer);
        pub fn TF_GraphCopyFunction(
            g: *mut TF_Graph,
            func: *const TF_Function,
            grad: *const TF_Function,
            status: *mut TF_Status,
        );
        pub fn TF_GraphNumFunctions(g: *mut TF_Graph) -> c_int;
        pub fn TF_GraphGetFunctions(
            g: *mut TF_Graph,
            funcs: *mut *mut TF_Function,
            max_func: c_int,
            status: *mut TF_Status,
        ) -> c_int;
        pub fn TF_NewWhile(
            g: *mut TF_Graph,
            inputs: *mut TF_Output,
            ninputs: c_int,
            status: *mut TF_Status,
        ) -> TF_WhileParams;
        pub fn TF_FinishWhile(
            params: *const TF_WhileParams,
            status: *mut TF_Status,
            outputs: *mut TF_Output,
        );
        pub fn TF_AbortWhile(params: *const TF_WhileParams);

        pub fn TF_NewSessionOptions() -> *mut TF_SessionOptions;
        pub fn TF_DeleteSessionOptions(o: *mut TF_SessionOptions);
        pub fn TF_NewSession(
            g: *mut TF_Graph,
            o: *const TF_SessionOptions,
            status: *mut TF_Status,
        ) -> *mut TF_Session;
        pub fn TF_CloseSession(s: *mut TF_Session, status: *mut TF_Status);
        pub fn TF_DeleteSession(s: *mut TF_Session, status: *mut TF_Status);
        pub fn TF_SessionRun(
            s: *mut TF_Session,
            run_options: *const TF_Buffer,
            inputs: *const TF_Output,
            input_values: *const *mut TF_Tensor,
            ninputs: c_int,
            outputs: *const TF_Output,
            output_values: *mut *mut TF_Tensor,
            noutputs: c_int,
            targets: *const *const TF_Operation,
            ntargets: c_int,
            run_metadata: *mut TF_Buffer,
            status: *mut TF_Status,
        );

        pub fn TF_AllocateTensor(
            dtype: TF_DataType,
            dims: *const i64,
            num_dims: c_int,
            len: usize,
        ) -> *mut TF_Tensor;
        pub fn TF_DeleteTensor(t: *mut TF_Tensor);
        pub fn TF_TensorType(t: *const TF_Tensor) -> TF_DataType;
        pub fn TF_NumDims(t: *const TF_Tensor) -> c_int;
        pub fn TF_Dim(t: *const TF_Tensor, index: c_int) -> i64;
        pub fn TF_TensorByteSize(t: *const TF_Tensor) -> usize;
        pub fn TF_TensorData(t: *const TF_Tensor) -> *mut c_void;
    }
}

// ------------------------------------------------------------------------------ errors

/// TensorFlow's error codes (`TF_Code`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Code {
    Cancelled,
    Unknown,
    InvalidArgument,
    DeadlineExceeded,
    NotFound,
    AlreadyExists,
    PermissionDenied,
    ResourceExhausted,
    FailedPrecondition,
    Aborted,
    OutOfRange,
    Unimplemented,
    Internal,
    Unavailable,
    DataLoss,
    Unauthenticated,
    /// A code this crate does not know, as the C API returned it.
    Other(i32),
}

impl Code {
    /// The code of a non-OK `TF_Code` value.
    pub fn from_c(code: c_int) -> Code {
        match code {
            1 => Code::Cancelled,
            2 => Code::Unknown,
            3 => Code::InvalidArgument,
            4 => Code::DeadlineExceeded,
            5 => Code::NotFound,
            6 => Code::AlreadyExists,
            7 => Code::PermissionDenied,
            8 => Code::ResourceExhausted,
            9 => Code::FailedPrecondition,
            10 => Code::Aborted,
            11 => Code::OutOfRange,
            12 => Code::Unimplemented,
            13 => Code::Internal,
            14 => Code::Unavailable,
            15 => Code::DataLoss,
            16 => Code::Unauthenticated,
            other => Code::Other(other),
        }
    }
}

/// A failed call: TensorFlow's error code and message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Error {
    pub code: Code,
    pub message: String,
}

impl Error {
    fn invalid_argument(message: impl Into<String>) -> Error {
        Error {
            code: Code::InvalidArgument,
            message: message.into(),
        }
    }
}

impl fmt::Display for Error {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{:?}: {}", self.code, self.message)
    }
}

impl std::error::Error for Error {}

/// An owned `TF_Status`.
struct Status(NonNull<ffi::TF_Status>);

impl Status {
    fn new() -> Status {
        Status(NonNull::new(unsafe { ffi::TF_NewStatus() }).expect("TF_NewStatus returned NULL"))
    }

    fn ptr(&self) -> *mut ffi::TF_Status {
        self.0.as_ptr()
    }

    fn result(&self) -> Result<(), Error> {
        let code = unsafe { ffi::TF_GetCode(self.ptr()) };
        if code == 0 {
            return Ok(());
        }
        let message = unsafe { CStr::from_ptr(ffi::TF_Message(self.ptr())) };
        Err(Error {
            code: Code::from_c(code),
            message: message.to_string_lossy().into_owned(),
        })
    }
}

impl Drop for Status {
    fn drop(&mut self) {
        unsafe { ffi::TF_DeleteStatus(self.ptr()) }
    }
}

fn c_string(text: &str) -> Result<CString, Error> {
    CString::new(text)
        .map_err(|_| Error::invalid_argument(format!("{:?} contains a NUL byte", text)))
}

// ----------------------------------------------------------------------------- dtypes

// `DataType` is generated (data_type.rs): one variant per value of TensorFlow's DataType
// enum, as opgen's types.proto lists them.
mod data_type;
pub use data_type::DataType;

/// Rust element types a [`Tensor`] can hold and hand back as a slice.
pub trait TensorType: Copy + 'static {
    const DATA_TYPE: DataType;
}

macro_rules! tensor_type {
    ($($rust:ty => $dtype:ident),* $(,)?) => {
        $(impl TensorType for $rust {
            const DATA_TYPE: DataType = DataType::$dtype;
        })*
    };
}

tensor_type!(f32 => Float, f64 => Double, i8 => Int8, i16 => Int16, i32 => Int32, i64 => Int64,
             u8 => Uint8, u16 => Uint16, u32 => Uint32, u64 => Uint64, bool => Bool);

// ----------------------------------------------------------------------------- shapes

/// A `shape` attr value: `None` for an unknown rank; a dim of -1 is unknown.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shape(pub Option<Vec<i64>>);

impl Shape {
    /// The shape of unknown rank.
    pub fn unknown() -> Shape {
        Shape(None)
    }
}

impl From<&[i64]> for Shape {
    fn from(dims: &[i64]) -> Shape {
        Shape(Some(dims.to_vec()))
    }
}

impl<const N: usize> From<[i64; N]> for Shape {
    fn from(dims: [i64; N]) -> Shape {
        Shape(Some(dims.to_vec()))
    }
}

impl From<Vec<i64>> for Shape {
    fn from(dims: Vec<i64>) -> Shape {
        Shape(Some(dims))
    }
}

// ---------------------------------------------------------------------------- tensors

/// An owned `TF_Tensor`.
pub struct Tensor {
    ptr: NonNull<ffi::TF_Tensor>,
}

impl Tensor {
    /// A tensor of shape `dims` holding a copy of `values` (row-major).
    pub fn new<T: TensorType>(dims: &[i64], values: &[T]) -> Result<Tensor, Error> {
        let count: i64 = dims.iter().product();
        if dims.iter().any(|&d| d < 0) || count as usize != values.len() {
            return Err(Error::invalid_argument(format!(
                "{} values do not fill a tensor of shape {:?}",
                values.len(),
                dims
            )));
        }
        let bytes = std::mem::size_of_val(values);
        let raw = unsafe {
            ffi::TF_AllocateTensor(
                T::DATA_TYPE as c_int,
                dims.as_ptr(),
                dims.len() as c_int,
                bytes,
            )
        };
        let ptr = NonNull::new(raw).ok_or_else(|| Error {
            code: Code::ResourceExhausted,
            message: "TF_AllocateTensor failed".to_string(),
        })?;
        unsafe {
            ptr::copy_nonoverlapping(
                values.as_ptr() as *const u8,
                ffi::TF_TensorData(ptr.as_ptr()) as *mut u8,
                bytes,
            );
        }
        Ok(Tensor { ptr })
    }

    /// A scalar tensor.
    pub fn scalar<T: TensorType>(value: T) -> Result<Tensor, Error> {
        Tensor::new(&[], &[value])
    }

    /// Takes ownership of a tensor the C API returned.
    ///
    /// # Safety
    /// `raw` must be a valid tensor that nothing else frees.
    pub unsafe fn from_raw(raw: *mut ffi::TF_Tensor) -> Option<Tensor> {
        NonNull::new(raw).map(|ptr| Tensor { ptr })
    }

    pub fn as_ptr(&self) -> *mut ffi::TF_Tensor {
        self.ptr.as_ptr()
    }

    /// The element type; `None` for a dtype this crate does not know.
    pub fn data_type(&self) -> Option<DataType> {
        DataType::from_c(unsafe { ffi::TF_TensorType(self.as_ptr()) })
    }

    /// The element type as messages name it: `float32` (`dtype 99` for one this crate
    /// does not know).
    fn dtype_name(&self) -> String {
        match self.data_type() {
            Some(dtype) => dtype.name().to_string(),
            None => format!("dtype {}", unsafe { ffi::TF_TensorType(self.as_ptr()) }),
        }
    }

    pub fn dims(&self) -> Vec<i64> {
        let rank = unsafe { ffi::TF_NumDims(self.as_ptr()) };
        (0..rank)
            .map(|i| unsafe { ffi::TF_Dim(self.as_ptr(), i) })
            .collect()
    }

    /// The elements, row-major; an error when `T` is not the tensor's element type.
    pub fn data<T: TensorType>(&self) -> Result<&[T], Error> {
        if self.data_type() != Some(T::DATA_TYPE) {
            return Err(Error::invalid_argument(format!(
                "the tensor holds {}, not {}",
                self.dtype_name(),
                T::DATA_TYPE
            )));
        }
        let bytes = unsafe { ffi::TF_TensorByteSize(self.as_ptr()) };
        let data = unsafe { ffi::TF_TensorData(self.as_ptr()) } as *const T;
        let len = bytes / std::mem::size_of::<T>();
        if len == 0 {
            return Ok(&[]);
        }
        if data.is_null() || (data as usize) % std::mem::align_of::<T>() != 0 {
            return Err(Error {
                code: Code::Internal,
                message: "misaligned tensor data".to_string(),
            });
        }
        Ok(unsafe { std::slice::from_raw_parts(data, len) })
    }
}

impl Drop for Tensor {
    fn drop(&mut self) {
        unsafe { ffi::TF_DeleteTensor(self.as_ptr()) }
    }
}

impl fmt::Debug for Tensor {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Tensor({}, {:?})", self.dtype_name(), self.dims())
    }
}

// ----------------------------------------------------------------------------- graphs

struct GraphHandle {
    ptr: NonNull<ffi::TF_Graph>,
    /// op type -> how many default names were handed out for it
    default_names: RefCell<HashMap<String, usize>>,
    /// the initializers of the graph's `Variable`s (operations the graph owns)
    variable_initializers: RefCell<Vec<NonNull<ffi::TF_Operation>>>,
    /// false for a graph the C API owns (a while loop's cond and body graphs)
    owned: bool,
}

impl Drop for GraphHandle {
    fn drop(&mut self) {
        if self.owned {
            unsafe { ffi::TF_DeleteGraph(self.ptr.as_ptr()) }
        }
    }
}

/// A `TF_Graph`. Clones share it; it is freed when the last clone, operation and
/// session using it are gone.
#[derive(Clone)]
pub struct Graph {
    inner: Rc<GraphHandle>,
}

impl Default for Graph {
    fn default() -> Graph {
        Graph::new()
    }
}

impl Graph {
    pub fn new() -> Graph {
        let ptr = NonNull::new(unsafe { ffi::TF_NewGraph() }).expect("TF_NewGraph returned NULL");
        Graph::wrap(ptr, true)
    }

    /// A `Graph` over `ptr`; `owned`: freed when the last clone is dropped.
    fn wrap(ptr: NonNull<ffi::TF_Graph>, owned: bool) -> Graph {
        Graph {
            inner: Rc::new(GraphHandle {
                ptr,
                default_names: RefCell::new(HashMap::new()),
                variable_initializers: RefCell::new(Vec::new()),
                owned,
            }),
        }
    }

    pub fn as_ptr(&self) -> *mut ffi::TF_Graph {
        self.inner.ptr.as_ptr()
    }

    fn same_graph(&self, other: &Graph) -> bool {
        Rc::ptr_eq(&self.inner, &other.inner)
    }

    pub fn operation_by_name(&self, name: &str) -> Option<Operation> {
        let name = c_string(name).ok()?;
        let raw = unsafe { ffi::TF_GraphOperationByName(self.as_ptr(), name.as_ptr()) };
        NonNull::new(raw).map(|ptr| Operation {
            ptr,
            graph: self.clone(),
        })
    }

    /// `op_type`, or `op_type_1`, `op_type_2`... : the first name no operation has.
    fn unique_name(&self, op_type: &str) -> String {
        let mut counts = self.inner.default_names.borrow_mut();
        let count = counts.entry(op_type.to_string()).or_insert(0);
        loop {
            let candidate = if *count == 0 {
                op_type.to_string()
            } else {
                format!("{}_{}", op_type, count)
            };
            *count += 1;
            if self.operation_by_name(&candidate).is_none() {
                return candidate;
            }
        }
    }

    /// Adds the operation `spec` describes (what every op builder's `build` calls).
    pub fn add_operation(&self, spec: OpSpec) -> Result<Operation, Error> {
        for output in spec.inputs.iter().flat_map(|i| match i {
            InputArg::Single(o) => std::slice::from_ref(o),
            InputArg::List(list) => list.as_slice(),
        }) {
            if !self.same_graph(&output.operation.graph) {
                return Err(Error::invalid_argument(format!(
                    "input {} of {} is in another graph",
                    output.operation.name(),
                    &spec.op_type
                )));
            }
        }
        for attr in &spec.attrs {
            check_attr(attr)?;
        }
        let name = match spec.name {
            Some(name) => name,
            None => self.unique_name(&spec.op_type),
        };
        let op_type = c_string(&spec.op_type)?;
        let c_name = c_string(&name)?;
        let device = spec.device.as_deref().map(c_string).transpose()?;
        let attr_names = spec
            .attrs
            .iter()
            .map(|(n, _)| c_string(n))
            .collect::<Result<Vec<_>, _>>()?;
        let status = Status::new();
        let mut attr_error = None;
        let raw = unsafe {
            let desc = ffi::TF_NewOperation(self.as_ptr(), op_type.as_ptr(), c_name.as_ptr());
            if let Some(device) = &device {
                ffi::TF_SetDevice(desc, device.as_ptr());
            }
            for input in &spec.inputs {
                match input {
                    InputArg::Single(o) => ffi::TF_AddInput(desc, o.to_c()),
                    InputArg::List(list) => {
                        let list: Vec<ffi::TF_Output> = list.iter().map(Output::to_c).collect();
                        ffi::TF_AddInputList(desc, list.as_ptr(), list.len() as c_int)
                    }
                }
            }
            for control in &spec.control_inputs {
                ffi::TF_AddControlInput(desc, control.ptr.as_ptr());
            }
            for ((_, value), c_name) in spec.attrs.iter().zip(&attr_names) {
                set_attr(desc, c_name, value, &status);
                if attr_error.is_none() {
                    attr_error = status.result().err();
                }
            }
            // Always frees `desc`. check_attr rules out the attr errors known to happen.
            ffi::TF_FinishOperation(desc, status.ptr())
        };
        if let Some(error) = attr_error {
            return Err(error);
        }
        status.result()?;
        let ptr = NonNull::new(raw).ok_or_else(|| Error {
            code: Code::Internal,
            message: "TF_FinishOperation returned NULL with an OK status".to_string(),
        })?;
        Ok(Operation {
            ptr,
            graph: self.clone(),
        })
    }
}

impl Graph {
    /// Adds the gradients of the sum of `y` with respect to each of `x` (TensorFlow's
    /// `TF_AddGradientsWithPrefix`): `dx[i]` is the gradient fed into `y[i]` (`None`:
    /// ones). Returns one entry per `x`, `None` for an `x` the `y`s do not depend on. The
    /// nodes go under `prefix` (`None`: `gradients`, `gradients_1`...; a taken prefix is
    /// `Code::InvalidArgument`). An op on the path without a gradient function is
    /// `Code::NotFound` ("No gradient defined for op: ...").
    pub fn add_gradients(
        &self,
        prefix: Option<&str>,
        y: &[Output],
        x: &[Output],
        dx: Option<&[Output]>,
    ) -> Result<Vec<Option<Output>>, Error> {
        if let Some(dx) = dx {
            if dx.len() != y.len() {
                return Err(Error::invalid_argument(format!(
                    "dx.len() must equal y.len(): dx.len() = {}, y.len() = {}",
                    dx.len(),
                    y.len()
                )));
            }
        }
        let all = y.iter().chain(x).chain(dx.unwrap_or(&[]));
        for output in all {
            if !self.same_graph(output.operation.graph()) {
                return Err(Error::invalid_argument(format!(
                    "add_gradients: {} is in another graph",
                    output.operation.name()
                )));
            }
        }
        let prefix = prefix.map(c_string).transpose()?;
        let c_y: Vec<ffi::TF_Output> = y.iter().map(Output::to_c).collect();
        let c_x: Vec<ffi::TF_Output> = x.iter().map(Output::to_c).collect();
        let c_dx: Option<Vec<ffi::TF_Output>> = dx.map(|d| d.iter().map(Output::to_c).collect());
        let dx_ptr = c_dx.as_ref().map_or(ptr::null(), |d| d.as_ptr());
        let mut c_dy = vec![
            ffi::TF_Output {
                oper: ptr::null_mut(),
                index: -1,
            };
            x.len()
        ];
        let status = Status::new();
        unsafe {
            let (g, ny, nx) = (self.as_ptr(), y.len() as c_int, x.len() as c_int);
            let (dy, st) = (c_dy.as_mut_ptr(), status.ptr());
            match &prefix {
                Some(p) => ffi::TF_AddGradientsWithPrefix(
                    g,
                    p.as_ptr(),
                    c_y.as_ptr(),
                    ny,
                    c_x.as_ptr(),
                    nx,
                    dx_ptr,
                    st,
                    dy,
                ),
                None => ffi::TF_AddGradients(g, c_y.as_ptr(), ny, c_x.as_ptr(), nx, dx_ptr, st, dy),
            }
        }
        status.result()?;
        Ok(c_dy
            .into_iter()
            .map(|o| {
                NonNull::new(o.oper).map(|ptr| Output {
                    operation: Operation {
                        ptr,
                        graph: self.clone(),
                    },
                    index: o.index as usize,
                })
            })
            .collect())
    }
}

// ------------------------------------------------------------------------- operations

/// An operation in a graph (owned by the graph, which it keeps alive).
#[derive(Clone)]
pub struct Operation {
    ptr: NonNull<ffi::TF_Operation>,
    graph: Graph,
}

impl Operation {
    pub fn as_ptr(&self) -> *mut ffi::TF_Operation {
        self.ptr.as_ptr()
    }

    pub fn graph(&self) -> &Graph {
        &self.graph
    }

    pub fn name(&self) -> String {
        unsafe { CStr::from_ptr(ffi::TF_OperationName(self.as_ptr())) }
            .to_string_lossy()
            .into_owned()
    }

    pub fn op_type(&self) -> String {
        unsafe { CStr::from_ptr(ffi::TF_OperationOpType(self.as_ptr())) }
            .to_string_lossy()
            .into_owned()
    }

    pub fn num_outputs(&self) -> usize {
        unsafe { ffi::TF_OperationNumOutputs(self.as_ptr()) as usize }
    }

    /// Output `index`, counting over all output args flattened in OpDef order.
    pub fn output(&self, index: usize) -> Output {
        Output {
            operation: self.clone(),
            index,
        }
    }

    pub fn outputs(&self) -> Vec<Output> {
        (0..self.num_outputs()).map(|i| self.output(i)).collect()
    }

    /// How many tensors output arg `arg_name` holds.
    pub fn output_list_length(&self, arg_name: &str) -> Result<usize, Error> {
        let name = c_string(arg_name)?;
        let status = Status::new();
        let n = unsafe {
            ffi::TF_OperationOutputListLength(self.as_ptr(), name.as_ptr(), status.ptr())
        };
        status.result()?;
        Ok(n as usize)
    }
}

impl fmt::Debug for Operation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "Operation({} : {})", self.name(), self.op_type())
    }
}

/// One output tensor of an operation.
#[derive(Clone, Debug)]
pub struct Output {
    pub operation: Operation,
    pub index: usize,
}

impl Output {
    fn to_c(&self) -> ffi::TF_Output {
        ffi::TF_Output {
            oper: self.operation.as_ptr(),
            index: self.index as c_int,
        }
    }

    pub fn data_type(&self) -> Option<DataType> {
        DataType::from_c(unsafe { ffi::TF_OperationOutputType(self.to_c()) })
    }
}

/// An operation stands for its first output.
impl From<Operation> for Output {
    fn from(operation: Operation) -> Output {
        Output {
            operation,
            index: 0,
        }
    }
}

impl From<&Operation> for Output {
    fn from(operation: &Operation) -> Output {
        operation.output(0)
    }
}

impl From<&Output> for Output {
    fn from(output: &Output) -> Output {
        output.clone()
    }
}

// ------------------------------------------------------------------ operation specs

/// An attr value, as the op builders set them.
#[derive(Debug)]
pub enum AttrValue {
    String(Vec<u8>),
    Int(i64),
    Float(f32),
    Bool(bool),
    Type(DataType),
    Shape(Shape),
    Tensor(Tensor),
    Func(String),
    StringList(Vec<Vec<u8>>),
    IntList(Vec<i64>),
    FloatList(Vec<f32>),
    BoolList(Vec<bool>),
    TypeList(Vec<DataType>),
    ShapeList(Vec<Shape>),
    TensorList(Vec<Tensor>),
    FuncList(Vec<String>),
}

// Conversions the generated builders call: one short call each, so that the generated
// statements stay within rustfmt's widths whatever the parameter names.
impl AttrValue {
    /// `String` of any bytes-like value.
    pub fn string(value: impl AsRef<[u8]>) -> AttrValue {
        AttrValue::String(value.as_ref().to_vec())
    }

    /// `StringList` of any bytes-like values.
    pub fn string_list(values: impl IntoIterator<Item = impl AsRef<[u8]>>) -> AttrValue {
        AttrValue::StringList(values.into_iter().map(|s| s.as_ref().to_vec()).collect())
    }

    /// `FuncList` of function names.
    pub fn func_list(values: impl IntoIterator<Item = impl Into<String>>) -> AttrValue {
        AttrValue::FuncList(values.into_iter().map(Into::into).collect())
    }
}

#[derive(Debug)]
enum InputArg {
    Single(Output),
    List(Vec<Output>),
}

/// Everything needed to add one operation: what an op builder collects.
#[derive(Debug)]
pub struct OpSpec {
    op_type: Cow<'static, str>,
    name: Option<String>,
    device: Option<String>,
    inputs: Vec<InputArg>,
    attrs: Vec<(&'static str, AttrValue)>,
    control_inputs: Vec<Operation>,
}

impl OpSpec {
    /// An operation of `op_type`: an op's name, or a function's in the graph's library.
    pub fn new(op_type: impl Into<Cow<'static, str>>) -> OpSpec {
        OpSpec {
            op_type: op_type.into(),
            name: None,
            device: None,
            inputs: Vec::new(),
            attrs: Vec::new(),
            control_inputs: Vec::new(),
        }
    }

    /// The next input arg, one tensor.
    pub fn add_input(&mut self, output: Output) {
        self.inputs.push(InputArg::Single(output));
    }

    /// The next input arg, a list of tensors.
    pub fn add_input_list(&mut self, outputs: impl IntoIterator<Item = impl Into<Output>>) {
        let outputs = outputs.into_iter().map(Into::into).collect();
        self.inputs.push(InputArg::List(outputs));
    }

    /// Sets attr `name`, replacing an earlier value.
    pub fn set_attr(&mut self, name: &'static str, value: AttrValue) {
        self.attrs.retain(|(n, _)| *n != name);
        self.attrs.push((name, value));
    }

    /// The operation's name; by default the op type, made unique in the graph.
    pub fn set_name(&mut self, name: impl Into<String>) {
        self.name = Some(name.into());
    }

    pub fn set_device(&mut self, device: impl Into<String>) {
        self.device = Some(device.into());
    }

    /// `operation` runs before this one.
    pub fn add_control_input(&mut self, operation: &Operation) {
        self.control_inputs.push(operation.clone());
    }
}

/// Attr errors the C API would report only after the description exists.
fn check_attr((name, value): &(&'static str, AttrValue)) -> Result<(), Error> {
    let fixed_size = |t: &Tensor| {
        !matches!(
            t.data_type(),
            None | Some(DataType::String) | Some(DataType::Resource) | Some(DataType::Variant)
        )
    };
    let ok = match value {
        AttrValue::Tensor(t) => fixed_size(t),
        AttrValue::TensorList(list) => list.iter().all(fixed_size),
        _ => true,
    };
    if ok {
        Ok(())
    } else {
        Err(Error {
            code: Code::Unimplemented,
            message: format!(
                "attr '{}': only tensors of fixed-size dtypes can be attr values",
                name
            ),
        })
    }
}

unsafe fn set_attr(
    desc: *mut ffi::TF_OperationDescription,
    name: &CStr,
    value: &AttrValue,
    status: &Status,
) {
    let n = name.as_ptr();
    match value {
        AttrValue::String(s) => {
            ffi::TF_SetAttrString(desc, n, s.as_ptr() as *const c_void, s.len())
        }
        AttrValue::Int(v) => ffi::TF_SetAttrInt(desc, n, *v),
        AttrValue::Float(v) => ffi::TF_SetAttrFloat(desc, n, *v),
        AttrValue::Bool(v) => ffi::TF_SetAttrBool(desc, n, *v as u8),
        AttrValue::Type(v) => ffi::TF_SetAttrType(desc, n, *v as c_int),
        AttrValue::Shape(Shape(None)) => ffi::TF_SetAttrShape(desc, n, ptr::null(), -1),
        AttrValue::Shape(Shape(Some(dims))) => {
            ffi::TF_SetAttrShape(desc, n, dims.as_ptr(), dims.len() as c_int)
        }
        AttrValue::Tensor(t) => ffi::TF_SetAttrTensor(desc, n, t.as_ptr(), status.ptr()),
        AttrValue::Func(f) => {
            ffi::TF_SetAttrFuncName(desc, n, f.as_ptr() as *const c_char, f.len())
        }
        AttrValue::StringList(list) => {
            let ptrs: Vec<*const c_void> =
                list.iter().map(|s| s.as_ptr() as *const c_void).collect();
            let lens: Vec<usize> = list.iter().map(Vec::len).collect();
            ffi::TF_SetAttrStringList(desc, n, ptrs.as_ptr(), lens.as_ptr(), list.len() as c_int)
        }
        AttrValue::IntList(v) => ffi::TF_SetAttrIntList(desc, n, v.as_ptr(), v.len() as c_int),
        AttrValue::FloatList(v) => ffi::TF_SetAttrFloatList(desc, n, v.as_ptr(), v.len() as c_int),
        AttrValue::BoolList(v) => {
            let bytes: Vec<u8> = v.iter().map(|&b| b as u8).collect();
            ffi::TF_SetAttrBoolList(desc, n, bytes.as_ptr(), bytes.len() as c_int)
        }
        AttrValue::TypeList(v) => {
            let types: Vec<c_int> = v.iter().map(|&t| t as c_int).collect();
            ffi::TF_SetAttrTypeList(desc, n, types.as_ptr(), types.len() as c_int)
        }
        AttrValue::ShapeList(shapes) => {
            let dims: Vec<*const i64> = shapes
                .iter()
                .map(|s| s.0.as_ref().map_or(ptr::null(), |d| d.as_ptr()))
                .collect();
            let ranks: Vec<c_int> = shapes
                .iter()
                .map(|s| s.0.as_ref().map_or(-1, |d| d.len() as c_int))
                .collect();
            ffi::TF_SetAttrShapeList(
                desc,
                n,
                dims.as_ptr(),
                ranks.as_ptr(),
                shapes.len() as c_int,
            )
        }
        AttrValue::TensorList(list) => {
            let ptrs: Vec<*mut ffi::TF_Tensor> = list.iter().map(Tensor::as_ptr).collect();
            ffi::TF_SetAttrTensorList(desc, n, ptrs.as_ptr(), ptrs.len() as c_int, status.ptr())
        }
        AttrValue::FuncList(names) => {
            // The C API has no setter for a list of functions: send an AttrValue proto.
            let proto = func_list_proto(names);
            ffi::TF_SetAttrValueProto(
                desc,
                n,
                proto.as_ptr() as *const c_void,
                proto.len(),
                status.ptr(),
            )
        }
    }
}

fn push_varint(out: &mut Vec<u8>, mut value: u64) {
    while value >= 0x80 {
        out.push((value as u8 & 0x7f) | 0x80);
        value >>= 7;
    }
    out.push(value as u8);
}

fn push_bytes_field(out: &mut Vec<u8>, field: u64, bytes: &[u8]) {
    push_varint(out, field << 3 | 2);
    push_varint(out, bytes.len() as u64);
    out.extend_from_slice(bytes);
}

/// `AttrValue { list { func { name } ... } }` serialized: AttrValue.list is field 1,
/// ListValue.func field 9, NameAttrList.name field 1.
fn func_list_proto(names: &[String]) -> Vec<u8> {
    let mut list = Vec::new();
    for name in names {
        let mut func = Vec::new();
        push_bytes_field(&mut func, 1, name.as_bytes());
        push_bytes_field(&mut list, 9, &func);
    }
    let mut attr_value = Vec::new();
    push_bytes_field(&mut attr_value, 1, &list);
    attr_value
}

// --------------------------------------------------------------------------- sessions

/// A `TF_Session` running one graph.
pub struct Session {
    ptr: NonNull<ffi::TF_Session>,
    graph: Graph,
}

impl Session {
    pub fn new(graph: &Graph) -> Result<Session, Error> {
        let status = Status::new();
        let raw = unsafe {
            let options = ffi::TF_NewSessionOptions();
            let session = ffi::TF_NewSession(graph.as_ptr(), options, status.ptr());
            ffi::TF_DeleteSessionOptions(options);
            session
        };
        status.result()?;
        let ptr = NonNull::new(raw).ok_or_else(|| Error {
            code: Code::Internal,
            message: "TF_NewSession returned NULL with an OK status".to_string(),
        })?;
        Ok(Session {
            ptr,
            graph: graph.clone(),
        })
    }

    /// Feeds `feeds`, computes `fetches` (returned in that order) and runs `targets`.
    pub fn run(
        &self,
        feeds: &[(Output, &Tensor)],
        fetches: &[Output],
        targets: &[Operation],
    ) -> Result<Vec<Tensor>, Error> {
        let all_outputs = feeds.iter().map(|(o, _)| o).chain(fetches);
        for o in all_outputs {
            if !self.graph.same_graph(&o.operation.graph) {
                return Err(Error::invalid_argument(format!(
                    "{} is not in the session's graph",
                    o.operation.name()
                )));
            }
        }
        let inputs: Vec<ffi::TF_Output> = feeds.iter().map(|(o, _)| o.to_c()).collect();
        let values: Vec<*mut ffi::TF_Tensor> = feeds.iter().map(|(_, t)| t.as_ptr()).collect();
        let outputs: Vec<ffi::TF_Output> = fetches.iter().map(Output::to_c).collect();
        let mut results: Vec<*mut ffi::TF_Tensor> = vec![ptr::null_mut(); fetches.len()];
        let target_ptrs: Vec<*const ffi::TF_Operation> = targets
            .iter()
            .map(|t| t.as_ptr() as *const ffi::TF_Operation)
            .collect();
        let status = Status::new();
        unsafe {
            ffi::TF_SessionRun(
                self.ptr.as_ptr(),
                ptr::null(),
                inputs.as_ptr(),
                values.as_ptr(),
                inputs.len() as c_int,
                outputs.as_ptr(),
                results.as_mut_ptr(),
                outputs.len() as c_int,
                target_ptrs.as_ptr(),
                target_ptrs.len() as c_int,
                ptr::null_mut(),
                status.ptr(),
            );
        }
        // Own whatever came back before looking at the status, so nothing leaks.
        let tensors: Vec<Option<Tensor>> = results
            .into_iter()
            .map(|raw| unsafe { Tensor::from_raw(raw) })
            .collect();
        status.result()?;
        tensors
            .into_iter()
            .map(|t| {
                t.ok_or_else(|| Error {
                    code: Code::Internal,
                    message: "TF_SessionRun returned a NULL tensor".to_string(),
                })
            })
            .collect()
    }

    /// Refuses later runs; `Drop` frees the session either way.
    pub fn close(&mut self) -> Result<(), Error> {
        let status = Status::new();
        unsafe { ffi::TF_CloseSession(self.ptr.as_ptr(), status.ptr()) };
        status.result()
    }
}

impl Drop for Session {
    fn drop(&mut self) {
        let status = Status::new();
        unsafe { ffi::TF_DeleteSession(self.ptr.as_ptr(), status.ptr()) };
    }
}
