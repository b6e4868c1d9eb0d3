module github.com/kerasgo/kerasgo/bench/gomlx

go 1.26

require github.com/gomlx/gomlx v0.26.0

require (
	github.com/dustin/go-humanize v1.0.1 // indirect
	github.com/go-logr/logr v1.4.3 // indirect
	github.com/google/uuid v1.6.0 // indirect
	github.com/pkg/errors v0.9.1 // indirect
	github.com/x448/float16 v0.8.4 // indirect
	golang.org/x/exp v0.0.0-20250819193227-8b4c13bb791b // indirect
	k8s.io/klog/v2 v2.130.1 // indirect
)
