package bootstrap

import (
	"fmt"
	"sort"
	"strings"

	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/ingest/resolve"
	"github.com/cra-dev/cra/kb/schema"
)

// Plan roles and actions, as a PlanArtifact's files and changes name them.
const (
	roleModify = "modify"
	roleCreate = "create"
	roleDelete = "delete"

	actionModify = "modify"
	actionAdd    = "add"
	actionDelete = "delete"
	actionRename = "rename"

	// moduleSymbol names module-level code (imports, top-level statements)
	// in a plan change.
	moduleSymbol = "<module>"
)

// planChange is a change of the plan being built, with the child-state
// symbol it lands on (-1 for deletes and module-level code).
type planChange struct {
	schema.PlanChange
	file  int // index into the plan's files
	child int
	line  int // for ordering within the file
}

// buildPlan derives a PlanArtifact from the diff: per file its role, per
// symbol the action (innermost symbols touched on either side, matched by
// qualified name), depends_on edges from child-state references between
// changed symbols, and an execution order that puts a file after the files
// it imports. snap is the parent state: the child state is snap with the
// changed files replaced.
func buildPlan(changes []*fileChange, snap *snapshot, summary, rationale string) schema.PlanArtifact {
	plan := schema.PlanArtifact{TaskSummary: summary, Rationale: rationale, AffectedFiles: []schema.PlanFile{}}
	var all []*planChange
	for fi, c := range changes {
		role := roleModify
		switch {
		case c.created:
			role = roleCreate
		case c.deleted:
			role = roleDelete
		}
		plan.AffectedFiles = append(plan.AffectedFiles, schema.PlanFile{Path: c.path, Role: role})
		all = append(all, symbolChanges(c, fi)...)
	}
	linkChanges(all, changes, snap)
	for _, pc := range all {
		pc.DependsOn, pc.DependedBy = nonNil(pc.DependsOn), nonNil(pc.DependedBy)
		f := &plan.AffectedFiles[pc.file]
		f.Changes = append(f.Changes, pc.PlanChange)
	}
	for i := range plan.AffectedFiles {
		plan.AffectedFiles[i].Changes = nonNil(plan.AffectedFiles[i].Changes)
	}
	plan.ExecutionOrder = executionOrder(changes, snap)
	return plan
}

// symbolChanges lists one file's symbol-level changes in file order.
func symbolChanges(c *fileChange, fi int) []*planChange {
	var before, after []lang.Symbol
	if c.before != nil {
		before = c.before.symbols
	}
	if c.after != nil {
		after = c.after.symbols
	}
	qb, qa := map[string]int{}, map[string]int{}
	for i := range before {
		qb[qualifiedName(before, i)+"\x00"+before[i].Kind] = i
	}
	for i := range after {
		qa[qualifiedName(after, i)+"\x00"+after[i].Kind] = i
	}
	var out []*planChange
	mk := func(action string, syms []lang.Symbol, i, child int) *planChange {
		q := qualifiedName(syms, i)
		return &planChange{
			PlanChange: schema.PlanChange{Symbol: q, Action: action, Description: fmt.Sprintf("%s %s %s", action, syms[i].Kind, q)},
			file:       fi, child: child, line: syms[i].StartLine,
		}
	}
	switch {
	case c.created:
		for i, s := range after {
			if s.Parent == -1 {
				out = append(out, mk(actionAdd, after, i, i))
			}
		}
		return out
	case c.deleted:
		for i, s := range before {
			if s.Parent == -1 {
				out = append(out, mk(actionDelete, before, i, -1))
			}
		}
		return out
	}
	pb, modB := touchedSymbols(c, true)
	pa, modA := touchedSymbols(c, false)
	var added, deleted []int
	seen := map[string]bool{}
	for i := range after {
		if !pa[i] {
			continue
		}
		key := qualifiedName(after, i) + "\x00" + after[i].Kind
		seen[key] = true
		if _, ok := qb[key]; ok {
			out = append(out, mk(actionModify, after, i, i))
		} else if p := after[i].Parent; p < 0 || !addedIn(after, p, qb) {
			added = append(added, i)
		}
	}
	for i := range before {
		key := qualifiedName(before, i) + "\x00" + before[i].Kind
		if !pb[i] || seen[key] {
			continue
		}
		if j, ok := qa[key]; ok {
			out = append(out, mk(actionModify, after, j, j))
		} else if p := before[i].Parent; p < 0 || !addedIn(before, p, qa) {
			deleted = append(deleted, i)
		}
	}
	// A deleted and an added symbol of one kind whose signatures differ only
	// by the name are a rename.
	for _, a := range added {
		pc := mk(actionAdd, after, a, a)
		for k, d := range deleted {
			if d >= 0 && before[d].Kind == after[a].Kind &&
				strings.ReplaceAll(strings.TrimSpace(before[d].Signature), before[d].Name, after[a].Name) == strings.TrimSpace(after[a].Signature) {
				pc.Action = actionRename
				pc.Description = fmt.Sprintf("rename %s %s to %s", after[a].Kind, qualifiedName(before, d), pc.Symbol)
				deleted[k] = -1
				break
			}
		}
		out = append(out, pc)
	}
	for _, d := range deleted {
		if d >= 0 {
			out = append(out, mk(actionDelete, before, d, -1))
		}
	}
	if modA || modB {
		out = append(out, &planChange{
			PlanChange: schema.PlanChange{Symbol: moduleSymbol, Action: actionModify, Description: "modify module-level code (imports, top-level statements)"},
			file:       fi, child: -1, line: 0,
		})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].line < out[j].line })
	return out
}

// addedIn reports whether symbol p of syms (or an enclosing one) has no
// counterpart in other: a change inside an added or deleted symbol is part
// of it, not a change of its own.
func addedIn(syms []lang.Symbol, p int, other map[string]int) bool {
	for ; p >= 0 && p < len(syms); p = syms[p].Parent {
		if _, ok := other[qualifiedName(syms, p)+"\x00"+syms[p].Kind]; !ok {
			return true
		}
		if syms[p].Parent == p {
			break
		}
	}
	return false
}

// linkChanges sets depends_on/depended_by: change A depends on change B
// when A's symbol references B's at the child state.
func linkChanges(all []*planChange, changes []*fileChange, snap *snapshot) {
	repo := resolve.Repo{GoModules: snap.repo.GoModules}
	fileIdx := map[int]int{} // change file → repo file
	for fi, c := range changes {
		if c.after != nil {
			fileIdx[fi] = len(repo.Files)
			repo.Files = append(repo.Files, c.after.resolveFile(c.path))
		}
	}
	type key struct{ file, sym int }
	byKey := map[key][]*planChange{}
	for _, pc := range all {
		if pc.child >= 0 {
			if rf, ok := fileIdx[pc.file]; ok {
				byKey[key{rf, pc.child}] = append(byKey[key{rf, pc.child}], pc)
			}
		}
	}
	name := func(pc *planChange) string { return changes[pc.file].path + ":" + pc.Symbol }
	for _, e := range resolve.References(&repo) {
		for _, a := range byKey[key{e.FromFile, e.FromSymbol}] {
			for _, b := range byKey[key{e.ToFile, e.ToSymbol}] {
				if a != b {
					a.DependsOn = appendUnique(a.DependsOn, name(b))
					b.DependedBy = appendUnique(b.DependedBy, name(a))
				}
			}
		}
	}
}

func appendUnique(list []string, s string) []string {
	for _, x := range list {
		if x == s {
			return list
		}
	}
	return append(list, s)
}

// executionOrder sorts the changed files so that a file comes after the
// files it imports (at the child state), ties and cycles by path; deleted
// files come last, once nothing imports them any more.
func executionOrder(changes []*fileChange, snap *snapshot) []string {
	// The child state's resolver input: every path of the parent (targets of
	// imports), with facts only for the changed files (sources of edges).
	repo := resolve.Repo{GoModules: snap.repo.GoModules}
	idx := map[string]int{}
	for _, f := range snap.repo.Files {
		idx[f.Path] = len(repo.Files)
		repo.Files = append(repo.Files, resolve.File{Path: f.Path, Language: f.Language})
	}
	for _, c := range changes {
		if c.deleted {
			continue
		}
		f := resolve.File{Path: c.path, Language: lang.LanguageOf(c.path)}
		if c.after != nil {
			f = c.after.resolveFile(c.path)
		}
		if i, ok := idx[c.path]; ok {
			repo.Files[i] = f
		} else {
			idx[c.path] = len(repo.Files)
			repo.Files = append(repo.Files, f)
		}
	}
	changed := map[string]bool{}
	var live, deleted []string
	for _, c := range changes {
		if c.deleted {
			deleted = append(deleted, c.path)
		} else {
			changed[c.path] = true
			live = append(live, c.path)
		}
	}
	needs := map[string]map[string]bool{} // file → changed files it imports
	for _, e := range resolve.Dependencies(&repo) {
		from, to := repo.Files[e.From].Path, repo.Files[e.To].Path
		if changed[from] && changed[to] {
			if needs[from] == nil {
				needs[from] = map[string]bool{}
			}
			needs[from][to] = true
		}
	}
	sort.Strings(live)
	sort.Strings(deleted)
	var order []string
	done := map[string]bool{}
	for len(order) < len(live) {
		progress := false
		for _, p := range live {
			if done[p] {
				continue
			}
			ready := true
			for q := range needs[p] {
				ready = ready && done[q]
			}
			if ready {
				order, done[p], progress = append(order, p), true, true
				break
			}
		}
		if !progress { // a cycle: take the first remaining file by path
			for _, p := range live {
				if !done[p] {
					order, done[p] = append(order, p), true
					break
				}
			}
		}
	}
	return append(nonNil(order), deleted...)
}
