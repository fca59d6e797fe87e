package analysis

import (
	"errors"
	"fmt"
	"math"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat/combin"
	"gonum.org/v1/gonum/stat/distuv"

	"github.com/cra-dev/cra/internal/stats"
)

// FisherExact is the two-sided p-value of Fisher's exact test on the 2×2
// table [[a, b], [c, d]]: the probability, with the margins fixed, of every
// table no more likely than the one observed.
func FisherExact(a, b, c, d int) float64 {
	r1, r2, c1 := a+b, c+d, a+c
	n := r1 + r2
	logP := func(x int) float64 {
		return combin.LogGeneralizedBinomial(float64(r1), float64(x)) +
			combin.LogGeneralizedBinomial(float64(r2), float64(c1-x)) -
			combin.LogGeneralizedBinomial(float64(n), float64(c1))
	}
	observed := logP(a)
	p := 0.0
	for x := max(0, c1-r2); x <= min(r1, c1); x++ {
		// A relative tolerance keeps tables as likely as the observed one
		// despite rounding (as R's fisher.test does).
		if lp := logP(x); lp <= observed+1e-7 {
			p += math.Exp(lp)
		}
	}
	return math.Min(1, p)
}

// OddsRatio is the sample odds ratio ad/bc of [[a, b], [c, d]] with Woolf's
// log interval; when a cell is zero, 0.5 is added to every cell
// (Haldane–Anscombe) and corrected is true.
func OddsRatio(a, b, c, d int) (or float64, ci stats.Interval, corrected bool) {
	fa, fb, fc, fd := float64(a), float64(b), float64(c), float64(d)
	if a == 0 || b == 0 || c == 0 || d == 0 {
		fa, fb, fc, fd, corrected = fa+0.5, fb+0.5, fc+0.5, fd+0.5, true
	}
	or = fa * fd / (fb * fc)
	se := math.Sqrt(1/fa + 1/fb + 1/fc + 1/fd)
	return or, stats.Interval{Lo: math.Exp(math.Log(or) - stats.Z95*se), Hi: math.Exp(math.Log(or) + stats.Z95*se)}, corrected
}

// Holm adjusts p-values for testing them together (Holm–Bonferroni): the
// family-wise error rate stays at the nominal level.
func Holm(p []float64) []float64 {
	idx := make([]int, len(p))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p[idx[a]] < p[idx[b]] })
	out := make([]float64, len(p))
	running := 0.0
	for rank, i := range idx {
		running = math.Max(running, math.Min(1, float64(len(p)-rank)*p[i]))
		out[i] = running
	}
	return out
}

// LogitFit is a logistic regression's coefficients (intercept first) with
// Wald intervals from the inverse of the observed information.
type LogitFit struct {
	Coef []float64
	SE   []float64
	CI   []stats.Interval
}

// ErrSeparation says a logistic regression has no finite maximum: some
// predictor separates the outcomes (perfectly or nearly), so its
// coefficient and interval would be meaningless.
var ErrSeparation = errors.New("a predictor separates the outcomes: the coefficients have no finite estimate")

// Logistic fits P(y = 1) = 1 / (1 + exp(−(b0 + Σ b_j x_j))) by maximum
// likelihood (Newton's method, gonum/optimize). x holds one row of
// predictors per observation, without the intercept.
func Logistic(x [][]float64, y []float64) (*LogitFit, error) {
	n := len(x)
	if n == 0 || n != len(y) {
		return nil, fmt.Errorf("logistic regression: %d rows of predictors and %d outcomes", n, len(y))
	}
	k := len(x[0]) + 1
	row := func(i int) []float64 { return append([]float64{1}, x[i]...) }
	eta := func(b []float64, i int) float64 {
		s := 0.0
		for j, v := range row(i) {
			s += b[j] * v
		}
		return s
	}
	p := optimize.Problem{
		Func: func(b []float64) float64 {
			nll := 0.0
			for i := range n {
				e := eta(b, i)
				// log(1 + exp(e)) − y·e, computed without overflow.
				nll += math.Max(e, 0) + math.Log1p(math.Exp(-math.Abs(e))) - y[i]*e
			}
			return nll
		},
		Grad: func(g, b []float64) {
			clear(g)
			for i := range n {
				r := sigmoid(eta(b, i)) - y[i]
				for j, v := range row(i) {
					g[j] += r * v
				}
			}
		},
		Hess: func(h *mat.SymDense, b []float64) {
			fisherInformation(h, b, n, k, row, eta)
		},
	}
	res, err := optimize.Minimize(p, make([]float64, k), &optimize.Settings{GradientThreshold: 1e-7}, &optimize.Newton{})
	if err != nil && res != nil {
		// A line search that stalls next to the optimum is no failure.
		g := make([]float64, k)
		p.Grad(g, res.X)
		if floats.Norm(g, math.Inf(1)) < 1e-5*float64(n) {
			err = nil
		}
	}
	if err != nil {
		return nil, fmt.Errorf("logistic regression: %w", err)
	}
	info := mat.NewSymDense(k, nil)
	fisherInformation(info, res.X, n, k, row, eta)
	var chol mat.Cholesky
	if !chol.Factorize(info) {
		return nil, ErrSeparation
	}
	var cov mat.SymDense
	if err := chol.InverseTo(&cov); err != nil {
		return nil, ErrSeparation
	}
	fit := &LogitFit{Coef: res.X}
	for j := range k {
		se := math.Sqrt(cov.At(j, j))
		// Coefficients past ±10 (odds ratios past e^10) or standard
		// errors that large only arise when the likelihood has no maximum.
		if math.IsNaN(se) || se > 10 || math.Abs(res.X[j]) > 10 {
			return nil, ErrSeparation
		}
		fit.SE = append(fit.SE, se)
		fit.CI = append(fit.CI, stats.Interval{Lo: res.X[j] - stats.Z95*se, Hi: res.X[j] + stats.Z95*se})
	}
	return fit, nil
}

// fisherInformation is Xᵀ W X at b, W = diag(μ(1 − μ)).
func fisherInformation(h *mat.SymDense, b []float64, n, k int, row func(int) []float64, eta func([]float64, int) float64) {
	for a := range k {
		for c := a; c < k; c++ {
			h.SetSym(a, c, 0)
		}
	}
	for i := range n {
		m := sigmoid(eta(b, i))
		w := m * (1 - m)
		r := row(i)
		for a := range k {
			for c := a; c < k; c++ {
				h.SetSym(a, c, h.At(a, c)+w*r[a]*r[c])
			}
		}
	}
}

func sigmoid(e float64) float64 { return 1 / (1 + math.Exp(-e)) }

// SampleSize is the number of units two groups need in all for a
// two-sided test at level alpha to detect proportions p1 and p2 with the
// given power, the second group being ratio times the first (the normal
// approximation with a pooled variance under the null, without continuity
// correction). It is +Inf when p1 = p2.
func SampleSize(p1, p2, ratio, alpha, power float64) float64 {
	if p1 == p2 || ratio <= 0 {
		return math.Inf(1)
	}
	za := distuv.UnitNormal.Quantile(1 - alpha/2)
	zb := distuv.UnitNormal.Quantile(power)
	pbar := (p1 + ratio*p2) / (1 + ratio)
	num, d := za*math.Sqrt(pbar*(1-pbar)*(1+1/ratio))+zb*math.Sqrt(p1*(1-p1)+p2*(1-p2)/ratio), p1-p2
	n1 := num * num / (d * d)
	return math.Ceil(n1) + math.Ceil(ratio*n1)
}
