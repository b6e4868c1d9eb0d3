package serving

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/prometheus/client_golang/prometheus/promhttp"
)

// defaultSignature is the one signature a Keras model exports, as
// TensorFlow Serving names it.
const defaultSignature = "serving_default"

// Server serves Keras models over HTTP with TensorFlow Serving's REST API.
// It is an http.Handler: mount it on a mux (mux.Handle("/", srv)) or give
// it to an http.Server. Its methods are safe for concurrent use.
type Server struct {
	opts    Options
	metrics *metrics
	metricz http.Handler

	mu       sync.RWMutex
	models   map[string]*servedModel
	closed   bool
	draining atomic.Bool

	watchOnce sync.Once
	stop      chan struct{}
	watching  sync.WaitGroup
}

// NewServer returns a server with no models; add them with AddFile or
// AddModel.
func NewServer(opts Options) (*Server, error) {
	o, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	met := newMetrics(o.Batching.MaxBatchSize)
	return &Server{opts: o, metrics: met, models: map[string]*servedModel{}, stop: make(chan struct{}),
		metricz: promhttp.HandlerFor(met.registry, promhttp.HandlerOpts{})}, nil
}

// AddFile loads a .keras file and serves it under name (its URL is
// /v1/models/<name>). The file is checked before it serves (it loads, its
// weights are finite, it predicts a sample of zeros) and watched: a new
// version of it is loaded, checked and put in place without dropping a
// request (Options.ReloadInterval).
func (s *Server) AddFile(name, path string) error {
	if err := checkName(name); err != nil {
		return err
	}
	m, stamp, err := loadFile(path, s.opts.Backend)
	if err != nil {
		s.metrics.reloads.WithLabelValues(name, "failed").Inc()
		return err
	}
	if err := s.add(&servedModel{name: name, path: path}, m, stamp, true); err != nil {
		m.Close()
		return err
	}
	s.metrics.reloads.WithLabelValues(name, "loaded").Inc()
	s.opts.Logger.Info("serving", "model", name, "file", path, "inputs", len(m.Inputs()), "params", m.CountParams())
	if s.opts.ReloadInterval > 0 {
		s.watchOnce.Do(func() {
			s.watching.Add(1)
			go s.watch()
		})
	}
	return nil
}

// AddModel serves a model built or loaded by the program under name. The
// model stays the program's: the server does not close it, and it keeps
// serving what its variables hold (training it elsewhere changes the
// answers, between two steps, as a Predict beside a Fit sees).
func (s *Server) AddModel(name string, m *keras.Model) error {
	if err := checkName(name); err != nil {
		return err
	}
	if err := checkModel(m); err != nil {
		return fmt.Errorf("model %q: %w", name, err)
	}
	return s.add(&servedModel{name: name}, m, fileStamp{}, false)
}

func checkName(name string) error {
	if name == "" || strings.ContainsAny(name, "/:?#% ") {
		return fmt.Errorf("serving: model name %q: give a non-empty name without '/', ':', '?', '#', '%%' or spaces (it is part of the URL /v1/models/<name>)", name)
	}
	return nil
}

func (s *Server) add(sm *servedModel, m *keras.Model, stamp fileStamp, owned bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("serving: the server is closed")
	}
	if _, ok := s.models[sm.name]; ok {
		return fmt.Errorf("serving: a model named %q is already served", sm.name)
	}
	sm.current.Store(s.newServable(sm.name, m, 1, stamp, owned))
	s.models[sm.name] = sm
	s.metrics.version.WithLabelValues(sm.name).Set(1)
	return nil
}

func (s *Server) newServable(name string, m *keras.Model, version int, stamp fileStamp, owned bool) *servable {
	in, out := specsOf(m)
	return &servable{version: version, model: m, inputs: in, outputs: out, stamp: stamp, owned: owned,
		batcher: newBatcher(m, s.opts.Batching, s.metrics.batchSize.WithLabelValues(name), s.metrics.queued.WithLabelValues(name))}
}

// Reload checks every served file now, as the watcher does every
// ReloadInterval, and puts the new versions in place. It returns the
// errors of files that changed and failed to load (their old versions
// keep serving).
func (s *Server) Reload() error {
	s.mu.RLock()
	var files []*servedModel
	for _, sm := range s.models {
		if sm.path != "" {
			files = append(files, sm)
		}
	}
	s.mu.RUnlock()
	sort.Slice(files, func(i, j int) bool { return files[i].name < files[j].name })
	var errs []error
	for _, sm := range files {
		loaded, err := sm.reload(s)
		if err != nil {
			errs = append(errs, err)
			s.opts.Logger.Error("reload failed", "model", sm.name, "err", err)
		} else if loaded {
			s.opts.Logger.Info("reloaded", "model", sm.name, "file", sm.path, "version", sm.current.Load().version)
		}
	}
	return errors.Join(errs...)
}

func (s *Server) watch() {
	defer s.watching.Done()
	tick := time.NewTicker(s.opts.ReloadInterval)
	defer tick.Stop()
	for {
		select {
		case <-s.stop:
			return
		case <-tick.C:
			s.Reload()
		}
	}
}

// Drain marks the server not ready (/readyz answers 503) so that a load
// balancer stops sending it requests; it keeps answering those that come,
// each with "Connection: close", so that no client is left holding an
// idle connection that the shutdown would cut under a request it is
// sending. On SIGTERM: call Drain, keep serving for a drain window (the
// time the load balancers take to see /readyz), then call
// http.Server.Shutdown, then Close; kerasgo serve does (-drain-delay).
func (s *Server) Drain() { s.draining.Store(true) }

// Close stops watching files, answers the requests queued, and closes the
// models it loaded. Call it after http.Server.Shutdown has returned.
func (s *Server) Close() error {
	s.mu.Lock()
	if s.closed {
		s.mu.Unlock()
		return nil
	}
	s.closed = true
	s.draining.Store(true)
	models := s.models
	s.mu.Unlock()
	close(s.stop)
	s.watching.Wait()
	for _, sm := range models {
		sm.reloadMu.Lock()
		retire(sm.current.Load())
		sm.reloadMu.Unlock()
	}
	return nil
}

// ServeHTTP answers TensorFlow Serving's REST API under /v1/models/, and
// /metrics (Prometheus), /healthz (alive) and /readyz (ready for traffic:
// models loaded, not draining).
func (s *Server) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if s.draining.Load() {
		w.Header().Set("Connection", "close")
	}
	switch path := r.URL.Path; {
	case path == "/metrics":
		s.metricz.ServeHTTP(w, r)
	case path == "/healthz":
		io.WriteString(w, "ok\n")
	case path == "/readyz":
		s.mu.RLock()
		ready := len(s.models) > 0 && !s.closed && !s.draining.Load()
		s.mu.RUnlock()
		if !ready {
			http.Error(w, "not ready", http.StatusServiceUnavailable)
			return
		}
		io.WriteString(w, "ready\n")
	case strings.HasPrefix(path, "/v1/models/"):
		s.serveModelAPI(w, r, strings.TrimPrefix(path, "/v1/models/"))
	default:
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint %q: the API is /v1/models/<name>, /v1/models/<name>/metadata and /v1/models/<name>:predict", path))
	}
}

// serveModelAPI answers /v1/models/<name>[/versions/<v>][/metadata|:predict].
func (s *Server) serveModelAPI(w http.ResponseWriter, r *http.Request, rest string) {
	api := "status"
	switch {
	case strings.HasSuffix(rest, ":predict"):
		api, rest = "predict", strings.TrimSuffix(rest, ":predict")
	case strings.HasSuffix(rest, "/metadata"):
		api, rest = "metadata", strings.TrimSuffix(rest, "/metadata")
	case strings.Contains(rest, ":"):
		i := strings.LastIndex(rest, ":")
		s.answer(w, "", "unknown", http.StatusNotFound, fmt.Sprintf("unknown method %q: kerasgo serves :predict (TensorFlow Serving's :classify and :regress need a tf.Example signature, which Keras models do not have)", rest[i+1:]), nil)
		return
	}
	name, version, _ := strings.Cut(rest, "/versions/")
	if strings.Contains(name, "/labels/") {
		name, _, _ = strings.Cut(name, "/labels/")
		s.answer(w, name, api, http.StatusNotFound, "version labels are not supported: give the version number (/versions/<n>) or none", nil)
		return
	}
	s.mu.RLock()
	sm := s.models[name]
	s.mu.RUnlock()
	if sm == nil {
		s.answer(w, "", api, http.StatusNotFound, fmt.Sprintf("Servable not found for request: Latest(%s): the models served are %v", name, s.names()), nil)
		return
	}
	want := api == "predict" && r.Method == http.MethodPost || api != "predict" && r.Method == http.MethodGet
	if !want {
		allowed := map[bool]string{true: http.MethodPost, false: http.MethodGet}[api == "predict"]
		w.Header().Set("Allow", allowed)
		s.answer(w, name, api, http.StatusMethodNotAllowed, fmt.Sprintf("%s needs %s, not %s", api, allowed, r.Method), nil)
		return
	}
	sv := sm.current.Load()
	if version != "" && version != strconv.Itoa(sv.version) {
		s.answer(w, name, api, http.StatusNotFound, fmt.Sprintf("Servable not found for request: Specific(%s, %s): version %d is serving", name, version, sv.version), nil)
		return
	}
	switch api {
	case "status":
		s.answer(w, name, api, http.StatusOK, "", appendStatus(nil, sv))
	case "metadata":
		s.answer(w, name, api, http.StatusOK, "", appendMetadata(nil, name, sv))
	case "predict":
		s.servePredict(w, r, sm)
	}
}

func (s *Server) servePredict(w http.ResponseWriter, r *http.Request, sm *servedModel) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
	defer cancel()
	// A slow body is cut at BodyTimeout (or the request's own deadline):
	// without it a client sending a byte a second holds a connection and
	// a goroutine for as long as it likes.
	deadline := start.Add(min(s.opts.BodyTimeout, s.opts.RequestTimeout))
	rc := http.NewResponseController(w)
	deadlineSet := rc.SetReadDeadline(deadline) == nil
	body, err := s.readBody(w, r)
	if deadlineSet {
		rc.SetReadDeadline(time.Time{})
	}
	if err != nil {
		code, msg := http.StatusBadRequest, "reading the request: "+err.Error()
		var tooBig *http.MaxBytesError
		var netErr net.Error
		switch {
		case errors.As(err, &tooBig):
			code, msg = http.StatusRequestEntityTooLarge, fmt.Sprintf("the request body is larger than %d bytes: send fewer instances per request, or serve with a larger MaxBodyBytes (-max-body)", tooBig.Limit)
		case errors.Is(err, errUnsupportedEncoding):
			code, msg = http.StatusUnsupportedMediaType, err.Error()
		case errors.As(err, &netErr) && netErr.Timeout():
			code, msg = http.StatusRequestTimeout, fmt.Sprintf("the request body did not arrive within %v (BodyTimeout, -body-timeout)", min(s.opts.BodyTimeout, s.opts.RequestTimeout))
			w.Header().Set("Connection", "close")
		}
		s.answer(w, sm.name, "predict", code, msg, nil)
		return
	}
	sv := sm.current.Load()
	req, err := parsePredictRequest(body, sv.inputs, s.opts.AllowNonFinite)
	if err != nil {
		s.answer(w, sm.name, "predict", http.StatusBadRequest, err.Error(), nil)
		return
	}
	outs, sv, err := sm.predict(ctx, req)
	if err != nil {
		code := statusOf(err)
		if code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		if code == http.StatusGatewayTimeout {
			err = fmt.Errorf("the request took longer than %v (RequestTimeout, -timeout)", s.opts.RequestTimeout)
		}
		s.answer(w, sm.name, "predict", code, err.Error(), nil)
		return
	}
	s.answer(w, sm.name, "predict", http.StatusOK, "", appendPredictResponse(nil, outs, sv.outputs, req.columnar))
	s.metrics.latency.WithLabelValues(sm.name).Observe(time.Since(start).Seconds())
}

// errUnsupportedEncoding is a Content-Encoding other than gzip.
var errUnsupportedEncoding = errors.New("unsupported Content-Encoding")

// readBody reads a request's body, at most MaxBodyBytes, as sent or, with
// "Content-Encoding: gzip", decompressed (MaxBodyBytes then bounds the
// compressed and the decompressed bytes alike).
func (s *Server) readBody(w http.ResponseWriter, r *http.Request) ([]byte, error) {
	body := http.MaxBytesReader(w, r.Body, s.opts.MaxBodyBytes)
	switch enc := strings.ToLower(strings.TrimSpace(r.Header.Get("Content-Encoding"))); enc {
	case "", "identity":
		return io.ReadAll(body)
	case "gzip", "x-gzip":
		gz, err := gzip.NewReader(body)
		if err != nil {
			return nil, fmt.Errorf("the body is not gzip data, as its Content-Encoding says: %w", err)
		}
		defer gz.Close()
		data, err := io.ReadAll(io.LimitReader(gz, s.opts.MaxBodyBytes+1))
		if err == nil && int64(len(data)) > s.opts.MaxBodyBytes {
			err = &http.MaxBytesError{Limit: s.opts.MaxBodyBytes}
		}
		return data, err
	default:
		return nil, fmt.Errorf("%w %q: send the body as it is, or gzip-compressed (Content-Encoding: gzip)", errUnsupportedEncoding, enc)
	}
}

// answer writes a JSON body, or {"error": msg} when msg is not empty, and
// counts the request.
func (s *Server) answer(w http.ResponseWriter, model, api string, code int, msg string, body []byte) {
	if model == "" {
		model = "unknown"
	}
	s.metrics.requests.WithLabelValues(model, api, strconv.Itoa(code)).Inc()
	if msg != "" {
		writeError(w, code, msg)
		return
	}
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	w.Write(body)
}

// writeError writes TensorFlow Serving's error body: {"error": "..."}.
func writeError(w http.ResponseWriter, code int, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(code)
	b := appendJSONString([]byte(`{"error":`), msg)
	w.Write(append(b, "}\n"...))
}

func (s *Server) names() []string {
	s.mu.RLock()
	defer s.mu.RUnlock()
	out := make([]string, 0, len(s.models))
	for n := range s.models {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
