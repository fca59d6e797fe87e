package curate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"

	"github.com/cra-dev/cra/kb"
)

// eachDistilled hands fn the examples cra distill verified: each teacher
// answer as SFT (source distilled), and, where the teacher answered a
// student's failed call, the pair of the two (teacher chosen, student
// rejected) on the student's logged prompt.
// Their split is the rule's, not the one distill stored (made under
// another configuration, or before the rule grouped merged branches): by
// commit, else by the student's run, and validation for an eval's run.
func eachDistilled(ctx context.Context, conn *sql.Conn, opts Options, kinds map[string]bool, fn func(example) error) error {
	return kb.EachDistilledAnswer(ctx, conn, opts.Repos, func(a kb.DistilledAnswer) error {
		var m []kb.Message
		if err := json.Unmarshal([]byte(a.Messages), &m); err != nil {
			return fmt.Errorf("distilled %s/%s: %w", a.Name, a.ItemID, err)
		}
		var system, user, answer string
		for _, x := range m {
			switch x.Role {
			case "system":
				system = x.Content
			case "user":
				user = x.Content
			case "assistant":
				answer = x.Content
			}
		}
		ev := map[string]any{"distill": a.Name, "item_id": a.ItemID, "checked": a.Checked, "reason": a.Reason, "teacher_call_task_id": a.TeacherCall}
		base := example{source: SourceDistilled, stage: a.Stage, repo: a.Repo, commit: a.Commit, taskID: a.TaskID, run: a.Run,
			validation: a.EvalRun, system: system, user: user}
		if kinds[kb.KindSFT] {
			e := base
			e.target, e.kind, e.signal, e.label, e.completion, e.evidence = "distilled:"+a.Name+":"+a.ItemID, kb.KindSFT, SignalDistilled,
				kb.LabelPositive, answer, ev
			if err := fn(e); err != nil {
				return err
			}
		}
		if kinds[kb.KindPreference] && a.StudentCall != 0 {
			e := base
			pe := map[string]any{"student_call_id": a.StudentCall}
			for k, v := range ev {
				pe[k] = v
			}
			e.target, e.kind, e.signal, e.label, e.chosen, e.rejected, e.evidence = "pair:"+SignalTeacherStudent+":"+a.Name+":"+a.ItemID,
				kb.KindPreference, SignalTeacherStudent, kb.LabelPair, normalAnswer(a.Stage, answer), normalAnswer(a.Stage, a.Student), pe
			if err := fn(e); err != nil {
				return err
			}
		}
		return nil
	})
}
