// Package distribution trains one model on several processes, data
// parallel, as Keras 3's keras.distribution.DataParallel and PyTorch's
// DistributedDataParallel do: every process holds the whole model, trains
// on its own shard of each batch, and the gradients are averaged across
// processes before every update, so all of them hold the same weights.
//
// The processes talk through PyTorch's c10d (inside libtorch): a TCPStore
// for the rendezvous and ProcessGroupGloo for the allreduce, so distributed
// training needs a program built with the libtorch build tag (either
// engine can then train distributed). A process learns its place from the
// variables PyTorch's launchers set (RANK, WORLD_SIZE, LOCAL_RANK,
// MASTER_ADDR, MASTER_PORT), so `kerasgo launch -n 4 ./prog` and
// `torchrun --no_python --nproc_per_node 4 ./prog` both start a job.
//
//	dp, err := distribution.NewDataParallel(distribution.Config{}) // from the launcher's variables
//	if err != nil { ... }
//	defer dp.Close()
//	err = model.Compile(keras.CompileOptions{..., Distribution: dp})
//
// See docs/distributed.md.
package distribution
