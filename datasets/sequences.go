package datasets

import (
	"context"
	"encoding/json"
	"fmt"
	"os"

	"github.com/kerasgo/kerasgo/internal/nprandom"
)

// SequenceOptions are the arguments Keras's word-sequence loaders (imdb,
// reuters) share; zero values mean Keras's defaults.
type SequenceOptions struct {
	// NumWords keeps the most frequent words: ids at or above it become
	// OOVChar (or are dropped with NoOOVChar); zero keeps every word.
	NumWords int
	// SkipTop treats the SkipTop most frequent words as out of
	// vocabulary too.
	SkipTop int
	// MaxLen drops the sequences of MaxLen ids or more (after StartChar
	// is added); zero keeps all.
	MaxLen int
	// Seed shuffles the samples; zero means Keras's 113.
	Seed uint32
	// StartChar starts every sequence (Keras's 1 when zero; NoStartChar
	// for none); OOVChar replaces the words left out (Keras's 2 when
	// zero; NoOOVChar drops them); IndexFrom is added to every word id
	// (Keras's 3 when zero; NoIndexFrom for 0).
	StartChar, OOVChar, IndexFrom       int
	NoStartChar, NoOOVChar, NoIndexFrom bool
}

// Sequences are word-id sequences and their labels.
type Sequences struct {
	Sequences [][]int
	Labels    []int
}

func (s SequenceOptions) seed() uint32 {
	if s.Seed == 0 {
		return 113
	}
	return s.Seed
}

// Shuffler is NumPy's RandomState(seed) of the options, which the
// loaders shuffle their parts with, one after the other.
func (s SequenceOptions) shuffler() *nprandom.RandomState { return nprandom.New(s.seed()) }

// shuffled reorders seqs and labels by r's permutation.
func shuffled(r *nprandom.RandomState, seqs [][]int, labels []int) Sequences {
	idx := r.Permutation(len(seqs))
	out := Sequences{Sequences: make([][]int, len(idx)), Labels: make([]int, len(idx))}
	for i, k := range idx {
		out.Sequences[i], out.Labels[i] = seqs[k], labels[k]
	}
	return out
}

// encode applies start_char and index_from, as Keras's loaders.
func (s SequenceOptions) encode(p Sequences) Sequences {
	start, from := s.StartChar, s.IndexFrom
	if start == 0 {
		start = 1
	}
	if from == 0 && !s.NoIndexFrom {
		from = 3
	}
	out := Sequences{Sequences: make([][]int, len(p.Sequences)), Labels: p.Labels}
	for i, seq := range p.Sequences {
		var row []int
		if !s.NoStartChar {
			row = append(row, start)
		}
		for _, w := range seq {
			row = append(row, w+from)
		}
		out.Sequences[i] = row
	}
	return out
}

// removeLong is Keras's remove_long_seq: it keeps the sequences shorter
// than maxlen.
func removeLong(maxlen int, p Sequences) Sequences {
	var out Sequences
	for i, seq := range p.Sequences {
		if len(seq) < maxlen {
			out.Sequences = append(out.Sequences, seq)
			out.Labels = append(out.Labels, p.Labels[i])
		}
	}
	return out
}

// PrepareSequences is what Keras's imdb and reuters loaders do after
// reading the parts: each part shuffled in turn by one RandomState(seed)
// (one part for reuters, train then test for imdb), start_char and
// index_from added, sequences of maxlen or more dropped, and words out of
// [skip_top, num_words) replaced by oov_char or dropped, num_words
// defaulting to the largest id over every part.
func (s SequenceOptions) PrepareSequences(parts []Sequences) ([]Sequences, error) {
	r := s.shuffler()
	out := make([]Sequences, len(parts))
	for i, p := range parts {
		if len(p.Sequences) != len(p.Labels) {
			return nil, fmt.Errorf("%d sequences and %d labels", len(p.Sequences), len(p.Labels))
		}
		out[i] = s.encode(shuffled(r, p.Sequences, p.Labels))
		if s.MaxLen > 0 {
			if out[i] = removeLong(s.MaxLen, out[i]); len(out[i].Sequences) == 0 {
				return nil, fmt.Errorf("after filtering for sequences shorter than maxlen=%d, no sequence was kept: increase MaxLen", s.MaxLen)
			}
		}
	}
	num := s.NumWords
	if num == 0 {
		for _, p := range out {
			for _, seq := range p.Sequences {
				for _, w := range seq {
					num = max(num, w)
				}
			}
		}
	}
	oov := s.OOVChar
	if oov == 0 {
		oov = 2
	}
	for _, p := range out {
		for i, seq := range p.Sequences {
			row := make([]int, 0, len(seq))
			for _, w := range seq {
				switch {
				case w >= s.SkipTop && w < num:
					row = append(row, w)
				case !s.NoOOVChar:
					row = append(row, oov)
				}
			}
			p.Sequences[i] = row
		}
	}
	return out, nil
}

// WordIndex returns a dataset's word index (word -> id), from its JSON
// file found as Options says, as Keras's get_word_index.
func WordIndex(ctx context.Context, o Options, r Remote) (map[string]int, error) {
	path, err := o.File(ctx, r)
	if err != nil {
		return nil, err
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var idx map[string]int
	if err := json.Unmarshal(b, &idx); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return idx, nil
}
