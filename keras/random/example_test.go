package random_test

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/backend"
	"github.com/kerasgo/kerasgo/keras/random"
)

// A fixed seed draws the same numbers on every run of the computation,
// as Keras's integer seed does inside a compiled function.
func ExampleFixed() {
	be, err := backend.Open("gorgonia")
	if err != nil {
		fmt.Println(err)
		return
	}
	defer be.Close()
	exe, err := be.Compile(func(b backend.Builder, _ []backend.Value) ([]backend.Value, error) {
		return []backend.Value{random.Randint(b, []int{5}, 0, 10, random.Fixed(3))}, b.Err()
	}, []backend.Spec{{Shape: backend.Shape{}, DType: backend.Float32}}, backend.CompileOptions{})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer exe.Close()
	in, _ := be.FromFloat32([]float32{0}, backend.Shape{})
	for range 2 {
		out, err := exe.Run([]backend.Tensor{in})
		if err != nil {
			fmt.Println(err)
			return
		}
		v, _ := be.ToFloat32(out[0])
		fmt.Println(v)
	}
	// Output:
	// [4 9 0 4 0]
	// [4 9 0 4 0]
}
