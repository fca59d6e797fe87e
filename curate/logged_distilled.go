package curate

import (
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"strings"

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
	where, args := repoFilter(opts.Repos)
	where = strings.ReplaceAll(where, "k.repo_path", "o.repo_path")
	rows, err := conn.QueryContext(ctx, `SELECT o.name, o.item_id, o.stage, coalesce(o.task_id, ''), o.repo_path, coalesce(o.commit, ''),
			to_json(o.messages)::VARCHAR, coalesce(o.student_call_id, 0), coalesce(s.response, ''), o.checked, o.reason,
			o.call_task_id, `+distilledUnitColumns+`
		FROM distill_outcomes o`+distilledUnitJoin+`
		WHERE o.verified AND o.messages IS NOT NULL`+where+` ORDER BY o.name, o.item_id`, args...)
	if err != nil {
		return fmt.Errorf("read the distilled answers: %w", err)
	}
	defer rows.Close()
	for rows.Next() {
		var name, itemID, stage, taskID, repo, commit, msgs, student, checked, reason, teacherCall, run string
		var studentCall int64
		var evalRun bool
		if err := rows.Scan(&name, &itemID, &stage, &taskID, &repo, &commit, &msgs, &studentCall, &student,
			&checked, &reason, &teacherCall, &run, &evalRun); err != nil {
			return err
		}
		var m []kb.Message
		if err := json.Unmarshal([]byte(msgs), &m); err != nil {
			return fmt.Errorf("distilled %s/%s: %w", name, itemID, err)
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
		ev := map[string]any{"distill": name, "item_id": itemID, "checked": checked, "reason": reason, "teacher_call_task_id": teacherCall}
		base := example{source: SourceDistilled, stage: stage, repo: repo, commit: commit, taskID: taskID, run: run,
			validation: evalRun, system: system, user: user}
		if kinds[kb.KindSFT] {
			e := base
			e.target, e.kind, e.signal, e.label, e.completion, e.evidence = "distilled:"+name+":"+itemID, kb.KindSFT, SignalDistilled,
				kb.LabelPositive, answer, ev
			if err := fn(e); err != nil {
				return err
			}
		}
		if kinds[kb.KindPreference] && studentCall != 0 {
			e := base
			pe := map[string]any{"student_call_id": studentCall}
			for k, v := range ev {
				pe[k] = v
			}
			e.target, e.kind, e.signal, e.label, e.chosen, e.rejected, e.evidence = "pair:"+SignalTeacherStudent+":"+name+":"+itemID,
				kb.KindPreference, SignalTeacherStudent, kb.LabelPair, normalAnswer(stage, answer), normalAnswer(stage, student), pe
			if err := fn(e); err != nil {
				return err
			}
		}
	}
	return rows.Err()
}
