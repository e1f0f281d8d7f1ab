// Package bashglob matches and expands glob patterns exactly as bash 5.2
// does in pathname expansion, so that a command analyser can tell which
// files a word such as `cat .[!x]it/config` or `rm -r ?*` will reach.
//
// Go's path/filepath.Match is not a substitute: it spells negation [^x]
// only, lets '*' match a leading dot, has no character classes, and knows
// nothing of bash's treatment of unclosed brackets, invalid UTF-8 or "."
// and "..". This package reimplements bash's rules from its documented and
// observed behaviour, and its tests compare it with a real bash.
//
// # Patterns and quoting
//
// A pattern is a shell word after expansion but before quote removal, in
// the form bash itself uses internally: every character that was quoted in
// the shell source is preceded by a backslash. So the source text
//
//	'*'.txt  "$dir"/*  \[x]  a'\'b
//
// is passed as
//
//	\*.txt  \/\h\o\m\e/*  \[x]  a\\b
//
// (quoting every character of an expanded "$dir" is simplest). Unescaped
// '*', '?' and '[' are special; any other unescaped character, and every
// escaped one, stands for itself. A quoted '/' is still a path separator:
// bash treats "\/" exactly like "/".
//
// # The rules
//
// A pattern is split at '/' into components, and each component is
// matched against one path component of a name:
//
//   - '*' matches any string, including the empty one; '?' matches one
//     character; '**' is just two stars (globstar is off by default).
//   - A bracket expression [...] matches one character of a set. [!...]
//     and [^...] negate it. A ']' right after '[', '[!' or '[^' is an
//     ordinary member, as is a '-' at the start or end; a-z is a range by
//     code point (bash's globasciiranges); [:alpha:] and the other POSIX
//     classes, [=c=] and [.c.] (which stand for the character c) may
//     appear inside; a backslash makes the next character an ordinary
//     member. A range whose start exceeds its end matches nothing.
//   - A '[' that does not start a complete bracket expression in its
//     component is an ordinary character: "[ab" matches the name "[ab",
//     and "[!/]" is the two literal components "[!" and "]".
//   - Leading dots: when a name starts with '.', the pattern component must
//     start with a literal '.' (written "." or "\."); a wildcard or a
//     bracket expression never matches it, not even [.] or [!x]. The
//     names "." and ".." are never matched by a component with meta
//     characters (bash 5.2's globskipdots), so ".*" does not match "..".
//     Options.DotGlob lifts the first rule and Options.DotEntries the
//     second, as in older shells.
//   - A component without meta characters is taken literally: "." and ".."
//     work, and bash does not read the directory to find it.
//
// Bash matches wide characters when the component and the name are both
// valid UTF-8 (this package assumes a UTF-8 locale) and bytes otherwise,
// so "??" matches "é\xff" only because the name is invalid and "é" is two
// bytes there. Validity is glibc's, which also accepts the old four- to
// six-byte forms of values above U+10FFFF. Classes of ASCII characters are
// those of the C locale; classes of other characters follow the rules
// glibc uses to build C.UTF-8, applied to Go's Unicode tables (the Unicode
// versions may differ by a few characters). Bytes above 0x7F are in no
// class.
//
// # Three questions
//
// Match answers whether a given name matches. MatchPrefix answers, exactly,
// whether some name beginning with a given prefix could match, for example
// whether a pattern can produce a word starting with "-" or a path inside
// "/home/u/.ssh/". Expand performs the expansion against the file system,
// within budgets on directory entries and results, and returns nil when
// bash would leave the word as written.
//
// # What is not pinned down
//
// Some constructs have no meaning this package can pin down: bash's
// answer depends on the locale (class names other than the POSIX ones,
// ranges over characters above U+00FF, multi-character collating
// symbols) or on which character is being tested, because bash rescans a
// bracket expression for every character with rules that can disagree
// (for instance [[=a=]] matches "a" but also "[a]", and [![=a=]] matches
// nothing). Unsupported reports them; Match and MatchPrefix then answer
// true, and Expand fails, so that a careless caller errs on the safe side.
// Options.AnyLocale makes the answers safe for any UTF-8 locale in the
// remaining, supported patterns, and Options.FoldCase for case-insensitive
// file systems.
package bashglob
