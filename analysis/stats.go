package analysis

import (
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"math/rand/v2"
	"sort"

	"gonum.org/v1/gonum/floats"
	"gonum.org/v1/gonum/mat"
	"gonum.org/v1/gonum/optimize"
	"gonum.org/v1/gonum/stat/combin"
	"gonum.org/v1/gonum/stat/distuv"
)

// Every interval here is two-sided at 95 %.
var z95 = distuv.UnitNormal.Quantile(0.975)

// Interval is a two-sided 95 % interval; it marshals as [lo, hi], or as
// null when there is none (NoInterval).
type Interval struct{ Lo, Hi float64 }

// NoInterval is the interval of a figure that cannot have one, such as a
// per-repository figure when there is one repository: there is nothing
// to compare it with, and an interval would claim otherwise.
func NoInterval() Interval { return Interval{math.NaN(), math.NaN()} }

// Known reports whether the interval is one (not NoInterval).
func (iv Interval) Known() bool { return !math.IsNaN(iv.Lo) && !math.IsNaN(iv.Hi) }

func (iv Interval) MarshalJSON() ([]byte, error) {
	if !iv.Known() {
		return []byte("null"), nil
	}
	return json.Marshal([2]float64{round4(iv.Lo), round4(iv.Hi)})
}

func (iv *Interval) UnmarshalJSON(b []byte) error {
	if string(b) == "null" {
		*iv = NoInterval()
		return nil
	}
	var a [2]float64
	if err := json.Unmarshal(b, &a); err != nil {
		return err
	}
	iv.Lo, iv.Hi = a[0], a[1]
	return nil
}

// Excludes reports whether x lies outside the interval.
func (iv Interval) Excludes(x float64) bool { return x < iv.Lo || x > iv.Hi }

// Wilson is the Wilson score interval of k successes in n trials; n = 0
// gives [0, 1].
func Wilson(k, n int) Interval {
	if n == 0 {
		return Interval{0, 1}
	}
	p, nf, z2 := float64(k)/float64(n), float64(n), z95*z95
	centre := (p + z2/(2*nf)) / (1 + z2/nf)
	half := z95 / (1 + z2/nf) * math.Sqrt(p*(1-p)/nf+z2/(4*nf*nf))
	return Interval{math.Max(0, centre-half), math.Min(1, centre+half)}
}

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
func OddsRatio(a, b, c, d int) (or float64, ci Interval, corrected bool) {
	fa, fb, fc, fd := float64(a), float64(b), float64(c), float64(d)
	if a == 0 || b == 0 || c == 0 || d == 0 {
		fa, fb, fc, fd, corrected = fa+0.5, fb+0.5, fc+0.5, fd+0.5, true
	}
	or = fa * fd / (fb * fc)
	se := math.Sqrt(1/fa + 1/fb + 1/fc + 1/fd)
	return or, Interval{math.Exp(math.Log(or) - z95*se), math.Exp(math.Log(or) + z95*se)}, corrected
}

// PairedDifference is the difference p1 − p2 of two proportions measured
// on the same units, with Newcombe's square-and-add (hybrid score)
// interval (Newcombe 1998, method 10). both counts units with success
// under both conditions, only1 and only2 units with success under one,
// neither units with none.
func PairedDifference(both, only1, only2, neither int) (float64, Interval) {
	n := both + only1 + only2 + neither
	if n == 0 {
		return 0, Interval{-1, 1}
	}
	r1, r2 := both+only1, only2+neither // condition 1: success, failure
	c1, c2 := both+only2, only1+neither // condition 2: success, failure
	p1, p2 := float64(r1)/float64(n), float64(c1)/float64(n)
	w1, w2 := Wilson(r1, n), Wilson(c1, n)
	// phi estimates the correlation of the two proportions, with
	// Newcombe's continuity correction of a positive association.
	phi := 0.0
	if r1 > 0 && r2 > 0 && c1 > 0 && c2 > 0 {
		prod := math.Sqrt(float64(r1) * float64(r2) * float64(c1) * float64(c2))
		switch a := float64(both*neither - only1*only2); {
		case a > float64(n)/2:
			phi = (a - float64(n)/2) / prod
		case a < 0:
			phi = a / prod
		}
	}
	d := p1 - p2
	lo := d - math.Sqrt(sq(p1-w1.Lo)+sq(w2.Hi-p2)-2*phi*(p1-w1.Lo)*(w2.Hi-p2))
	hi := d + math.Sqrt(sq(p2-w2.Lo)+sq(w1.Hi-p1)-2*phi*(p2-w2.Lo)*(w1.Hi-p1))
	return d, Interval{lo, hi}
}

func sq(x float64) float64 { return x * x }

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

// MinClusterRepos is the fewest repositories RepoMean resamples as
// clusters. Resampling fewer draws from a handful of repository means
// (from one, always the same: a zero-width interval), so with fewer it
// resamples tasks instead.
const MinClusterRepos = 5

// Methods of an interval, as the scoreboards and plan.json name them.
const (
	MethodWilson        = "wilson"                 // a rate's Wilson score interval
	MethodRepoBootstrap = "bootstrap_repositories" // whole repositories resampled
	MethodTaskBootstrap = "bootstrap_tasks"        // tasks resampled, repositories pooled
)

// RepoMean is the mean of groups' means (each repository counts once, so
// one large repository cannot dominate) with a percentile interval from
// reps bootstrap resamples; the seed makes it repeatable. With
// MinClusterRepos or more repositories it resamples whole repositories
// (the cluster bootstrap: the interval speaks of repositories like
// these). With fewer it resamples tasks from all repositories pooled and
// takes each resample's mean of repository means (a repository no
// resampled task comes from drops out): the interval then speaks of
// tasks of these repositories only. The cluster bootstrap is zero-width
// only when every repository has the same mean; the task bootstrap, in
// practice, only when each repository's tasks all have the same value
// (one repository: when every task has). method says which was used.
func RepoMean(groups [][]float64, reps int, seed uint64) (est float64, ci Interval, method string) {
	var kept [][]float64
	var means []float64
	for _, g := range groups {
		if len(g) > 0 {
			kept = append(kept, g)
			means = append(means, mean(g))
		}
	}
	if len(means) == 0 {
		return 0, Interval{0, 0}, ""
	}
	est = mean(means)
	if len(means) >= MinClusterRepos {
		return est, bootstrap(reps, seed, func(rng *rand.Rand) float64 { return resampledMean(rng, means) }), MethodRepoBootstrap
	}
	return est, bootstrap(reps, seed, pooledTasks(kept)), MethodTaskBootstrap
}

// pooledTasks is the statistic of the task bootstrap: resample every
// task of groups, pooled, and average the resampled repositories' means.
func pooledTasks(groups [][]float64) func(*rand.Rand) float64 {
	type task struct {
		repo int
		v    float64
	}
	var tasks []task
	for i, g := range groups {
		for _, v := range g {
			tasks = append(tasks, task{i, v})
		}
	}
	sums, counts := make([]float64, len(groups)), make([]int, len(groups))
	return func(rng *rand.Rand) float64 {
		clear(sums)
		clear(counts)
		for range tasks {
			t := tasks[rng.IntN(len(tasks))]
			sums[t.repo] += t.v
			counts[t.repo]++
		}
		s, n := 0.0, 0
		for i, c := range counts {
			if c > 0 {
				s += sums[i] / float64(c)
				n++
			}
		}
		return s / float64(n)
	}
}

// resampledMean is the mean of len(xs) draws from xs with replacement.
func resampledMean(rng *rand.Rand, xs []float64) float64 {
	s := 0.0
	for range xs {
		s += xs[rng.IntN(len(xs))]
	}
	return s / float64(len(xs))
}

// bootstrap is the 95 % percentile interval of stat over reps resamples,
// each drawn by stat from one seeded generator: the one bootstrap every
// mean's interval comes from.
func bootstrap(reps int, seed uint64, stat func(*rand.Rand) float64) Interval {
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	boot := make([]float64, max(reps, 1))
	for r := range boot {
		boot[r] = stat(rng)
	}
	sort.Float64s(boot)
	return Interval{quantile(boot, 0.025), quantile(boot, 0.975)}
}

func mean(xs []float64) float64 {
	s := 0.0
	for _, x := range xs {
		s += x
	}
	return s / float64(len(xs))
}

// quantile of sorted xs, interpolating between order statistics.
func quantile(xs []float64, q float64) float64 {
	pos := q * float64(len(xs)-1)
	i := int(pos)
	if i+1 >= len(xs) {
		return xs[len(xs)-1]
	}
	return xs[i] + (pos-float64(i))*(xs[i+1]-xs[i])
}

// LogitFit is a logistic regression's coefficients (intercept first) with
// Wald intervals from the inverse of the observed information.
type LogitFit struct {
	Coef []float64
	SE   []float64
	CI   []Interval
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
		fit.CI = append(fit.CI, Interval{res.X[j] - z95*se, res.X[j] + z95*se})
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
	n1 := sq(za*math.Sqrt(pbar*(1-pbar)*(1+1/ratio))+zb*math.Sqrt(p1*(1-p1)+p2*(1-p2)/ratio)) / sq(p1-p2)
	return math.Ceil(n1) + math.Ceil(ratio*n1)
}

// round4 keeps four decimals: what the reports show, and what plan.json
// records, so the two never disagree.
func round4(x float64) float64 {
	if math.IsInf(x, 0) || math.IsNaN(x) {
		return x
	}
	return math.Round(x*1e4) / 1e4
}
