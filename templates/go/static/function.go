// Part of opgen's Go API, the same for every OpList: `opgen generate --lang go`
// copies this file unchanged. Do not edit the copy: regenerate instead.

package tf

/*
#include <stdlib.h>
#include <string.h>
#include "tensorflow/c/c_api.h"

// TF_NewWhile's result in C memory (NULL on failure): cgo cannot take a struct with
// const members by value.
static TF_WhileParams* opgen_new_while(TF_Graph* g, TF_Output* inputs, int n, TF_Status* s) {
  TF_WhileParams params = TF_NewWhile(g, inputs, n, s);
  if (TF_GetCode(s) != TF_OK) return NULL;
  TF_WhileParams* copy = (TF_WhileParams*)malloc(sizeof params);
  memcpy(copy, &params, sizeof params);
  return copy;
}
*/
import "C"

import (
	"fmt"
	"runtime"
	"unsafe"
)

// ---------------------------------------------------------------------------- function

// Function is a TF_Function: a FunctionDef made from a graph (Graph.ToFunction) that
// nodes of a graph whose library holds it (Graph.AddFunction) call, as PartitionedCall's
// f, If's branches, While's cond and body, or as an operation whose type is its name.
// The garbage collector frees it; Delete frees it at once. A graph keeps its own copy.
type Function struct {
	c    *C.TF_Function
	deps []*Function // the library of the graph it was made from: what it may call
}

func newFunction(c *C.TF_Function) *Function {
	f := &Function{c: c}
	runtime.SetFinalizer(f, (*Function).Delete)
	return f
}

// FunctionOption is an optional setting of Graph.ToFunction.
type FunctionOption func(*functionOptions)

type functionOptions struct {
	appendHash         bool
	outputNames        []string
	controlOutputs     []*Operation
	controlOutputNames []string
	description        string
}

// FunctionAppendHash appends a hash of the function's contents to its name: functions
// traced alike get one name, different ones different names.
func FunctionAppendHash() FunctionOption {
	return func(o *functionOptions) { o.appendHash = true }
}

// FunctionOutputNames names the results (by default they are named after their nodes).
func FunctionOutputNames(names ...string) FunctionOption {
	return func(o *functionOptions) { o.outputNames = names }
}

// FunctionControlOutputs are operations of the body that run whenever the function is
// called (names may be nil: the operations' names).
func FunctionControlOutputs(ops []*Operation, names []string) FunctionOption {
	return func(o *functionOptions) { o.controlOutputs, o.controlOutputNames = ops, names }
}

// FunctionDescription is the signature's description.
func FunctionDescription(description string) FunctionOption {
	return func(o *functionOptions) { o.description = description }
}

// ToFunction is a function named name made of every operation of g but the nodes of
// inputs (TF_GraphToFunctionWithControlOutputs): inputs are its arguments, outputs its
// results. An edge into the body from outside it is an InvalidArgument error. The
// functions of g's library go along: AddFunction adds them too.
func (g *Graph) ToFunction(name string, inputs, outputs []Output, optional ...FunctionOption) (*Function, error) {
	deps, err := g.Functions()
	if err != nil {
		return nil, err
	}
	var opts functionOptions
	for _, opt := range optional {
		opt(&opts)
	}
	if opts.outputNames != nil && len(opts.outputNames) != len(outputs) {
		return nil, &Error{Code: InvalidArgument, Message: fmt.Sprintf(
			"ToFunction: %d output names for %d outputs", len(opts.outputNames), len(outputs))}
	}
	if opts.controlOutputNames != nil && len(opts.controlOutputNames) != len(opts.controlOutputs) {
		return nil, &Error{Code: InvalidArgument, Message: fmt.Sprintf(
			"ToFunction: %d control output names for %d control outputs",
			len(opts.controlOutputNames), len(opts.controlOutputs))}
	}
	cin, err := g.cOutputs(inputs, "ToFunction", "input")
	if err != nil {
		return nil, err
	}
	cout, err := g.cOutputs(outputs, "ToFunction", "output")
	if err != nil {
		return nil, err
	}
	control := make([]*C.TF_Operation, len(opts.controlOutputs)+1)
	for i, op := range opts.controlOutputs {
		if op == nil || op.g != g {
			return nil, &Error{Code: InvalidArgument, Message: fmt.Sprintf(
				"ToFunction: control output %d is not an operation of this graph", i)}
		}
		control[i] = op.c
	}
	outputNames, freeOutputNames := cStrings(opts.outputNames)
	defer freeOutputNames()
	controlNames, freeControlNames := cStrings(opts.controlOutputNames)
	defer freeControlNames()
	cname, cdescription := C.CString(name), C.CString(opts.description)
	defer C.free(unsafe.Pointer(cname))
	defer C.free(unsafe.Pointer(cdescription))
	var appendHash C.uchar
	if opts.appendHash {
		appendHash = 1
	}
	var f *C.TF_Function
	err = withStatus(func(s *C.TF_Status) {
		f = C.TF_GraphToFunctionWithControlOutputs(g.c, cname, appendHash, -1, nil,
			C.int(len(inputs)), &cin[0], C.int(len(outputs)), &cout[0], outputNames,
			C.int(len(opts.controlOutputs)), &control[0], controlNames, nil, cdescription, s)
	})
	runtime.KeepAlive(g)
	if err != nil {
		return nil, err
	}
	function := newFunction(f)
	function.deps = deps
	return function, nil
}

// cOutputs is list as TF_Outputs of g (one more than it holds: &c[0] is valid), or an
// InvalidArgument error naming what of which call is not of g.
func (g *Graph) cOutputs(list []Output, call, what string) ([]C.TF_Output, error) {
	c := make([]C.TF_Output, len(list)+1)
	for i, o := range list {
		if o.Op == nil || o.Op.g != g {
			return nil, &Error{Code: InvalidArgument, Message: fmt.Sprintf(
				"%s: %s %d is not an output of this graph", call, what, i)}
		}
		c[i] = o.c()
	}
	return c, nil
}

// cStrings is names in C memory (nil for nil) and the function that frees them.
func cStrings(names []string) (**C.char, func()) {
	if names == nil {
		return nil, func() {}
	}
	array := unsafe.Slice((**C.char)(C.malloc(C.size_t(len(names)+1)*C.size_t(unsafe.Sizeof((*C.char)(nil))))), len(names)+1)
	for i, name := range names {
		array[i] = C.CString(name)
	}
	return &array[0], func() {
		for i := range names {
			C.free(unsafe.Pointer(array[i]))
		}
		C.free(unsafe.Pointer(&array[0]))
	}
}

// Name is the function's name (with its hash, under FunctionAppendHash).
func (f *Function) Name() string {
	defer runtime.KeepAlive(f)
	return C.GoString(C.TF_FunctionName(f.c))
}

// FunctionDef is the function as a serialized FunctionDef.
func (f *Function) FunctionDef() ([]byte, error) {
	buffer := C.TF_NewBuffer()
	defer C.TF_DeleteBuffer(buffer)
	err := withStatus(func(s *C.TF_Status) { C.TF_FunctionToFunctionDef(f.c, buffer, s) })
	runtime.KeepAlive(f)
	if err != nil {
		return nil, err
	}
	return C.GoBytes(buffer.data, C.int(buffer.length)), nil
}

// IsStateful reports whether a stateful op (a variable update, a random op, a call of a
// stateful function...) is inside: the is_stateful flag TF_GraphToFunction sets on the
// FunctionDef's signature. Calls of a stateful function are StatefulPartitionedCall and
// If, as TensorFlow builds them. A FunctionDef the C API cannot write reads as stateful.
func (f *Function) IsStateful() bool {
	def, err := f.FunctionDef()
	return err != nil || signatureIsStateful(def, 0)
}

// signatureIsStateful reads field 17 (is_stateful) of the signature (field 1, an OpDef)
// in serialized FunctionDef bytes (depth 0) or in the signature itself (depth 1): the C
// API has no other way to ask. Malformed bytes read as stateful.
func signatureIsStateful(data []byte, depth int) bool {
	at := 0
	varint := func() (uint64, bool) {
		var value uint64
		for shift := uint(0); at < len(data) && shift < 64; shift += 7 {
			b := data[at]
			at++
			value |= uint64(b&0x7f) << shift
			if b&0x80 == 0 {
				return value, true
			}
		}
		return 0, false
	}
	for at < len(data) {
		key, ok := varint()
		if !ok {
			return true
		}
		field, wire := key>>3, key&7
		switch wire {
		case 0:
			value, ok := varint()
			if !ok {
				return true
			}
			if depth == 1 && field == 17 {
				return value != 0
			}
		case 2:
			length, ok := varint()
			if !ok || length > uint64(len(data)-at) {
				return true
			}
			if depth == 0 && field == 1 {
				return signatureIsStateful(data[at:at+int(length)], 1)
			}
			at += int(length)
		case 1:
			at += 8
		case 5:
			at += 4
		default:
			return true
		}
	}
	return false
}

// ImportFunctionDef is the function a serialized FunctionDef describes.
func ImportFunctionDef(proto []byte) (*Function, error) {
	p := C.CBytes(proto)
	defer C.free(p)
	var f *C.TF_Function
	err := withStatus(func(s *C.TF_Status) { f = C.TF_FunctionImportFunctionDef(p, C.size_t(len(proto)), s) })
	if err != nil {
		return nil, err
	}
	return newFunction(f), nil
}

// Delete frees the function now; graphs it was added to keep their copy. Deleting twice
// is harmless; other methods must not be called after it.
func (f *Function) Delete() {
	C.TF_DeleteFunction(f.c)
	f.c = nil
}

// AddFunction adds a copy of f to g's library, with grad (nil: none) as its gradient
// function, after the functions f calls (those of the graph it was made from). Adding
// the same function again is harmless; another function of that name is an error.
func (g *Graph) AddFunction(f, grad *Function) error {
	for _, dep := range f.deps {
		if err := g.AddFunction(dep, nil); err != nil {
			return err
		}
	}
	var cgrad *C.TF_Function
	if grad != nil {
		cgrad = grad.c
	}
	err := withStatus(func(s *C.TF_Status) { C.TF_GraphCopyFunction(g.c, f.c, cgrad, s) })
	runtime.KeepAlive(g)
	runtime.KeepAlive(f)
	runtime.KeepAlive(grad)
	return err
}

// Functions are copies of the functions of g's library, in name order.
func (g *Graph) Functions() ([]*Function, error) {
	defer runtime.KeepAlive(g)
	n := int(C.TF_GraphNumFunctions(g.c))
	if n == 0 {
		return nil, nil
	}
	list := make([]*C.TF_Function, n)
	var got C.int
	err := withStatus(func(s *C.TF_Status) { got = C.TF_GraphGetFunctions(g.c, &list[0], C.int(n), s) })
	if err != nil {
		return nil, err
	}
	out := make([]*Function, int(got))
	for i := range out {
		out[i] = newFunction(list[i])
	}
	return out, nil
}

// NumFunctions is how many functions g's library holds.
func (g *Graph) NumFunctions() int {
	defer runtime.KeepAlive(g)
	return int(C.TF_GraphNumFunctions(g.c))
}

// -------------------------------------------------------------------------- while loop

// While is a while loop being built (TF_NewWhile): CondGraph and BodyGraph each hold a
// Placeholder per loop variable (CondInputs, BodyInputs). Build the condition, a scalar,
// in CondGraph and the next values in BodyGraph from those placeholders alone, then
// Finish adds one functional While node to the outer graph; or Abort drops the loop.
// Either frees the two graphs: their operations must not be used afterwards. The
// garbage collector aborts a loop left unfinished.
type While struct {
	params     *C.TF_WhileParams // C memory, freed with the graphs
	outer      *Graph
	CondGraph  *Graph
	CondInputs []Output
	BodyGraph  *Graph
	BodyInputs []Output
}

// NewWhile starts a while loop over the loop variables inputs (at least one) of g.
func (g *Graph) NewWhile(inputs []Output) (*While, error) {
	if len(inputs) == 0 {
		return nil, &Error{Code: InvalidArgument, Message: "NewWhile: a loop needs at least one loop variable"}
	}
	cin, err := g.cOutputs(inputs, "NewWhile", "input")
	if err != nil {
		return nil, err
	}
	var params *C.TF_WhileParams
	err = withStatus(func(s *C.TF_Status) { params = C.opgen_new_while(g.c, &cin[0], C.int(len(inputs)), s) })
	runtime.KeepAlive(g)
	if err != nil {
		return nil, err
	}
	// The two graphs belong to the loop: no finalizer of theirs.
	w := &While{params: params, outer: g,
		CondGraph: &Graph{c: params.cond_graph}, BodyGraph: &Graph{c: params.body_graph}}
	w.CondInputs = placeholders(w.CondGraph, params.cond_inputs, len(inputs))
	w.BodyInputs = placeholders(w.BodyGraph, params.body_inputs, len(inputs))
	runtime.SetFinalizer(w, (*While).Abort)
	return w, nil
}

func placeholders(g *Graph, c *C.TF_Output, n int) []Output {
	list := unsafe.Slice(c, n)
	out := make([]Output, n)
	for i, o := range list {
		out[i] = Output{Op: &Operation{c: o.oper, g: g}, Index: int(o.index)}
	}
	return out
}

// Finish adds the loop to the outer graph as a While node named name ("": "while"; the
// name must be free) whose cond and body are new functions of its library, and returns
// its results, one per loop variable. cond must be an output of CondGraph, body one
// output of BodyGraph per loop variable, of that variable's dtype; otherwise, or when
// the runtime refuses the loop, the error is returned and the loop is aborted.
func (w *While) Finish(cond Output, body []Output, name string) ([]Output, error) {
	defer runtime.KeepAlive(w)
	if w.CondGraph == nil {
		return nil, &Error{Code: FailedPrecondition, Message: "While.Finish: the loop is already finished or aborted"}
	}
	if err := w.check(cond, body); err != nil {
		w.Abort()
		return nil, err
	}
	n := len(w.BodyInputs)
	w.params.cond_output = cond.c()
	outputs := unsafe.Slice(w.params.body_outputs, n)
	for i, o := range body {
		outputs[i] = o.c()
	}
	if name != "" {
		w.params.name = C.CString(name)
		defer C.free(unsafe.Pointer(w.params.name))
	}
	results := make([]C.TF_Output, n)
	err := withStatus(func(s *C.TF_Status) { C.TF_FinishWhile(w.params, s, &results[0]) })
	runtime.KeepAlive(w.outer)
	w.done()
	if err != nil {
		return nil, err
	}
	out := make([]Output, n)
	for i, r := range results {
		out[i] = Output{Op: &Operation{c: r.oper, g: w.outer}, Index: int(r.index)}
	}
	return out, nil
}

// check says what is wrong with cond and body as the loop's condition and next values.
func (w *While) check(cond Output, body []Output) error {
	if cond.Op == nil || cond.Op.g != w.CondGraph {
		return &Error{Code: InvalidArgument, Message: "While.Finish: cond is not an output of CondGraph"}
	}
	if len(body) != len(w.BodyInputs) {
		return &Error{Code: InvalidArgument, Message: fmt.Sprintf(
			"While.Finish: the body gives %d values for %d loop variables", len(body), len(w.BodyInputs))}
	}
	for i, o := range body {
		if o.Op == nil || o.Op.g != w.BodyGraph {
			return &Error{Code: InvalidArgument, Message: fmt.Sprintf(
				"While.Finish: body value %d is not an output of BodyGraph", i)}
		}
		if got, want := o.DataType(), w.BodyInputs[i].DataType(); got != want {
			return &Error{Code: InvalidArgument, Message: fmt.Sprintf(
				"While.Finish: the body turns loop variable %d from %v into %v", i, want, got)}
		}
	}
	return nil
}

// Abort drops an unfinished loop and its two graphs (TF_AbortWhile); after Finish or
// Abort it does nothing.
func (w *While) Abort() {
	if w.CondGraph == nil {
		return
	}
	C.TF_AbortWhile(w.params)
	w.done()
}

// done forgets the freed graphs: a later use fails instead of reading freed memory.
func (w *While) done() {
	C.free(unsafe.Pointer(w.params))
	w.params = nil
	w.CondGraph.c, w.BodyGraph.c = nil, nil
	w.CondGraph, w.BodyGraph, w.CondInputs, w.BodyInputs = nil, nil, nil, nil
	runtime.SetFinalizer(w, nil)
}
