package stats

import (
	"math/rand/v2"
	"sort"
)

// The one bootstrap setting: BootstrapReps resamples give every mean's
// interval (RepoMean, in train-plan's evidence and cra eval's
// scoreboard); the seed keeps reports repeatable.
const (
	BootstrapReps = 2000
	BootstrapSeed = 1
)

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
