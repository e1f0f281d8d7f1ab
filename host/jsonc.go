package host

// stripJSONC turns JSON with comments (// and /* */) and trailing commas,
// as Claude Code accepts in its settings files, into plain JSON: comments
// become spaces (so that offsets and line numbers in errors stay right)
// and a comma before a closing bracket or brace becomes a space. Strings
// are copied as they are. An unterminated comment or string is left for
// the JSON decoder to report.
func stripJSONC(in []byte) []byte {
	return StripJSONC(in)
}

// StripJSONC is stripJSONC, for the editors of settings files (toolscope
// hook install): the offsets of the result are the text's.
func StripJSONC(in []byte) []byte {
	out := make([]byte, len(in))
	copy(out, in)
	lastComma := -1 // position of a comma that may turn out to be trailing
	for i := 0; i < len(out); i++ {
		switch c := out[i]; {
		case c == '"':
			lastComma = -1
			for i++; i < len(out); i++ {
				if out[i] == '\\' {
					i++
					continue
				}
				if out[i] == '"' {
					break
				}
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '/':
			for ; i < len(out) && out[i] != '\n'; i++ {
				out[i] = ' '
			}
		case c == '/' && i+1 < len(out) && out[i+1] == '*':
			j := i + 2
			for j+1 < len(out) && !(out[j] == '*' && out[j+1] == '/') {
				j++
			}
			if j+1 >= len(out) {
				return out // unterminated: the decoder says where
			}
			for k := i; k <= j+1; k++ {
				if out[k] != '\n' {
					out[k] = ' '
				}
			}
			i = j + 1
		case c == ',':
			lastComma = i
		case c == ']' || c == '}':
			if lastComma >= 0 {
				out[lastComma] = ' '
			}
			lastComma = -1
		case c == ' ' || c == '\t' || c == '\n' || c == '\r':
		default:
			lastComma = -1
		}
	}
	return out
}
