package c10d

import "github.com/kerasgo/kerasgo/keras/distribution"

func init() {
	distribution.RegisterTransport(distribution.Transport{
		Open: func(o distribution.GroupOptions) (distribution.Group, error) {
			g, err := Open(o)
			if err != nil {
				return nil, err
			}
			return g, nil
		},
		Available: Available,
	})
}
