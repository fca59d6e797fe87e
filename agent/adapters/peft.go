package adapters

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"github.com/cra-dev/cra/internal/usage"
)

// The files of a PEFT adapter directory (what peft's save_pretrained
// writes): the config and the weights, safetensors preferred.
const (
	ConfigFile      = "adapter_config.json"
	SafetensorsFile = "adapter_model.safetensors"
	BinFile         = "adapter_model.bin"
)

// PEFT is what a PEFT adapter directory says about the adapter.
type PEFT struct {
	Dir           string // absolute
	BaseModel     string
	Rank          int
	Alpha         float64
	TargetModules []string
	WeightsFile   string // SafetensorsFile or BinFile
	SHA256        string
	SizeBytes     int64
}

// peftConfig is the part of adapter_config.json cra reads. target_modules
// is a list of module names, or one string (a name or a regex).
type peftConfig struct {
	BaseModel     string          `json:"base_model_name_or_path"`
	R             *int            `json:"r"`
	Alpha         *float64        `json:"lora_alpha"`
	TargetModules json.RawMessage `json:"target_modules"`
}

// ReadPEFT reads the adapter in dir. Every problem is a usage error
// naming the file and what to do: nothing is registered.
func ReadPEFT(dir string) (PEFT, error) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return PEFT{}, usage.Errorf("--path %s: %v", dir, err)
	}
	p := PEFT{Dir: abs}
	cfgPath := filepath.Join(abs, ConfigFile)
	b, err := os.ReadFile(cfgPath)
	if errors.Is(err, fs.ErrNotExist) {
		return p, usage.Errorf("%s: no %s: --path must be the directory a PEFT trainer saved the adapter to (save_pretrained)", abs, ConfigFile)
	}
	if err != nil {
		return p, usage.Errorf("read %s: %v", cfgPath, err)
	}
	var c peftConfig
	if err := json.Unmarshal(b, &c); err != nil {
		return p, usage.Errorf("%s: not JSON: %v", cfgPath, err)
	}
	if c.BaseModel == "" || c.R == nil || c.Alpha == nil {
		return p, usage.Errorf("%s: base_model_name_or_path, r and lora_alpha are required (is it a LoRA adapter's config?)", cfgPath)
	}
	p.BaseModel, p.Rank, p.Alpha = c.BaseModel, *c.R, *c.Alpha
	if p.TargetModules, err = targetModules(c.TargetModules); err != nil {
		return p, usage.Errorf("%s: target_modules: %v", cfgPath, err)
	}
	if err := p.readWeights(); err != nil {
		return p, err
	}
	return p, nil
}

// targetModules reads target_modules: a list, one string, or absent.
func targetModules(raw json.RawMessage) ([]string, error) {
	if len(raw) == 0 || string(raw) == "null" {
		return []string{}, nil
	}
	var list []string
	if err := json.Unmarshal(raw, &list); err == nil {
		return list, nil
	}
	var one string
	if err := json.Unmarshal(raw, &one); err != nil {
		return nil, fmt.Errorf("want a list of module names or one string, got %s", raw)
	}
	return []string{one}, nil
}

// readWeights finds the weights file, checks a safetensors file's header
// and takes its sha256 and size.
func (p *PEFT) readWeights() error {
	for _, name := range []string{SafetensorsFile, BinFile} {
		path := filepath.Join(p.Dir, name)
		f, err := os.Open(path)
		if errors.Is(err, fs.ErrNotExist) {
			continue
		}
		if err != nil {
			return usage.Errorf("read %s: %v", path, err)
		}
		defer f.Close()
		st, err := f.Stat()
		if err != nil {
			return usage.Errorf("read %s: %v", path, err)
		}
		if name == SafetensorsFile {
			if err := checkSafetensors(f, st.Size()); err != nil {
				return usage.Errorf("%s: %v: copy the adapter again (or save it again from the trainer)", path, err)
			}
		}
		h := sha256.New()
		if _, err := f.Seek(0, io.SeekStart); err != nil {
			return usage.Errorf("read %s: %v", path, err)
		}
		n, err := io.Copy(h, f)
		if err != nil {
			return usage.Errorf("read %s: %v", path, err)
		}
		p.WeightsFile, p.SHA256, p.SizeBytes = name, hex.EncodeToString(h.Sum(nil)), n
		return nil
	}
	return usage.Errorf("%s: no %s or %s: the directory has the adapter's config but not its weights", p.Dir, SafetensorsFile, BinFile)
}

// checkSafetensors checks the layout of a safetensors file: an 8-byte
// little-endian header length, that many bytes of a JSON object, then
// the tensors, whose data_offsets must end within the file. A file cut
// short by a failed copy or download fails here rather than in the
// server that loads it.
func checkSafetensors(r io.Reader, size int64) error {
	var n uint64
	if err := binary.Read(r, binary.LittleEndian, &n); err != nil {
		return fmt.Errorf("not a safetensors file (%d bytes, no header length)", size)
	}
	if n == 0 || int64(n) > size-8 {
		return fmt.Errorf("truncated safetensors file: its header says %d bytes of header, the file has %d after the length", n, size-8)
	}
	hdr := make([]byte, n)
	if _, err := io.ReadFull(r, hdr); err != nil {
		return fmt.Errorf("truncated safetensors header: %v", err)
	}
	var tensors map[string]json.RawMessage
	if err := json.Unmarshal([]byte(strings.TrimRight(string(hdr), " ")), &tensors); err != nil {
		return fmt.Errorf("safetensors header is not a JSON object: %v", err)
	}
	data := size - 8 - int64(n)
	for name, raw := range tensors {
		if name == "__metadata__" {
			continue
		}
		var t struct {
			Offsets []int64 `json:"data_offsets"`
		}
		if err := json.Unmarshal(raw, &t); err != nil || len(t.Offsets) != 2 {
			return fmt.Errorf("safetensors tensor %s has no data_offsets", name)
		}
		if t.Offsets[1] > data {
			return fmt.Errorf("truncated safetensors file: tensor %s ends at byte %d of the data, the file has %d", name, t.Offsets[1], data)
		}
	}
	return nil
}
