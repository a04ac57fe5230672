package notebook

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// maxLoadBytes is the largest .src.md file load reads.
const maxLoadBytes = 4 << 20

// filesDir is the folder that load and export paths are confined to.
type filesDir struct{ dir string }

func (f filesDir) refuse(p string) error {
	return fmt.Errorf("Path traversal not allowed: path %q must name a file inside the notebook files directory %s", p, f.dir)
}

// inside reports whether p (absolute, clean) is strictly inside root.
func inside(root, p string) bool {
	rel, err := filepath.Rel(root, p)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator)) && !filepath.IsAbs(rel)
}

// resolve maps a client's path (relative to the files directory, or
// absolute inside it) to a file path inside the directory, following
// symbolic links of the part that exists: nothing outside can be reached.
func (f filesDir) resolve(p string) (string, error) {
	if strings.TrimSpace(p) == "" {
		return "", errors.New("path must not be empty")
	}
	if strings.ContainsRune(p, 0) {
		return "", errors.New("path must not contain NUL characters")
	}
	candidate := p
	if !filepath.IsAbs(candidate) {
		candidate = filepath.Join(f.dir, candidate)
	}
	candidate = filepath.Clean(candidate)
	root, err := realPath(filepath.Clean(f.dir))
	if err != nil {
		return "", err
	}
	if !inside(filepath.Clean(f.dir), candidate) && !inside(root, candidate) {
		return "", f.refuse(p)
	}
	// The path with the links of its existing part followed must still be
	// inside.
	full, err := realPath(candidate)
	if err != nil || !inside(root, full) {
		return "", f.refuse(p)
	}
	return full, nil
}

// realPath follows the symbolic links of the deepest existing part of the
// absolute, clean path p and appends the rest.
func realPath(p string) (string, error) {
	existing, rest := p, ""
	for {
		if _, err := os.Lstat(existing); err == nil {
			break
		}
		parent := filepath.Dir(existing)
		if parent == existing {
			return "", fmt.Errorf("no part of %s exists", p)
		}
		rest = filepath.Join(filepath.Base(existing), rest)
		existing = parent
	}
	real, err := filepath.EvalSymlinks(existing)
	if err != nil {
		return "", err
	}
	return filepath.Join(real, rest), nil
}

// read returns the content of the file at the client's path p.
func (f filesDir) read(p string) (string, error) {
	full, err := f.resolve(p)
	if err != nil {
		return "", err
	}
	st, err := os.Stat(full)
	if err != nil {
		return "", fmt.Errorf("cannot read path %q: %w", p, errors.Unwrap(err))
	}
	if !st.Mode().IsRegular() {
		return "", fmt.Errorf("path %q is not a regular file", p)
	}
	if st.Size() > maxLoadBytes {
		return "", fmt.Errorf("path %q is %d bytes; load reads at most %d", p, st.Size(), maxLoadBytes)
	}
	data, err := os.ReadFile(full)
	if err != nil {
		return "", fmt.Errorf("cannot read path %q: %w", p, errors.Unwrap(err))
	}
	return string(data), nil
}

// write stores content at the client's path p, creating its folders.
func (f filesDir) write(p, content string) error {
	if _, err := f.resolve(p); err != nil {
		return err // refused before anything is created
	}
	if err := os.MkdirAll(f.dir, 0o700); err != nil {
		return err
	}
	full, err := f.resolve(p)
	if err != nil {
		return err
	}
	if st, err := os.Stat(full); err == nil && !st.Mode().IsRegular() {
		return fmt.Errorf("path %q is not a regular file", p)
	}
	if err := os.MkdirAll(filepath.Dir(full), 0o700); err != nil {
		return err
	}
	return writeFile(full, content)
}
