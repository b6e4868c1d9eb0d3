package distribution

// Shard returns this process's share of one epoch's sample order, as
// PyTorch's DistributedSampler: order (the same on every process) is padded
// by repeating its first samples until its length divides by the world
// size, and process r takes positions r, r+W, r+2W, ... So every process
// gets the same number of samples and the same number of batches.
func Shard(order []int, rank, worldSize int) []int {
	n := len(order)
	if n == 0 || worldSize <= 1 {
		return order
	}
	per := (n + worldSize - 1) / worldSize
	out := make([]int, per)
	for i := range out {
		out[i] = order[(rank+i*worldSize)%n]
	}
	return out
}

// Block returns the contiguous rows [from, to) of n that process rank
// evaluates or predicts: the first n%W processes get one more row. Unlike
// Shard nothing is repeated, so evaluation counts each sample once.
func Block(n, rank, worldSize int) (from, to int) {
	if worldSize <= 1 {
		return 0, n
	}
	base, extra := n/worldSize, n%worldSize
	from = rank*base + min(rank, extra)
	to = from + base
	if rank < extra {
		to++
	}
	return from, to
}
