package walk

import (
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/cra-dev/cra/ingest/lang"
	"github.com/cra-dev/cra/internal/config"
)

// Skip reasons, stored as-is in the curated store.
const (
	SkipBinary         = "binary"
	SkipTooLarge       = "too_large"
	SkipVendored       = "vendored"
	SkipGenerated      = "generated"
	SkipMinified       = "minified"
	SkipGitignored     = "gitignored"
	SkipSymlink        = "symlink"
	SkipSymlinkOutside = "symlink_outside"
	SkipSubmodule      = "submodule"
	SkipUnreadable     = "unreadable"
)

// Entry is one path the walk decided about: a file to index (Skip == "")
// or a file or directory skipped for a recorded reason.
type Entry struct {
	// Path is slash-separated and relative to the root; a skipped directory
	// ends with "/". Invalid UTF-8 bytes are replaced with U+FFFD.
	Path string
	// Language is lang.LanguageOf(Path), "" when unknown and for directories.
	Language string
	// Size is the file's size in bytes (for a symlink, the length of its
	// target); 0 for directories and for paths skipped before their size
	// is known (gitignored, some unreadable).
	Size int64
	// Content holds the file's bytes when Skip == "" and is nil otherwise.
	// It is never reused by the walk: callers may keep it.
	Content []byte
	// Skip is "" when the file is to be indexed, else one of the Skip*
	// reasons.
	Skip string
	// Detail explains a skip in a few words.
	Detail string
}

// Options tune a walk.
type Options struct {
	// MaxFileBytes: files larger are skipped as too_large without being
	// read; <= 0 means config.DefaultMaxFileBytes.
	MaxFileBytes int64
}

func (o Options) maxFileBytes() int64 {
	if o.MaxFileBytes <= 0 {
		return config.DefaultMaxFileBytes
	}
	return o.MaxFileBytes
}

// fileEntry builds the entry of a file at raw path p (not yet sanitized).
func fileEntry(p string, size int64) Entry {
	clean := strings.ToValidUTF8(p, "\uFFFD")
	return Entry{Path: clean, Language: lang.LanguageOf(clean), Size: size}
}

// dirEntry builds the entry of a skipped directory at raw path p.
func dirEntry(p, skip, detail string) Entry {
	return finish(Entry{Path: strings.ToValidUTF8(p, "\uFFFD") + "/"}, p, skip, detail)
}

// finish records a skip on e, whose raw path was p. Content is dropped so a
// skipped entry never carries bytes.
func finish(e Entry, p, skip, detail string) Entry {
	e.Skip = skip
	e.Content = nil
	detail = strings.ToValidUTF8(detail, "\uFFFD")
	if !utf8.ValidString(p) {
		if detail != "" {
			detail += "; "
		}
		detail += "path is not valid UTF-8"
	}
	e.Detail = detail
	return e
}

// tooLarge explains a too_large skip: "1.4 MiB > max_file_bytes 1 MiB".
func tooLarge(size, max int64) string {
	return humanBytes(size) + " > max_file_bytes " + humanBytes(max)
}

func humanBytes(n int64) string {
	const unit = 1024
	if n < unit {
		return fmt.Sprintf("%d B", n)
	}
	v, suffix := float64(n), ""
	for _, s := range []string{"KiB", "MiB", "GiB", "TiB"} {
		v, suffix = v/unit, s
		if v < unit {
			break
		}
	}
	return strings.TrimSuffix(fmt.Sprintf("%.1f", v), ".0") + " " + suffix
}
