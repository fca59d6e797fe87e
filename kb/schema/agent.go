package schema

// The identity cra commits with and the branches it commits on, in the
// user's repositories (cra solve's worktrees). Written here once because
// bootstrap must recognise them: what cra wrote itself is never mined into
// training data, or the model would learn from its own output.
const (
	AgentName         = "cra"
	AgentEmail        = "cra@localhost"
	AgentBranchPrefix = "cra/" // a run's branch is cra/<task id>
)
