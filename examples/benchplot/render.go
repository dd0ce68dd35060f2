package main

import (
	"bytes"
	"fmt"
	"image/color"
	"math"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"gonum.org/v1/plot"
	"gonum.org/v1/plot/font"
	"gonum.org/v1/plot/plotter"
	"gonum.org/v1/plot/vg"
	"gonum.org/v1/plot/vg/draw"
	"gonum.org/v1/plot/vg/vgsvg"
)

// The figures, written beside the data files.
const (
	latencySVG = "latency.svg"
	qualitySVG = "quality.svg"
	chatSVG    = "chat.svg"
)

// series describes one line of the latency figure.
type series struct {
	// Key names the series in latency.csv.
	Key string
	// Label is the legend text.
	Label string
	// Plot is false for series kept in the data but not drawn.
	Plot bool
	// Color and Dashed give its line style; Anchor lines are thinner.
	Color  color.RGBA
	Dashed bool
	Anchor bool
}

// seriesInfo lists the latency series in the order of the data file and
// the legend.
var seriesInfo = []series{
	{Key: "memory", Label: "hybridrag, memory store", Plot: true, Color: rgb(0x1f, 0x77, 0xb4)},
	{Key: "postgres", Label: "hybridrag, PostgreSQL HNSW", Plot: true, Color: rgb(0xd6, 0x27, 0x28)},
	{Key: "postgres-exact", Label: "hybridrag, PostgreSQL exact vector scan", Color: rgb(0x99, 0x99, 0x99)},
	{Key: "memory-scale", Label: "hybridrag, memory store, 1M run", Plot: true, Color: rgb(0x1f, 0x77, 0xb4), Dashed: true},
	{Key: "postgres-scale", Label: "hybridrag, PostgreSQL HNSW, 1M run", Plot: true, Color: rgb(0xd6, 0x27, 0x28), Dashed: true},
	{Key: "pg-fts", Label: "anchor: PostgreSQL full-text", Plot: true, Color: rgb(0x2c, 0xa0, 0x2c), Anchor: true},
	{Key: "seed-sql", Label: "anchor: seeds' SQL", Plot: true, Color: rgb(0x8c, 0x56, 0x4b), Anchor: true},
	{Key: "memory-vector", Label: "hybridrag memory store, vector only", Plot: true, Color: rgb(0x17, 0xbe, 0xcf), Dashed: true},
	{Key: "chromem-go", Label: "anchor: chromem-go, vector only", Plot: true, Color: rgb(0x94, 0x67, 0xbd), Anchor: true},
}

// seriesOf returns the series named key, or nil.
func seriesOf(key string) *series {
	for i := range seriesInfo {
		if seriesInfo[i].Key == key {
			return &seriesInfo[i]
		}
	}
	return nil
}

// seriesRank is the position of key in seriesInfo.
func seriesRank(key string) int {
	for i := range seriesInfo {
		if seriesInfo[i].Key == key {
			return i
		}
	}
	return len(seriesInfo)
}

// The data sets and systems of the quality figure, and the chat sets, in
// the order of the data files and figures.
var (
	setOrder    = []string{"agrofit", "irpf", "faquad"}
	setLabels   = map[string]string{"agrofit": "AGROFIT catalog", "irpf": "IRPF FAQs", "faquad": "FaQuAD documents"}
	systemOrder = []string{"hybrid", "lexical", "vector", "hybrid-weighted", "hybrid-rrf", "hybrid-relative",
		"anchor-pg-fts-or", "anchor-pg-fts", "anchor-seed-sql"}
	// qualityBars are the systems drawn, with their legend text.
	qualityBars = []struct{ system, label string }{
		{"hybrid", "hybridrag (hybrid, default)"},
		{"anchor-pg-fts-or", "anchor: PostgreSQL full-text, words ORed"},
		{"anchor-pg-fts", "anchor: PostgreSQL full-text (plainto_tsquery)"},
		{"anchor-seed-sql", "anchor: seeds' SQL"},
	}
	chatSetOrder  = []string{"chat_eval", "chat_eval_fresh", "chat_eval_blind", "chat_eval_blind2", "chat_eval_dev4", "chat_eval_blind10"}
	chatSetLabels = map[string]string{"chat_eval": "112 cases (tune + held-out)", "chat_eval_fresh": "40 fresh cases, labelled blind",
		"chat_eval_blind":   "60 cases written blind by a reviewer",
		"chat_eval_blind2":  "64 cases written blind",
		"chat_eval_dev4":    "120 colloquial cases (development)",
		"chat_eval_blind10": "90 cases written blind, run at a pass's start and end (then seen)"}
)

// barColors are the fills of the bar series, in order.
var barColors = []color.RGBA{rgb(0x1f, 0x77, 0xb4), rgb(0x2c, 0xa0, 0x2c), rgb(0x98, 0xdf, 0x8a), rgb(0x8c, 0x56, 0x4b), rgb(0xff, 0x7f, 0x0e)}

func rgb(r, g, b uint8) color.RGBA { return color.RGBA{R: r, G: g, B: b, A: 255} }

// figure is a plot with its legend, drawn to the right of the plot.
type figure struct {
	plot   *plot.Plot
	legend plot.Legend
	// width and height of the whole figure, legendWidth of the legend's
	// column.
	width, height, legendWidth vg.Length
}

// render writes the three figures of r into dir.
func render(r *results, dir string) error {
	figs := []struct {
		name string
		make func(*results) (*figure, error)
	}{{latencySVG, latencyFigure}, {qualitySVG, qualityFigure}, {chatSVG, chatFigure}}
	for _, f := range figs {
		fig, err := f.make(r)
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		svg, err := fig.svg()
		if err != nil {
			return fmt.Errorf("%s: %w", f.name, err)
		}
		if err := os.WriteFile(filepath.Join(dir, f.name), svg, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// svg draws the figure: a white background, the plot on the left, the
// legend on the right. Fonts are not embedded; the SVG names Liberation
// Sans, with the usual sans-serif fonts after it.
func (f *figure) svg() ([]byte, error) {
	c := vgsvg.New(f.width, f.height)
	dc := draw.New(c)
	dc.SetColor(color.White)
	dc.Fill(dc.Rectangle.Path())
	f.plot.Draw(draw.Crop(dc, 0, -f.legendWidth, 0, 0))
	// The legend's column, its top level with the top of the plot area.
	f.legend.Draw(draw.Crop(dc, f.width-f.legendWidth+vg.Points(6), 0, 0, -vg.Points(40)))
	var buf bytes.Buffer
	if _, err := c.WriteTo(&buf); err != nil {
		return nil, err
	}
	return bytes.ReplaceAll(buf.Bytes(), []byte("font-family:Liberation Sans;"),
		[]byte("font-family:Liberation Sans,Arial,Helvetica,sans-serif;")), nil
}

// newFigure returns a figure with a plot titled title and an empty legend
// on the left of its column.
func newFigure(title string, width, height, legendWidth vg.Length) *figure {
	p := plot.New()
	p.Title.Text = title
	p.Title.TextStyle.Font.Size = vg.Points(13)
	lg := plot.NewLegend()
	lg.Left = true
	lg.Top = true
	lg.TextStyle.Font.Size = vg.Points(10)
	return &figure{plot: p, legend: lg, width: width, height: height, legendWidth: legendWidth}
}

// latencyFigure plots search latency (p50, or the mean where that is all
// a run reported) against catalog size, log-log, one line per series.
func latencyFigure(r *results) (*figure, error) {
	f := newFigure("Search latency against catalog size (p50; 2 vCPU)", vg.Inch*8.6, vg.Inch*5, vg.Inch*2.9)
	p := f.plot
	p.X.Label.Text = "catalog items"
	p.Y.Label.Text = "milliseconds per query"
	p.X.Scale, p.Y.Scale = plot.LogScale{}, plot.LogScale{}
	p.Add(plotter.NewGrid())
	var sizes []int
	minY, maxY := math.Inf(1), math.Inf(-1)
	for _, s := range seriesInfo {
		if !s.Plot {
			continue
		}
		var xys plotter.XYs
		for _, row := range r.Latency {
			if row.Series != s.Key {
				continue
			}
			y := row.P50
			if math.IsNaN(y) {
				y = row.Mean
			}
			xys = append(xys, plotter.XY{X: float64(row.Items), Y: y})
			if !slices.Contains(sizes, row.Items) {
				sizes = append(sizes, row.Items)
			}
			minY, maxY = math.Min(minY, y), math.Max(maxY, y)
		}
		if len(xys) == 0 {
			continue
		}
		slices.SortFunc(xys, func(a, b plotter.XY) int { return int(a.X - b.X) })
		line, points, err := plotter.NewLinePoints(xys)
		if err != nil {
			return nil, fmt.Errorf("series %s: %w", s.Key, err)
		}
		line.Color, points.Color = s.Color, s.Color
		line.Width = vg.Points(2)
		points.Shape = draw.CircleGlyph{}
		points.Radius = vg.Points(3)
		if s.Anchor {
			line.Width = vg.Points(1.2)
			points.Shape = draw.BoxGlyph{}
		}
		if s.Dashed {
			line.Dashes = []vg.Length{vg.Points(5), vg.Points(3)}
			points.Shape = draw.TriangleGlyph{}
		}
		p.Add(line, points)
		f.legend.Add(s.Label, line, points)
	}
	if len(sizes) == 0 {
		return nil, fmt.Errorf("no latency figure to plot")
	}
	slices.Sort(sizes)
	var xt []plot.Tick
	for _, n := range sizes {
		xt = append(xt, plot.Tick{Value: float64(n), Label: sizeLabel(n)})
	}
	p.X.Tick.Marker = plot.ConstantTicks(xt)
	p.X.Min, p.X.Max = float64(sizes[0])/1.5, float64(sizes[len(sizes)-1])*1.5
	var yt []plot.Tick
	lo, hi := math.Floor(math.Log10(minY)), math.Ceil(math.Log10(maxY))
	for e := lo; e <= hi; e++ {
		yt = append(yt, plot.Tick{Value: math.Pow(10, e), Label: msLabel(math.Pow(10, e))})
	}
	p.Y.Tick.Marker = plot.ConstantTicks(yt)
	p.Y.Min, p.Y.Max = math.Pow(10, lo), math.Pow(10, hi)
	return f, nil
}

// sizeLabel writes a catalog size the way the tables do: 1k, 4,220, 1M.
func sizeLabel(n int) string {
	switch {
	case n >= 1_000_000 && n%1_000_000 == 0:
		return strconv.Itoa(n/1_000_000) + "M"
	case n >= 1_000 && n%1_000 == 0:
		return strconv.Itoa(n/1_000) + "k"
	case n >= 1_000:
		return strconv.Itoa(n/1_000) + "," + fmt.Sprintf("%03d", n%1_000)
	}
	return strconv.Itoa(n)
}

// msLabel writes a power of ten of milliseconds.
func msLabel(ms float64) string {
	if ms >= 1000 {
		return strconv.FormatFloat(ms/1000, 'f', -1, 64) + " s"
	}
	return strconv.FormatFloat(ms, 'f', -1, 64) + " ms"
}

// barSeries is one colour of a grouped bar chart: a value per group, NaN
// where it was not measured.
type barSeries struct {
	label  string
	values []float64
}

// groupedBars plots bars for each group side by side, with each value
// written above its bar, on a 0–1 axis.
func groupedBars(f *figure, groups []string, ss []barSeries) error {
	p := f.plot
	width := vg.Points(22)
	if len(ss) > 4 {
		width = vg.Points(16)
	}
	for i, s := range ss {
		vals := make(plotter.Values, len(s.values))
		var lab plotter.XYLabels
		for j, v := range s.values {
			if !math.IsNaN(v) {
				vals[j] = v
				lab.XYs = append(lab.XYs, plotter.XY{X: float64(j), Y: v})
				lab.Labels = append(lab.Labels, ratioLabel(v))
			}
		}
		bars, err := plotter.NewBarChart(vals, width)
		if err != nil {
			return fmt.Errorf("%s: %w", s.label, err)
		}
		bars.Color = barColors[i%len(barColors)]
		bars.LineStyle.Width = 0
		bars.Offset = width * vg.Length(float64(i)-float64(len(ss)-1)/2)
		p.Add(bars)
		if len(lab.XYs) > 0 {
			labels, err := plotter.NewLabels(lab)
			if err != nil {
				return err
			}
			for k := range labels.TextStyle {
				labels.TextStyle[k].Font.Size = vg.Points(8)
				labels.TextStyle[k].XAlign = draw.XCenter
			}
			labels.Offset = vg.Point{X: bars.Offset, Y: vg.Points(2)}
			p.Add(labels)
		}
		f.legend.Add(s.label, bars)
	}
	p.NominalX(groups...)
	p.Y.Min, p.Y.Max = 0, 1.08
	p.Y.Tick.Marker = plot.ConstantTicks{{Value: 0, Label: "0"}, {Value: 0.25, Label: "0.25"}, {Value: 0.5, Label: "0.5"},
		{Value: 0.75, Label: "0.75"}, {Value: 1, Label: "1"}}
	p.X.Tick.Label.Font.Size = vg.Points(10)
	p.X.Padding = vg.Points(8)
	return nil
}

// qualityFigure plots nDCG@10 per data set for hybridrag and the anchors.
func qualityFigure(r *results) (*figure, error) {
	f := newFigure("Retrieval quality: nDCG@10 per data set", vg.Inch*9, vg.Inch*4.5, vg.Inch*3.4)
	f.plot.Y.Label.Text = "nDCG@10 (hash embedder, k = 10)"
	var groups []string
	var sets []string
	for _, set := range setOrder {
		for _, row := range r.Quality {
			if row.Set == set {
				groups = append(groups, fmt.Sprintf("%s\n%d queries", setLabels[set], row.Queries))
				sets = append(sets, set)
				break
			}
		}
	}
	if len(sets) == 0 {
		return nil, fmt.Errorf("no quality figure to plot")
	}
	var ss []barSeries
	for _, b := range qualityBars {
		s := barSeries{label: b.label}
		for _, set := range sets {
			v := math.NaN()
			for _, row := range r.Quality {
				if row.Set == set && row.System == b.system {
					v = row.NDCG
				}
			}
			s.values = append(s.values, v)
		}
		ss = append(ss, s)
	}
	return f, groupedBars(f, groups, ss)
}

// chatFigure plots the four chat metrics of each evaluation set (all its
// cases) and the context fact recall.
func chatFigure(r *results) (*figure, error) {
	f := newFigure("Chat answers: offline pipeline, per evaluation set", vg.Inch*9, vg.Inch*4.5, vg.Inch*3.4)
	f.plot.Y.Label.Text = "share (all cases of the set)"
	groups := []string{"source\nprecision", "source\nrecall", "abstention\naccuracy", "fact\nrecall", "context\nfact recall"}
	var ss []barSeries
	for _, set := range chatSetOrder {
		for _, row := range r.Chat {
			if row.Set == set && row.Split == "all" {
				label := chatSetLabels[set]
				if label == "" {
					label = set
				}
				ss = append(ss, barSeries{label: label, values: []float64{row.Precision, row.Recall, row.Abstention, row.FactRecall, row.ContextFactRecall}})
			}
		}
	}
	if len(ss) == 0 {
		return nil, fmt.Errorf("no chat figure to plot")
	}
	return f, groupedBars(f, groups, ss)
}

// fontsReady sets the plots' default font, Liberation Sans.
func fontsReady() {
	plot.DefaultFont = font.Font{Typeface: "Liberation", Variant: "Sans"}
	plotter.DefaultFont = plot.DefaultFont
}

// seriesNames returns the legend texts a figure of r shows, for the test.
func seriesNames(r *results) []string {
	var names []string
	for _, s := range seriesInfo {
		if s.Plot && slices.ContainsFunc(r.Latency, func(row latencyRow) bool { return row.Series == s.Key }) {
			names = append(names, s.Label)
		}
	}
	return names
}

// ratioLabel writes a ratio with three decimals, without the leading zero
// (".950"), as the tables do.
func ratioLabel(v float64) string {
	return strings.TrimPrefix(strconv.FormatFloat(v, 'f', 3, 64), "0")
}
