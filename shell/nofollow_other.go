//go:build !unix

package shell

// oNoFollow is not available: links are followed (and judged as what they
// lead to).
const oNoFollow = 0
