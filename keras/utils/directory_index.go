package utils

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/kerasgo/kerasgo/keras"

	"github.com/kerasgo/kerasgo/internal/nprandom"
)

// directoryIndex is what keras.utils's *_dataset_from_directory loaders
// share (Keras's dataset_utils): finding the files of a folder, their
// labels from the sub-folders or given, the seeded shuffle and the
// validation split.
type directoryIndex struct {
	labels          []int
	noLabels        bool
	labelMode       string
	classNames      []string
	batchSize       int
	noShuffle       bool
	seed            uint32
	validationSplit float64
	subset          string
	followLinks     bool
	verbose         int
	log             io.Writer
	isFile          func(name string) bool // a file the loader reads
	kind            string                 // "image", "text": for messages
}

// resolve checks the shared options and fills in Keras's defaults.
func (o directoryIndex) resolve() (directoryIndex, error) {
	if o.labelMode == "" {
		o.labelMode = "int"
	}
	switch o.labelMode {
	case "int", "categorical", "binary":
	default:
		return o, fmt.Errorf(`unknown LabelMode %q: use "int", "categorical" or "binary" (or NoLabels)`, o.labelMode)
	}
	if o.labels != nil && o.noLabels {
		return o, fmt.Errorf("both Labels and NoLabels are set: give one")
	}
	if o.labels != nil && o.classNames != nil {
		return o, fmt.Errorf("ClassNames can only be given with labels inferred from the sub-folders, not with Labels")
	}
	if o.noLabels && o.classNames != nil {
		return o, fmt.Errorf("ClassNames cannot be given with NoLabels")
	}
	if o.batchSize == 0 {
		o.batchSize = 32
	}
	if o.batchSize < 0 {
		return o, fmt.Errorf("BatchSize %d: give a positive number", o.batchSize)
	}
	if o.validationSplit != 0 && !(o.validationSplit > 0 && o.validationSplit < 1) {
		return o, fmt.Errorf("ValidationSplit must be between 0 and 1, got %v", o.validationSplit)
	}
	switch o.subset {
	case "", "training", "validation", "both":
	default:
		return o, fmt.Errorf(`unknown Subset %q: use "training" or "validation"`, o.subset)
	}
	if o.subset != "" && o.validationSplit == 0 {
		return o, fmt.Errorf("if Subset is set, ValidationSplit must be set, and inversely")
	}
	if o.log == nil {
		o.log = os.Stdout
	}
	return o, nil
}

// say prints Keras's messages unless Silent.
func (o directoryIndex) say(format string, args ...any) {
	if o.verbose != keras.Silent {
		fmt.Fprintf(o.log, format, args...)
	}
}

// index lists the image files and their labels as Keras's
// index_directory does: the class folders sorted (or ClassNames), each
// walked in sorted order, then shuffled with NumPy's RandomState(Seed).
func (o directoryIndex) index(dir string) (paths []string, labels []int, classes []string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, nil, nil, fmt.Errorf("reading the directory: %w", err)
	}
	subdirs := []string{""}
	inferred := o.labels == nil && !o.noLabels
	if inferred {
		subdirs = nil
		for _, e := range entries {
			if isDir(dir, e, true) && !strings.HasPrefix(e.Name(), ".") {
				subdirs = append(subdirs, e.Name())
			}
		}
		if o.classNames != nil {
			for _, c := range o.classNames {
				if !slices.Contains(subdirs, c) {
					return nil, nil, nil, fmt.Errorf("ClassNames %v do not match the sub-folders of %s: expected %v (or a subset of it)", o.classNames, dir, subdirs)
				}
			}
			subdirs = o.classNames
		}
	}
	for class, sub := range subdirs {
		files, err := o.walk(filepath.Join(dir, sub))
		if err != nil {
			return nil, nil, nil, err
		}
		paths = append(paths, files...)
		for range files {
			labels = append(labels, class)
		}
	}
	switch {
	case inferred:
		classes = subdirs
		if o.labelMode == "binary" && len(classes) != 2 {
			return nil, nil, nil, fmt.Errorf(`with LabelMode "binary" there must be exactly 2 classes (sub-folders), found %d: %v`, len(classes), classes)
		}
		o.say("Found %d files belonging to %d classes.\n", len(paths), len(classes))
	case o.noLabels:
		labels = nil
		o.say("Found %d files.\n", len(paths))
	default:
		if len(o.labels) != len(paths) {
			return nil, nil, nil, fmt.Errorf("%d Labels for the %d %s files found in %s: give one per file, in the order of their sorted paths", len(o.labels), len(paths), o.kind, dir)
		}
		labels = slices.Clone(o.labels)
		distinct := slices.Compact(slices.Sorted(slices.Values(labels)))
		if distinct[0] < 0 {
			return nil, nil, nil, fmt.Errorf("label %d is negative: labels are class indices from 0", distinct[0])
		}
		for _, l := range distinct {
			classes = append(classes, fmt.Sprint(l))
		}
		if o.labelMode == "binary" && len(classes) != 2 {
			return nil, nil, nil, fmt.Errorf(`with LabelMode "binary" there must be exactly 2 classes, the Labels have %d: %v`, len(classes), classes)
		}
		o.say("Found %d files belonging to %d classes.\n", len(paths), len(classes))
	}
	if !o.noShuffle {
		nprandom.New(o.seed).Shuffle(len(paths), func(i, j int) { paths[i], paths[j] = paths[j], paths[i] })
		if labels != nil {
			nprandom.New(o.seed).Shuffle(len(labels), func(i, j int) { labels[i], labels[j] = labels[j], labels[i] })
		}
	}
	return paths, labels, classes, nil
}

// walk lists the files under root, Python's os.walk sorted by
// folder, each folder's files sorted. A followed link that leads back to
// a folder it is inside (a loop, which os.walk would follow until the
// path is too long) is an error that names it.
func (o directoryIndex) walk(root string) ([]string, error) {
	var folders []string
	files := map[string][]string{}
	var ancestors []os.FileInfo // the folders visit is inside, root first
	var visit func(d string) error
	visit = func(d string) error {
		info, err := os.Stat(d)
		if err != nil {
			return fmt.Errorf("reading %s: %w", d, err)
		}
		for _, a := range ancestors {
			if os.SameFile(a, info) {
				return fmt.Errorf("%s is a symbolic link back to a folder it is inside (a loop): remove the link, or leave FollowLinks false", d)
			}
		}
		ancestors = append(ancestors, info)
		defer func() { ancestors = ancestors[:len(ancestors)-1] }()
		entries, err := os.ReadDir(d)
		if err != nil {
			return fmt.Errorf("reading %s: %w", d, err)
		}
		folders = append(folders, d)
		for _, e := range entries {
			switch {
			case isDir(d, e, o.followLinks):
				if err := visit(filepath.Join(d, e.Name())); err != nil {
					return err
				}
			case o.isFile(e.Name()) && !isDir(d, e, true):
				files[d] = append(files[d], e.Name())
			}
		}
		return nil
	}
	if err := visit(root); err != nil {
		return nil, err
	}
	slices.Sort(folders)
	var out []string
	for _, d := range folders {
		names := files[d]
		slices.Sort(names)
		for _, n := range names {
			out = append(out, filepath.Join(d, n))
		}
	}
	return out, nil
}

// isDir reports whether entry e of folder d is a folder; a symbolic link
// to one counts when followLinks.
func isDir(d string, e os.DirEntry, followLinks bool) bool {
	if e.IsDir() {
		return true
	}
	if e.Type()&os.ModeSymlink == 0 || !followLinks {
		return false
	}
	info, err := os.Stat(filepath.Join(d, e.Name()))
	return err == nil && info.IsDir()
}

// split is Keras's get_training_or_validation_split: the validation
// subset is the last int(split * n) files, training the rest.
func (o directoryIndex) split(paths []string, labels []int, subset string) ([]string, []int) {
	if o.validationSplit == 0 {
		return paths, labels
	}
	val := int(o.validationSplit * float64(len(paths)))
	train := len(paths) - val
	if subset == "training" {
		paths = paths[:train]
		if labels != nil {
			labels = labels[:train]
		}
		return paths, labels
	}
	paths = paths[train:]
	if labels != nil {
		labels = labels[train:]
	}
	return paths, labels
}

// filesOf are the files of one subset, with their labels.
type filesOf struct {
	paths  []string
	labels []int
}

// oneSubset lists the files of the one dataset a *DatasetFromDirectory
// loader returns (Subset "training" or "validation" with a
// ValidationSplit, else every file), and the classes. loader names the
// function for errors; found is what it reads ("images"), formats the
// files it takes.
func (o directoryIndex) oneSubset(dir, loader, found, formats string) (filesOf, []string, error) {
	if o.validationSplit != 0 && (o.subset == "both" || o.subset == "") {
		return filesOf{}, nil, fmt.Errorf(`%s: with a ValidationSplit, set Subset to "training" or "validation" (or call %s for both)`, loader, strings.Replace(loader, "DatasetFrom", "DatasetsFrom", 1))
	}
	paths, labels, classes, err := o.index(dir)
	if err != nil {
		return filesOf{}, nil, fmt.Errorf("%s: %w", loader, err)
	}
	paths, labels = o.split(paths, labels, o.subset)
	if len(paths) == 0 {
		return filesOf{}, nil, fmt.Errorf("%s: no %s found in directory %s (allowed formats: %s)", loader, found, dir, formats)
	}
	o.say("Using %d files for %s.\n", len(paths), o.subset)
	return filesOf{paths, labels}, classes, nil
}

// bothSubsets is oneSubset for Keras's subset="both": the training and the
// validation files of one ValidationSplit.
func (o directoryIndex) bothSubsets(dir, loader, found, formats string) (train, validation filesOf, classes []string, err error) {
	if o.validationSplit == 0 || (o.subset != "" && o.subset != "both") {
		return train, validation, nil, fmt.Errorf(`%s: give a ValidationSplit (and no Subset, or "both")`, loader)
	}
	paths, labels, classes, err := o.index(dir)
	if err != nil {
		return train, validation, nil, fmt.Errorf("%s: %w", loader, err)
	}
	train.paths, train.labels = o.split(paths, labels, "training")
	validation.paths, validation.labels = o.split(paths, labels, "validation")
	switch {
	case len(train.paths) == 0:
		return train, validation, nil, fmt.Errorf("%s: no training %s found in directory %s (allowed formats: %s)", loader, found, dir, formats)
	case len(validation.paths) == 0:
		return train, validation, nil, fmt.Errorf("%s: no validation %s found in directory %s (allowed formats: %s)", loader, found, dir, formats)
	}
	o.say("Using %d files for training.\nUsing %d files for validation.\n", len(train.paths), len(validation.paths))
	return train, validation, classes, nil
}
