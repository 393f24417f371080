// Part of opgen's Go API, the same for every OpList: `opgen generate --lang go`
// copies this file unchanged. Do not edit the copy: regenerate instead.

// Package tf builds and runs TensorFlow graphs through the opgen runtime's C API:
// graphs, operations, tensors and sessions. The ops are functions of package
// opgen.dev/tf/op taking an op.Scope. cgo finds the runtime's headers
// and library through the environment:
//
//	export CGO_CFLAGS="-I$(python3 -c 'from opgen import _paths; print(_paths.include_dir())')"
//	export CGO_LDFLAGS="-L$(python3 -c 'from opgen import _paths; print(_paths.runtime_library_path().parent)')"
//
// (or `opgen config --cflags` / `opgen config --libs` where opgen provides them), and
// LD_LIBRARY_PATH (or an rpath in CGO_LDFLAGS) lets the program load libopgen_runtime.so.
package tf

/*
#cgo LDFLAGS: -lopgen_runtime
#include <stdlib.h>
#include <string.h>
#include "tensorflow/c/c_api.h"
*/
import "C"

import (
	"fmt"
	"runtime"
	"sort"
	"unsafe"
)

// ------------------------------------------------------------------------------ status

func newError(status *C.TF_Status) error {
	code := C.TF_GetCode(status)
	if code == C.TF_OK {
		return nil
	}
	return &Error{Code: Code(code), Message: C.GoString(C.TF_Message(status))}
}

// withStatus calls f with a fresh TF_Status and returns its error.
func withStatus(f func(*C.TF_Status)) error {
	status := C.TF_NewStatus()
	defer C.TF_DeleteStatus(status)
	f(status)
	return newError(status)
}

// Version is the runtime's TF_Version().
func Version() string { return C.GoString(C.TF_Version()) }

// ------------------------------------------------------------------------------- graph

// Graph is a TF_Graph, freed by the garbage collector once nothing refers to it
// (operations and sessions keep their graph alive).
type Graph struct {
	c *C.TF_Graph
}

// NewGraph is an empty graph.
func NewGraph() *Graph {
	g := &Graph{c: C.TF_NewGraph()}
	runtime.SetFinalizer(g, func(g *Graph) { C.TF_DeleteGraph(g.c) })
	return g
}

// Operation is the operation called name, or nil.
func (g *Graph) Operation(name string) *Operation {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	op := C.TF_GraphOperationByName(g.c, cname)
	runtime.KeepAlive(g)
	if op == nil {
		return nil
	}
	return &Operation{c: op, g: g}
}

// AddGradients adds to g the gradients of the sum of y with respect to each of x
// (TensorFlow's TF_AddGradientsWithPrefix): dx[i] is the gradient fed into y[i] (nil dx:
// ones). It returns one Output per x, an Output with a nil Op for an x the ys do not
// depend on. The nodes go under prefix ("": "gradients", "gradients_1"...; a taken
// prefix is InvalidArgument). An op on the path without a gradient function is NotFound
// ("No gradient defined for op: ...").
func (g *Graph) AddGradients(prefix string, y []Output, x []Output, dx []Output) ([]Output, error) {
	if dx != nil && len(dx) != len(y) {
		return nil, &Error{Code: InvalidArgument, Message: fmt.Sprintf(
			"AddGradients: %d dx for %d y: give one per y, or nil", len(dx), len(y))}
	}
	outputs := func(list []Output, what string) ([]C.TF_Output, error) {
		c := make([]C.TF_Output, len(list)+1) // never empty: &c[0] is valid
		for i, o := range list {
			if o.Op == nil || o.Op.g != g {
				return nil, &Error{Code: InvalidArgument, Message: fmt.Sprintf(
					"AddGradients: %s[%d] is not an output of this graph", what, i)}
			}
			c[i] = o.c()
		}
		return c, nil
	}
	cy, err := outputs(y, "y")
	if err != nil {
		return nil, err
	}
	cx, err := outputs(x, "x")
	if err != nil {
		return nil, err
	}
	var cdx *C.TF_Output
	if dx != nil {
		c, err := outputs(dx, "dx")
		if err != nil {
			return nil, err
		}
		cdx = &c[0]
	}
	cdy := make([]C.TF_Output, len(x)+1)
	err = withStatus(func(status *C.TF_Status) {
		if prefix == "" {
			C.TF_AddGradients(g.c, &cy[0], C.int(len(y)), &cx[0], C.int(len(x)), cdx, status, &cdy[0])
			return
		}
		cprefix := C.CString(prefix)
		defer C.free(unsafe.Pointer(cprefix))
		C.TF_AddGradientsWithPrefix(g.c, cprefix, &cy[0], C.int(len(y)), &cx[0], C.int(len(x)), cdx, status, &cdy[0])
	})
	runtime.KeepAlive(g)
	if err != nil {
		return nil, err
	}
	result := make([]Output, len(x))
	for i := range x {
		if cdy[i].oper != nil {
			result[i] = Output{Op: &Operation{c: cdy[i].oper, g: g}, Index: int(cdy[i].index)}
		}
	}
	return result, nil
}

// Operation is an operation in a graph.
type Operation struct {
	c *C.TF_Operation
	g *Graph
}

// Name is the operation's name.
func (op *Operation) Name() string { return C.GoString(C.TF_OperationName(op.c)) }

// Type is the operation's op type.
func (op *Operation) Type() string { return C.GoString(C.TF_OperationOpType(op.c)) }

// NumOutputs is the number of output tensors, over all output args.
func (op *Operation) NumOutputs() int { return int(C.TF_OperationNumOutputs(op.c)) }

// Output is output i, counting over all output args flattened in OpDef order.
func (op *Operation) Output(i int) Output { return Output{Op: op, Index: i} }

// OutputListSize is the number of tensors of output arg arg (a list arg's length).
func (op *Operation) OutputListSize(arg string) (int, error) {
	carg := C.CString(arg)
	defer C.free(unsafe.Pointer(carg))
	var n C.int
	err := withStatus(func(s *C.TF_Status) { n = C.TF_OperationOutputListLength(op.c, carg, s) })
	runtime.KeepAlive(op.g)
	return int(n), err
}

// Input is what an op takes for an input arg: an Output or an OutputList.
type Input interface {
	isInput()
}

// Output is one output tensor of an operation.
type Output struct {
	Op    *Operation
	Index int
}

func (Output) isInput() {}

// DataType is the type of the tensor this output produces.
func (o Output) DataType() DataType {
	return DataType(C.TF_OperationOutputType(o.c()))
}

// Shape is the static shape shape inference gave this output: UnknownShape() when it
// gave none, -1 for a dim it does not know.
func (o Output) Shape() Shape {
	var rank C.int
	err := withStatus(func(s *C.TF_Status) { rank = C.TF_GraphGetTensorNumDims(o.Op.g.c, o.c(), s) })
	if err != nil || rank < 0 {
		return UnknownShape()
	}
	dims := make([]int64, int(rank))
	if rank > 0 {
		err = withStatus(func(s *C.TF_Status) {
			C.TF_GraphGetTensorShape(o.Op.g.c, o.c(), (*C.int64_t)(unsafe.Pointer(&dims[0])), rank, s)
		})
	}
	runtime.KeepAlive(o.Op.g)
	if err != nil {
		return UnknownShape()
	}
	return Shape{Dims: dims}
}

func (o Output) c() C.TF_Output {
	return C.TF_Output{oper: o.Op.c, index: C.int(o.Index)}
}

// OutputList is the value of a list input arg.
type OutputList []Output

func (OutputList) isInput() {}

// OpSpec describes one operation to add: what every op function fills in.
type OpSpec struct {
	Type          string
	Name          string // unique in the graph
	Device        string // "" for no device
	Input         []Input
	Attrs         map[string]interface{}
	ControlInputs []*Operation
}

// AddOperation adds the operation spec describes to the graph.
func (g *Graph) AddOperation(spec OpSpec) (*Operation, error) {
	for _, in := range spec.Input {
		for _, o := range asOutputs(in) {
			if o.Op == nil || o.Op.g != g {
				return nil, &Error{Code: InvalidArgument, Message: fmt.Sprintf("an input of %s is not in its graph", spec.Name)}
			}
		}
	}
	ctype, cname := C.CString(spec.Type), C.CString(spec.Name)
	defer C.free(unsafe.Pointer(ctype))
	defer C.free(unsafe.Pointer(cname))
	desc := C.TF_NewOperation(g.c, ctype, cname)
	if spec.Device != "" {
		cdevice := C.CString(spec.Device)
		C.TF_SetDevice(desc, cdevice)
		C.free(unsafe.Pointer(cdevice))
	}
	for _, in := range spec.Input {
		switch in := in.(type) {
		case Output:
			C.TF_AddInput(desc, in.c())
		case OutputList:
			list := make([]C.TF_Output, len(in))
			for i, o := range in {
				list[i] = o.c()
			}
			var first *C.TF_Output
			if len(list) > 0 {
				first = &list[0]
			}
			C.TF_AddInputList(desc, first, C.int(len(list)))
		}
	}
	for _, op := range spec.ControlInputs {
		C.TF_AddControlInput(desc, op.c)
	}
	// Attrs in name order: the same graph whatever the map's iteration order.
	attrNames := make([]string, 0, len(spec.Attrs))
	for attrName := range spec.Attrs {
		attrNames = append(attrNames, attrName)
	}
	sort.Strings(attrNames)
	var attrErr error
	for _, attrName := range attrNames {
		if err := setAttr(desc, attrName, spec.Attrs[attrName]); err != nil && attrErr == nil {
			attrErr = err
		}
	}
	var op *C.TF_Operation
	// TF_FinishOperation always frees desc, so it runs even after an attr error.
	err := withStatus(func(status *C.TF_Status) { op = C.TF_FinishOperation(desc, status) })
	runtime.KeepAlive(g)
	runtime.KeepAlive(spec.Input)
	runtime.KeepAlive(spec.ControlInputs)
	if attrErr != nil {
		return nil, attrErr
	}
	if err != nil {
		return nil, err
	}
	return &Operation{c: op, g: g}, nil
}

func asOutputs(in Input) []Output {
	switch in := in.(type) {
	case Output:
		return []Output{in}
	case OutputList:
		return in
	}
	return nil
}

// cArray copies n elements of size bytes each from src into C memory (free it with C.free).
func cArray(src unsafe.Pointer, n, size int) unsafe.Pointer {
	if n == 0 {
		return nil
	}
	dst := C.malloc(C.size_t(n * size))
	C.memcpy(dst, src, C.size_t(n*size))
	return dst
}

func setAttr(desc *C.TF_OperationDescription, name string, value interface{}) error {
	cname := C.CString(name)
	defer C.free(unsafe.Pointer(cname))
	switch v := value.(type) {
	case string:
		b := C.CBytes([]byte(v))
		defer C.free(b)
		C.TF_SetAttrString(desc, cname, b, C.size_t(len(v)))
	case int64:
		C.TF_SetAttrInt(desc, cname, C.int64_t(v))
	case float32:
		C.TF_SetAttrFloat(desc, cname, C.float(v))
	case bool:
		var b C.uchar
		if v {
			b = 1
		}
		C.TF_SetAttrBool(desc, cname, b)
	case DataType:
		C.TF_SetAttrType(desc, cname, C.TF_DataType(v))
	case Shape:
		setShape(desc, cname, v)
	case *Tensor:
		err := withStatus(func(s *C.TF_Status) { C.TF_SetAttrTensor(desc, cname, v.c, s) })
		runtime.KeepAlive(v)
		return err
	case Func:
		b := C.CBytes([]byte(v))
		defer C.free(b)
		C.TF_SetAttrFuncName(desc, cname, (*C.char)(b), C.size_t(len(v)))
	case []string:
		ptrs := make([]unsafe.Pointer, len(v))
		lens := make([]C.size_t, len(v))
		for i, s := range v {
			ptrs[i] = C.CBytes([]byte(s))
			defer C.free(ptrs[i])
			lens[i] = C.size_t(len(s))
		}
		var ptrsPtr *unsafe.Pointer
		var lensPtr *C.size_t
		if len(v) > 0 {
			ptrsPtr, lensPtr = &ptrs[0], &lens[0]
		}
		C.TF_SetAttrStringList(desc, cname, ptrsPtr, lensPtr, C.int(len(v)))
	case []int64:
		p := cArray(sliceData(len(v), func() unsafe.Pointer { return unsafe.Pointer(&v[0]) }), len(v), 8)
		defer C.free(p)
		C.TF_SetAttrIntList(desc, cname, (*C.int64_t)(p), C.int(len(v)))
	case []float32:
		p := cArray(sliceData(len(v), func() unsafe.Pointer { return unsafe.Pointer(&v[0]) }), len(v), 4)
		defer C.free(p)
		C.TF_SetAttrFloatList(desc, cname, (*C.float)(p), C.int(len(v)))
	case []bool:
		b := make([]C.uchar, len(v))
		for i, x := range v {
			if x {
				b[i] = 1
			}
		}
		p := cArray(sliceData(len(b), func() unsafe.Pointer { return unsafe.Pointer(&b[0]) }), len(b), 1)
		defer C.free(p)
		C.TF_SetAttrBoolList(desc, cname, (*C.uchar)(p), C.int(len(v)))
	case []DataType:
		t := make([]C.TF_DataType, len(v))
		for i, x := range v {
			t[i] = C.TF_DataType(x)
		}
		p := cArray(sliceData(len(t), func() unsafe.Pointer { return unsafe.Pointer(&t[0]) }), len(t), int(unsafe.Sizeof(C.TF_DataType(0))))
		defer C.free(p)
		C.TF_SetAttrTypeList(desc, cname, (*C.TF_DataType)(p), C.int(len(v)))
	case []Shape:
		setShapeList(desc, cname, v)
	case []*Tensor:
		ptrs := make([]*C.TF_Tensor, len(v))
		for i, t := range v {
			ptrs[i] = t.c
		}
		var first **C.TF_Tensor
		if len(ptrs) > 0 {
			first = &ptrs[0]
		}
		err := withStatus(func(s *C.TF_Status) { C.TF_SetAttrTensorList(desc, cname, first, C.int(len(v)), s) })
		runtime.KeepAlive(v)
		return err
	case []Func:
		proto := funcListProto(v)
		p := C.CBytes(proto)
		defer C.free(p)
		return withStatus(func(s *C.TF_Status) { C.TF_SetAttrValueProto(desc, cname, p, C.size_t(len(proto)), s) })
	default:
		return &Error{Code: InvalidArgument, Message: fmt.Sprintf("attr %q: unsupported value type %T", name, value)}
	}
	return nil
}

func sliceData(n int, first func() unsafe.Pointer) unsafe.Pointer {
	if n == 0 {
		return nil
	}
	return first()
}

func setShape(desc *C.TF_OperationDescription, cname *C.char, s Shape) {
	if s.Dims == nil {
		C.TF_SetAttrShape(desc, cname, nil, -1)
		return
	}
	p := cArray(sliceData(len(s.Dims), func() unsafe.Pointer { return unsafe.Pointer(&s.Dims[0]) }), len(s.Dims), 8)
	defer C.free(p)
	C.TF_SetAttrShape(desc, cname, (*C.int64_t)(p), C.int(len(s.Dims)))
}

func setShapeList(desc *C.TF_OperationDescription, cname *C.char, shapes []Shape) {
	// The dims arrays live in C memory: Go memory passed to C may not hold Go pointers.
	dims := make([]unsafe.Pointer, len(shapes))
	ranks := make([]C.int, len(shapes))
	for i, s := range shapes {
		ranks[i] = -1
		if s.Dims != nil {
			ranks[i] = C.int(len(s.Dims))
			dims[i] = cArray(sliceData(len(s.Dims), func() unsafe.Pointer { return unsafe.Pointer(&s.Dims[0]) }), len(s.Dims), 8)
			defer C.free(dims[i])
		}
	}
	if len(shapes) == 0 {
		C.TF_SetAttrShapeList(desc, cname, nil, nil, 0)
		return
	}
	C.TF_SetAttrShapeList(desc, cname, (**C.int64_t)(unsafe.Pointer(&dims[0])), &ranks[0], C.int(len(shapes)))
}

// funcListProto is AttrValue{list{func{name}...}} serialized: AttrValue.list is field
// 1, ListValue.func field 9, NameAttrList.name field 1 (the C API has no setter for it).
func funcListProto(names []Func) []byte {
	var list []byte
	for _, name := range names {
		list = appendBytesField(list, 9, appendBytesField(nil, 1, []byte(name)))
	}
	return appendBytesField(nil, 1, list)
}

func appendBytesField(out []byte, field uint64, data []byte) []byte {
	out = appendVarint(out, field<<3|2)
	out = appendVarint(out, uint64(len(data)))
	return append(out, data...)
}

func appendVarint(out []byte, v uint64) []byte {
	for v >= 0x80 {
		out = append(out, byte(v)|0x80)
		v >>= 7
	}
	return append(out, byte(v))
}

// ------------------------------------------------------------------------------ tensor

// Tensor is a TF_Tensor, freed by the garbage collector.
type Tensor struct {
	c *C.TF_Tensor
}

func newTensorFromC(c *C.TF_Tensor) *Tensor {
	t := &Tensor{c: c}
	runtime.SetFinalizer(t, func(t *Tensor) { C.TF_DeleteTensor(t.c) })
	return t
}

// TensorElement are the Go element types a Tensor can be made of and read as (bool is
// tf.Bool: one byte, 0 or 1, in Go as in the runtime).
type TensorElement interface {
	~float32 | ~float64 | ~int8 | ~int16 | ~int32 | ~int64 | ~uint8 | ~uint16 | ~uint32 | ~uint64 | ~bool
}

func dataTypeOf[T TensorElement]() DataType {
	var zero T
	switch any(zero).(type) {
	case float32:
		return Float
	case float64:
		return Double
	case int8:
		return Int8
	case int16:
		return Int16
	case int32:
		return Int32
	case int64:
		return Int64
	case uint8:
		return Uint8
	case uint16:
		return Uint16
	case uint32:
		return Uint32
	case uint64:
		return Uint64
	case bool:
		return Bool
	}
	panic(fmt.Sprintf("no DataType for %T", zero))
}

// NewTensor is a tensor of the given shape holding a copy of values (row-major).
func NewTensor[T TensorElement](shape []int64, values []T) (*Tensor, error) {
	count := int64(1)
	for _, d := range shape {
		if d < 0 {
			return nil, &Error{Code: InvalidArgument, Message: fmt.Sprintf("negative dim in shape %v", shape)}
		}
		count *= d
	}
	if count != int64(len(values)) {
		return nil, &Error{Code: InvalidArgument, Message: fmt.Sprintf("%d values do not fill a tensor of shape %v", len(values), shape)}
	}
	var zero T
	size := C.size_t(uintptr(len(values)) * unsafe.Sizeof(zero))
	dims := cArray(sliceData(len(shape), func() unsafe.Pointer { return unsafe.Pointer(&shape[0]) }), len(shape), 8)
	defer C.free(dims)
	c := C.TF_AllocateTensor(C.TF_DataType(dataTypeOf[T]()), (*C.int64_t)(dims), C.int(len(shape)), size)
	if c == nil {
		return nil, &Error{Code: ResourceExhausted, Message: "TF_AllocateTensor failed"}
	}
	if len(values) > 0 {
		C.memcpy(C.TF_TensorData(c), unsafe.Pointer(&values[0]), size)
	}
	return newTensorFromC(c), nil
}

// NewScalar is a tensor of rank 0.
func NewScalar[T TensorElement](value T) (*Tensor, error) {
	return NewTensor([]int64{}, []T{value})
}

// DataType is the tensor's element type.
func (t *Tensor) DataType() DataType {
	defer runtime.KeepAlive(t)
	return DataType(C.TF_TensorType(t.c))
}

// Shape is the tensor's dims.
func (t *Tensor) Shape() []int64 {
	defer runtime.KeepAlive(t)
	dims := make([]int64, int(C.TF_NumDims(t.c)))
	for i := range dims {
		dims[i] = int64(C.TF_Dim(t.c, C.int(i)))
	}
	return dims
}

// TensorData is a copy of the tensor's elements, row-major; an error when T is not
// its element type.
func TensorData[T TensorElement](t *Tensor) ([]T, error) {
	defer runtime.KeepAlive(t)
	if t.DataType() != dataTypeOf[T]() {
		return nil, &Error{Code: InvalidArgument, Message: fmt.Sprintf("the tensor holds %v, not %v", t.DataType(), dataTypeOf[T]())}
	}
	var zero T
	n := int(uintptr(C.TF_TensorByteSize(t.c)) / unsafe.Sizeof(zero))
	out := make([]T, n)
	if n > 0 {
		C.memcpy(unsafe.Pointer(&out[0]), C.TF_TensorData(t.c), C.size_t(uintptr(n)*unsafe.Sizeof(zero)))
	}
	return out, nil
}

// ----------------------------------------------------------------------------- session

// Session runs a graph. Close it when done (a finalizer closes it otherwise).
type Session struct {
	c     *C.TF_Session
	graph *Graph
}

// NewSession is a session running g.
func NewSession(g *Graph) (*Session, error) {
	options := C.TF_NewSessionOptions()
	defer C.TF_DeleteSessionOptions(options)
	var c *C.TF_Session
	err := withStatus(func(s *C.TF_Status) { c = C.TF_NewSession(g.c, options, s) })
	runtime.KeepAlive(g)
	if err != nil {
		return nil, err
	}
	session := &Session{c: c, graph: g}
	runtime.SetFinalizer(session, func(s *Session) { s.Close() })
	return session, nil
}

// Run feeds feeds, computes fetches (returned in that order) and runs targets.
func (s *Session) Run(feeds map[Output]*Tensor, fetches []Output, targets []*Operation) ([]*Tensor, error) {
	if s.c == nil {
		return nil, &Error{Code: FailedPrecondition, Message: "the session is closed"}
	}
	inputs := make([]C.TF_Output, 0, len(feeds))
	values := make([]*C.TF_Tensor, 0, len(feeds))
	for o, t := range feeds {
		inputs = append(inputs, o.c())
		values = append(values, t.c)
	}
	outputs := make([]C.TF_Output, len(fetches))
	for i, o := range fetches {
		outputs[i] = o.c()
	}
	results := make([]*C.TF_Tensor, len(fetches))
	ops := make([]*C.TF_Operation, len(targets))
	for i, op := range targets {
		ops[i] = op.c
	}
	var inputsPtr, outputsPtr *C.TF_Output
	var valuesPtr, resultsPtr **C.TF_Tensor
	var opsPtr **C.TF_Operation
	if len(inputs) > 0 {
		inputsPtr, valuesPtr = &inputs[0], &values[0]
	}
	if len(outputs) > 0 {
		outputsPtr, resultsPtr = &outputs[0], &results[0]
	}
	if len(ops) > 0 {
		opsPtr = &ops[0]
	}
	err := withStatus(func(status *C.TF_Status) {
		C.TF_SessionRun(s.c, nil, inputsPtr, valuesPtr, C.int(len(inputs)), outputsPtr, resultsPtr,
			C.int(len(outputs)), opsPtr, C.int(len(ops)), nil, status)
	})
	runtime.KeepAlive(feeds)
	runtime.KeepAlive(targets)
	out := make([]*Tensor, len(results))
	for i, r := range results {
		if r != nil {
			out[i] = newTensorFromC(r)
		}
	}
	if err != nil {
		return nil, err
	}
	return out, nil
}

// Close frees the session; later runs fail. Closing twice is harmless.
func (s *Session) Close() error {
	if s.c == nil {
		return nil
	}
	err := withStatus(func(status *C.TF_Status) { C.TF_DeleteSession(s.c, status) })
	s.c = nil
	runtime.KeepAlive(s.graph)
	return err
}
