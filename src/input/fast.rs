//! A fast path for the YAML that `kubectl get -o yaml` and most manifests
//! are written in: block mappings and sequences, plain and quoted scalars
//! on one line, literal and folded block scalars, comments.
//!
//! It is a serde [`Deserializer`] over the document's lines: whatever type a
//! dialect asks for drives it, and subtrees the type ignores are checked and
//! skipped line by line, never built. It knows nothing of any dialect.
//!
//! Anchors and aliases it reads only in the form PyYAML's dumper writes
//! them (see [`Node::read`]). It declines ([`Declined`]) everything it does
//! not fully understand — other anchors and aliases, tags, merge keys, complex keys, multi-line quoted and
//! flow scalars where it reads (where it only skips, it follows them to
//! their end), explicit indentation indicators, tabs in indentation,
//! control characters, a value a type rejects — and the caller then reads
//! the text with serde_yaml, which says what, if anything, is wrong. When it
//! answers, the answer is serde_yaml's: scalars are resolved by the same
//! rules, every skipped line is held to YAML's rules for it, and a
//! differential test (tests/props/fast_yaml_vs_serde_yaml.rs) holds it to that on real
//! dumps and on generated and mutated documents.

use super::outline::{Member, Outline, Shape, Value};
use serde::de::{self, DeserializeSeed, Deserializer, IgnoredAny, MapAccess, SeqAccess, Visitor};
use std::borrow::Cow;

/// The fast path does not read this document; serde_yaml must.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Declined;

impl std::fmt::Display for Declined {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("declined by the YAML fast path")
    }
}

impl std::error::Error for Declined {}

impl de::Error for Declined {
    fn custom<T: std::fmt::Display>(_: T) -> Declined {
        Declined
    }
}

type R<T> = Result<T, Declined>;

/// `TEARDOWN_NO_FAST_YAML` set: every YAML document goes to serde_yaml (to
/// measure the fast path against it, or to rule it out).
pub fn disabled() -> bool {
    static OFF: std::sync::OnceLock<bool> = std::sync::OnceLock::new();
    FORCED_OFF.load(std::sync::atomic::Ordering::Relaxed)
        || *OFF.get_or_init(|| std::env::var_os("TEARDOWN_NO_FAST_YAML").is_some())
}

static FORCED_OFF: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// Turn the fast path off (or back on) in this process, as
/// `TEARDOWN_NO_FAST_YAML` does for a whole run: for the fuzz harness
/// (fuzz/harness.rs), which runs one input both ways in process and compares
/// the answers. The variable is read once, so it cannot do that.
#[doc(hidden)]
pub fn force_disabled(off: bool) {
    FORCED_OFF.store(off, std::sync::atomic::Ordering::Relaxed);
}

/// Deeper nesting than this is left to serde_yaml (whose own limit is 128).
const MAX_DEPTH: usize = 100;

/// One line with content: its indentation and its text (without the
/// indentation, trailing blanks or `\r`).
#[derive(Clone, Copy, Debug)]
struct Line<'a> {
    indent: usize,
    text: &'a str,
    /// Offset of the line's first byte in the document text.
    start: usize,
    /// A comment line stands between this line and the previous content line.
    after_comment: bool,
}

/// A document (or one entry of a block sequence), split into lines, ready
/// to be read as any type.
pub struct Doc<'a> {
    text: &'a str,
    lines: Vec<Line<'a>>,
    root: Root<'a>,
}

#[derive(Clone, Copy)]
enum Root<'a> {
    /// A block mapping or sequence at column 0.
    Block,
    /// The node of a sequence entry: on the dash line, or below it.
    Entry(Pos<'a>),
}

/// Is this character allowed where YAML reads text? (Control characters,
/// and line breaks other than `\n` and `\r\n`, are left to serde_yaml.)
fn plain_text(line: &str) -> bool {
    let b = line.as_bytes();
    let odd = b.iter().fold(false, |acc, &c| acc | (c < 0x20 && c != b'\t') | (c >= 0x7f));
    if !odd {
        return true;
    }
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'\t' => {}
            0..=0x1f | 0x7f => return false,
            // U+0080..U+009F (NEL among them)
            0xC2 if matches!(b.get(i + 1), Some(0x80..=0x9f)) => return false,
            // LINE SEPARATOR, PARAGRAPH SEPARATOR
            0xE2 if b.get(i + 1) == Some(&0x80) && matches!(b.get(i + 2), Some(0xa8 | 0xa9)) => return false,
            // a byte order mark, U+FFFE, U+FFFF
            0xEF if matches!(
                (b.get(i + 1), b.get(i + 2)),
                (Some(0xbb), Some(0xbf)) | (Some(0xbf), Some(0xbe | 0xbf))
            ) =>
            {
                return false
            }
            _ => {}
        }
    }
    true
}

/// Is every byte printable ASCII or `\n`? (Eight at a time.) Text that
/// is not is checked line by line.
fn ascii_text(b: &[u8]) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    const HIGH: u64 = 0x8080_8080_8080_8080;
    let mut words = b.chunks_exact(8);
    let mut odd = 0u64;
    for w in &mut words {
        let mut a = [0u8; 8];
        a.copy_from_slice(w);
        let x = u64::from_le_bytes(a);
        // Newlines are fine: make them spaces first.
        let nl = x ^ (ONES * u64::from(b'\n'));
        let is_nl = !(((nl & !HIGH) + !HIGH) | nl) & HIGH;
        let x = x | (is_nl >> 2); // 0x0a | 0x20 = 0x2a: printable
        let del = x ^ (ONES * 0x7f);
        let is_del = !(((del & !HIGH) + !HIGH) | del) & HIGH;
        // A high bit for each byte below 0x20, or of 0x80 and above.
        odd |= (x.wrapping_sub(ONES * 0x20) & !x & HIGH) | (x & HIGH) | is_del;
    }
    odd == 0 && words.remainder().iter().all(|&c| c == b'\n' || (0x20..0x7f).contains(&c))
}

/// The lines of `text` that hold content. `None` for text the fast path
/// does not read at all.
fn lines(text: &str) -> Option<Vec<Line<'_>>> {
    let mut out = Vec::with_capacity(text.len() / 24 + 1);
    let mut comment = false;
    let mut start = 0;
    let checked = ascii_text(text.as_bytes());
    for raw in text.split('\n') {
        let line_start = start;
        start += raw.len() + 1;
        let raw = raw.strip_suffix('\r').unwrap_or(raw);
        if !checked && !plain_text(raw) {
            return None;
        }
        let body = raw.trim_start_matches(' ');
        let indent = raw.len() - body.len();
        if body.starts_with('\t') {
            // Tabs may not indent, and a line that starts with one (after
            // spaces) is refused by libyaml's scanner even when blank or a
            // comment ("found character that cannot start any token": a tab
            // is skipped only where no simple key may start) unless it
            // continues a scalar or a flow collection: serde_yaml decides.
            return None;
        }
        let body = body.trim_end_matches(' ');
        if body.ends_with('\t') {
            return None; // serde_yaml rejects some trailing tabs (`-\t`)
        }
        if body.is_empty() {
            continue;
        }
        if body.starts_with('#') {
            comment = true;
            continue;
        }
        out.push(Line { indent, text: body, start: line_start, after_comment: std::mem::take(&mut comment) });
    }
    Some(out)
}

impl<'a> Doc<'a> {
    /// A whole document: a block mapping or a block sequence at column 0.
    pub fn document(text: &'a str) -> Option<Doc<'a>> {
        let lines = lines(text)?;
        let first = lines.first()?;
        if first.indent != 0 || !(is_dash(first.text) || split_key(first.text).is_some()) {
            return None;
        }
        Some(Doc { text, lines, root: Root::Block })
    }

    /// One entry of a block sequence: `text` starts at the beginning of the
    /// line of its `-`, and holds the entry only.
    pub fn entry(text: &'a str) -> Option<Doc<'a>> {
        let mut lines = lines(text)?;
        let first = *lines.first()?;
        if !is_dash(first.text) {
            return None;
        }
        let after = first.text.get(1..)?.trim_start_matches(' ');
        let root = if after.is_empty() || after.starts_with('#') {
            lines.remove(0);
            Pos::Below { parent: first.indent, compact: false }
        } else {
            let col = first.indent + (first.text.len() - after.len());
            *lines.first_mut()? = Line { indent: col, text: after, start: first.start, after_comment: false };
            Pos::Inline { text: after, col, parent: first.indent, dash: true }
        };
        // Everything else belongs to the entry's node.
        if lines.iter().skip(1).any(|l| l.indent <= first.indent) {
            return None;
        }
        Some(Doc { text, lines, root: Root::Entry(root) })
    }

    /// Read the document as `T`; `Err(Declined)` when the fast path cannot
    /// answer exactly as serde_yaml would.
    pub fn parse<T: de::Deserialize<'a>>(&self) -> R<T> {
        let mut de = De {
            text: self.text,
            lines: &self.lines,
            i: 0,
            depth: 0,
            anchors: Vec::new(),
            in_anchor: false,
            replayed: 0,
        };
        let pos = match self.root {
            Root::Block => Pos::Below { parent: usize::MAX, compact: false },
            Root::Entry(pos) => match pos {
                // The entry's compact mapping starts on the (rewritten) first line.
                Pos::Inline { text, .. } if split_key(text).is_some() => {
                    Pos::Below { parent: usize::MAX, compact: false }
                }
                Pos::Inline { .. } => {
                    de.i = 1;
                    pos
                }
                below => below,
            },
        };
        let value = T::deserialize(Node { de: &mut de, pos })?;
        if de.i != de.lines.len() {
            return Err(Declined);
        }
        Ok(value)
    }

    /// The top-level keys of the document's mapping, with what each holds.
    /// `None` when the fast path cannot tell exactly.
    pub fn outline(&self) -> Option<Outline<'a>> {
        let lines = &self.lines;
        let Some(first) = lines.first() else {
            return Some(Outline::new(Shape::Null));
        };
        let base = first.indent;
        let entry_scalar = matches!(self.root, Root::Entry(Pos::Inline { text, .. }) if split_key(text).is_none());
        let entry_below = matches!(self.root, Root::Entry(Pos::Below { .. }));
        if entry_scalar || (entry_below && !(is_dash(first.text) || split_key(first.text).is_some())) {
            return Some(Outline::new(Shape::Scalar));
        }
        if is_dash(first.text) {
            return Some(Outline::new(Shape::Seq));
        }
        let mut outline = Outline::new(Shape::Map);
        let mut i = 0;
        while i < lines.len() {
            let line = *lines.get(i)?;
            if line.indent != base {
                return None;
            }
            let (key, rest) = split_key(line.text)?;
            let key = key_text(key)?;
            if key == "<<" || outline.members.iter().any(|m| m.key == key) {
                return None;
            }
            let rest = value_text(rest);
            let next = lines.get(i + 1);
            let deeper = next.is_some_and(|n| n.indent > base);
            let value = match rest.as_bytes().first() {
                None => match next {
                    Some(n) if n.indent > base && is_dash(n.text) => Value::Seq,
                    Some(n) if n.indent > base && split_key(n.text).is_some() => Value::Map,
                    Some(n) if n.indent > base => return None,
                    Some(n) if n.indent == base && is_dash(n.text) => Value::Seq,
                    _ => Value::Null,
                },
                // A flow collection that closes on its line (one that runs
                // on hides its keys among the lines read as this mapping's;
                // found by the `fast_yaml` fuzz target).
                Some(b'[' | b'{') if deeper || !flow_on_one_line(rest) => return None,
                Some(b'[') => Value::Seq,
                Some(b'{') => Value::Map,
                Some(b'|' | b'>') => Value::Unknown,
                Some(b'"' | b'\'') if !deeper => match quoted(rest)? {
                    (s, "") => Value::Str(s),
                    _ => return None,
                },
                Some(_) if !deeper => {
                    let (text, _) = plain(rest)?;
                    match resolve(text) {
                        Resolved::Null => Value::Null,
                        Resolved::Str => Value::Str(Cow::Borrowed(text)),
                        _ => Value::Other,
                    }
                }
                Some(_) => return None,
            };
            outline.members.push(Member { key, value, at: line.start..line.start + line.text.len() + line.indent });
            i = self.below(i + 1, base)?;
        }
        outline.complete = true;
        Some(outline)
    }

    /// The index of the first line after those that belong to the key
    /// at `base` whose line comes before `i`: the more indented lines, and
    /// the entries of a sequence at `base`. They are not read, but a quoted
    /// scalar or a flow collection among them that runs on over lines is
    /// skipped to where it closes, as serde_yaml reads it: whatever the
    /// indentation of the lines it runs over, one of which may look like a
    /// key of the mapping (found by the `fast_yaml` fuzz target:
    /// `applications:` at column 0 inside an annotation's value). Block
    /// scalars' lines are text. `None`: such a value that the fast path
    /// cannot follow.
    fn below(&self, mut i: usize, base: usize) -> Option<usize> {
        let lines = &self.lines;
        let mut block: Option<usize> = None;
        while let Some(l) = lines.get(i).filter(|l| l.indent > base || (l.indent == base && is_dash(l.text))) {
            i += 1;
            match block {
                Some(at) if l.indent > at => continue,
                _ => block = None,
            }
            match line_value(l.text) {
                LineValue::Ends => {}
                LineValue::Block => block = Some(l.indent),
                LineValue::RunsOn(off) => {
                    let end = self.runs_to(l.start + l.indent + off)?;
                    while lines.get(i).is_some_and(|n| n.start < end) {
                        i += 1;
                    }
                }
            }
        }
        Some(i)
    }

    /// Where the quoted scalar or flow collection that starts at `from` and
    /// runs on over lines ends: after it, its line holds nothing but a
    /// comment. `None`: it does not close, or holds what the fast path
    /// leaves to serde_yaml (a comment, an anchor, an alias, a tag in a
    /// flow collection; more than MAX_DEPTH levels).
    fn runs_to(&self, from: usize) -> Option<usize> {
        let rest = self.text.get(from..)?;
        let len = match rest.as_bytes().first()? {
            b'"' | b'\'' => quoted_end(rest)?,
            _ => flow_end(rest, MAX_DEPTH)?,
        };
        let after = rest.get(len..)?;
        let line = after.get(..memchr::memchr(b'\n', after.as_bytes()).unwrap_or(after.len()))?;
        let line = line.strip_suffix('\r').unwrap_or(line);
        let trimmed = line.trim_start_matches(' ');
        let closed = trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < line.len());
        closed.then_some(from + len)
    }

    /// The outline of the mapping under the top-level key at `at` (from
    /// [`Doc::outline`]).
    pub fn child_outline(&self, at: std::ops::Range<usize>) -> Option<Outline<'a>> {
        let i = self.lines.iter().position(|l| l.start == at.start)?;
        let base = self.lines.get(i)?.indent;
        let inner = self.lines.get(i + 1..self.below(i + 1, base)?)?;
        let first = inner.first()?;
        if is_dash(first.text) {
            return None;
        }
        let sub = Doc { text: self.text, lines: inner.to_vec(), root: Root::Block };
        sub.outline()
    }
}

/// How the value a line starts (after its `- ` and its key) ends.
#[derive(Debug, PartialEq, Eq)]
enum LineValue {
    /// On this line (or nothing is there, or it is not a quoted scalar,
    /// flow collection or block scalar).
    Ends,
    /// A quoted scalar or flow collection that does not close on this
    /// line (or that the fast path cannot tell closes), starting this many
    /// bytes into the line's text.
    RunsOn(usize),
    /// A block scalar (`|`, `>`): the more indented lines after are its.
    Block,
}

fn line_value(text: &str) -> LineValue {
    let mut t = text;
    while let Some(rest) = t.strip_prefix("- ") {
        t = rest.trim_start_matches(' ');
    }
    let b = t.as_bytes();
    let value = match b.first() {
        None => return LineValue::Ends,
        Some(b'"' | b'\'') => match split_key(t) {
            Some((_, rest)) => value_text(rest),
            None => t,
        },
        // A plain key ends at the first `: ` (its value follows), unless a
        // comment starts first; a line without one is a scalar. Only the
        // key is scanned: this runs on every line the outline skips.
        Some(_) => {
            let mut value = t;
            for (i, &c) in b.iter().enumerate() {
                match c {
                    b':' if matches!(b.get(i + 1), None | Some(b' ')) => {
                        value = value_text(t.get(i + 1..).unwrap_or_default().trim_start_matches(' '));
                        break;
                    }
                    b'#' if i > 0 && b.get(i - 1) == Some(&b' ') => return LineValue::Ends,
                    _ => {}
                }
            }
            value
        }
    };
    // `value` ends `text`.
    let at = text.len() - value.len();
    match value.as_bytes().first() {
        Some(b'"' | b'\'') if quoted_end(value).is_none() => LineValue::RunsOn(at),
        Some(b'[' | b'{') if !flow_on_one_line(value) => LineValue::RunsOn(at),
        Some(b'|' | b'>') => LineValue::Block,
        _ => LineValue::Ends,
    }
}

/// `-` alone, or `- ` and more: a block sequence entry.
fn is_dash(text: &str) -> bool {
    text == "-" || text.starts_with("- ")
}

/// A mapping line `key: rest` → (key as written, rest); `rest` is empty for
/// `key:`. Only keys the fast path reads: plain or quoted, on one line.
fn split_key(text: &str) -> Option<(&str, &str)> {
    let (key, rest) = match text.as_bytes().first()? {
        b'"' | b'\'' => {
            let end = quoted_end(text)?;
            (text.get(..end)?, text.get(end..)?.strip_prefix(':')?)
        }
        _ => {
            // One pass to the first `: ` (or a `:` at the end): no tab, no
            // comment, before it.
            let b = text.as_bytes();
            let mut colon = None;
            for (i, &c) in b.iter().enumerate() {
                match c {
                    b':' if matches!(b.get(i + 1), None | Some(b' ')) => {
                        colon = Some(i);
                        break;
                    }
                    b'\t' => return None,
                    b'#' if i > 0 && b.get(i - 1) == Some(&b' ') => return None,
                    _ => {}
                }
            }
            let colon = colon?;
            let key = text.get(..colon)?;
            if key.is_empty() || !plain_start(key.as_bytes()) || key.ends_with(' ') {
                return None;
            }
            (key, text.get(colon + 1..)?)
        }
    };
    if key.len() > 1024 || (!rest.is_empty() && !rest.starts_with(' ')) {
        return None;
    }
    Some((key, rest.trim_start_matches(' ')))
}

/// A key as text: plain (resolved keys are read as strings by `str`
/// visitors, which is what callers of this function want), or unquoted.
fn key_text(key: &str) -> Option<Cow<'_, str>> {
    match key.as_bytes().first()? {
        b'"' | b'\'' => match quoted(key)? {
            (s, "") => Some(s),
            _ => None,
        },
        _ => Some(Cow::Borrowed(key)),
    }
}

/// The value part after `key:` or `- `: empty when it is only a comment.
fn value_text(rest: &str) -> &str {
    if rest.starts_with('#') {
        ""
    } else {
        rest
    }
}

/// Can a plain scalar start like this? (The indicators YAML gives a
/// meaning at the start.)
fn plain_start(b: &[u8]) -> bool {
    let Some(&first) = b.first() else { return true };
    let spaced = matches!(b.get(1), None | Some(b' ' | b'\t'));
    match first {
        b'-' | b'?' | b':' => !spaced,
        b',' | b'[' | b']' | b'{' | b'}' | b'#' | b'&' | b'*' | b'!' | b'|' | b'>' | b'\'' | b'"' | b'%' | b'@'
        | b'`' => false,
        _ => true,
    }
}

// Scalars are short: plain loops beat `memchr`'s setup here.

/// Where the first `: ` (or a `:` ending the text) is: a mapping's value
/// indicator.
fn colon_space(b: &[u8]) -> Option<usize> {
    (0..b.len()).find(|&i| matches!(b.get(i..), Some([b':'] | [b':', b' ', ..])))
}

/// Where the first ` #` is: a comment's start.
fn space_hash(b: &[u8]) -> Option<usize> {
    b.windows(2).position(|w| w == b" #")
}

/// A plain scalar on one line: its text without a trailing comment, and
/// whether there was one.
fn plain(text: &str) -> Option<(&str, bool)> {
    let b = text.as_bytes();
    if !plain_start(b) {
        return None;
    }
    for (i, &c) in b.iter().enumerate() {
        match c {
            b'\t' => return None,
            b':' if matches!(b.get(i + 1), None | Some(b' ')) => return None,
            b'#' if i > 0 && b.get(i - 1) == Some(&b' ') => {
                return Some((text.get(..i - 1)?.trim_end_matches(' '), true))
            }
            _ => {}
        }
    }
    Some((text, false))
}

/// The end (exclusive) of the quoted scalar at the start of `text`.
fn quoted_end(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    match b.first()? {
        b'"' => {
            let mut i = 1;
            while let Some(&c) = b.get(i) {
                match c {
                    b'\\' => i += 2,
                    b'"' => return Some(i + 1),
                    _ => i += 1,
                }
            }
            None
        }
        b'\'' => {
            let mut i = 1;
            while let Some(&c) = b.get(i) {
                if c == b'\'' {
                    if b.get(i + 1) == Some(&b'\'') {
                        i += 2;
                        continue;
                    }
                    return Some(i + 1);
                }
                i += 1;
            }
            None
        }
        _ => None,
    }
}

/// A quoted scalar at the start of `text`, closed on this line: its value,
/// and what follows the closing quote (nothing, or a key's `: …`). Trailing
/// blanks and a comment after the value are allowed and dropped.
fn quoted(text: &str) -> Option<(Cow<'_, str>, &str)> {
    let end = quoted_end(text)?;
    let inner = text.get(1..end - 1)?;
    let value = if text.starts_with('"') {
        unescape_double(inner)?
    } else if inner.contains("''") {
        Cow::Owned(inner.replace("''", "'"))
    } else {
        Cow::Borrowed(inner)
    };
    let rest = text.get(end..)?;
    let trimmed = rest.trim_start_matches(' ');
    if trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len()) {
        return Some((value, ""));
    }
    Some((value, rest))
}

fn unescape_double(s: &str) -> Option<Cow<'_, str>> {
    if !s.contains('\\') {
        return Some(Cow::Borrowed(s));
    }
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        let hex = |chars: &mut std::str::Chars, n: usize| -> Option<char> {
            let digits: String = chars.by_ref().take(n).collect();
            if digits.len() != n || !digits.bytes().all(|b| b.is_ascii_hexdigit()) {
                return None;
            }
            char::from_u32(u32::from_str_radix(&digits, 16).ok()?)
        };
        match chars.next()? {
            '0' => out.push('\0'),
            'a' => out.push('\x07'),
            'b' => out.push('\x08'),
            't' | '\t' => out.push('\t'),
            'n' => out.push('\n'),
            'v' => out.push('\x0b'),
            'f' => out.push('\x0c'),
            'r' => out.push('\r'),
            'e' => out.push('\x1b'),
            ' ' => out.push(' '),
            '"' => out.push('"'),
            '/' => out.push('/'),
            '\\' => out.push('\\'),
            'N' => out.push('\u{85}'),
            '_' => out.push('\u{a0}'),
            'L' => out.push('\u{2028}'),
            'P' => out.push('\u{2029}'),
            'x' => out.push(hex(&mut chars, 2)?),
            'u' => out.push(hex(&mut chars, 4)?),
            'U' => out.push(hex(&mut chars, 8)?),
            _ => return None,
        }
    }
    Some(Cow::Owned(out))
}

/// What an untagged plain scalar is (serde_yaml's resolution, YAML 1.2).
#[derive(Debug, PartialEq)]
enum Resolved {
    Null,
    Bool(bool),
    U64(u64),
    I64(i64),
    U128(u128),
    I128(i128),
    F64(f64),
    Str,
}

fn resolve(v: &str) -> Resolved {
    // Only these can start a null, a boolean or a (finite) number.
    if !matches!(
        v.as_bytes().first(),
        None | Some(b'0'..=b'9' | b'+' | b'-' | b'.' | b'~' | b'n' | b'N' | b't' | b'T' | b'f' | b'F')
    ) {
        return Resolved::Str;
    }
    if v.is_empty() || matches!(v, "~" | "null" | "Null" | "NULL") {
        return Resolved::Null;
    }
    match v {
        "true" | "True" | "TRUE" => return Resolved::Bool(true),
        "false" | "False" | "FALSE" => return Resolved::Bool(false),
        _ => {}
    }
    if let Some(i) = parse_unsigned(v, u64::from_str_radix) {
        return Resolved::U64(i);
    }
    if let Some(i) = parse_negative(v, i64::from_str_radix) {
        return Resolved::I64(i);
    }
    if let Some(i) = parse_unsigned(v, u128::from_str_radix) {
        return Resolved::U128(i);
    }
    if let Some(i) = parse_negative(v, i128::from_str_radix) {
        return Resolved::I128(i);
    }
    if !digits_but_not_number(v) {
        if let Some(f) = parse_f64(v) {
            return Resolved::F64(f);
        }
    }
    Resolved::Str
}

type Radix<T> = fn(&str, u32) -> Result<T, std::num::ParseIntError>;

fn parse_unsigned<T>(v: &str, radix: Radix<T>) -> Option<T> {
    let unpositive = v.strip_prefix('+').unwrap_or(v);
    for (prefix, base) in [("0x", 16), ("0o", 8), ("0b", 2)] {
        if let Some(rest) = unpositive.strip_prefix(prefix) {
            if rest.starts_with(['+', '-']) {
                return None;
            }
            if let Ok(i) = radix(rest, base) {
                return Some(i);
            }
        }
    }
    if unpositive.starts_with(['+', '-']) || digits_but_not_number(v) {
        return None;
    }
    radix(unpositive, 10).ok()
}

fn parse_negative<T>(v: &str, radix: Radix<T>) -> Option<T> {
    for (prefix, base) in [("-0x", 16), ("-0o", 8), ("-0b", 2)] {
        if let Some(rest) = v.strip_prefix(prefix) {
            if let Ok(i) = radix(&format!("-{rest}"), base) {
                return Some(i);
            }
        }
    }
    if digits_but_not_number(v) {
        return None;
    }
    radix(v, 10).ok()
}

fn parse_f64(v: &str) -> Option<f64> {
    let unpositive = match v.strip_prefix('+') {
        Some(u) if u.starts_with(['+', '-']) => return None,
        Some(u) => u,
        None => v,
    };
    if matches!(unpositive, ".inf" | ".Inf" | ".INF") {
        return Some(f64::INFINITY);
    }
    if matches!(v, "-.inf" | "-.Inf" | "-.INF") {
        return Some(f64::NEG_INFINITY);
    }
    if matches!(v, ".nan" | ".NaN" | ".NAN") {
        return Some(f64::NAN.copysign(1.0));
    }
    match unpositive.parse::<f64>() {
        Ok(f) if f.is_finite() => Some(f),
        _ => None,
    }
}

fn digits_but_not_number(v: &str) -> bool {
    let v = v.strip_prefix(['-', '+']).unwrap_or(v);
    matches!(v.as_bytes(), [b'0', rest @ ..] if !rest.is_empty() && rest.iter().all(u8::is_ascii_digit))
}

/// A scalar, as serde_yaml hands scalars to visitors.
enum Scalar<'a> {
    /// Plain: resolved by `deserialize_any`, text for `deserialize_str`.
    Plain(&'a str),
    /// Quoted or block: always a string.
    Text(Cow<'a, str>),
}

fn visit_text<'a, V: Visitor<'a>>(text: Cow<'a, str>, visitor: V) -> R<V::Value> {
    match text {
        Cow::Borrowed(s) => visitor.visit_borrowed_str(s),
        Cow::Owned(s) => visitor.visit_string(s),
    }
}

impl<'a> Scalar<'a> {
    fn is_null(&self) -> bool {
        matches!(self, Scalar::Plain(t) if resolve(t) == Resolved::Null)
    }
}

/// What every deserializer here answers as serde_yaml's does: strings and
/// identifiers are `str`, structs maps, tuples sequences, newtypes their
/// content; numbers and the rest go through `deserialize_any`.
macro_rules! as_serde_yaml {
    () => {
        fn deserialize_string<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
            self.deserialize_str(visitor)
        }

        fn deserialize_identifier<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
            self.deserialize_str(visitor)
        }

        fn deserialize_struct<V: Visitor<'a>>(
            self,
            _: &'static str,
            _: &'static [&'static str],
            visitor: V,
        ) -> R<V::Value> {
            self.deserialize_map(visitor)
        }

        fn deserialize_tuple<V: Visitor<'a>>(self, _: usize, visitor: V) -> R<V::Value> {
            self.deserialize_seq(visitor)
        }

        fn deserialize_newtype_struct<V: Visitor<'a>>(self, _: &'static str, visitor: V) -> R<V::Value> {
            visitor.visit_newtype_struct(self)
        }

        serde::forward_to_deserialize_any! {
            <W: Visitor<'a>>
            i8 i16 i32 i64 i128 u8 u16 u32 u64 u128 f32 f64 char bytes byte_buf unit_struct
            tuple_struct enum
        }
    };
}

impl<'a> Deserializer<'a> for Scalar<'a> {
    type Error = Declined;

    as_serde_yaml!();

    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self {
            Scalar::Plain(t) => match resolve(t) {
                Resolved::Null => visitor.visit_unit(),
                Resolved::Bool(b) => visitor.visit_bool(b),
                Resolved::U64(i) => visitor.visit_u64(i),
                Resolved::I64(i) => visitor.visit_i64(i),
                Resolved::U128(i) => visitor.visit_u128(i),
                Resolved::I128(i) => visitor.visit_i128(i),
                Resolved::F64(f) => visitor.visit_f64(f),
                Resolved::Str => visitor.visit_borrowed_str(t),
            },
            Scalar::Text(t) => visit_text(t, visitor),
        }
    }

    fn deserialize_str<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self {
            Scalar::Plain(t) => visitor.visit_borrowed_str(t),
            Scalar::Text(t) => visit_text(t, visitor),
        }
    }

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        if self.is_null() {
            visitor.visit_none()
        } else {
            visitor.visit_some(self)
        }
    }

    fn deserialize_unit<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        if self.is_null() {
            visitor.visit_unit()
        } else {
            Err(Declined)
        }
    }

    fn deserialize_bool<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self {
            Scalar::Plain(t) => match t {
                "true" | "True" | "TRUE" => visitor.visit_bool(true),
                "false" | "False" | "FALSE" => visitor.visit_bool(false),
                _ => Err(Declined),
            },
            Scalar::Text(_) => Err(Declined),
        }
    }

    fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self {
            Scalar::Plain("") => visitor.visit_seq(Empty),
            _ => Err(Declined),
        }
    }

    fn deserialize_map<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self {
            Scalar::Plain("") => visitor.visit_map(Empty),
            _ => Err(Declined),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        visitor.visit_unit()
    }
}

/// An empty sequence or mapping (`key:` with nothing, read as a list or map).
struct Empty;

impl<'a> SeqAccess<'a> for Empty {
    type Error = Declined;
    fn next_element_seed<T: DeserializeSeed<'a>>(&mut self, _: T) -> R<Option<T::Value>> {
        Ok(None)
    }
}

impl<'a> MapAccess<'a> for Empty {
    type Error = Declined;
    fn next_key_seed<K: DeserializeSeed<'a>>(&mut self, _: K) -> R<Option<K::Value>> {
        Ok(None)
    }
    fn next_value_seed<V: DeserializeSeed<'a>>(&mut self, _: V) -> R<V::Value> {
        Err(Declined)
    }
}

/// Where a node starts.
#[derive(Clone, Copy, Debug)]
enum Pos<'a> {
    /// On the line of its key or dash (already consumed), at column `col`;
    /// `parent` is the key's or dash's indentation; `dash`: after a `- `.
    Inline { text: &'a str, col: usize, parent: usize, dash: bool },
    /// On the lines below, indented deeper than `parent`; or, where
    /// `compact`, a block sequence at `parent` itself (`key:\n- a`).
    Below { parent: usize, compact: bool },
}

struct De<'a, 'l> {
    text: &'a str,
    lines: &'l [Line<'a>],
    /// The next line to read.
    i: usize,
    depth: usize,
    /// The anchored nodes read so far (see [`Node::read`]).
    anchors: Vec<Anchor<'a>>,
    /// Reading an anchored node (or replaying one for an alias): no anchor
    /// or alias may stand in it.
    in_anchor: bool,
    /// Bytes replayed for aliases so far: past
    /// [`super::yaml::MAX_EXPANSION`], the document is declined, and
    /// serde_yaml's path refuses it if its aliases expand it past its limit.
    /// (That limit counts a node and each byte of a string: at most twice
    /// the bytes they are written in, so no document the fast path reads is
    /// one that path would refuse.)
    replayed: usize,
}

/// A node with an anchor (`key: &name` and the block node below), once
/// read: its lines are `start..end`, below a key at column `parent`.
#[derive(Clone, Copy, Debug)]
struct Anchor<'a> {
    name: &'a str,
    start: usize,
    parent: usize,
    end: usize,
}

/// An anchor's name as libyaml scans one (letters, digits, `_`, `-`), and
/// nothing after it on the line.
fn anchor_name(text: &str) -> R<&str> {
    let name = text.get(1..).ok_or(Declined)?;
    let ok = !name.is_empty() && name.bytes().all(|c| c.is_ascii_alphanumeric() || c == b'_' || c == b'-');
    if ok {
        Ok(name)
    } else {
        Err(Declined)
    }
}

/// What a node turned out to be.
enum Kind<'a> {
    Scalar(Scalar<'a>),
    /// A flow collection on one line, read by serde_yaml on its own.
    Flow(&'a str),
    /// A block sequence whose entries are at `indent`; `compact`: at its
    /// key's own indentation.
    Seq {
        indent: usize,
        compact: bool,
    },
    /// A block mapping whose keys are at `indent`; `first`: its first key
    /// is on a sequence entry's dash line (`- key: value`), already read.
    Map {
        indent: usize,
        first: Option<Line<'a>>,
    },
}

impl<'a> De<'a, '_> {
    fn peek(&self) -> Option<Line<'a>> {
        self.lines.get(self.i).copied()
    }

    /// Find out what the node at `pos` is, consuming its lines if it is a
    /// scalar. `build`: the caller wants a scalar's value (else it only
    /// checks it).
    fn classify(&mut self, pos: Pos<'a>, build: bool) -> R<Kind<'a>> {
        match pos {
            Pos::Below { parent, compact } => {
                let Some(line) = self.peek() else { return Ok(Kind::Scalar(Scalar::Plain(""))) };
                let deeper = parent == usize::MAX || line.indent > parent;
                if deeper && is_dash(line.text) {
                    Ok(Kind::Seq { indent: line.indent, compact: false })
                } else if deeper {
                    // A mapping; a line that is not `key: …` (a scalar on its
                    // own line) is declined when it is read as a key.
                    Ok(Kind::Map { indent: line.indent, first: None })
                } else if compact && line.indent == parent && is_dash(line.text) {
                    Ok(Kind::Seq { indent: parent, compact: true })
                } else {
                    Ok(Kind::Scalar(Scalar::Plain("")))
                }
            }
            Pos::Inline { text, col, parent, dash } => {
                let text = value_text(text);
                match text.as_bytes().first() {
                    None => self.classify(Pos::Below { parent, compact: false }, build),
                    Some(b'-') if is_dash(text) => Err(Declined),
                    Some(b'"' | b'\'') => {
                        let (value, rest) = quoted(text).ok_or(Declined)?;
                        if !rest.is_empty() {
                            // `- "a": b` is a compact mapping; anything else is not YAML.
                            return if dash && rest.starts_with(':') { self.compact(col) } else { Err(Declined) };
                        }
                        Ok(Kind::Scalar(Scalar::Text(value)))
                    }
                    Some(b'[' | b'{') => {
                        let end = flow_end(text, MAX_DEPTH.saturating_sub(self.depth)).ok_or(Declined)?;
                        let (flow, rest) = text.split_at_checked(end).ok_or(Declined)?;
                        let trimmed = rest.trim_start_matches(' ');
                        if !(trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())) {
                            return Err(Declined);
                        }
                        Ok(Kind::Flow(flow))
                    }
                    Some(b'|' | b'>') => self.block_scalar(text, parent, build).map(|s| Kind::Scalar(Scalar::Text(s))),
                    _ if dash && split_key(text).is_some() => self.compact(col),
                    _ => {
                        let (value, comment) = plain(text).ok_or(Declined)?;
                        let mut folded = false;
                        while let Some(line) = self.peek().filter(|l| l.indent > parent) {
                            // A continuation line of a multi-line plain scalar.
                            if comment || line.after_comment || build || !continuation_ok(line.text) {
                                return Err(Declined);
                            }
                            folded = true;
                            self.i += 1;
                        }
                        debug_assert!(!folded || !build);
                        Ok(Kind::Scalar(Scalar::Plain(value)))
                    }
                }
            }
        }
    }

    /// `- key: value`: a mapping whose first key is on the dash line, at `col`.
    fn compact(&mut self, col: usize) -> R<Kind<'a>> {
        let line = self.i.checked_sub(1).and_then(|h| self.lines.get(h)).copied().ok_or(Declined)?;
        let text = col.checked_sub(line.indent).and_then(|c| line.text.get(c..)).ok_or(Declined)?;
        Ok(Kind::Map { indent: col, first: Some(Line { indent: col, text, start: line.start, after_comment: false }) })
    }

    /// A literal or folded block scalar whose header is `header`; its
    /// content is on the raw lines below (blank and comment-like lines
    /// included). Returns the value (empty unless `build`).
    fn block_scalar(&mut self, header: &str, parent: usize, build: bool) -> R<Cow<'a, str>> {
        let (literal, chomp) = block_header(header)?;
        // The header's line is the one before `self.i`.
        let header_line = self.i.checked_sub(1).and_then(|h| self.lines.get(h)).copied().ok_or(Declined)?;
        let text = self.text;
        let after_header = text.as_bytes().get(header_line.start..).ok_or(Declined)?;
        let Some(nl) = memchr::memchr(b'\n', after_header).map(|n| header_line.start + n) else {
            return Ok(Cow::Borrowed("")); // the document ends on the header line
        };
        let block = block_lines(text, nl + 1, parent)?;
        // Skip the lines the scalar covers.
        while self.peek().is_some_and(|l| l.start < block.end) {
            self.i += 1;
        }
        if !build {
            return Ok(Cow::Borrowed(""));
        }
        block_value(text, &block, literal, chomp)
    }

    fn enter(&mut self) -> R<()> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(Declined);
        }
        Ok(())
    }
}

/// A block scalar's header (`|`, `>-`, `|+ # comment`): literal or folded,
/// and its chomping (`c` for clip, `+` keep, `-` strip). An indentation
/// indicator is declined.
fn block_header(header: &str) -> R<(bool, char)> {
    let literal = header.starts_with('|');
    let mut chomp = 'c';
    let mut rest = header.get(1..).ok_or(Declined)?;
    if let Some(c) = rest.chars().next().filter(|c| matches!(c, '+' | '-')) {
        chomp = c;
        rest = rest.get(1..).ok_or(Declined)?;
    }
    if rest.starts_with(|c: char| c.is_ascii_digit()) {
        return Err(Declined); // an explicit indentation indicator
    }
    let trimmed = rest.trim_start_matches(' ');
    if !(trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())) {
        return Err(Declined);
    }
    Ok((literal, chomp))
}

/// The raw lines of a block scalar.
struct BlockLines {
    /// Each line: start, end (without `\r`), whether blank.
    pieces: Vec<(usize, usize, bool)>,
    /// The content's indentation (`None`: blank lines only).
    indent: Option<usize>,
    /// Where the block ends (the first line after it).
    end: usize,
    /// Its last line ends with a line break.
    ended_with_break: bool,
}

/// The lines of a block scalar from `pos` (the line after its header), in
/// a mapping or sequence at column `parent` (`usize::MAX`: the top level).
fn block_lines(text: &str, mut pos: usize, parent: usize) -> R<BlockLines> {
    let b = text.as_bytes();
    let parent_indent = if parent == usize::MAX { 0 } else { parent + 1 };
    let mut max_leading_blank = 0;
    let mut block = BlockLines { pieces: Vec::new(), indent: None, end: text.len(), ended_with_break: false };
    while pos < text.len() {
        let line_end = b.get(pos..).and_then(|rest| memchr::memchr(b'\n', rest)).map_or(text.len(), |n| pos + n);
        let mut raw = text.get(pos..line_end).ok_or(Declined)?;
        raw = raw.strip_suffix('\r').unwrap_or(raw);
        let body = raw.trim_start_matches(' ');
        let indent = raw.len() - body.len();
        if body.starts_with('\t') {
            return Err(Declined);
        }
        let blank = body.is_empty();
        match block.indent {
            None if blank => max_leading_blank = max_leading_blank.max(indent),
            None => {
                if indent < parent_indent {
                    block.end = pos;
                    break;
                }
                if max_leading_blank > indent {
                    return Err(Declined);
                }
                block.indent = Some(indent);
            }
            Some(n) if blank && indent > n => return Err(Declined),
            Some(n) if !blank && indent < n => {
                if indent >= parent_indent {
                    return Err(Declined); // less indented than the content, more than the parent
                }
                block.end = pos;
                break;
            }
            Some(_) => {}
        }
        block.pieces.push((pos, pos + raw.len(), blank));
        block.ended_with_break = line_end < text.len();
        pos = line_end + 1;
    }
    if block.indent.is_none() && max_leading_blank >= parent_indent && parent_indent > 0 {
        return Err(Declined); // blank lines only, some indented: left to serde_yaml
    }
    Ok(block)
}

/// A block scalar's value: its lines, literal or folded, chomped.
fn block_value<'a>(text: &str, block: &BlockLines, literal: bool, chomp: char) -> R<Cow<'a, str>> {
    let pieces = &block.pieces;
    let Some(n) = block.indent else {
        return if chomp == '+' && !pieces.is_empty() { Err(Declined) } else { Ok(Cow::Borrowed("")) };
    };
    // Content lines up to the last non-blank one; trailing blank lines after.
    let last = pieces.iter().rposition(|p| !p.2).ok_or(Declined)?;
    let trailing = pieces.len() - 1 - last;
    let break_after_last = last + 1 < pieces.len() || block.ended_with_break || block.end < text.len();
    let mut out = String::new();
    let mut prev_blank_run = 0usize;
    let mut seen_text = false;
    for &(s, e, blank) in pieces.get(..=last).ok_or(Declined)? {
        if blank {
            prev_blank_run += 1;
            if literal {
                out.push('\n');
            }
            continue;
        }
        let line = text.get(s + n..e).ok_or(Declined)?;
        if literal {
            if seen_text {
                out.push('\n');
            }
            out.push_str(line);
        } else {
            if line.starts_with([' ', '\t']) {
                return Err(Declined); // more-indented lines in a folded scalar
            }
            if seen_text && prev_blank_run == 0 {
                out.push(' ');
            } else {
                out.extend(std::iter::repeat_n('\n', prev_blank_run));
            }
            out.push_str(line);
        }
        seen_text = true;
        prev_blank_run = 0;
    }
    if chomp != '-' && break_after_last {
        out.push('\n');
    }
    if chomp == '+' {
        out.extend(std::iter::repeat_n('\n', trailing));
    }
    Ok(Cow::Owned(out))
}

/// Can this line continue a multi-line plain scalar as serde_yaml reads it?
fn continuation_ok(text: &str) -> bool {
    let Some(&first) = text.as_bytes().first() else { return false };
    let first_ok = !matches!(
        first,
        b'-' | b'?'
            | b':'
            | b','
            | b'['
            | b']'
            | b'{'
            | b'}'
            | b'#'
            | b'&'
            | b'*'
            | b'!'
            | b'|'
            | b'>'
            | b'\''
            | b'"'
            | b'%'
            | b'@'
            | b'`'
    );
    let b = text.as_bytes();
    first_ok && colon_space(b).is_none() && space_hash(b).is_none() && !b.contains(&b'\t')
}

/// The end of the flow collection at the start of `text`, if it closes on
/// this line, nests at most `max_depth` deep, and holds nothing the fast
/// path leaves to serde_yaml as a whole (anchors, aliases, tags).
fn flow_end(text: &str, max_depth: usize) -> Option<usize> {
    let b = text.as_bytes();
    let mut depth = 0usize;
    let mut i = 0;
    while let Some(&c) = b.get(i) {
        match c {
            b'"' | b'\'' => {
                i += quoted_end(text.get(i..)?)?;
                continue;
            }
            b'[' | b'{' => {
                depth += 1;
                if depth > max_depth {
                    return None;
                }
            }
            b']' | b'}' => {
                depth = depth.checked_sub(1)?;
                if depth == 0 {
                    return Some(i + 1);
                }
            }
            b'&' | b'*' | b'!' | b'#' | b'\t' => return None,
            _ => {}
        }
        i += 1;
    }
    None
}

/// Is `text` a flow collection that ends on this line, with nothing but a
/// comment after it?
fn flow_on_one_line(text: &str) -> bool {
    let Some(end) = flow_end(text, MAX_DEPTH) else { return false };
    let Some(rest) = text.get(end..) else { return false };
    let trimmed = rest.trim_start_matches(' ');
    trimmed.is_empty() || (trimmed.starts_with('#') && trimmed.len() < rest.len())
}

/// A node of the document, for a visitor.
struct Node<'a, 'd, 'l> {
    de: &'d mut De<'a, 'l>,
    pos: Pos<'a>,
}

/// A node once classified.
struct Classified<'a, 'd, 'l> {
    de: &'d mut De<'a, 'l>,
    kind: Kind<'a>,
}

impl<'a, 'd, 'l> Node<'a, 'd, 'l> {
    fn classify(self, build: bool) -> R<Classified<'a, 'd, 'l>> {
        let kind = self.de.classify(self.pos, build)?;
        Ok(Classified { de: self.de, kind })
    }

    /// Read the node with `f`. Anchors and aliases are read in the form
    /// PyYAML's dumper writes them, and only so: `key: &name` alone on its
    /// line, anchoring the block mapping or sequence indented below it;
    /// `key: *name` or `- *name`, alone, after that node and outside it;
    /// each name anchored once; no anchor or alias inside an anchored node.
    /// An alias is read as serde_yaml reads it: the anchored node's lines
    /// again, in its place. Anything else with `&` or `*` is declined.
    fn read<T>(self, build: bool, f: impl FnOnce(Classified<'a, '_, 'l>) -> R<T>) -> R<T> {
        let Pos::Inline { text, parent, dash, .. } = self.pos else { return f(self.classify(build)?) };
        let text = value_text(text);
        let anchor = match text.as_bytes().first() {
            Some(b'&') => true,
            Some(b'*') => false,
            _ => return f(self.classify(build)?),
        };
        let name = anchor_name(text)?;
        let de = self.de;
        if de.in_anchor {
            return Err(Declined);
        }
        if anchor {
            let start = de.i;
            let below = de.peek().is_some_and(|l| l.indent > parent);
            if dash || !below || de.anchors.iter().any(|a| a.name == name) {
                return Err(Declined);
            }
            de.in_anchor = true;
            let value = f(Node { de: &mut *de, pos: Pos::Below { parent, compact: false } }.classify(build)?)?;
            de.in_anchor = false;
            de.anchors.push(Anchor { name, start, parent, end: de.i });
            return Ok(value);
        }
        let a = de.anchors.iter().find(|a| a.name == name).copied().ok_or(Declined)?;
        let bytes = |i: usize| de.lines.get(i).map_or(de.text.len(), |l| l.start);
        de.replayed = de.replayed.saturating_add(bytes(a.end).saturating_sub(bytes(a.start)));
        if de.replayed > super::yaml::MAX_EXPANSION {
            return Err(Declined);
        }
        let mut again = De {
            text: de.text,
            lines: de.lines,
            i: a.start,
            depth: de.depth,
            anchors: Vec::new(),
            in_anchor: true,
            replayed: 0,
        };
        let value = f(Node { de: &mut again, pos: Pos::Below { parent: a.parent, compact: false } }.classify(build)?)?;
        if again.i != a.end {
            return Err(Declined);
        }
        Ok(value)
    }
}

macro_rules! classified {
    ($($method:ident),*) => {
        $(fn $method<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
            self.read(true, |node| node.$method(visitor))
        })*
    };
}

impl<'a> Deserializer<'a> for Node<'a, '_, '_> {
    type Error = Declined;

    as_serde_yaml!();

    classified!(
        deserialize_any,
        deserialize_str,
        deserialize_option,
        deserialize_unit,
        deserialize_bool,
        deserialize_seq,
        deserialize_map
    );

    fn deserialize_ignored_any<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        self.read(false, |node| node.deserialize_ignored_any(visitor))
    }
}

impl<'a> Classified<'a, '_, '_> {
    fn seq<V: Visitor<'a>>(self, indent: usize, compact: bool, visitor: V) -> R<V::Value> {
        self.de.enter()?;
        let mut seq = Seq { de: &mut *self.de, indent, compact };
        let value = visitor.visit_seq(&mut seq)?;
        while seq.next_element::<IgnoredAny>()?.is_some() {}
        self.de.depth -= 1;
        Ok(value)
    }

    fn map<V: Visitor<'a>>(self, indent: usize, first: Option<Line<'a>>, visitor: V) -> R<V::Value> {
        self.de.enter()?;
        let mut map = Map { de: &mut *self.de, indent, first, value: None };
        let value = visitor.visit_map(&mut map)?;
        while map.next_key::<IgnoredAny>()?.is_some() {
            map.next_value::<IgnoredAny>()?;
        }
        self.de.depth -= 1;
        Ok(value)
    }
}

/// Hand a flow collection to serde_yaml, calling the same method.
macro_rules! flow {
    ($text:expr, |$de:ident| $call:expr) => {{
        let $de = super::yaml::fragment($text);
        $call.map_err(|_| Declined)
    }};
}

impl<'a> Deserializer<'a> for Classified<'a, '_, '_> {
    type Error = Declined;

    as_serde_yaml!();

    fn deserialize_any<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self.kind {
            Kind::Scalar(s) => s.deserialize_any(visitor),
            Kind::Flow(t) => flow!(t, |de| de.deserialize_any(visitor)),
            Kind::Seq { indent, compact } => self.seq(indent, compact, visitor),
            Kind::Map { indent, first } => self.map(indent, first, visitor),
        }
    }

    fn deserialize_str<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self.kind {
            Kind::Scalar(s) => s.deserialize_str(visitor),
            _ => Err(Declined),
        }
    }

    fn deserialize_option<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self.kind {
            Kind::Scalar(s) => s.deserialize_option(visitor),
            _ => visitor.visit_some(self),
        }
    }

    fn deserialize_unit<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self.kind {
            Kind::Scalar(s) => s.deserialize_unit(visitor),
            _ => Err(Declined),
        }
    }

    fn deserialize_bool<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self.kind {
            Kind::Scalar(s) => s.deserialize_bool(visitor),
            _ => Err(Declined),
        }
    }

    fn deserialize_seq<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self.kind {
            Kind::Scalar(s) => s.deserialize_seq(visitor),
            Kind::Flow(t) => flow!(t, |de| de.deserialize_seq(visitor)),
            Kind::Seq { indent, compact } => self.seq(indent, compact, visitor),
            Kind::Map { .. } => Err(Declined),
        }
    }

    fn deserialize_map<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self.kind {
            Kind::Scalar(s) => s.deserialize_map(visitor),
            Kind::Flow(t) => flow!(t, |de| de.deserialize_map(visitor)),
            Kind::Map { indent, first } => self.map(indent, first, visitor),
            Kind::Seq { .. } => Err(Declined),
        }
    }

    fn deserialize_ignored_any<V: Visitor<'a>>(self, visitor: V) -> R<V::Value> {
        match self.kind {
            Kind::Scalar(_) => visitor.visit_unit(),
            Kind::Flow(t) => flow!(t, |de| de.deserialize_ignored_any(visitor)),
            Kind::Seq { indent, compact } => self.seq(indent, compact, visitor),
            Kind::Map { indent, first } => self.map(indent, first, visitor),
        }
    }
}

/// The entries of a block sequence.
struct Seq<'a, 'd, 'l> {
    de: &'d mut De<'a, 'l>,
    indent: usize,
    compact: bool,
}

impl<'a> SeqAccess<'a> for Seq<'a, '_, '_> {
    type Error = Declined;

    fn next_element_seed<T: DeserializeSeed<'a>>(&mut self, seed: T) -> R<Option<T::Value>> {
        let Some(line) = self.de.peek() else { return Ok(None) };
        if line.indent < self.indent {
            return Ok(None);
        }
        if line.indent > self.indent {
            return Err(Declined);
        }
        if !is_dash(line.text) {
            // The mapping a compact sequence is the value of goes on.
            return if self.compact { Ok(None) } else { Err(Declined) };
        }
        self.de.i += 1;
        let after = line.text.get(1..).ok_or(Declined)?.trim_start_matches(' ');
        let pos = if value_text(after).is_empty() {
            Pos::Below { parent: self.indent, compact: false }
        } else {
            let col = line.indent + (line.text.len() - after.len());
            Pos::Inline { text: after, col, parent: self.indent, dash: true }
        };
        seed.deserialize(Node { de: &mut *self.de, pos }).map(Some)
    }
}

/// The entries of a block mapping.
struct Map<'a, 'd, 'l> {
    de: &'d mut De<'a, 'l>,
    indent: usize,
    /// The first key's line, when it is on a sequence entry's dash line.
    first: Option<Line<'a>>,
    value: Option<Pos<'a>>,
}

impl<'a> MapAccess<'a> for Map<'a, '_, '_> {
    type Error = Declined;

    fn next_key_seed<K: DeserializeSeed<'a>>(&mut self, seed: K) -> R<Option<K::Value>> {
        let line = match self.first.take() {
            Some(line) => line,
            None => {
                let Some(line) = self.de.peek() else { return Ok(None) };
                if line.indent < self.indent {
                    return Ok(None);
                }
                if line.indent > self.indent || is_dash(line.text) {
                    return Err(Declined);
                }
                self.de.i += 1;
                line
            }
        };
        let (key, rest) = split_key(line.text).ok_or(Declined)?;
        let key = match key.as_bytes().first() {
            None => return Err(Declined),
            Some(b'"' | b'\'') => Scalar::Text(quoted(key).ok_or(Declined)?.0),
            _ if key == "<<" => return Err(Declined), // a merge key: serde_yaml merges
            _ => Scalar::Plain(key),
        };
        let rest = value_text(rest);
        self.value = Some(if rest.is_empty() {
            Pos::Below { parent: self.indent, compact: true }
        } else {
            let col = line.indent + (line.text.len() - rest.len());
            Pos::Inline { text: rest, col, parent: self.indent, dash: false }
        });
        seed.deserialize(key).map(Some)
    }

    fn next_value_seed<V: DeserializeSeed<'a>>(&mut self, seed: V) -> R<V::Value> {
        let pos = self.value.take().ok_or(Declined)?;
        seed.deserialize(Node { de: &mut *self.de, pos })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn both(text: &str) -> (R<serde_yaml::Value>, Result<serde_yaml::Value, String>) {
        let fast = Doc::document(text).ok_or(Declined).and_then(|d| d.parse::<serde_yaml::Value>());
        let slow = serde_yaml::from_str::<serde_yaml::Value>(text).map_err(|e| e.to_string());
        (fast, slow)
    }

    #[track_caller]
    fn same(text: &str) {
        match both(text) {
            (Ok(f), Ok(s)) => assert_eq!(f, s, "{text:?}"),
            (Ok(f), Err(e)) => panic!("fast path read {f:?} where serde_yaml fails ({e}): {text:?}"),
            (Err(_), _) => panic!("fast path declined {text:?}"),
        }
    }

    #[track_caller]
    fn declines(text: &str) {
        match both(text) {
            (Err(_), _) => {}
            (Ok(f), s) => panic!("fast path read {f:?} (serde_yaml: {s:?}): {text:?}"),
        }
    }

    #[test]
    fn reads_block_structure() {
        for text in [
            "a: 1\nb:\n  c: x\n  d:\n  - 1\n  - two\n",
            "a:\n- b\nc: 1\n",
            "- a: 1\n  b: 2\n- c\n-\n  d: e\n",
            "a: b # c\nd: 'e''f' # g\nh: \"i\\tj\"\n",
            "a: {}\nb: []\nc: [x, {y: z}]\nd: {e: [f]}\n",
            "k: 0x1F\nl: 007\nm: 1e3\nn: .inf\no: ~\np: True\nq: 1_000\n",
            "'q': 1\n\"r\\u00e9\": 2\n",
            "a: :x\nb: x#y\nc: -x\n",
        ] {
            same(text);
        }
    }

    /// Multi-line plain scalars are checked and skipped, not built.
    #[test]
    fn skips_multi_line_plain_scalars() {
        #[derive(serde::Deserialize, Debug, PartialEq)]
        struct Z {
            z: Option<serde_yaml::Value>,
        }
        for text in ["a: b\n  c\n   d\nz: 1\n", "a: b\n\n\n  c\n  d\nz: 1\n", "- a\n  b\n"] {
            let fast = Doc::document(text).unwrap().parse::<serde::de::IgnoredAny>();
            assert!(fast.is_ok(), "{text:?}");
            if text.starts_with('a') {
                let fast: Z = Doc::document(text).unwrap().parse().unwrap();
                let slow: Z = serde_yaml::from_str(text).unwrap();
                assert_eq!(fast, slow);
            }
        }
        declines("a: b\n  c\n");
    }

    #[test]
    fn reads_block_scalars() {
        for text in [
            "a: |\n  x\n\n  y\nb: 1\n",
            "a: |-\n  x\n\n",
            "a: |+\n  x\n\n\nb: 1\n",
            "a: >\n\n  x\n  y\n\n\n  z\n",
            "a: >-\n  x\n  y",
            "a: |\n  x",
            "a: |\nb: 1\n",
            "a: |\n  x\n  # not a comment\nb: 2\n",
            "- |\n  x\n- y\n",
            "a:\n- |\n  x\n  y\n- >\n  z\n",
            "a: |  # c\n  x\n",
            "a: |\n\n\n  x\n",
        ] {
            same(text);
        }
    }

    #[test]
    fn never_accepts_what_yaml_rejects() {
        for text in [
            "a: x\n- b\n",
            "k: *nope\n",
            "k: a: b\n",
            "k: \"a\" b\n",
            "a: b\n  c: d\n",
            "a: b # c\n  d\n",
            "a: b\n  # c\n  d\n",
            "a:\n  - b\n - c\n",
            "a: \"x\\q\"\n",
            "a: [a: b: c]\n",
            "a: [b, c] x\n",
            "a: x:\n",
            "a: - x\n",
            "a: ? x\n",
            "a: |\n    x\n  y\n",
            "a: |\n   \n  x\n",
            "a: | x\n",
            "a: \"x\"\n  y\n",
            "a: 1\rb: 2\n",
            "a: x\u{7f}\n",
            "a: \u{85}b\n",
            "a: 1\na: 2\n",
            "<<: {a: 1}\n",
            "a: &x 1\nb: *x\n",
            "a:\n  - \"x\"\n\t\nb: c\n",
            "a: b\n\t# c\nd: e\n",
            "a: b\n  \t\nd: e\n",
            "a: !!str 1\n",
        ] {
            declines(text);
        }
    }

    /// A flow collection that runs over lines is no key's whole value on
    /// its line: the outline leaves the document to serde_yaml (found by
    /// the `fast_yaml` fuzz target: the keys it had read into the flow's
    /// second line were taken for the document's).
    #[test]
    fn outlines_no_flow_collection_that_runs_on() {
        for text in
            ["apiVersion: v1\nmetadata: {name: a,\nkind: Secret}\n", "a: [1,\n  b: 2]\n", "a: {x: \"y\nb: z\"}\n"]
        {
            assert!(Doc::document(text).and_then(|d| d.outline()).is_none(), "{text:?}");
        }
        let o = Doc::document("a: {x: 1} # c\nb: [1, [2]]\n").unwrap().outline().unwrap();
        assert_eq!(o.members.iter().map(|m| &m.value).collect::<Vec<_>>(), [&Value::Map, &Value::Seq]);
    }

    /// A quoted scalar or flow collection below a key that runs on over
    /// lines is skipped to where it closes, as serde_yaml reads it,
    /// whatever the indentation of the lines it runs over (found by the
    /// `fast_yaml` fuzz target: `applications:` at column 0 inside an
    /// annotation's value was taken for a top-level key). One that does not
    /// close, or is followed by more than a comment, is left to serde_yaml;
    /// a block scalar's lines are text.
    #[test]
    fn outlines_over_values_below_that_run_on() {
        let keys = |text: &str| {
            Doc::document(text)
                .and_then(|d| d.outline())
                .map(|o| o.members.iter().map(|m| m.key.to_string()).collect::<Vec<_>>())
        };
        for (text, want) in [
            ("metadata:\n  note: \"one\nkind: Secret\n  two\"\nspec: {}\n", &["metadata", "spec"][..]),
            ("metadata:\n  note: 'one\nkind: Secret'\n", &["metadata"]),
            ("metadata:\n  - \"one\nkind: Secret\"\n", &["metadata"]),
            ("metadata:\n  labels: {a: b,\nkind: Secret} # c\nspec: 1\n", &["metadata", "spec"]),
            (
                "metadata:\n  note: |\n    say \"one\n    ['two\n  done: \"a\\\"b\" # c\nspec: {x: [1]}\n",
                &["metadata", "spec"],
            ),
        ] {
            assert_eq!(keys(text), Some(want.iter().map(|k| k.to_string()).collect()), "{text:?}");
        }
        // The mapping under a key: its lines end where the value that runs
        // on closes (the fuzz target's input: `name` after it was lost).
        let text = "metadata:\n  managedFields:\n  - time: \"a\nkind: Secret\n    b\"\n  name: x\nspec: 1\n";
        let d = Doc::document(text).unwrap();
        let o = d.outline().unwrap();
        assert_eq!(o.members.iter().map(|m| &*m.key).collect::<Vec<_>>(), ["metadata", "spec"]);
        let m = d.child_outline(o.member("metadata").unwrap().at.clone()).unwrap();
        assert_eq!(m.members.iter().map(|m| &*m.key).collect::<Vec<_>>(), ["managedFields", "name"]);
        assert_eq!(m.str("name"), Some("x"));
        for text in [
            "metadata:\n  note: \"one\nkind: Secret\n",
            "metadata:\n  note: \"one\nkind\" x\nspec: 1\n",
            "metadata:\n  labels: {a: b, # c\nkind: Secret}\n",
        ] {
            assert_eq!(keys(text), None, "{text:?}");
        }
    }

    #[test]
    fn ascii_check_agrees_with_bytes() {
        let naive = |b: &[u8]| b.iter().all(|&c| c == b'\n' || (0x20..0x7f).contains(&c));
        let mut seed = 7u64;
        for len in 0..200 {
            for _ in 0..50 {
                let b: Vec<u8> = (0..len)
                    .map(|_| {
                        seed = seed.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                        match (seed >> 33) % 10 {
                            0 => b'\n',
                            1 => (seed >> 40) as u8,
                            _ => b'a' + ((seed >> 40) % 26) as u8,
                        }
                    })
                    .collect();
                assert_eq!(ascii_text(&b), naive(&b), "{b:?}");
            }
        }
        for c in [0u8, 9, 13, 0x1f, 0x7f, 0x80, 0xff] {
            assert!(!ascii_text(&[b'a', b'b', c, b'\n', b'x', b'y', b'z', b'w', b'v']));
        }
    }

    #[test]
    fn entries_read_their_node() {
        let d = Doc::entry("  - apiVersion: v1\n    kind: Pod\n").unwrap();
        let v: serde_yaml::Value = d.parse().unwrap();
        assert_eq!(v["kind"], serde_yaml::Value::String("Pod".into()));
        let d = Doc::entry("-\n  kind: Pod\n").unwrap();
        let v: serde_yaml::Value = d.parse().unwrap();
        assert_eq!(v["kind"], serde_yaml::Value::String("Pod".into()));
        let d = Doc::entry("- just text\n").unwrap();
        let v: serde_yaml::Value = d.parse().unwrap();
        assert_eq!(v, serde_yaml::Value::String("just text".into()));
    }

    #[test]
    fn outlines_top_level_keys() {
        let d = Doc::document("apiVersion: v1\nkind: \"PodList\"\nmetadata:\n  name: x\nitems:\n- a: 1\nspec: 1\n")
            .unwrap();
        let o = d.outline().unwrap();
        assert_eq!(o.str("kind"), Some("PodList"));
        assert!(matches!(o.get("items"), Some(Value::Seq)));
        assert!(matches!(o.get("spec"), Some(Value::Other)));
        assert!(matches!(o.get("metadata"), Some(Value::Map)));
        let m = d.child_outline(o.member("metadata").unwrap().at.clone()).unwrap();
        assert_eq!(m.str("name"), Some("x"));
    }

    /// A Deployment as scripts/gen_cluster.py (PyYAML's safe dumper)
    /// writes it: labels anchored once, aliased twice.
    const GENERATED_DEPLOYMENT: &str = "apiVersion: apps/v1\nkind: Deployment\nmetadata:\n  name: svc0\n  namespace: team-0\n  labels: &id001\n    app: svc0\nspec:\n  replicas: 3\n  selector:\n    matchLabels: *id001\n  template:\n    metadata:\n      labels: *id001\n    spec:\n      containers:\n      - name: svc0\n        image: x:v1\n";

    #[test]
    fn reads_the_generators_deployment() {
        same(GENERATED_DEPLOYMENT);
        let doc = Doc::document(GENERATED_DEPLOYMENT).unwrap();
        let kube = doc.parse::<crate::dialect::kubernetes::RawObject>().unwrap();
        let slow = serde_yaml::from_str::<crate::dialect::kubernetes::RawObject>(GENERATED_DEPLOYMENT).unwrap();
        assert_eq!(format!("{kube:?}"), format!("{slow:?}"));
        doc.parse::<IgnoredAny>().unwrap();
    }

    #[test]
    fn anchors_a_block_mapping_or_sequence_below_its_key() {
        same("a: &x\n  k: v\nb: *x\n");
        same("a: &x\n  - 1\n  - k: v\nb: *x\n");
        same("a: &x-1_y\n  k: v\nb:\n  c: *x-1_y\n");
        // Read where the anchor is and where the alias is, at other depths.
        same("top:\n  deep:\n    a: &x\n      k: [1, 2]\n      s: |\n        text\nb:\n- *x\n- c: *x\n");
    }

    #[test]
    fn declines_other_anchors() {
        declines("a: &x v\nb: *x\n"); // on a scalar
        declines("a: &x\n- 1\nb: *x\n"); // a sequence at the key's column
        declines("a: &x\nb: *x\n"); // on nothing (null)
        declines("a: &x # c\n  k: v\nb: *x\n"); // a comment after it
        declines("a:\n- &x\n  k: v\n- *x\n"); // on a sequence entry
        declines("a: &x {k: v}\nb: *x\n"); // on a flow collection
        declines("a: &x |\n  t\nb: *x\n"); // on a block scalar
        declines("a: &x!\n  k: v\nb: *x!\n"); // a name libyaml does not scan so
    }

    #[test]
    fn an_alias_is_alone_and_after_its_anchor() {
        same("a: &x\n  k: v\nb: *x\nc:\n- *x\n- *x\n");
        declines("b: *x\na: &x\n  k: v\n"); // before it
        declines("a: &x\n  k: v\nb: *y\n"); // unknown
        declines("a: &x\n  k: v\nb: *x # c\n");
        declines("a: &x\n  k: v\nb: *x y\n");
        declines("a: &x\n  k: v\nb: *x\n  c: d\n"); // lines below the alias
        declines("a: &x\n  k: v\n*x: b\n"); // an alias as a key
        declines("a: &x\n  k: v\nb:\n  <<: *x\n"); // a merge key
    }

    #[test]
    fn a_name_is_anchored_once_and_nothing_nests() {
        declines("a: &x\n  k: v\nb: &x\n  k: w\nc: *x\n"); // redefined
        declines("a: &x\n  k: &y\n    j: v\nb: *x\n"); // an anchor in an anchored node
        declines("a: &x\n  k: v\nb: &y\n  j: *x\nc: *y\n"); // an alias in one
        declines("a: &x\n  k: *x\n"); // its own alias
    }

    #[test]
    fn aliases_are_held_to_what_the_type_says() {
        // Duplicate keys through an alias: serde_yaml refuses, so must the fast path.
        declines("a: &x\n  k: v\nb:\n  k: w\nb: *x\n");
        // A string where the anchored node is a mapping.
        assert!(Doc::document("a: &x\n  k: v\nname: *x\n")
            .unwrap()
            .parse::<std::collections::BTreeMap<String, String>>()
            .is_err());
        // Only skipped: the alias must still name a node.
        assert!(Doc::document("a: &x\n  k: v\nb: *y\n").unwrap().parse::<IgnoredAny>().is_err());
        Doc::document("a: &x\n  k: v\nb: *x\n").unwrap().parse::<IgnoredAny>().unwrap();
    }

    #[test]
    fn aliases_replay_at_most_the_expansion_limit() {
        // An anchored node of 100 lines (1,000 bytes: `  - k0000\n`), aliased `m` times.
        let doc = |m: usize| {
            let items: String = (0..100).map(|i| format!("  - k{i:04}\n")).collect();
            format!("a: &x\n{items}b:\n{}", "- *x\n".repeat(m))
        };
        // 1,000 aliases replay 1,000,000 bytes: read.
        let text = doc(1000);
        assert_eq!(text.find("b:").map(|b| b - "a: &x\n".len()), Some(1000));
        same(&text);
        // One more: past super::yaml::MAX_EXPANSION, declined (serde_yaml's path decides).
        declines(&doc(1001));
    }

    #[test]
    fn an_entry_reads_only_its_own_anchors() {
        let e = Doc::entry("- a: &x\n    k: v\n  b: *x\n").unwrap();
        let v = e.parse::<serde_yaml::Value>().unwrap();
        assert_eq!(v, serde_yaml::from_str::<serde_yaml::Value>("a: {k: v}\nb: {k: v}\n").unwrap());
        assert!(Doc::entry("- b: *x\n").unwrap().parse::<serde_yaml::Value>().is_err());
    }
}
