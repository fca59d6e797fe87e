package progress

// Reporter is what a stage of a batch needs of progress: a phase begun
// with its total, then units done. *Progress is one; a package whose stages
// only count takes a Reporter, so its tests can count with a fake.
type Reporter interface {
	Phase(label string, total int64)
	Add(n int64)
}

// Discard is a Reporter that reports nothing (a nil *Progress, which does
// nothing): the default when a caller gives no progress.
var Discard Reporter = (*Progress)(nil)
