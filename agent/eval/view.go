package eval

import (
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"strings"

	"github.com/cra-dev/cra/agent/orchestrator"
	"github.com/cra-dev/cra/agent/retrieval"
	"github.com/cra-dev/cra/kb"
	"github.com/cra-dev/cra/kb/schema"
)

// readView reads what the finished run taskID did: the meta-plan pass's
// retrieval (its archived session), the plans (the run's archived
// session), its attempts, and the files its branch holds.
func readView(ctx context.Context, q kb.Querier, repo, taskID string, s kb.FinishedSolve, t Task) (runView, error) {
	v := runView{Status: s.Status, Final: map[string]*string{}}
	run, err := archivedSession(ctx, q, taskID)
	if err != nil {
		return v, err
	}
	meta, err := archivedSession(ctx, q, taskID+":meta_plan")
	if err != nil {
		return v, err
	}
	if err := decodeKey(meta, retrieval.KeyStageOutput+schema.StageTaskAnalysis, &v.Seeds); err != nil {
		return v, err
	}
	var c retrieval.Context
	if ok, err := decodeKeyOK(meta, retrieval.KeyFinalContext, &c); err != nil {
		return v, err
	} else if ok {
		v.Context = &c
	}
	var m schema.MetaPlan
	if ok, err := decodeKeyOK(run, orchestrator.KeyMetaPlan, &m); err != nil {
		return v, err
	} else if ok {
		v.Meta = &m
		for _, p := range m.Parts {
			var pp schema.PartPlan
			if ok, err := decodeKeyOK(run, orchestrator.KeyPartPlan+p.ID, &pp); err != nil {
				return v, err
			} else if ok {
				v.Parts = append(v.Parts, pp)
			}
		}
	}
	if v.Applied, err = kb.AttemptsApplied(ctx, q, taskID); err != nil {
		return v, err
	}
	branch := orchestrator.BranchFor(taskID)
	changed, err := gitOut(ctx, repo, "diff", "--name-only", "--no-renames", t.Parent, branch)
	if err != nil {
		return v, err
	}
	if changed != "" {
		v.Changed = strings.Split(changed, "\n")
	}
	paths := appendNew(nil, v.Changed...)
	for _, f := range t.Truth.Implement.Files {
		paths = appendNew(paths, f.Path)
	}
	for _, p := range paths {
		if out, err := exec.CommandContext(ctx, "git", "-C", repo, "show", branch+":"+p).Output(); err == nil {
			s := string(out)
			v.Final[p] = &s
		} else {
			v.Final[p] = nil
		}
	}
	return v, nil
}

// archivedSession is the keys of a task's archived session (none when it
// has no archive).
func archivedSession(ctx context.Context, q kb.Querier, taskID string) (map[string]json.RawMessage, error) {
	blob, ok, err := kb.ArchivedSession(ctx, q, taskID)
	if err != nil {
		return nil, err
	}
	if !ok {
		return map[string]json.RawMessage{}, nil
	}
	keys := map[string]json.RawMessage{}
	if err := json.Unmarshal(blob, &keys); err != nil {
		return nil, fmt.Errorf("the archived session of %s: %w", taskID, err)
	}
	return keys, nil
}

func decodeKey(keys map[string]json.RawMessage, key string, v any) error {
	_, err := decodeKeyOK(keys, key, v)
	return err
}

func decodeKeyOK(keys map[string]json.RawMessage, key string, v any) (bool, error) {
	b, ok := keys[key]
	if !ok {
		return false, nil
	}
	if err := json.Unmarshal(b, v); err != nil {
		return true, fmt.Errorf("session key %s: %w", key, err)
	}
	return true, nil
}

func gitOut(ctx context.Context, dir string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, "git", append([]string{"-C", dir}, args...)...).Output()
	if err != nil {
		return "", fmt.Errorf("git %s: %w", strings.Join(args, " "), err)
	}
	return strings.TrimSpace(string(out)), nil
}
