package schema

// DocFields is the structured part of a docstring (summary, parameters,
// return value, raised exceptions), as ingest extracts it and the knowledge
// base returns it.
type DocFields struct {
	Summary string     `json:"summary,omitempty"`
	Params  []DocParam `json:"params,omitempty"`
	Returns *DocType   `json:"returns,omitempty"`
	Raises  []DocType  `json:"raises,omitempty"`
}

// DocParam documents one parameter.
type DocParam struct {
	Name        string `json:"name"`
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
}

// DocType documents a return value or a raised exception (or error).
type DocType struct {
	Type        string `json:"type,omitempty"`
	Description string `json:"description,omitempty"`
}
