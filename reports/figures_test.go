package reports

import (
	"fmt"
	"image/png"
	"os"
	"testing"
	"time"

	"github.com/zksim/zksim/search"
)

// Nothing a figure draws touches its frame: its title, its last tick's
// label and its legend (which gonum/plot puts flush against the corner of
// the plot) keep a blank border, in the traffic figure (legend top right)
// and the herd figure (top left) alike.
func TestFiguresKeepClearOfTheFrame(t *testing.T) {
	buckets := map[string][]float64{}
	for s := 1; s <= 3; s++ {
		buckets[fmt.Sprintf("s%d notifications sent", s)] = []float64{0, 22, 0, 0, 0, 0, 0}
		buckets[fmt.Sprintf("s%d requests received", s)] = []float64{1, 0, 22, 1, 0, 1, 0}
	}
	traffic, err := TrafficFigure("traffic", "Traffic around one release", buckets, 500*time.Microsecond)
	if err != nil {
		t.Fatal(err)
	}
	var series []search.HerdSeries
	for _, v := range []string{"", "lock-herd"} {
		s := search.HerdSeries{Kind: "lock", Variant: v, World: "sim"}
		for _, n := range []int{2, 5, 10, 50} {
			per := 1.0
			if v != "" {
				per = float64(n) / 2
			}
			s.Points = append(s.Points, search.HerdPoint{Clients: n, NotificationsPerRelease: per, RequestsPerRelease: 2 * per})
		}
		series = append(series, s)
	}
	herd, err := HerdFigure(series, "notifications")
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	for _, f := range []*Figure{traffic, herd} {
		paths, err := f.Save(dir)
		if err != nil {
			t.Fatal(err)
		}
		file, err := os.Open(paths[0])
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(file)
		file.Close()
		if err != nil {
			t.Fatal(err)
		}
		const border = 6 // pixels
		b := img.Bounds()
		inked := 0
		for y := b.Min.Y; y < b.Max.Y; y++ {
			for x := b.Min.X; x < b.Max.X; x++ {
				if x >= b.Min.X+border && x < b.Max.X-border && y >= b.Min.Y+border && y < b.Max.Y-border {
					continue
				}
				if r, g, bl, _ := img.At(x, y).RGBA(); r < 0xf000 || g < 0xf000 || bl < 0xf000 {
					inked++
				}
			}
		}
		if inked > 0 {
			t.Errorf("%s: %d pixels drawn within %d pixels of its frame", f.Name, inked, border)
		}
	}
}
