package backend

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
)

// DefaultName is the engine used when nothing else selects one.
const DefaultName = "gorgonia"

// EnvVar is the environment variable that selects the engine.
const EnvVar = "KERASGO_BACKEND"

// Factory opens an engine on a device. device is what followed the engine
// name in the selection ("" for "gorgonia", "cuda:1" for "libtorch:cuda:1").
type Factory func(device string) (Backend, error)

var (
	registryMu sync.RWMutex
	registry   = map[string]Factory{}
)

// Register makes an engine available under name. Adapters call it from
// init. It panics if name is empty or registered twice, as database/sql does.
func Register(name string, f Factory) {
	registryMu.Lock()
	defer registryMu.Unlock()
	if name == "" || f == nil {
		panic("backend: Register needs a name and a factory")
	}
	if _, dup := registry[name]; dup {
		panic("backend: Register called twice for " + name)
	}
	registry[name] = f
}

// Names returns the registered engine names, sorted.
func Names() []string {
	registryMu.RLock()
	defer registryMu.RUnlock()
	names := make([]string, 0, len(registry))
	for n := range registry {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

// Selection says which engine was chosen and where the choice came from.
type Selection struct {
	Spec   string // e.g. "libtorch:cuda:1"
	Source string // "argument", "$KERASGO_BACKEND", the config file's path, or "default"
}

// Resolve applies kerasgo's precedence to choose an engine spec: explicit
// (non-empty) argument > $KERASGO_BACKEND > "backend" in
// ~/.kerasgo/kerasgo.json > "gorgonia".
func Resolve(explicit string) (Selection, error) {
	if explicit != "" {
		return Selection{Spec: explicit, Source: "argument"}, nil
	}
	if env := strings.TrimSpace(os.Getenv(EnvVar)); env != "" {
		return Selection{Spec: env, Source: "$" + EnvVar}, nil
	}
	path, spec, err := configBackend()
	if err != nil {
		return Selection{}, err
	}
	if spec != "" {
		return Selection{Spec: spec, Source: path}, nil
	}
	return Selection{Spec: DefaultName, Source: "default"}, nil
}

// ConfigPath returns the path of the user's kerasgo config file,
// ~/.kerasgo/kerasgo.json.
func ConfigPath() (string, error) {
	home, err := os.UserHomeDir()
	if err != nil {
		return "", err
	}
	return filepath.Join(home, ".kerasgo", "kerasgo.json"), nil
}

func configBackend() (path, spec string, err error) {
	path, err = ConfigPath()
	if err != nil {
		return "", "", nil // no home directory: no config file to read
	}
	data, err := os.ReadFile(path)
	if errors.Is(err, os.ErrNotExist) {
		return path, "", nil
	}
	if err != nil {
		return path, "", fmt.Errorf("reading kerasgo config: %w", err)
	}
	var cfg struct {
		Backend string `json:"backend"`
	}
	if err := json.Unmarshal(data, &cfg); err != nil {
		return path, "", fmt.Errorf("kerasgo config %s is not valid JSON (%v): fix it or delete it", path, err)
	}
	return path, strings.TrimSpace(cfg.Backend), nil
}

// SplitSpec splits "libtorch:cuda:1" into the engine name "libtorch" and the
// device "cuda:1".
func SplitSpec(spec string) (name, device string) {
	name, device, _ = strings.Cut(strings.TrimSpace(spec), ":")
	return name, device
}

// Open opens the engine named by spec, or, when spec is empty, the one
// [Resolve] selects. The error for an unknown engine lists the registered
// ones and the import that registers an engine.
func Open(spec string) (Backend, error) {
	sel, err := Resolve(spec)
	if err != nil {
		return nil, err
	}
	name, device := SplitSpec(sel.Spec)
	registryMu.RLock()
	f, ok := registry[name]
	registryMu.RUnlock()
	if !ok {
		return nil, fmt.Errorf("unknown kerasgo backend %q (from %s): registered backends are %v; "+
			"an engine registers itself when its package is imported, e.g. import _ \"github.com/kerasgo/kerasgo/backends/%s\"",
			name, sel.Source, Names(), name)
	}
	be, err := f(device)
	if err != nil {
		return nil, fmt.Errorf("opening backend %q (from %s): %w", sel.Spec, sel.Source, err)
	}
	return guarded(be), nil
}
