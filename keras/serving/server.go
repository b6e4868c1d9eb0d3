package serving

import (
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
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
	"golang.org/x/sync/semaphore"
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
	mux     *http.ServeMux
	// inflight holds the memory the requests in flight are counted for
	// (MaxInFlightBytes in all).
	inflight *semaphore.Weighted

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
	s := &Server{opts: o, metrics: met, models: map[string]*servedModel{}, stop: make(chan struct{}),
		metricz: promhttp.HandlerFor(met.registry, promhttp.HandlerOpts{}), inflight: semaphore.NewWeighted(o.MaxInFlightBytes)}
	s.mux = s.routes()
	return s, nil
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
	if err := s.add(&servedModel{name: name, path: path}, m, 1, stamp, true); err != nil {
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
	return s.add(&servedModel{name: name}, m, 1, fileStamp{}, false)
}

// AddVersion loads a .keras file and serves it as version of the model
// name, beside the versions served already, as TensorFlow Serving serves
// the numbered versions of a model's base path: a request naming no
// version gets the highest; /versions/<n> and labels (SetLabel) name the
// others. Versions given so are not watched: a new model is a new
// version. A name served with AddFile (one watched file) takes no
// versions beside it.
func (s *Server) AddVersion(name string, version int, path string) error {
	if err := checkName(name); err != nil {
		return err
	}
	if version < 1 {
		return fmt.Errorf("serving: model %q: version %d: give a positive version number", name, version)
	}
	s.mu.RLock()
	sm := s.models[name]
	s.mu.RUnlock()
	if sm != nil && sm.path != "" {
		return fmt.Errorf("serving: model %q is served from the watched file %s (AddFile): its new versions come from that file; serve numbered versions under another name", name, sm.path)
	}
	m, stamp, err := loadFile(path, s.opts.Backend)
	if err != nil {
		s.metrics.reloads.WithLabelValues(name, "failed").Inc()
		return err
	}
	if sm == nil {
		if err := s.add(&servedModel{name: name}, m, version, stamp, true); err != nil {
			m.Close()
			return err
		}
	} else {
		sm.mu.Lock()
		vs := sm.state.Load()
		if vs.versions[version] != nil {
			sm.mu.Unlock()
			m.Close()
			return fmt.Errorf("serving: model %q already serves version %d", name, version)
		}
		next := vs.with(s.newServable(name, m, version, stamp, true))
		sm.state.Store(next)
		s.metrics.version.WithLabelValues(name).Set(float64(next.latest.version))
		sm.mu.Unlock()
	}
	s.metrics.reloads.WithLabelValues(name, "loaded").Inc()
	s.opts.Logger.Info("serving", "model", name, "version", version, "file", path)
	return nil
}

// SetLabel names a served version of a model, as TensorFlow Serving's
// version labels do ("stable", "canary"): /v1/models/<name>/labels/<label>
// then reaches it. A label can be moved to another version at any time;
// it can only name a version that is served.
func (s *Server) SetLabel(name, label string, version int) error {
	if err := checkName(label); err != nil {
		return fmt.Errorf("serving: label: %w", err)
	}
	s.mu.RLock()
	sm := s.models[name]
	s.mu.RUnlock()
	if sm == nil {
		return fmt.Errorf("serving: no model named %q is served: the models served are %v", name, s.names())
	}
	sm.mu.Lock()
	defer sm.mu.Unlock()
	vs := sm.state.Load()
	if vs.versions[version] == nil {
		return fmt.Errorf("serving: model %q serves no version %d (it serves %v): a label can only name a version that is served", name, version, versionNumbers(vs))
	}
	next := &versionSet{versions: vs.versions, latest: vs.latest, labels: maps.Clone(vs.labels)}
	next.labels[label] = version
	sm.state.Store(next)
	return nil
}

func checkName(name string) error {
	if name == "" || strings.ContainsAny(name, "/:?#% ") {
		return fmt.Errorf("serving: model name %q: give a non-empty name without '/', ':', '?', '#', '%%' or spaces (it is part of the URL /v1/models/<name>)", name)
	}
	return nil
}

func (s *Server) add(sm *servedModel, m *keras.Model, version int, stamp fileStamp, owned bool) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.closed {
		return errors.New("serving: the server is closed")
	}
	if _, ok := s.models[sm.name]; ok {
		return fmt.Errorf("serving: a model named %q is already served", sm.name)
	}
	sm.state.Store((*versionSet)(nil).with(s.newServable(sm.name, m, version, stamp, owned)))
	s.models[sm.name] = sm
	s.metrics.version.WithLabelValues(sm.name).Set(float64(version))
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
			s.opts.Logger.Info("reloaded", "model", sm.name, "file", sm.path, "version", sm.state.Load().latest.version)
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
		sm.mu.Lock()
		for _, sv := range sm.state.Load().versions {
			retire(sv)
		}
		sm.mu.Unlock()
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
	s.mux.ServeHTTP(w, r)
}

// routes maps TensorFlow Serving's URLs to their handlers:
//
//	/v1/models/<name>[/versions/<n>|/labels/<label>]            status
//	/v1/models/<name>[/versions/<n>|/labels/<label>]/metadata   metadata
//	/v1/models/<name>[/versions/<n>|/labels/<label>]:<method>   predict, classify, regress
//
// The methods are checked by the handlers, so that a wrong one gets
// TensorFlow Serving's JSON error, not the mux's text.
func (s *Server) routes() *http.ServeMux {
	mux := http.NewServeMux()
	mux.Handle("/metrics", s.metricz)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "ok\n") })
	mux.HandleFunc("/readyz", s.serveReady)
	mux.HandleFunc("/v1/models/{call}", func(w http.ResponseWriter, r *http.Request) {
		name, method := splitCall(r.PathValue("call"))
		s.serveModelAPI(w, r, name, selector{}, method)
	})
	mux.HandleFunc("/v1/models/{name}/metadata", func(w http.ResponseWriter, r *http.Request) {
		s.serveModelAPI(w, r, r.PathValue("name"), selector{}, "metadata")
	})
	version := func(w http.ResponseWriter, r *http.Request, name, v, method string) {
		n, err := strconv.Atoi(v)
		if err != nil || n < 1 {
			s.answer(w, name, method, http.StatusBadRequest, fmt.Sprintf("version %q: a version is a positive number (or name it by its label: /labels/<label>)", v), nil)
			return
		}
		s.serveModelAPI(w, r, name, selector{version: n}, method)
	}
	mux.HandleFunc("/v1/models/{name}/versions/{call}", func(w http.ResponseWriter, r *http.Request) {
		v, method := splitCall(r.PathValue("call"))
		version(w, r, r.PathValue("name"), v, method)
	})
	mux.HandleFunc("/v1/models/{name}/versions/{v}/metadata", func(w http.ResponseWriter, r *http.Request) {
		version(w, r, r.PathValue("name"), r.PathValue("v"), "metadata")
	})
	mux.HandleFunc("/v1/models/{name}/labels/{call}", func(w http.ResponseWriter, r *http.Request) {
		label, method := splitCall(r.PathValue("call"))
		s.serveModelAPI(w, r, r.PathValue("name"), selector{label: label}, method)
	})
	mux.HandleFunc("/v1/models/{name}/labels/{label}/metadata", func(w http.ResponseWriter, r *http.Request) {
		s.serveModelAPI(w, r, r.PathValue("name"), selector{label: r.PathValue("label")}, "metadata")
	})
	mux.HandleFunc("/", func(w http.ResponseWriter, r *http.Request) {
		writeError(w, http.StatusNotFound, fmt.Sprintf("no such endpoint %q: the API is /v1/models/<name>, /v1/models/<name>/metadata and /v1/models/<name>:predict (or :classify, :regress), optionally with /versions/<n> or /labels/<label> after the name", r.URL.Path))
	})
	return mux
}

// splitCall splits the last segment of a URL into what it names and the
// method after a colon ("mnist:predict"); no colon is the status API.
func splitCall(seg string) (string, string) {
	if i := strings.LastIndex(seg, ":"); i >= 0 {
		return seg[:i], seg[i+1:]
	}
	return seg, "status"
}

func (s *Server) serveReady(w http.ResponseWriter, _ *http.Request) {
	s.mu.RLock()
	ready := len(s.models) > 0 && !s.closed && !s.draining.Load()
	s.mu.RUnlock()
	if !ready {
		http.Error(w, "not ready", http.StatusServiceUnavailable)
		return
	}
	io.WriteString(w, "ready\n")
}

// serveModelAPI answers one API (status, metadata, predict, classify,
// regress) of the model name, on the version sel names.
func (s *Server) serveModelAPI(w http.ResponseWriter, r *http.Request, name string, sel selector, api string) {
	post := false
	switch api {
	case "status", "metadata":
	case "predict", "classify", "regress":
		post = true
	default:
		s.answer(w, name, "unknown", http.StatusNotFound, fmt.Sprintf("unknown method %q: the methods are :predict, :classify and :regress", api), nil)
		return
	}
	s.mu.RLock()
	sm := s.models[name]
	s.mu.RUnlock()
	if sm == nil {
		s.answer(w, "", api, http.StatusNotFound, fmt.Sprintf("Servable not found for request: Latest(%s): the models served are %v", name, s.names()), nil)
		return
	}
	if allowed := map[bool]string{true: http.MethodPost, false: http.MethodGet}[post]; r.Method != allowed {
		w.Header().Set("Allow", allowed)
		s.answer(w, name, api, http.StatusMethodNotAllowed, fmt.Sprintf("%s needs %s, not %s", api, allowed, r.Method), nil)
		return
	}
	if post {
		s.serveInference(w, r, sm, sel, api)
		return
	}
	if api == "status" && sel == (selector{}) {
		s.answer(w, name, api, http.StatusOK, "", appendStatus(nil, sm.state.Load().sorted()...))
		return
	}
	sv, err := sm.resolve(sel)
	if err != nil {
		s.answer(w, name, api, statusOf(err), err.Error(), nil)
		return
	}
	if api == "status" {
		s.answer(w, name, api, http.StatusOK, "", appendStatus(nil, sv))
		return
	}
	s.answer(w, name, api, http.StatusOK, "", appendMetadata(nil, name, sv))
}

// serveInference answers :predict, :classify and :regress: it reads
// the body, parses it in the method's format, runs it on the version sel
// names and writes the method's answer.
func (s *Server) serveInference(w http.ResponseWriter, r *http.Request, sm *servedModel, sel selector, api string) {
	start := time.Now()
	ctx, cancel := context.WithTimeout(r.Context(), s.opts.RequestTimeout)
	defer cancel()
	// Admission by bytes: the request holds its estimated memory from
	// before its body is read until it is answered, so that the requests
	// in flight hold at most MaxInFlightBytes, whatever their number.
	held, err := s.admit(ctx, r)
	if err != nil {
		code := statusOf(err)
		if code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		s.answer(w, sm.name, api, code, err.Error(), nil)
		return
	}
	defer func() { s.release(held) }()
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
		s.answer(w, sm.name, api, code, msg, nil)
		return
	}
	if cost := requestCost(int64(len(body))); cost < held { // a body shorter than announced, or decompressed
		s.release(held - cost)
		held = cost
	}
	sv, err := sm.resolve(sel)
	if err != nil {
		s.answer(w, sm.name, api, statusOf(err), err.Error(), nil)
		return
	}
	var req *predictRequest
	if api == "predict" {
		req, err = parsePredictRequest(body, sv.inputs, s.opts.AllowNonFinite)
	} else {
		req, err = parseExamplesRequest(body, api, sv.inputs, sv.outputs, s.opts.AllowNonFinite)
	}
	body = nil // the parsed request holds what is needed
	if err != nil {
		s.answer(w, sm.name, api, http.StatusBadRequest, err.Error(), nil)
		return
	}
	if req.rows > s.opts.MaxInstances {
		s.answer(w, sm.name, api, http.StatusRequestEntityTooLarge, fmt.Sprintf("the request has %d instances, more than MaxInstances (%d, -max-instances): send them in several requests", req.rows, s.opts.MaxInstances), nil)
		return
	}
	outs, sv, err := sm.predict(ctx, sel, req)
	if err != nil {
		code := statusOf(err)
		if code == http.StatusServiceUnavailable {
			w.Header().Set("Retry-After", "1")
		}
		if code == http.StatusGatewayTimeout {
			err = fmt.Errorf("the request took longer than %v (RequestTimeout, -timeout)", s.opts.RequestTimeout)
		}
		s.answer(w, sm.name, api, code, err.Error(), nil)
		return
	}
	var answer []byte
	switch api {
	case "predict":
		answer = appendPredictResponse(nil, outs, sv.outputs, req.columnar)
	case "classify":
		answer = appendClassifyResponse(nil, outs[0])
	case "regress":
		answer = appendRegressResponse(nil, outs[0])
	}
	s.answer(w, sm.name, api, http.StatusOK, "", answer)
	s.metrics.latency.WithLabelValues(sm.name).Observe(time.Since(start).Seconds())
}

// requestCost is the memory a request of a body of n bytes is counted
// for while it is in flight: the body, its parsed tensors (at most 4
// bytes per value, and a value takes at least 2 bytes of JSON), the
// padded copy of its last batch, its outputs, and Go's heap room between
// collections (measured: bench/servemem; at 3 times the body, sixteen
// 15.7 MB requests grew memory past the bound).
func requestCost(n int64) int64 { return 4*n + 64<<10 }

// admit reserves a request's memory (requestCost of its Content-Length,
// or of MaxBodyBytes when the length is not announced or the body is
// compressed) from MaxInFlightBytes, waiting while other requests hold
// it, until the request's deadline (then 503). It returns what it
// reserved.
func (s *Server) admit(ctx context.Context, r *http.Request) (int64, error) {
	n := r.ContentLength
	if n < 0 || n > s.opts.MaxBodyBytes || r.Header.Get("Content-Encoding") != "" {
		n = s.opts.MaxBodyBytes
	}
	cost := requestCost(n)
	if cost > s.opts.MaxInFlightBytes {
		return 0, &statusError{code: http.StatusRequestEntityTooLarge, msg: fmt.Sprintf("a request of %d bytes is counted for %d bytes in flight, more than MaxInFlightBytes (%d, -max-inflight): send a smaller request", n, cost, s.opts.MaxInFlightBytes)}
	}
	if s.inflight.TryAcquire(cost) {
		s.metrics.inFlightBytes.Add(float64(cost))
		return cost, nil
	}
	s.metrics.waitingBytes.Add(float64(cost))
	defer s.metrics.waitingBytes.Sub(float64(cost))
	if err := s.inflight.Acquire(ctx, cost); err != nil {
		return 0, &statusError{code: http.StatusServiceUnavailable, msg: fmt.Sprintf("the requests in flight hold MaxInFlightBytes (%d bytes, -max-inflight) and did not leave room for this one within its time: retry later", s.opts.MaxInFlightBytes)}
	}
	s.metrics.inFlightBytes.Add(float64(cost))
	return cost, nil
}

// release returns n bytes of a request's reservation.
func (s *Server) release(n int64) {
	s.metrics.inFlightBytes.Sub(float64(n))
	s.inflight.Release(n)
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
		if n := r.ContentLength; n > 0 && n <= s.opts.MaxBodyBytes {
			// One buffer of the announced size, not ReadAll's growing
			// copies (which hold up to twice the body).
			buf := make([]byte, n)
			if _, err := io.ReadFull(body, buf); err != nil {
				return nil, err
			}
			return buf, nil
		}
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
