package analysis

import (
	"fmt"
	"math"
	"strings"

	"github.com/cra-dev/cra/internal/report"
)

// Markdown renders the report as Markdown (report.md).
func Markdown(r *Report) string { return report.Markdown(r.document()) }

// document is the report both writers render: the computed sections, then
// the narrative, if any, set apart.
func (r *Report) document() report.Document {
	d := report.Document{Title: r.title(), Byline: r.byline(), Sections: r.sections(), UnitsTogether: true}
	if n := r.Narrative; n != nil {
		d.Sections = append(d.Sections, narrativeSection(n))
	}
	return d
}

// narrativeSection holds the model's prose apart from the computed
// figures, saying so.
func narrativeSection(n *Narrative) report.Section {
	s := report.Section{Title: "Narrative (reasoning model)", Level: 2, Class: "narrative", Paras: []string{
		fmt.Sprintf("_Written by %s from the computed findings above; it changes no figure, and where it disagrees with a table the table holds._", n.Model)}}
	for _, p := range strings.Split(n.Text, "\n\n") {
		if p = strings.TrimSpace(p); p != "" {
			s.Paras = append(s.Paras, p)
		}
	}
	if len(n.Unsupported) > 0 {
		s.Paras = append(s.Paras, "_Numbers in the narrative that the computed findings do not hold: "+strings.Join(n.Unsupported, ", ")+"._")
	}
	return s
}

func exp(x float64) float64 { return math.Exp(x) }
