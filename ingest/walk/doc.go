// Package walk lists the files of a repository for indexing: a work tree on
// disk (Dir; a git repository or a plain directory) or a git revision read
// straight from objects (Tree; no checkout, bare repositories work). For each
// path it decides whether the file is indexed, handing over its bytes, or
// skipped with a recorded reason. A bad file is an entry, never an error: the
// walk goes on.
//
// It owns only listing and the skip rules. It parses nothing (parsers get
// Content as raw bytes, not UTF-8-sanitized), writes no store and holds one
// file's content at a time.
//
// # Order
//
// Entries come in lexical byte order of their paths, a directory sorting as
// its name plus "/" — git's tree order — so Dir and Tree agree. Paths are
// slash-separated and relative to the root; invalid UTF-8 bytes in a path
// are replaced with U+FFFD (order follows the original bytes).
//
// # Skip rules
//
// Checked in this order; the first that applies is the reason.
//
//   - gitignored (Dir only): matched by a .gitignore — at the root or nested,
//     with go-git's matcher, negations included — or by .git/info/exclude.
//     An ignored directory is recorded once as "dir/" and not descended.
//     Tracked files (in .git/index) are never ignored, as in git. The user's
//     global excludes (core.excludesFile, ~/.config/git/ignore) and
//     .gitignore files above root are not read, so results do not depend on
//     who runs the walk. A .gitignore applies in a plain directory too.
//   - vendored: a directory named vendor, node_modules, bower_components,
//     jspm_packages, third_party, thirdparty, 3rdparty, .venv or
//     site-packages, recorded once as "dir/" and not descended.
//   - submodule: in Dir, a directory holding a .git file or directory; in
//     Tree, a gitlink entry (mode 160000). Recorded as "dir/".
//   - symlink: a symlink whose target is inside the root; the target is
//     indexed at its own path. Dir resolves with the operating system;
//     Tree resolves lexically within the commit's tree, following links
//     along the way (at most 40).
//   - symlink_outside: a symlink leaving the root, into .git, dangling or
//     looping.
//   - minified (by name): *.min.js, *.min.mjs, *.min.cjs, *.min.css — not read.
//   - too_large: bigger than Options.MaxFileBytes (default 1 MiB) — not
//     read: the size comes from stat or the object header.
//   - unreadable: permission denied, I/O error, a directory that cannot be
//     listed, a special file (pipe, socket, device), a missing or corrupt
//     object.
//   - binary: a NUL byte in the first 8000 bytes (git's rule).
//   - generated: in the first 50 lines (for Go, before the package clause), a
//     line matching Go's `^// Code generated .* DO NOT EDIT\.$`, or the
//     `@generated` tag standing as a word (after a space or a comment leader,
//     not inside quotes or a longer identifier).
//   - minified (by content): JavaScript or CSS of at least 1 KiB whose mean
//     line length is over 200 bytes. Hand-written code averages well under
//     100; bundles average thousands, so 200 leaves room for data-heavy
//     files without letting a bundle through.
//
// Everything else is indexed, including empty files and files that are not
// valid UTF-8. .git is never entered nor reported; other hidden files and
// directories are walked like any other.
//
// # Limitations
//
// Dir reads a file's first Size bytes as listed: a file growing during the
// walk is cut there. Two paths differing only in invalid UTF-8 bytes map to
// the same Path. Tree resolves ".." in a symlink target before following
// links, where the kernel would follow first.
package walk
