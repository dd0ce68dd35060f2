package memory

// SetQ8Rescored installs a hook receiving the number of rows each
// quantized search scored exactly (nil removes it).
func SetQ8Rescored(f func(n int)) { q8Rescored = f }
