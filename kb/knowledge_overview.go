package kb

import (
	"context"
	"fmt"
	"time"
)

// FileContext is everything the curated store knows about one file.
type FileContext struct {
	File              File               `json:"file"`
	Symbols           []Symbol           `json:"symbols"`
	Docstrings        []Docstring        `json:"docstrings"`
	RationaleComments []Comment          `json:"rationale_comments"`
	Dependencies      []FileDependency   `json:"dependencies"` // both directions
	CoChanges         []CoChangeNeighbor `json:"co_changes"`   // at least FileContextMinCoChange, at most FileContextMaxCoChange
	RecentCommits     []Commit           `json:"recent_commits"`
}

const (
	// FileContextMinCoChange is the co-change count GetFileContext asks of
	// a neighbour: a single shared commit is too often a sweeping one
	// (a rename, a reformat) to say the files belong together.
	FileContextMinCoChange = 2
	// FileContextMaxCoChange caps the neighbours GetFileContext lists, so a
	// file everything changes with (a changelog) does not swamp it.
	FileContextMaxCoChange = 20
)

// GetFileContext gathers a file's symbols, docstrings, rationale comments,
// dependencies both ways, strongest co-change neighbours and 10 newest commits.
func (k *KnowledgeBase) GetFileContext(ctx context.Context, fileID int64) (*FileContext, error) {
	f, err := k.GetFileByID(ctx, fileID)
	if err != nil {
		return nil, err
	}
	fc := &FileContext{File: *f}
	if fc.Symbols, err = k.GetSymbolsForFile(ctx, fileID, ""); err != nil {
		return nil, err
	}
	if fc.Docstrings, err = k.GetDocstringsForFile(ctx, fileID); err != nil {
		return nil, err
	}
	if fc.RationaleComments, err = k.GetRationaleComments(ctx, fileID); err != nil {
		return nil, err
	}
	if fc.Dependencies, err = k.GetDependencies(ctx, fileID, Both); err != nil {
		return nil, err
	}
	if fc.CoChanges, err = k.GetCoChangeNeighbors(ctx, fileID, FileContextMinCoChange); err != nil {
		return nil, err
	}
	fc.CoChanges = fc.CoChanges[:min(len(fc.CoChanges), FileContextMaxCoChange)]
	if fc.RecentCommits, err = k.GetRecentCommitsForFile(ctx, fileID, defaultRecentCommits); err != nil {
		return nil, err
	}
	return fc, nil
}

// RepoOverview summarises one repository.
type RepoOverview struct {
	Repo          Repo            `json:"repo"`
	FileCount     int             `json:"file_count"`
	Languages     []NameCount     `json:"languages"` // files per language, most first
	SymbolCount   int             `json:"symbol_count"`
	CommitCount   int             `json:"commit_count"`
	Domains       []NameCount     `json:"domains"` // files per file_metadata domain (lower case), most first; empty before enrichment
	MostConnected []ConnectedFile `json:"most_connected"`
}

// NameCount counts the files of one language or domain.
type NameCount struct {
	Name  string `json:"name"`
	Files int    `json:"files"`
}

// ConnectedFile is a file with its dependency degree, counted in distinct
// files: how many import it (In) and how many it imports (Out).
type ConnectedFile struct {
	File File `json:"file"`
	In   int  `json:"in"`
	Out  int  `json:"out"`
}

// mostConnectedFiles is how many files RepoOverview.MostConnected lists.
const mostConnectedFiles = 10

// GetRepoOverview summarises a repository: counts, languages, domains and the
// 10 files with the most dependency edges (in + out, ties by path).
func (k *KnowledgeBase) GetRepoOverview(ctx context.Context, repoID int64) (*RepoOverview, error) {
	r, err := k.RepoByID(ctx, repoID)
	if err != nil {
		return nil, err
	}
	o := &RepoOverview{Repo: *r}
	err = k.q.QueryRowContext(ctx, `SELECT
			(SELECT count(*) FROM files WHERE repo_id = $1),
			(SELECT count(*) FROM symbols s JOIN files f ON f.id = s.file_id WHERE f.repo_id = $1),
			(SELECT count(*) FROM commits WHERE repo_id = $1)`, repoID).
		Scan(&o.FileCount, &o.SymbolCount, &o.CommitCount)
	if err != nil {
		return nil, fmt.Errorf("kb: overview of repo %d: counts: %w", repoID, err)
	}
	nameCount := func(n *NameCount) []any { return []any{&n.Name, &n.Files} }
	o.Languages, err = queryList(ctx, k.q, nameCount, `SELECT language, count(*) FROM files
		WHERE repo_id = ? GROUP BY language ORDER BY count(*) DESC, language`, repoID)
	if err != nil {
		return nil, fmt.Errorf("kb: overview of repo %d: languages: %w", repoID, err)
	}
	o.Domains, err = queryList(ctx, k.q, nameCount, `SELECT lower(m.domain) AS domain, count(*)
		FROM file_metadata m JOIN files f ON f.id = m.file_id
		WHERE f.repo_id = ? AND m.domain <> ''
		GROUP BY lower(m.domain) ORDER BY count(*) DESC, domain`, repoID)
	if err != nil {
		return nil, fmt.Errorf("kb: overview of repo %d: domains: %w", repoID, err)
	}
	o.MostConnected, err = queryList(ctx, k.q, func(c *ConnectedFile) []any {
		return append(c.File.dest(), &c.In, &c.Out)
	}, `WITH e AS (
			SELECT DISTINCT d.source_file_id AS src, d.target_file_id AS dst
			FROM dependencies d JOIN files f ON f.id = d.source_file_id
			WHERE f.repo_id = $1 AND d.source_file_id <> d.target_file_id
		),
		deg AS (
			SELECT id, sum(i)::INTEGER AS i, sum(o)::INTEGER AS o FROM (
				SELECT dst AS id, 1 AS i, 0 AS o FROM e UNION ALL SELECT src, 0, 1 FROM e
			) GROUP BY id
		)
		SELECT `+fileCols+`, deg.i, deg.o FROM deg JOIN files f ON f.id = deg.id
		ORDER BY deg.i + deg.o DESC, f.path LIMIT $2`, repoID, mostConnectedFiles)
	if err != nil {
		return nil, fmt.Errorf("kb: overview of repo %d: most connected files: %w", repoID, err)
	}
	return o, nil
}

// Adapter is a LoRA adapter deployed for a pipeline stage.
type Adapter struct {
	ID               int64     `json:"id"`
	StageName        string    `json:"stage_name"`
	BaseModel        string    `json:"base_model"` // coding or reasoning
	ModelTag         string    `json:"model_tag"`  // what the inference server calls it
	Version          int       `json:"version"`
	Active           bool      `json:"active"`
	PerformanceNotes string    `json:"performance_notes,omitempty"`
	DeployedAt       time.Time `json:"deployed_at"`
}

// GetAdapterForStage returns the active adapter of a stage with the highest
// version (ties: the newest deployment), or an error wrapping ErrNotFound.
func (k *KnowledgeBase) GetAdapterForStage(ctx context.Context, stage string) (*Adapter, error) {
	var a Adapter
	err := queryOne(ctx, k.q, []any{&a.ID, &a.StageName, &a.BaseModel, &a.ModelTag, &a.Version, &a.Active,
		&a.PerformanceNotes, &a.DeployedAt}, fmt.Sprintf("active adapter for stage %s", stage),
		`SELECT id, stage_name, base_model, model_tag, version, active, coalesce(performance_notes, ''), deployed_at
		FROM adapter_metadata WHERE stage_name = ? AND active
		ORDER BY version DESC, deployed_at DESC, id DESC LIMIT 1`, stage)
	if err != nil {
		return nil, err
	}
	return &a, nil
}
