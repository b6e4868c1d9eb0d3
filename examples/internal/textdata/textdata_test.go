package textdata

import "testing"

// The labels follow the rule (positive words outnumber negative ones) and
// the classes are near balance.
func TestReviewsLabels(t *testing.T) {
	const steps = 40
	x, y := Reviews(200, steps, 500, 9)
	ones := 0
	for i := range 200 {
		pos, neg := 0, 0
		for _, v := range x.Data[i*steps : (i+1)*steps] {
			switch id := int(v); {
			case id >= 1 && id <= Positives:
				pos++
			case id > Positives && id <= Positives+Negatives:
				neg++
			}
		}
		if want := pos > neg; want != (y.Data[i] == 1) {
			t.Fatalf("review %d: %d positive, %d negative words, label %v", i, pos, neg, y.Data[i])
		}
		if pos > neg {
			ones++
		}
	}
	if ones < 60 || ones > 140 {
		t.Errorf("%d of 200 reviews are positive: the classes should be near balance", ones)
	}
}
