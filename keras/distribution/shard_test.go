package distribution_test

import (
	"slices"
	"testing"

	"github.com/kerasgo/kerasgo/keras/distribution"
)

// TestShardIsDistributedSampler checks Shard against PyTorch's
// DistributedSampler (shuffle=False, drop_last=False): padded by repeating
// the first samples, then every world-th sample from rank.
func TestShardIsDistributedSampler(t *testing.T) {
	order := []int{10, 11, 12, 13, 14, 15, 16}
	for _, c := range []struct {
		rank, world int
		want        []int
	}{
		{0, 1, order},
		{0, 2, []int{10, 12, 14, 16}},
		{1, 2, []int{11, 13, 15, 10}},
		{0, 3, []int{10, 13, 16}},
		{2, 3, []int{12, 15, 11}},
		{3, 4, []int{13, 10}},
		{9, 10, []int{12}}, // fewer samples than processes: repeated
	} {
		if got := distribution.Shard(order, c.rank, c.world); !slices.Equal(got, c.want) {
			t.Errorf("Shard(rank %d of %d) = %v, want %v", c.rank, c.world, got, c.want)
		}
	}
}

func TestBlockCoversEachRowOnce(t *testing.T) {
	for _, n := range []int{0, 1, 7, 100} {
		for _, world := range []int{1, 2, 3, 4, 8} {
			next := 0
			for r := range world {
				from, to := distribution.Block(n, r, world)
				if from != next || to < from || to-from > (n+world-1)/world {
					t.Fatalf("Block(%d, %d, %d) = [%d, %d), want to start at %d", n, r, world, from, to, next)
				}
				next = to
			}
			if next != n {
				t.Fatalf("Block(%d, ..., %d) covers %d rows", n, world, next)
			}
		}
	}
}
