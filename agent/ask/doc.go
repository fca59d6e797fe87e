// Package ask answers questions about an indexed repository CGRAG's way
// (cra ask): a question is classified into a mode (diagnostic,
// exploratory, analytical, conceptual), the mode's retrieval walks the
// code index (error sites and their callers, entry points and their
// callees, structure, descriptions), and the answer pass names what it
// still misses; each gap is resolved by direct lookup or by the mode's
// search, within budgets, until no new gap, every gap unresolvable, the
// pass limit or the budget stops the loop. Every model call, retrieval
// decision and gap is logged under one task id, like the agent's runs:
// asks are training data too.
package ask
