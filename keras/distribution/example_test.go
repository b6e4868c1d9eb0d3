package distribution_test

import (
	"fmt"

	"github.com/kerasgo/kerasgo/keras/distribution"
)

// Each of 3 processes trains on its shard of an epoch's order of 7
// samples, as PyTorch's DistributedSampler splits it: the order is padded
// to 9 by repeating its first samples, and every process gets 3.
func ExampleShard() {
	order := []int{6, 2, 0, 5, 1, 4, 3} // this epoch's shuffled order, the same on every process
	for rank := range 3 {
		fmt.Println(rank, distribution.Shard(order, rank, 3))
	}
	// Output:
	// 0 [6 5 3]
	// 1 [2 1 6]
	// 2 [0 4 2]
}

// Evaluate and Predict split 10 rows in blocks, each row once.
func ExampleBlock() {
	for rank := range 3 {
		from, to := distribution.Block(10, rank, 3)
		fmt.Printf("rank %d: rows [%d, %d)\n", rank, from, to)
	}
	// Output:
	// rank 0: rows [0, 4)
	// rank 1: rows [4, 7)
	// rank 2: rows [7, 10)
}
