package utils

import "github.com/kerasgo/kerasgo/keras"

// SetRandomSeed is keras.utils.set_random_seed: see keras.SetRandomSeed.
func SetRandomSeed(seed int64) { keras.SetRandomSeed(seed) }
