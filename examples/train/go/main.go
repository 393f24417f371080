// The demo in Go: the generated packages' op functions, op.Variable and op.Optimizer
// (Minimize: Graph.AddGradients + one ResourceApplyGradientDescent per variable). Same
// graph, node for node, as train.py.
//
//	CGO_CFLAGS="$(opgen config --cflags)" CGO_LDFLAGS="$(opgen config --libs)" go run . DATA_DIR mlp|cnn [STEPS]
package main

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"
	"strconv"

	tf "opgen.dev/tf"
	"opgen.dev/tf/op"
)

const (
	batch        = 64
	batches      = 10
	learningRate = 0.1
)

func must(err error) {
	if err != nil {
		fmt.Fprintln(os.Stderr, "error:", err)
		os.Exit(1)
	}
}

// load reads make_data.py's raw little-endian file of count 4-byte values.
func load(dir, file string, count int) []uint32 {
	bytes, err := os.ReadFile(filepath.Join(dir, file))
	if err != nil || len(bytes) != 4*count {
		fmt.Fprintf(os.Stderr, "cannot read %s (run make_data.py)\n", filepath.Join(dir, file))
		os.Exit(1)
	}
	words := make([]uint32, count)
	for i := range words {
		words[i] = binary.LittleEndian.Uint32(bytes[4*i:])
	}
	return words
}

func floats(dir, file string, count int) []float32 {
	values := make([]float32, count)
	for i, w := range load(dir, file, count) {
		values[i] = math.Float32frombits(w)
	}
	return values
}

func variable(s *op.Scope, name, dir, file string, dims ...int64) *op.Variable {
	count := int64(1)
	for _, d := range dims {
		count *= d
	}
	value, err := tf.NewTensor(dims, floats(dir, file, int(count)))
	must(err)
	v, err := op.NewVariable(s, tf.Float, tf.MakeShape(dims...), op.VariableName(name), op.VariableInitialTensor(value))
	must(err)
	return v
}

func int32Const(s *op.Scope, dims []int64, values []int32) tf.Output {
	t, err := tf.NewTensor(dims, values)
	must(err)
	c, err := op.Const(s, t, tf.Int32)
	must(err)
	return c
}

func read(s *op.Scope, v *op.Variable) tf.Output {
	value, err := v.Read(s)
	must(err)
	return value
}

// then returns out after checking err: one line per op below.
func then(out tf.Output, err error) tf.Output {
	must(err)
	return out
}

func main() {
	if len(os.Args) < 3 || len(os.Args) > 4 || (os.Args[2] != "mlp" && os.Args[2] != "cnn") {
		fmt.Fprintf(os.Stderr, "usage: %s DATA_DIR mlp|cnn [STEPS]\n", os.Args[0])
		os.Exit(2)
	}
	dir := os.Args[1]
	steps := 100
	if len(os.Args) == 4 {
		n, err := strconv.Atoi(os.Args[3])
		must(err)
		steps = n
	}

	s := op.NewScope()
	x := then(op.Placeholder(s.SubScope("x"), tf.Float, op.PlaceholderShape(tf.MakeShape(batch, 64))))
	labels := then(op.Placeholder(s.SubScope("labels"), tf.Int32, op.PlaceholderShape(tf.MakeShape(batch))))
	var vars []*op.Variable
	var logits tf.Output
	if os.Args[2] == "mlp" {
		vars = []*op.Variable{
			variable(s, "w1", dir, "mlp_w1.f32", 64, 32), variable(s, "b1", dir, "mlp_b1.f32", 32),
			variable(s, "w2", dir, "mlp_w2.f32", 32, 10), variable(s, "b2", dir, "mlp_b2.f32", 10),
		}
		xw := then(op.MatMul(s, x, read(s, vars[0])))
		hidden := then(op.Relu(s, then(op.BiasAdd(s, xw, read(s, vars[1])))))
		logits = then(op.BiasAdd(s, then(op.MatMul(s, hidden, read(s, vars[2]))), read(s, vars[3])))
	} else {
		vars = []*op.Variable{
			variable(s, "k", dir, "cnn_k.f32", 3, 3, 1, 8), variable(s, "b1", dir, "cnn_b1.f32", 8),
			variable(s, "w2", dir, "cnn_w2.f32", 128, 10), variable(s, "b2", dir, "cnn_b2.f32", 10),
		}
		images := then(op.Reshape(s, x, int32Const(s, []int64{4}, []int32{-1, 8, 8, 1})))
		conv := then(op.Conv2D(s, images, read(s, vars[0]), []int64{1, 1, 1, 1}, "SAME"))
		hidden := then(op.Relu(s, then(op.BiasAdd(s, conv, read(s, vars[1])))))
		pooled := then(op.AvgPool(s, hidden, []int64{1, 2, 2, 1}, []int64{1, 2, 2, 1}, "VALID"))
		flat := then(op.Reshape(s, pooled, int32Const(s, []int64{2}, []int32{-1, 128})))
		logits = then(op.BiasAdd(s, then(op.MatMul(s, flat, read(s, vars[2]))), read(s, vars[3])))
	}
	perExample, _, err := op.SparseSoftmaxCrossEntropyWithLogits(s, logits, labels)
	must(err)
	loss := then(op.Mean(s, perExample, int32Const(s, []int64{}, []int32{0})))
	train, err := op.NewGradientDescentOptimizer(learningRate).Minimize(s, loss, vars)
	must(err)
	init, err := op.GlobalVariablesInitializer(s)
	must(err)

	images := floats(dir, "x.f32", batches*batch*64)
	classes := make([]int32, batches*batch)
	for i, w := range load(dir, "labels.i32", batches*batch) {
		classes[i] = int32(w)
	}
	session, err := tf.NewSession(s.Graph())
	must(err)
	defer session.Close()
	_, err = session.Run(nil, nil, []*tf.Operation{init})
	must(err)
	for step := 0; step < steps; step++ {
		first := step % batches * batch
		xBatch, err := tf.NewTensor([]int64{batch, 64}, images[first*64:(first+batch)*64])
		must(err)
		labelBatch, err := tf.NewTensor([]int64{batch}, classes[first:first+batch])
		must(err)
		out, err := session.Run(map[tf.Output]*tf.Tensor{x: xBatch, labels: labelBatch},
			[]tf.Output{loss}, []*tf.Operation{train})
		must(err)
		values, err := tf.TensorData[float32](out[0])
		must(err)
		fmt.Printf("%d %08x %.9g\n", step, math.Float32bits(values[0]), float64(values[0]))
	}
}
