// Package agent groups the code agent. It holds no code of its own:
//
//   - agent/llm: model providers, routing, budgets, retries and the logged client;
//   - agent/prompt: every prompt template and response parser (the single home
//     of prompt text, shared by inference and training-data rendering);
//   - agent/retrieval, agent/execute, agent/orchestrator: task analysis and
//     context retrieval, plan/implement and patching, and the solve loop;
//   - agent/eval: the agent replayed on held-out history (cra eval), scored
//     per stage against ground truth;
//   - agent/ask: questions about a repository answered CGRAG's way (cra
//     ask): classification, the mode's retrieval, the gap loop;
//   - agent/pathrule: the one rule for the worktree paths the agent reads
//     and writes.
//
// The agent mainly exists to produce training data: every model call and
// decision it makes is logged to the raw store.
package agent
