package plotting

import (
	"errors"
	"fmt"
	"image/color"
	"io"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgimg"

	"github.com/kerasgo/kerasgo/keras"
	"github.com/kerasgo/kerasgo/keras/saving"
)

// History writes a PNG of the training curves in h to path: one panel
// per quantity (loss, then each metric), each with the training value
// and, when there is one, the validation value per epoch, as Keras's
// guides plot history.history with matplotlib. The file is written
// atomically.
func History(h *keras.History, path string) error {
	if h == nil || len(h.Epochs) == 0 {
		return errors.New("plotting.History: the history has no epochs to plot")
	}
	var names []string
	for _, n := range h.Names() {
		if !strings.HasPrefix(n, "val_") {
			names = append(names, n)
		}
	}
	const w, rowH = 6 * vg.Inch, 3 * vg.Inch
	img := vgimg.NewWith(vgimg.UseWH(w, rowH*vg.Length(len(names))), vgimg.UseDPI(96))
	dc := draw.New(img)
	tiles := draw.Tiles{Rows: len(names), Cols: 1, PadX: vg.Millimeter, PadY: 2 * vg.Millimeter, PadTop: vg.Millimeter, PadBottom: vg.Millimeter, PadLeft: vg.Millimeter, PadRight: vg.Millimeter}
	for row, name := range names {
		p := plot.New()
		p.Title.Text = name
		p.X.Label.Text = "epoch"
		p.Add(plotter.NewGrid())
		for i, series := range []string{name, "val_" + name} {
			vals, ok := h.Logs[series]
			if !ok {
				continue
			}
			pts := make(plotter.XYs, len(vals))
			for j, v := range vals {
				pts[j].X, pts[j].Y = float64(h.Epochs[j]+1), v
			}
			line, points, err := plotter.NewLinePoints(pts)
			if err != nil {
				return fmt.Errorf("plotting.History: %s: %w", series, err)
			}
			line.Color, points.Color = plotColors[i], plotColors[i]
			line.Width = vg.Points(1.5)
			label := "training"
			if i == 1 {
				label = "validation"
			}
			p.Add(line, points)
			p.Legend.Add(label, line, points)
		}
		p.Legend.Top = true
		p.Draw(tiles.At(dc, 0, row))
	}
	return saving.WriteAtomic(path, func(out io.Writer) error {
		_, err := vgimg.PngCanvas{Canvas: img}.WriteTo(out)
		return err
	})
}

// plotColors are matplotlib's first two colours, as in Keras's guides.
var plotColors = []color.Color{color.RGBA{R: 0x1f, G: 0x77, B: 0xb4, A: 0xff}, color.RGBA{R: 0xff, G: 0x7f, B: 0x0e, A: 0xff}}
