package load_test

import (
	"bytes"
	"compress/gzip"
	"errors"
	"fmt"
	"io"
	"os"
)

// gzipped checks that the run left the transcript plain only compressed,
// at plain+".gz", and that it holds tool calls.
func gzipped(plain string) error {
	if _, err := os.Stat(plain); !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("%s is left uncompressed (%v)", plain, err)
	}
	f, err := os.Open(plain + ".gz")
	if err != nil {
		return err
	}
	defer f.Close()
	zr, err := gzip.NewReader(f)
	if err != nil {
		return err
	}
	lines, err := io.ReadAll(zr)
	if err != nil {
		return err
	}
	if !bytes.Contains(lines, []byte(`"method":"tools/call"`)) {
		return fmt.Errorf("%s.gz holds no tool call in %d bytes", plain, len(lines))
	}
	return nil
}
