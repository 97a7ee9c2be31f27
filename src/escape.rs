//! Text from the input, made safe to print: the one place every text
//! output (tables, trees, diagnostics and their snippets, warnings,
//! errors, script comments, DOT and Mermaid labels, `apply`'s lines)
//! escapes what it quotes from the input.
//!
//! A name, a file name or a line of a file may hold characters a terminal
//! or a log viewer acts on instead of showing: a carriage return sends the
//! cursor back to the start of the line (so that `delete` is overwritten
//! by `keep`), an escape starts a command (colours, a cleared screen, a
//! hidden text), a line break starts a line of the attacker's making, a
//! bidirectional override shows the text that follows backwards. Each is
//! written as an escape instead, as `ls -b` and ripgrep's `grep-cli`
//! escape show them: `\r`, `\n`, `\t`, and `\u{…}` for the others (the
//! form Rust's `char::escape_default` writes). A backslash is written as it
//! is: names with one are rare, and text without any of these characters
//! is printed byte for byte as it was.
//!
//! Escaped: C0 controls and DEL (U+0000–U+001F, U+007F), C1 controls
//! (U+0080–U+009F, NEL among them), the bidirectional marks, embeddings,
//! overrides and isolates (U+061C, U+200E, U+200F, U+202A–U+202E,
//! U+2066–U+2069) and the Unicode line and paragraph separators (U+2028,
//! U+2029).

use std::borrow::Cow;

/// Is `c` written as an escape in text output?
pub fn needs(c: char) -> bool {
    c.is_control()
        || matches!(c, '\u{061C}' | '\u{200E}' | '\u{200F}' | '\u{202A}'..='\u{202E}' | '\u{2066}'..='\u{2069}')
        || matches!(c, '\u{2028}' | '\u{2029}')
}

/// Does `s` hold a character that [`escape`] writes as an escape?
pub fn any(s: &str) -> bool {
    // Printable ASCII, the usual case, in one pass without a branch a byte.
    if !s.bytes().fold(false, |odd, b| odd | !(0x20..0x7f).contains(&b)) {
        return false;
    }
    s.chars().any(needs)
}

/// Append the escape of `c` (see [`needs`]).
fn push_escaped(c: char, out: &mut String) {
    out.extend(c.escape_default());
}

/// `s` with every character [`needs`] says written as an escape; `s`
/// itself when it has none.
pub fn escape(s: &str) -> Cow<'_, str> {
    if !any(s) {
        return Cow::Borrowed(s);
    }
    let mut out = String::with_capacity(s.len() + 8);
    for c in s.chars() {
        if needs(c) {
            push_escaped(c, &mut out);
        } else {
            out.push(c);
        }
    }
    Cow::Owned(out)
}

/// [`escape`] for text of several lines (a snippet of a file): its line
/// breaks (`\n`, `\r\n`) and tabs stay as they are, every other character
/// [`needs`] says is escaped. With each escape, where it ends: the offset
/// after the character in `s` and after its escape in the result, so that
/// places in `s` can be found in it.
pub fn escape_lines(s: &str) -> (Cow<'_, str>, Vec<(usize, usize)>) {
    let keep = |c: char, next: Option<char>| c == '\n' || c == '\t' || (c == '\r' && next == Some('\n'));
    let mut chars = s.char_indices().peekable();
    let mut first = None;
    while let Some((i, c)) = chars.next() {
        if needs(c) && !keep(c, chars.peek().map(|&(_, n)| n)) {
            first = Some(i);
            break;
        }
    }
    let Some(first) = first else { return (Cow::Borrowed(s), Vec::new()) };
    let mut out = String::with_capacity(s.len() + 16);
    out.push_str(s.get(..first).unwrap_or_default());
    let mut at = Vec::new();
    let mut chars = s.get(first..).unwrap_or_default().char_indices().peekable();
    while let Some((i, c)) = chars.next() {
        if needs(c) && !keep(c, chars.peek().map(|&(_, n)| n)) {
            push_escaped(c, &mut out);
            at.push((first + i + c.len_utf8(), out.len()));
        } else {
            out.push(c);
        }
    }
    (Cow::Owned(out), at)
}

/// How many characters `s` takes once escaped (for column widths).
pub fn width(s: &str) -> usize {
    if !any(s) {
        return s.chars().count();
    }
    s.chars().map(|c| if needs(c) { c.escape_default().count() } else { 1 }).sum()
}

/// A word for bash that gives a command `s` as it is, written with no
/// character [`needs`] says: as it is when it is made of `[A-Za-z0-9._-]`,
/// else in single quotes (a single quote inside written `'\''`), or, when
/// it holds such a character, in ANSI-C quotes (`$'…'`, each of them as an
/// escape bash turns back into it).
pub fn shell_word(s: &str) -> Cow<'_, str> {
    let plain = |c: char| c.is_ascii_alphanumeric() || matches!(c, '.' | '_' | '-');
    if !s.is_empty() && s.chars().all(plain) {
        return Cow::Borrowed(s);
    }
    if !any(s) {
        return Cow::Owned(format!("'{}'", s.replace('\'', r"'\''")));
    }
    let mut out = String::from("$'");
    for c in s.chars() {
        match c {
            '\\' => out.push_str(r"\\"),
            '\'' => out.push_str(r"\'"),
            // bash's `\uHHHH` needs a UTF-8 locale; the bytes do not.
            c if needs(c) => {
                let mut bytes = [0; 4];
                for b in c.encode_utf8(&mut bytes).bytes() {
                    out.push_str(&format!("\\x{b:02x}"));
                }
            }
            c => out.push(c),
        }
    }
    out.push('\'');
    Cow::Owned(out)
}

/// A label for a DOT (Graphviz) string in double quotes: [`escape`]d,
/// then `\\` and `"` escaped as DOT reads them, so that the file stays valid
/// and holds no control character.
pub fn dot(s: &str) -> String {
    escape(s).replace('\\', "\\\\").replace('"', "\\\"")
}

/// A label for a Mermaid node in double quotes: [`escape`]d, then what
/// Mermaid or the HTML it makes would read as markup written as Mermaid's
/// entity codes (`#quot;`, `#lt;`, …; `#` first, so that no entity can be
/// written in the input).
pub fn mermaid(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    for c in escape(s).chars() {
        match c {
            '#' => out.push_str("#35;"),
            '"' => out.push_str("#quot;"),
            '<' => out.push_str("#lt;"),
            '>' => out.push_str("#gt;"),
            '&' => out.push_str("#amp;"),
            '`' => out.push_str("#96;"),
            c => out.push(c),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ordinary_text_is_itself() {
        for s in ["", "Pod/shop/web-1", "café", "a\\b", "名前", "ConfigMap/a b"] {
            assert!(matches!(escape(s), Cow::Borrowed(_)), "{s}");
            assert_eq!(width(s), s.chars().count());
        }
    }

    #[test]
    fn controls_bidi_and_separators_are_escaped() {
        assert_eq!(escape("web\r1  delete"), "web\\r1  delete");
        assert_eq!(escape("a\nb\tc"), "a\\nb\\tc");
        assert_eq!(escape("\u{1b}[2J\u{7f}\u{85}\u{9b}"), "\\u{1b}[2J\\u{7f}\\u{85}\\u{9b}");
        assert_eq!(escape("abc\u{202e}fed"), "abc\\u{202e}fed");
        assert_eq!(escape("\u{2066}x\u{2069}\u{200f}\u{61c}"), "\\u{2066}x\\u{2069}\\u{200f}\\u{61c}");
        assert_eq!(escape("a\u{2028}b\u{2029}"), "a\\u{2028}b\\u{2029}");
        assert_eq!(width("a\rb"), 4);
        assert_eq!(width("\u{202e}"), escape("\u{202e}").chars().count());
        for c in (0..0x20).chain(0x7f..0xa0).filter_map(char::from_u32) {
            assert!(needs(c), "{c:?}");
            assert!(!escape(&c.to_string()).chars().any(|e| e.is_control()), "{c:?}");
        }
    }

    #[test]
    fn lines_keep_their_breaks_and_say_where_escapes_are() {
        let (text, at) = escape_lines("a: 1\r\nb: x\ry\n\tc: \u{1b}\n");
        assert_eq!(text, "a: 1\r\nb: x\\ry\n\tc: \\u{1b}\n");
        assert_eq!(at, vec![(11, 12), (18, 24)]);
        let (text, at) = escape_lines("plain\r\n");
        assert!(matches!(text, Cow::Borrowed(_)) && at.is_empty());
    }

    #[test]
    fn dot_and_mermaid_labels_hold_no_markup_and_no_control_character() {
        assert_eq!(dot("Pod/a"), "Pod/a");
        assert_eq!(dot("a\"b\\c\nd"), "a\\\"b\\\\c\\\\nd");
        assert_eq!(mermaid("Pod/a"), "Pod/a");
        assert_eq!(
            mermaid("<img src=x onerror=alert(1)>\"#quot;`&\r"),
            "#lt;img src=x onerror=alert(1)#gt;#quot;#35;quot;#96;#amp;\\r"
        );
    }

    #[test]
    fn shell_words_hold_no_control_character() {
        assert_eq!(shell_word("web-1"), "web-1");
        assert_eq!(shell_word("a b'c"), r"'a b'\''c'");
        assert_eq!(shell_word("a\rb'\\"), r"$'a\x0db\'\\'");
        assert_eq!(shell_word("x\u{202e}"), r"$'x\xe2\x80\xae'");
    }
}
