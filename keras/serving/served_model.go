package serving

import (
	"context"
	"fmt"
	"maps"
	"net/http"
	"slices"
	"sync"
	"sync/atomic"

	"github.com/kerasgo/kerasgo/keras"
)

// servedModel is a model served under a name: its versions and labels,
// replaced whole (a versionSet) by a reload, AddVersion or SetLabel
// without dropping a request.
type servedModel struct {
	name string
	// path is the file a model added with AddFile is loaded from and
	// watched: a new file replaces the version serving. "" for a model
	// whose versions were given one by one (AddModel, AddVersion).
	path  string
	state atomic.Pointer[versionSet]

	mu     sync.Mutex // one change at a time (reload, AddVersion, SetLabel); guards failed
	failed fileStamp  // the file's stamp when it last failed to load: not tried again until it changes
}

// versionSet is what a model serves at one moment: its versions, the
// latest (the highest number, which a request naming none gets), and its
// labels (TensorFlow Serving's version labels: a name for a version).
type versionSet struct {
	versions map[int]*servable
	latest   *servable
	labels   map[string]int
}

// with returns a copy of vs that also serves sv.
func (vs *versionSet) with(sv *servable) *versionSet {
	out := &versionSet{versions: map[int]*servable{sv.version: sv}, latest: sv, labels: map[string]int{}}
	if vs == nil {
		return out
	}
	for v, other := range vs.versions {
		out.versions[v] = other
		if v > out.latest.version {
			out.latest = other
		}
	}
	maps.Copy(out.labels, vs.labels)
	return out
}

// sorted returns the versions in ascending order.
func (vs *versionSet) sorted() []*servable {
	out := slices.Collect(maps.Values(vs.versions))
	slices.SortFunc(out, func(a, b *servable) int { return a.version - b.version })
	return out
}

// selector is the version a request names: a number (/versions/<n>), a
// label (/labels/<label>), or neither (the latest).
type selector struct {
	version int
	label   string
}

// resolve returns the version sel names, or a 404 in TensorFlow Serving's
// words.
func (sm *servedModel) resolve(sel selector) (*servable, error) {
	vs := sm.state.Load()
	switch {
	case sel.label != "":
		v, ok := vs.labels[sel.label]
		if !ok {
			return nil, &statusError{code: http.StatusNotFound, msg: fmt.Sprintf("Unrecognized servable version label: %s: model %q has the labels %v", sel.label, sm.name, slices.Sorted(maps.Keys(vs.labels)))}
		}
		sv := vs.versions[v]
		if sv == nil {
			return nil, &statusError{code: http.StatusNotFound, msg: fmt.Sprintf("label %q of model %q names version %d, which is no longer served", sel.label, sm.name, v)}
		}
		return sv, nil
	case sel.version != 0:
		sv := vs.versions[sel.version]
		if sv == nil {
			return nil, &statusError{code: http.StatusNotFound, msg: fmt.Sprintf("Servable not found for request: Specific(%s, %d): the versions serving are %v", sm.name, sel.version, versionNumbers(vs))}
		}
		return sv, nil
	}
	return vs.latest, nil
}

func versionNumbers(vs *versionSet) []int {
	return slices.Sorted(maps.Keys(vs.versions))
}

// predict runs a request on the version sel names. A request that
// reaches a version just replaced by a reload goes to the new one.
func (sm *servedModel) predict(ctx context.Context, sel selector, req *predictRequest) ([]keras.Array, *servable, error) {
	for {
		sv, err := sm.resolve(sel)
		if err != nil {
			return nil, nil, err
		}
		if err := sv.model.CheckInputs(keras.Arrays(req.x)); err != nil {
			return nil, sv, badRequest(err)
		}
		t := &task{ctx: ctx, req: req, done: make(chan taskResult, 1)}
		err = sv.batcher.submit(t)
		if err == errClosed {
			if again, _ := sm.resolve(sel); again != nil && again != sv {
				continue
			}
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
	sm.mu.Lock()
	defer sm.mu.Unlock()
	old := sm.state.Load().latest
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
	next := (&versionSet{labels: sm.state.Load().labels}).with(sv)
	sm.state.Store(next)
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
