package utils_test

import (
	"context"
	"fmt"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/utils"
)

// Keras's FeatureSpace on a small table: a string category one-hot
// encoded (its vocabulary by frequency: red, then green and blue), a
// normalized measurement, concatenated in sorted name order.
func ExampleFeatureSpace() {
	table := keras.NamedArrays{
		"colour": {Shape: []int{4}, Strings: []string{"red", "blue", "red", "green"}},
		"size":   {Shape: []int{4}, Data: []float32{1, 2, 3, 6}},
	}
	fs := &utils.FeatureSpace{Features: map[string]utils.Feature{
		"colour": {Type: utils.StringCategorical, NoOOVIndices: true},
		"size":   {Type: utils.FloatNormalized},
	}}
	ctx := context.Background()
	if err := fs.Adapt(ctx, table); err != nil {
		fmt.Println(err)
		return
	}
	out, err := fs.Call(ctx, table)
	if err != nil {
		fmt.Println(err)
		return
	}
	for i := range 4 {
		fmt.Printf("%.2f\n", out.Data[i*4:i*4+4])
	}
	// Output:
	// [1.00 0.00 0.00 -1.07]
	// [0.00 0.00 1.00 -0.53]
	// [1.00 0.00 0.00 0.00]
	// [0.00 1.00 0.00 1.60]
}
