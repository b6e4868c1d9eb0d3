package serving

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"

	"github.com/kerasgo/kerasgo/keras"
)

// servedModel is a model served under a name: the version serving now,
// replaced by a reload without dropping a request.
type servedModel struct {
	name    string
	path    string // the file it is loaded from; "" for a model given as is
	current atomic.Pointer[servable]

	reloadMu sync.Mutex // one reload at a time; guards failed
	failed   fileStamp  // the file's stamp when it last failed to load: not tried again until it changes
}

// predict runs a request on the version serving. A request that reaches
// a version just replaced by a reload goes to the new one.
func (sm *servedModel) predict(ctx context.Context, req *predictRequest) ([]keras.Array, *servable, error) {
	for {
		sv := sm.current.Load()
		if err := sv.model.CheckInputs(keras.Arrays(req.x)); err != nil {
			return nil, sv, badRequest(err)
		}
		t := &task{ctx: ctx, req: req, done: make(chan taskResult, 1)}
		err := sv.batcher.submit(t)
		if err == errClosed && sm.current.Load() != sv {
			continue
		}
		if err != nil {
			return nil, sv, err
		}
		select {
		case r := <-t.done:
			return r.outs, sv, r.err
		case <-ctx.Done():
			return nil, sv, ctx.Err()
		}
	}
}

// reload loads the model's file again if it changed since the version
// serving was loaded, checks it, and puts it in place of that version,
// which finishes the requests it holds and is then closed. It reports
// whether a new version serves; a file that fails to load leaves the old
// version serving and is not tried again until it changes.
func (sm *servedModel) reload(s *Server) (bool, error) {
	sm.reloadMu.Lock()
	defer sm.reloadMu.Unlock()
	old := sm.current.Load()
	stamp, err := stampOf(sm.path)
	if err != nil || stamp == old.stamp || stamp == sm.failed {
		return false, err
	}
	m, stamp, err := loadFile(sm.path, s.opts.Backend)
	if err != nil {
		sm.failed = stamp
		s.metrics.reloads.WithLabelValues(sm.name, "failed").Inc()
		return false, fmt.Errorf("model %q: the new file did not load, version %d keeps serving: %w", sm.name, old.version, err)
	}
	sv := s.newServable(sm.name, m, old.version+1, stamp, true)
	sm.current.Store(sv)
	s.metrics.reloads.WithLabelValues(sm.name, "loaded").Inc()
	s.metrics.version.WithLabelValues(sm.name).Set(float64(sv.version))
	retire(old)
	return true, nil
}

// retire closes a version no longer serving, once the requests it holds
// are answered.
func retire(sv *servable) {
	sv.batcher.close()
	if sv.owned {
		sv.model.Close()
	}
}
