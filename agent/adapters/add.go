package adapters

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/cra-dev/cra/agent/llm"
	"github.com/cra-dev/cra/internal/config"
	"github.com/cra-dev/cra/internal/usage"
	"github.com/cra-dev/cra/internal/version"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// Stages are the stages an adapter can be trained for and routed to: the
// model calls of the pipeline, in pipeline order.
var Stages = []string{schema.StageTaskAnalysis, schema.StageScope, schema.StagePrecision, schema.StagePlan,
	schema.StageMetaPlan, schema.StagePartPlan, schema.StageImplement, schema.StageAdjustment}

// validName is an adapter name: it becomes NAME-vV on a server (a vLLM
// module, an Ollama model), so no spaces, slashes or @.
var validName = regexp.MustCompile(`^[A-Za-z0-9][A-Za-z0-9._-]*$`)

// Store says how to open the raw store.
type Store struct {
	Home string
	Open kb.Options // Command and Wait; Write is set where needed
}

// AddOptions is `cra adapters add`.
type AddOptions struct {
	Store
	Name    string
	Path    string   // the PEFT directory
	Stages  []string // the stages it was trained for
	Dataset string   // NAME or NAME@V of the dataset it was trained on; "" for none
	PlanID  int64    // the training plan it was trained for; 0 for none
	Force   bool     // accept stages the plan did not target
	Config  config.Config
}

// Added is what Add did.
type Added struct {
	Adapter kb.AdapterRow `json:"adapter"`
	New     bool          `json:"new"` // false: these files were registered already, as Adapter
}

// Add registers the adapter in opts.Path as the next version of
// opts.Name, or returns the version that has the same weights and
// stages. It refuses (a usage error, nothing written) a base model other
// than the model serving each stage, and a stage the training plan did
// not target unless Force.
func Add(ctx context.Context, opts AddOptions) (Added, error) {
	if !validName.MatchString(opts.Name) {
		return Added{}, usage.Errorf("adapter name %q: use letters, digits, '.', '_' and '-' (it names the adapter on the server as NAME-vVERSION)", opts.Name)
	}
	if err := checkStages(opts.Stages); err != nil {
		return Added{}, err
	}
	p, err := ReadPEFT(opts.Path)
	if err != nil {
		return Added{}, err
	}
	if err := checkBase(opts.Config, p.BaseModel, opts.Stages); err != nil {
		return Added{}, err
	}
	row := kb.AdapterRow{Name: opts.Name, Path: p.Dir, BaseModel: p.BaseModel, Rank: p.Rank, Alpha: p.Alpha,
		TargetModules: p.TargetModules, WeightsFile: p.WeightsFile, SHA256: p.SHA256, SizeBytes: p.SizeBytes,
		Stages: opts.Stages, TrainingPlanID: opts.PlanID, CraVersion: version.String()}
	var out Added
	err = withWriter(ctx, opts.Store, func(w kb.Writer) error {
		if err := checkLineage(ctx, w.Conn, &row, opts); err != nil {
			return err
		}
		out.Adapter, out.New, err = kb.AddAdapterVersion(ctx, w, row)
		return err
	})
	return out, err
}

func checkStages(stages []string) error {
	if len(stages) == 0 {
		return usage.Errorf("--stages: name the stages the adapter was trained for (%s)", strings.Join(Stages, ", "))
	}
	for _, s := range stages {
		if !slices.Contains(Stages, s) {
			return usage.Errorf("--stages: %q is not a stage an adapter serves: use %s", s, strings.Join(Stages, ", "))
		}
	}
	return nil
}

// checkBase refuses an adapter whose base model is not the model that
// serves one of its stages: a LoRA only works on the weights it was
// trained on.
func checkBase(cfg config.Config, base string, stages []string) error {
	models := cfg.Models
	router := llm.NewRouter(cfg)
	for _, s := range stages {
		role := llm.StageRole(s)
		m, err := router.Resolve(role, s)
		if err != nil {
			return usage.Wrap(err)
		}
		if !SameBaseModel(base, m.Model) {
			where := fmt.Sprintf("models.%s", role)
			if models.Overrides[s] != "" {
				where = fmt.Sprintf("models.overrides.%s", s)
			}
			return usage.Errorf("the adapter was trained on base model %s, but stage %s is served by %s (%s in config.toml): "+
				"train it on %s, or serve %s for the stage", base, s, m.Model, where, m.Model, base)
		}
	}
	return nil
}

// checkLineage resolves the dataset to an existing version and checks the
// stages against the training plan's.
func checkLineage(ctx context.Context, q kb.Querier, row *kb.AdapterRow, opts AddOptions) error {
	if opts.Dataset != "" {
		ref, err := kb.ParseDatasetRef(opts.Dataset)
		if err != nil {
			return usage.Errorf("--dataset: %v", err)
		}
		d, err := kb.ResolveDataset(ctx, q, ref)
		if errors.Is(err, kb.ErrNotFound) {
			return usage.Errorf("--dataset: %v", err)
		}
		if err != nil {
			return err
		}
		row.Dataset, row.DatasetVersion = d.Name, d.Version
	}
	if opts.PlanID == 0 {
		return nil
	}
	planned, err := kb.TrainingPlanStages(ctx, q, opts.PlanID)
	if errors.Is(err, kb.ErrNotFound) {
		return usage.Errorf("--plan: %v", err)
	}
	if err != nil {
		return err
	}
	for _, s := range opts.Stages {
		if !slices.Contains(planned, s) && !opts.Force {
			return usage.Errorf("--stages: training plan %d targets %s, not %s: register the adapter for the plan's stages, "+
				"or pass --force if it was trained for %s too", opts.PlanID, strings.Join(planned, ", "), s, s)
		}
	}
	return nil
}

// withWriter runs fn in one transaction of the raw store opened for
// writing: the registry's reads and writes of one command see the same
// state, and the write lock orders two processes.
func withWriter(ctx context.Context, st Store, fn func(kb.Writer) error) error {
	return kb.WithWriter(ctx, st.Home, kb.Raw, st.Open, func(w kb.Writer) error {
		return w.Tx(ctx, func() error { return fn(w) })
	})
}
