package deps
import (
 _ "mvdan.cc/sh/v3/syntax"
 _ "mvdan.cc/sh/v3/expand"
 _ "github.com/google/jsonschema-go/jsonschema"
 _ "github.com/bmatcuk/doublestar/v4"
 _ "github.com/google/go-cmp/cmp"
 _ "github.com/rogpeppe/go-internal/testscript"
)
