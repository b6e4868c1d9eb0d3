package serving

import (
	"context"
	"errors"
	"net/http"
)

// statusError is an error with the HTTP status it is answered with.
type statusError struct {
	code int
	msg  string
}

func (e *statusError) Error() string { return e.msg }

// badRequest wraps an error in the request (400).
func badRequest(err error) error { return &statusError{code: http.StatusBadRequest, msg: err.Error()} }

// statusOf returns the HTTP status for err, as TensorFlow Serving maps its
// error codes: 400 for a bad request, 404 for an unknown model, 503 for a
// full queue or a server shutting down, 504 for a request out of time, 499
// for a client gone, 500 for the rest.
func statusOf(err error) int {
	var se *statusError
	switch {
	case errors.As(err, &se):
		return se.code
	case errors.Is(err, context.DeadlineExceeded):
		return http.StatusGatewayTimeout
	case errors.Is(err, context.Canceled):
		return 499 // client closed request, as TensorFlow Serving (and nginx) answers a cancelled one
	}
	return http.StatusInternalServerError
}
