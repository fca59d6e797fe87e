package config

import (
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/BurntSushi/toml"
)

func TestTemplateLoadsBackAsDefaults(t *testing.T) {
	text := Template(Default())
	if _, err := Parse("config.toml", text); err != nil {
		t.Fatalf("the template init writes does not load: %v", err)
	}
	// The template writes every default, active or commented out. With the
	// comments taken off, it alone — decoded onto zero values, not onto the
	// defaults Parse starts from — must give Default(): a key missing from
	// the template, or written with another value, fails here.
	all := regexp.MustCompile(`(?m)^# ([a-z0-9_]+ = |\[\[[a-z.]+\]\]$)`).ReplaceAllString(text, "$1")
	var cfg Config
	if _, err := toml.Decode(all, &cfg); err != nil {
		t.Fatalf("the template with every default active does not load: %v", err)
	}
	// [models.overrides] has no default, only a commented example.
	if len(cfg.Models.Overrides) != 1 {
		t.Errorf("the [models.overrides] example is gone: %v", cfg.Models.Overrides)
	}
	cfg.Models.Overrides = map[string]string{}
	// [[testing.repo]] neither: one commented example table.
	if len(cfg.Testing.Repos) != 1 || cfg.Testing.Repos[0].Path == "" || cfg.Testing.Repos[0].TestCommand == "" {
		t.Errorf("the [[testing.repo]] example is gone: %+v", cfg.Testing.Repos)
	}
	cfg.Testing.Repos = nil
	if !reflect.DeepEqual(cfg, Default()) {
		t.Fatalf("the template does not write every default:\n got %+v\nwant %+v", cfg, Default())
	}
}

func TestTemplateDocumentsEverySection(t *testing.T) {
	text := Template(Default())
	for _, section := range []string{"[models]", "[models.overrides]", "[models.temperature]", "[budget]", "[index]",
		"[testing]", "[orchestrator]", "[bootstrap]", "[curate]", "[teacher]", "[teacher.prices]", "[teacher.verify]"} {
		i := strings.Index(text, "\n"+section+"\n")
		if i < 0 {
			t.Errorf("template lacks %s", section)
			continue
		}
		prev := text[strings.LastIndex(text[:i], "\n")+1 : i]
		if !strings.HasPrefix(prev, "# ") {
			t.Errorf("%s has no comment above it (line before: %q)", section, prev)
		}
	}
	if !strings.Contains(text, "\n# reserved_tokens = 8192\n") {
		t.Errorf("non-active defaults should be written commented out")
	}
	if !strings.Contains(text, "\ncoding = \"qwen3:1.7b\"\n") {
		t.Errorf("active keys should be written as settings")
	}
}

func TestTemplateWritesChangedValues(t *testing.T) {
	cfg := Default()
	cfg.Models.Provider = "openai_compat"
	cfg.Models.APIKeyEnv = "MY_KEY"
	cfg.Models.Overrides = map[string]string{"scope": "qwen3:1.7b-scope-v1"}
	cfg.Bootstrap.BotPatterns = []string{"bot"}
	got, err := Parse("c.toml", Template(cfg))
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(got, cfg) {
		t.Fatalf("changed values lost:\n got %+v\nwant %+v", got, cfg)
	}
}

func TestLoadMissingFileGivesDefaults(t *testing.T) {
	cfg, err := Load(filepath.Join(t.TempDir(), "none.toml"))
	if err != nil || !reflect.DeepEqual(cfg, Default()) {
		t.Fatalf("got %+v, %v", cfg, err)
	}
}

func TestErrorsNameFileKeyAndFix(t *testing.T) {
	cases := []struct {
		name, toml string
		key        string
		want       []string // substrings of the message
	}{
		{"reserved over window", "[budget]\nreserved_tokens = 40000\n", "budget.reserved_tokens",
			[]string{"reserved_tokens must be < context_window", "40000 >= 32768", "lower budget.reserved_tokens"}},
		{"negative reserved", "[budget]\nreserved_tokens = -1\n", "budget.reserved_tokens", []string{">= 0"}},
		{"zero window", "[models]\ncontext_window = 0\n", "models.context_window", []string{"must be > 0"}},
		{"eval timeout factor", "[testing]\neval_timeout_factor = 0.5\n", "testing.eval_timeout_factor", []string{"must be at least 1"}},
		{"bad provider", "[models]\nprovider = \"olama\"\n", "models.provider", []string{`"olama"`, "ollama, openai_compat, remote_api"}},
		{"bad url", "[models]\nbase_url = \"localhost\"\n", "models.base_url", []string{"not an http(s) URL"}},
		{"typo key", "[models]\ncodng = \"x\"\n", "models.codng", []string{"unknown key", "did you mean models.coding?"}},
		{"memory not a size", "[store]\nmemory_limit = \"lots\"\n", "store.memory_limit", []string{`"lots" is not a size`, `"2GB"`}},
		{"memory without unit", "[store]\nmemory_limit = \"2048\"\n", "store.memory_limit", []string{"not a size"}},
		{"memory too small", "[store]\nmemory_limit = \"511MiB\"\n", "store.memory_limit", []string{"less than 512 MiB"}},
		{"threads negative", "[store]\nthreads = -1\n", "store.threads", []string{"-1 is negative"}},
		{"unknown section", "[modles]\n", "modles", []string{"unknown key", "did you mean models?"}},
		{"secret in config", "[teacher]\napi_key = \"sk-123\"\n", "teacher.api_key", []string{"secret", "api_key_env"}},
		{"remote without key env", "[models]\nprovider = \"remote_api\"\n", "models.api_key_env", []string{"needs an API key"}},
		{"secrets choice", "[curate]\nsecrets = \"keep\"\n", "curate.secrets", []string{"redact or drop"}},
		{"threshold", "[curate]\nnear_dup_threshold = 1.5\n", "curate.near_dup_threshold", []string{"outside (0, 1]"}},
		{"wrong type", "[bootstrap]\nmax_files = \"five\"\n", "", []string{"config /x/config.toml"}},
		{"syntax", "[models\n", "", []string{"line 2", "TOML syntax"}},
		{"temperature", "[models.temperature]\ncoding = 3.0\n", "models.temperature.coding", []string{"outside 0..2"}},
		{"max tokens", "[models]\nmax_tokens = 40000\n", "models.max_tokens", []string{"must be < context_window"}},
		{"adapter server", "[adapters]\nserver = \"llama.cpp\"\n", "adapters.server",
			[]string{`"llama.cpp" is not a server`, "vllm, llamacpp, ollama"}},
		{"adapter server of another provider", "[adapters]\nserver = \"vllm\"\n", "adapters.server",
			[]string{"vllm serves adapters through the openai_compat provider", `models.provider is "ollama"`}},
		{"ollama server of openai_compat", "[models]\nprovider = \"openai_compat\"\n[adapters]\nserver = \"ollama\"\n", "adapters.server",
			[]string{"ollama serves adapters through the ollama provider"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse("/x/config.toml", tc.toml)
			if err == nil {
				t.Fatal("no error")
			}
			var ce *Error
			if !errors.As(err, &ce) {
				t.Fatalf("error %T is not a *config.Error: %v", err, err)
			}
			if ce.File != "/x/config.toml" {
				t.Errorf("file = %q", ce.File)
			}
			if tc.key != "" && ce.Key != tc.key {
				t.Errorf("key = %q, want %q (%v)", ce.Key, tc.key, err)
			}
			if ce.Fix == "" {
				t.Errorf("no fix in %v", err)
			}
			for _, w := range tc.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("%q lacks %q", err.Error(), w)
				}
			}
		})
	}
}

func TestAPIKeyPastedIntoEnvNameIsNotEchoed(t *testing.T) {
	const key = "sk-live-abcdef0123456789"
	_, err := Parse("c.toml", "[teacher]\napi_key_env = \""+key+"\"\n")
	if err == nil {
		t.Fatal("a key in api_key_env was accepted")
	}
	if strings.Contains(err.Error(), key) {
		t.Fatalf("error echoes the secret: %v", err)
	}
}

func TestAllErrorsReportedAtOnce(t *testing.T) {
	_, err := Parse("c.toml", "[budget]\nreserved_tokens = -5\n[curate]\nsecrets = \"x\"\n")
	if n := strings.Count(err.Error(), "config c.toml"); n != 2 {
		t.Fatalf("want 2 errors, got %d: %v", n, err)
	}
}

func TestBytes(t *testing.T) {
	for _, c := range []struct {
		in   string
		want int64
		ok   bool
	}{
		{"512MiB", 512 << 20, true}, {"2GB", 2e9, true}, {"1.5GiB", 3 << 29, true}, {" 4 gb ", 4e9, true},
		{"100KB", 1e5, true}, {"7b", 7, true}, {"1TiB", 1 << 40, true},
		{"2048", 0, false}, {"GB", 0, false}, {"2 GBs", 0, false}, {"-1GB", 0, false}, {"", 0, false},
	} {
		got, ok := Bytes(c.in)
		if got != c.want || ok != c.ok {
			t.Errorf("Bytes(%q) = %d, %v; want %d, %v", c.in, got, ok, c.want, c.ok)
		}
	}
	for _, v := range []string{"", "512MiB", "1GB"} {
		if errs := (Config{Store: Store{MemoryLimit: v}}).Validate("c"); hasKey(errs, "store.memory_limit") {
			t.Errorf("memory_limit %q refused: %v", v, errs)
		}
	}
}

func hasKey(errs []error, key string) bool {
	for _, e := range errs {
		if ce, ok := e.(*Error); ok && ce.Key == key {
			return true
		}
	}
	return false
}

func TestResolveHome(t *testing.T) {
	t.Setenv("CRA_HOME", "/tmp/from-env")
	if h, _ := ResolveHome("/tmp/from-flag"); h.Dir != "/tmp/from-flag" {
		t.Errorf("flag should win, got %s", h.Dir)
	}
	if h, _ := ResolveHome(""); h.Dir != "/tmp/from-env" {
		t.Errorf("env should be used, got %s", h.Dir)
	}
	t.Setenv("CRA_HOME", "")
	t.Setenv("HOME", "/tmp/user")
	if h, _ := ResolveHome(""); h.Dir != "/tmp/user/.cra" {
		t.Errorf("default should be ~/.cra, got %s", h.Dir)
	}
}

// A repository's [[testing.repo]] table overrides the commands it sets,
// and only for that repository; a table without a path is refused.
func TestTestingPerRepository(t *testing.T) {
	dir := t.TempDir()
	repo := filepath.Join(dir, "repo")
	if err := os.Mkdir(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	link := filepath.Join(dir, "link")
	if err := os.Symlink(repo, link); err != nil {
		t.Fatal(err)
	}
	cfg, err := Parse("config.toml", `[testing]
test_command = "make test"
lint_command = "make lint"
timeout_seconds = 60

[[testing.repo]]
path = "`+link+`/"
test_command = "go test ./..."
timeout_seconds = 30

[[testing.repo]]
path = "/elsewhere"
test_command = "pytest"
`)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		path string
		want Testing
	}{
		{repo, Testing{Sandbox: SandboxAuto, TestCommand: "go test ./...", LintCommand: "make lint", TimeoutSeconds: 30, EvalTimeoutFactor: 5, EvalTimeoutFloorSeconds: 30, EnvPassthrough: []string{}}},
		{filepath.Join(repo, "."), Testing{Sandbox: SandboxAuto, TestCommand: "go test ./...", LintCommand: "make lint", TimeoutSeconds: 30, EvalTimeoutFactor: 5, EvalTimeoutFloorSeconds: 30, EnvPassthrough: []string{}}},
		{"/elsewhere", Testing{Sandbox: SandboxAuto, TestCommand: "pytest", LintCommand: "make lint", TimeoutSeconds: 60, EvalTimeoutFactor: 5, EvalTimeoutFloorSeconds: 30, EnvPassthrough: []string{}}},
		{dir, Testing{Sandbox: SandboxAuto, TestCommand: "make test", LintCommand: "make lint", TimeoutSeconds: 60, EvalTimeoutFactor: 5, EvalTimeoutFloorSeconds: 30, EnvPassthrough: []string{}}},
	} {
		if got := cfg.Testing.For(tc.path); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("For(%s) = %+v, want %+v", tc.path, got, tc.want)
		}
	}
	_, err = Parse("config.toml", "[[testing.repo]]\ntest_command = \"x\"\n")
	if err == nil || !strings.Contains(err.Error(), "testing.repo[1].path") {
		t.Errorf("a table without a path: %v", err)
	}
	if _, err := Parse("config.toml", "[[testing.repo]]\npath = \"/x\"\ntest_comand = \"x\"\n"); err == nil || !strings.Contains(err.Error(), "test_command") {
		t.Errorf("a misspelt key: %v", err)
	}
}

// A test command's environment: the defaults and env_passthrough's names
// and patterns, never a credential-looking name a pattern would match.
func TestTestingEnviron(t *testing.T) {
	environ := []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "GOFLAGS=-v", "OPENAI_API_KEY=sk-1", "CRA_TEACHER_API_KEY=sk-2",
		"GITHUB_TOKEN=ghp_1", "AWS_SECRET_ACCESS_KEY=a", "DATABASE_URL=pg://", "MYAPP_MODE=x", "MYAPP_TOKEN=t", "MYAPP_API_KEY=k", "EDITOR=vi"}
	for _, tc := range []struct {
		name        string
		passthrough []string
		want        []string
	}{
		{"defaults", nil, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "GOFLAGS=-v"}},
		{"a name and a pattern", []string{"DATABASE_URL", "MYAPP_*"}, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "GOFLAGS=-v", "DATABASE_URL=pg://", "MYAPP_MODE=x"}},
		{"a credential named exactly", []string{"MYAPP_*", "MYAPP_API_KEY"}, []string{"PATH=/bin", "HOME=/h", "LC_ALL=C", "GOFLAGS=-v", "MYAPP_MODE=x", "MYAPP_API_KEY=k"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if got := (Testing{EnvPassthrough: tc.passthrough}).Environ(environ); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("Environ = %q, want %q", got, tc.want)
			}
		})
	}
}

// The server a provider's adapters are loaded by: [adapters] server when
// set, else the provider's own, and one accepted only with its provider.
func TestAdapterServer(t *testing.T) {
	cases := []struct {
		provider, server, want string
	}{
		{"ollama", "", ServerOllama},
		{"", "", ServerOllama},
		{"openai_compat", "", ServerVLLM},
		{"openai_compat", ServerLlamaCpp, ServerLlamaCpp},
		{"openai_compat", ServerVLLM, ServerVLLM},
		{"remote_api", "", ""},
	}
	for _, tc := range cases {
		if got := (Adapters{Server: tc.server}).ServerFor(tc.provider); got != tc.want {
			t.Errorf("provider %q server %q: %q, want %q", tc.provider, tc.server, got, tc.want)
		}
	}
	for _, text := range []string{
		"[models]\nprovider = \"openai_compat\"\n[adapters]\nserver = \"llamacpp\"\n",
		"[models]\nprovider = \"openai_compat\"\n[adapters]\nserver = \"vllm\"\n",
		"[adapters]\nserver = \"ollama\"\n",
	} {
		if _, err := Parse("c.toml", text); err != nil {
			t.Errorf("%q refused: %v", text, err)
		}
	}
}
