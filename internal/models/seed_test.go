package models

import "testing"

// The 2016 networks have the parameters their definitions give: FCN-5
// 26752*2048+2048 + 2*(2048*2048+2048) + 2048*26752+26752, and so on.
func TestSeedParameterCounts(t *testing.T) {
	for name, want := range map[string]int{
		"fcn5":     26752*2048 + 2048 + 2*(2048*2048+2048) + 2048*26752 + 26752,
		"fcn8":     26752*2048 + 2048 + 5*(2048*2048+2048) + 2048*26752 + 26752,
		"alexnet":  (11*11*3*96 + 96) + (5*5*96*256 + 256) + (3*3*256*384 + 384) + (3*3*384*384 + 384) + (3*3*384*256 + 256) + (7*7*256*4096 + 4096) + (4096*4096 + 4096) + (4096*1000 + 1000),
		"resnet50": 25_636_712,
		"lstm32":   10000*256 + 2*(4*(256*256+256*256+256)) + 256*10000 + 10000,
		"lstm64":   10000*256 + 2*(4*(256*256+256*256+256)) + 256*10000 + 10000,
	} {
		m, err := Seed(name)
		if err != nil {
			t.Fatal(err)
		}
		if got := m.CountParams(); got != want {
			t.Errorf("%s has %d parameters, want %d", name, got, want)
		}
	}
	if _, err := Seed("vgg"); err == nil {
		t.Error("an unknown network is not an error")
	}
}
