// Command example builds y = relu(x @ W + b) with the generated op functions, runs it in
// a session with x fed, and prints y one row per line (the numbers of
// examples/c/graph_example.c).
package main

import (
	"fmt"
	"log"
	"strings"

	tf "opgen.dev/tf"
	"opgen.dev/tf/op"
)

func main() {
	xValues := []float32{1, 2, 3, -4, 0.5, 6}
	wValues := []float32{0.5, -1, 2, 0, 1, 0.25, -0.5, 1, -1, 0.5, 1, 2}
	bValues := []float32{0.1, -0.2, 0.3, -4}

	s := op.NewScope()
	// Any number of rows of 3 features.
	x, err := op.Placeholder(s.SubScope("x"), tf.Float, op.PlaceholderShape(tf.MakeShape(-1, 3)))
	check(err)
	wTensor, err := tf.NewTensor([]int64{3, 4}, wValues)
	check(err)
	w, err := op.Const(s.SubScope("W"), wTensor, tf.Float)
	check(err)
	bTensor, err := tf.NewTensor([]int64{4}, bValues)
	check(err)
	b, err := op.Const(s.SubScope("b"), bTensor, tf.Float)
	check(err)
	xw, err := op.MatMul(s, x, w)
	check(err)
	pre, err := op.BiasAdd(s, xw, b)
	check(err)
	y, err := op.Relu(s.SubScope("y"), pre)
	check(err)

	session, err := tf.NewSession(s.Graph())
	check(err)
	defer session.Close()
	xTensor, err := tf.NewTensor([]int64{2, 3}, xValues)
	check(err)
	results, err := session.Run(map[tf.Output]*tf.Tensor{x: xTensor}, []tf.Output{y}, nil)
	check(err)
	values, err := tf.TensorData[float32](results[0])
	check(err)
	columns := int(results[0].Shape()[1])
	for start := 0; start < len(values); start += columns {
		cells := make([]string, columns)
		for j, v := range values[start : start+columns] {
			cells[j] = fmt.Sprintf("%.6f", v)
		}
		fmt.Println(strings.Join(cells, " "))
	}
}

func check(err error) {
	if err != nil {
		log.Fatal(err)
	}
}
