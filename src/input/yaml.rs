//! The one module that parses YAML with serde_yaml. serde_yaml is archived
//! upstream; replacing it means changing this file alone.
//!
//! What it adds to serde_yaml: merge keys (`<<`) are applied, as kubectl
//! applies them; documents nested deeper than [`MAX_NESTING`] are refused
//! before the parser sees them (its scanner takes time quadratic in the
//! depth of flow collections); documents whose aliases expand them out of
//! proportion to their text are refused (`aliases`); errors carry their
//! offset and whether the text is not YAML at all (a syntax error) or only
//! not what was asked for.

use serde::de::{DeserializeOwned, IgnoredAny};

/// How deeply collections may nest in a YAML document (block and flow
/// levels together). Real manifests nest a few dozen levels.
pub const MAX_NESTING: usize = 512;

/// Why a YAML document could not be read.
#[derive(Debug, Clone)]
pub struct Error {
    /// serde_yaml's message, without its "at line L column C" (the caller
    /// points at the place instead).
    pub message: String,
    /// Byte offset of the problem in the parsed text, when known.
    pub offset: Option<usize>,
    /// The text is not YAML (as opposed to YAML of another shape).
    pub syntax: bool,
}

/// Read `text` (one YAML document) as `T`.
pub fn from_str<T: DeserializeOwned>(text: &str) -> Result<T, Error> {
    guard(text)?;
    if has_merge_key(text) {
        return merged(text);
    }
    serde_yaml::from_str(text).map_err(|e| error(text, &e))
}

/// Whether `text` is one YAML document, whatever it holds.
pub fn check(text: &str) -> Result<(), Error> {
    guard(text)?;
    serde_yaml::from_str::<IgnoredAny>(text).map(|_| ()).map_err(|e| error(text, &e))
}

/// A deserializer over a small piece of YAML (a flow collection the fast
/// path hands over, written on one line).
pub(super) fn fragment(text: &str) -> serde_yaml::Deserializer<'_> {
    serde_yaml::Deserializer::from_str(text)
}

/// Whether `text` may hold a merge key: `<<` (perhaps quoted) before a `:`.
/// (A heredoc in a script, `<<EOF`, is not one.)
fn has_merge_key(text: &str) -> bool {
    memchr::memmem::find_iter(text.as_bytes(), b"<<").any(|i| {
        // `<<` is two bytes of ASCII: `i + 2` is a character boundary.
        let rest = text.get(i + 2..).unwrap_or_default();
        rest.trim_start_matches(['"', '\'']).trim_start_matches(' ').starts_with(':')
    })
}

/// With merge keys applied: through serde_yaml's value tree, which loses
/// error positions (the caller points at the document).
fn merged<T: DeserializeOwned>(text: &str) -> Result<T, Error> {
    let mut value: serde_yaml::Value = serde_yaml::from_str(text).map_err(|e| error(text, &e))?;
    value.apply_merge().map_err(|e| Error { message: clean(&e.to_string()), offset: None, syntax: false })?;
    T::deserialize(value).map_err(|e| Error { message: clean(&e.to_string()), offset: None, syntax: false })
}

fn error(text: &str, e: &serde_yaml::Error) -> Error {
    let mut message = clean(&e.to_string());
    let mut offset = e.location().map(|l| l.index().min(text.len()));
    // The reader's own errors (a control character, say) give a position
    // in the text rather than a location.
    if let Some((before, at)) = message.rsplit_once(" at position ") {
        if let Ok(at) = at.parse::<usize>() {
            offset = Some(at.min(text.len()));
            message = before.to_string();
        }
    }
    let syntax = serde_yaml::from_str::<IgnoredAny>(text).is_err();
    Error { message, offset, syntax }
}

/// Refuse what nests deeper than [`MAX_NESTING`].
fn guard(text: &str) -> Result<(), Error> {
    if let Some(offset) = nesting(text) {
        return Err(Error {
            message: format!("collections nest deeper than {MAX_NESTING} levels"),
            offset: Some(offset),
            syntax: true,
        });
    }
    aliases(text)
}

/// Refuse a document whose aliases expand it out of proportion to its
/// text (an alias bomb, or one large node aliased many times), wherever
/// they are. serde_yaml expands an alias only where a type reads it, so a
/// bomb under a field no dialect reads would be read in no time and let
/// through; it is refused instead, as kubectl (whose YAML reader refuses
/// "excessive aliasing") would refuse it. Only a document that may hold
/// both an anchor and an alias is walked to find out ([`walk`]): kubectl
/// never writes either.
fn aliases(text: &str) -> Result<(), Error> {
    let b = text.as_bytes();
    // `&name` or `*name` where a node can start (after white space, a
    // flow indicator, or where the scan cannot tell).
    let token = |c: u8| {
        memchr::memchr_iter(c, b).any(|i| {
            let before = i.checked_sub(1).and_then(|j| b.get(j)).copied();
            let after = b.get(i + 1).copied();
            matches!(before, None | Some(b' ' | b'\t' | b'\r' | b'\n' | b'[' | b',' | b'{' | b'-' | b':' | b'?'))
                && after.is_some_and(|a| !a.is_ascii_whitespace() && !matches!(a, b',' | b']' | b'}'))
        })
    };
    if !(token(b'&') && token(b'*')) {
        return Ok(());
    }
    walk(text, budget(text.len()))
}

/// What aliases may expand a YAML document to, in [`walk`]'s units (a
/// node, and a byte of a string), beyond twice its size in bytes (which no
/// document without aliases reaches: a node takes at least two thirds of a
/// byte of text, `[?,?]`, and a string no more bytes than are written).
/// Past it, the document is refused: the expansion could take time and
/// memory out of proportion to the input.
pub const MAX_EXPANSION: usize = 1_000_000;

/// [`walk`]'s budget for a document of `len` bytes.
fn budget(len: usize) -> usize {
    len.saturating_add(MAX_EXPANSION).saturating_mul(2)
}

/// Walk `text` as a type that reads every field would, aliases expanded,
/// keeping nothing; refuse it when it holds more than `budget` units (one
/// for each node and for each byte of each string), or when serde_yaml's
/// own limits stop the walk: more than 100 jumps to anchors an event of
/// the document, or collections nested deeper than 128 levels (a deeper
/// nest would hide the aliases after it from the walk; the fast path
/// leaves any nest deeper than 100 to serde_yaml).
fn walk(text: &str, budget: usize) -> Result<(), Error> {
    let walk = Walk { left: std::cell::Cell::new(budget), over: std::cell::Cell::new(false) };
    match serde::de::DeserializeSeed::deserialize(&walk, serde_yaml::Deserializer::from_str(text)) {
        Ok(()) => Ok(()),
        Err(_) if walk.over.get() => Err(Error {
            message: format!(
                "repetition limit exceeded: with its aliases expanded, the document holds more than {budget} nodes and bytes of strings (twice its size in bytes plus {})",
                2 * MAX_EXPANSION
            ),
            // (Where the walk stopped is inside some anchored node, not at
            // an alias: the caller points at the document.)
            offset: None,
            syntax: true,
        }),
        Err(e) => {
            let message = clean(&e.to_string());
            if message.starts_with("repetition limit exceeded") || message.starts_with("recursion limit exceeded") {
                return Err(Error { message, offset: None, syntax: true });
            }
            // Anything else: the parse that follows says what is wrong.
            Ok(())
        }
    }
}

/// A walk over a YAML document that follows every alias, as a type that
/// reads every field would, and keeps nothing: each node visited (aliases
/// expanded) and each byte of each string takes one from `left`, and the
/// walk fails (`over`) when too few are left. (serde's `IgnoredAny` skips
/// an alias without following it, so it could not see a bomb;
/// `serde_yaml::Value` would hold the expansion.)
struct Walk {
    left: std::cell::Cell<usize>,
    over: std::cell::Cell<bool>,
}

impl Walk {
    fn take<E: serde::de::Error>(&self, units: usize) -> Result<(), E> {
        match self.left.get().checked_sub(units) {
            Some(left) => {
                self.left.set(left);
                Ok(())
            }
            None => {
                self.over.set(true);
                Err(E::custom("over the budget"))
            }
        }
    }
    fn node<E: serde::de::Error>(&self) -> Result<(), E> {
        self.take(1)
    }
}

/// A tag (`!t`, as serde_yaml hands it over: a string): one unit, however
/// long a `%TAG` directive makes it.
struct Tag<'w>(&'w Walk);

impl<'de> serde::de::DeserializeSeed<'de> for Tag<'_> {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_str(self)
    }
}

impl<'de> serde::de::Visitor<'de> for Tag<'_> {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("a tag")
    }

    fn visit_str<E: serde::de::Error>(self, _: &str) -> Result<(), E> {
        self.0.node()
    }
}

impl<'de> serde::de::DeserializeSeed<'de> for &Walk {
    type Value = ();

    fn deserialize<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
}

impl<'de> serde::de::Visitor<'de> for &Walk {
    type Value = ();

    fn expecting(&self, f: &mut std::fmt::Formatter) -> std::fmt::Result {
        f.write_str("any YAML node")
    }

    fn visit_bool<E: serde::de::Error>(self, _: bool) -> Result<(), E> {
        self.node()
    }
    fn visit_i64<E: serde::de::Error>(self, _: i64) -> Result<(), E> {
        self.node()
    }
    fn visit_i128<E: serde::de::Error>(self, _: i128) -> Result<(), E> {
        self.node()
    }
    fn visit_u64<E: serde::de::Error>(self, _: u64) -> Result<(), E> {
        self.node()
    }
    fn visit_u128<E: serde::de::Error>(self, _: u128) -> Result<(), E> {
        self.node()
    }
    fn visit_f64<E: serde::de::Error>(self, _: f64) -> Result<(), E> {
        self.node()
    }
    fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<(), E> {
        self.take(v.len().saturating_add(1))
    }
    fn visit_unit<E: serde::de::Error>(self) -> Result<(), E> {
        self.node()
    }
    fn visit_none<E: serde::de::Error>(self) -> Result<(), E> {
        self.node()
    }
    fn visit_some<D: serde::Deserializer<'de>>(self, d: D) -> Result<(), D::Error> {
        d.deserialize_any(self)
    }
    fn visit_seq<A: serde::de::SeqAccess<'de>>(self, mut seq: A) -> Result<(), A::Error> {
        self.node()?;
        while seq.next_element_seed(self)?.is_some() {}
        Ok(())
    }
    fn visit_map<A: serde::de::MapAccess<'de>>(self, mut map: A) -> Result<(), A::Error> {
        self.node()?;
        while map.next_key_seed(self)?.is_some() {
            map.next_value_seed(self)?;
        }
        Ok(())
    }
    fn visit_enum<A: serde::de::EnumAccess<'de>>(self, data: A) -> Result<(), A::Error> {
        // A tagged node (`!tag value`): the tag, then the value.
        use serde::de::VariantAccess;
        let ((), value) = data.variant_seed(Tag(self))?;
        value.newtype_variant_seed(self)
    }
}

/// Where the nesting of `text` first exceeds [`MAX_NESTING`], if it does:
/// indentation levels of block collections plus open flow brackets. A
/// scan, not a parse: quotes and comments are recognised where a token can
/// start, block scalars are skipped, a bracket counts where a flow
/// collection can start. It may count a little more than a parser would
/// (a continuation line of a plain scalar), never hundreds of levels more.
fn nesting(text: &str) -> Option<usize> {
    let b = text.as_bytes();
    let mut indents: Vec<usize> = Vec::new();
    let mut flow = 0usize;
    let mut block_scalar: Option<usize> = None;
    let mut open_quote: Option<u8> = None;
    let mut pos = 0;
    while pos < b.len() {
        let rest = b.get(pos..).unwrap_or_default();
        let end = memchr::memchr(b'\n', rest).map_or(b.len(), |n| pos + n);
        let line = rest.get(..end - pos).unwrap_or_default();
        let indent = line.iter().take_while(|&&c| c == b' ').count();
        let body = line.get(indent..).unwrap_or_default();
        let blank = body.iter().all(|c| c.is_ascii_whitespace());
        if let Some(header) = block_scalar {
            if blank || indent > header {
                pos = end + 1;
                continue;
            }
            block_scalar = None;
        }
        let mut i = 0;
        if let Some(q) = open_quote {
            // A quoted scalar that runs over lines: to its closing quote.
            match closing(body, 0, q) {
                Some(j) => {
                    open_quote = None;
                    i = j + 1;
                }
                None => {
                    pos = end + 1;
                    continue;
                }
            }
        } else {
            if blank || body.first() == Some(&b'#') {
                pos = end + 1;
                continue;
            }
            if flow == 0 {
                while indents.last().is_some_and(|&top| top >= indent) {
                    indents.pop();
                }
                indents.push(indent);
            }
        }
        let mut depth = indents.len();
        // Compact nested sequences (`- - - a`) open a level each.
        while flow == 0 && body.get(i) == Some(&b'-') && body.get(i + 1) == Some(&b' ') {
            depth += 1;
            i += 2;
            while body.get(i) == Some(&b' ') {
                i += 1;
            }
        }
        let mut token_start = true;
        while let Some(&c) = body.get(i) {
            match c {
                b'"' | b'\'' if token_start => match closing(body, i + 1, c) {
                    Some(j) => {
                        i = j + 1;
                        token_start = false;
                        continue;
                    }
                    None => {
                        open_quote = Some(c);
                        break;
                    }
                },
                b'#' if token_start || i.checked_sub(1).and_then(|k| body.get(k)) == Some(&b' ') => break,
                b'[' | b'{' if token_start => {
                    flow += 1;
                    if depth + flow > MAX_NESTING {
                        return Some(pos + indent + i);
                    }
                }
                b']' | b'}' if flow > 0 => flow -= 1,
                b'|' | b'>' if token_start && flow == 0 => {
                    block_scalar = Some(indent);
                    break;
                }
                _ => {}
            }
            token_start = matches!(c, b' ' | b',' | b'[' | b'{');
            i += 1;
        }
        if depth + flow > MAX_NESTING {
            return Some(pos + indent);
        }
        pos = end + 1;
    }
    None
}

/// The closing `quote` in `body` from `from` (a double quote may be
/// escaped; a single quote is doubled to stand for itself).
fn closing(body: &[u8], from: usize, quote: u8) -> Option<usize> {
    let mut j = from;
    while let Some(&c) = body.get(j) {
        if quote == b'"' && c == b'\\' {
            j += 2;
            continue;
        }
        if c == quote {
            if quote == b'\'' && body.get(j + 1) == Some(&b'\'') {
                j += 2;
                continue;
            }
            return Some(j);
        }
        j += 1;
    }
    None
}

/// serde_yaml's message without the position it appends (the caller
/// points at it).
fn clean(message: &str) -> String {
    let mut m = message.to_string();
    let mut from = 0;
    // Every offset below follows ASCII text: a character boundary.
    while let Some(i) = m.get(from..).and_then(|rest| rest.find(" at line ")).map(|i| from + i) {
        let rest = m.get(i + " at line ".len()..).unwrap_or_default();
        let digits = |s: &str| s.bytes().take_while(u8::is_ascii_digit).count();
        let l = digits(rest);
        match rest.get(l..).and_then(|rest| rest.strip_prefix(" column ")) {
            Some(c) if l > 0 && digits(c) > 0 => {
                let end = i + " at line ".len() + l + " column ".len() + digits(c);
                m.replace_range(i..end, "");
            }
            _ => from = i + 1,
        }
    }
    m
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn merge_keys_are_applied() {
        let v: serde_yaml::Value = from_str("base: &b {x: 1}\nm:\n  <<: *b\n  y: 2\n").unwrap();
        assert_eq!(v["m"]["x"], serde_yaml::Value::from(1));
    }

    #[test]
    fn deep_nesting_is_refused_quickly() {
        let deep = format!("a: {}{}\n", "[".repeat(100_000), "]".repeat(100_000));
        let t = std::time::Instant::now();
        let e = from_str::<serde_yaml::Value>(&deep).unwrap_err();
        assert!(e.syntax && e.message.contains("deeper than 512"), "{e:?}");
        assert!(t.elapsed().as_millis() < 500);
        let block: String = (0..600).map(|i| format!("{}k{i}:\n", " ".repeat(i))).collect();
        assert!(from_str::<serde_yaml::Value>(&block).unwrap_err().message.contains("deeper"));
        // Brackets in quotes, comments and block scalars are text.
        let text = format!("a: '{}'\nb: |\n  {}\nc: 1 # {}\n", "[".repeat(600), "{".repeat(600), "[".repeat(600));
        assert!(from_str::<serde_yaml::Value>(&text).is_ok());
    }

    /// A document whose anchored node of `k` strings is aliased `m` times,
    /// in flow form (which the fast path leaves to serde_yaml).
    fn wide(k: usize, m: usize) -> String {
        let items: Vec<String> = (0..k).map(|i| format!("s{i}")).collect();
        format!("big: &big [{}]\nuses:\n{}", items.join(", "), "- *big\n".repeat(m))
    }

    #[test]
    fn aliases_are_followed_and_bounded_by_what_they_expand_to() {
        // 1,000 strings aliased 100 times: 100,000 nodes, within the limit.
        assert!(from_str::<serde_yaml::Value>(&wide(1000, 100)).is_ok());
        // Aliased 2,000 times: 2 million nodes (3.8 million units) from 21 kB
        // of text: refused, where serde_yaml's own limit (2,000 jumps
        // against 100 an event) lets it through.
        let text = wide(1000, 2000);
        let e = from_str::<serde_yaml::Value>(&text).unwrap_err();
        assert!(e.syntax && e.message.starts_with("repetition limit exceeded: with its aliases expanded"), "{e:?}");
        // Also when no type would read the aliases (`check`), and with a tab
        // before each alias (where libyaml skips white space in a flow).
        assert!(check(&text).unwrap_err().message.contains("with its aliases expanded"));
        let tabs = text.replace("- *big", "- [\t*big]");
        assert!(check(&tabs).unwrap_err().message.contains("with its aliases expanded"), "{tabs:.80}");
        // Aliases inside an aliased node are followed too: 200 aliases of ten
        // aliases of 1,000 strings (2 million nodes, 2,200 jumps).
        let items = ["x"; 1000].join(", ");
        let nested =
            format!("a0: &a0 [{items}]\na1: &a1 [{}]\nuses:\n{}", ["*a0"; 10].join(", "), "- *a1\n".repeat(200));
        assert!(from_str::<serde_yaml::Value>(&nested).unwrap_err().message.contains("with its aliases expanded"));
        // A bomb meets serde_yaml's own limit first (more than 100 jumps an event).
        let mut bomb = String::from("a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n");
        for i in 1..10 {
            bomb.push_str(&format!("a{i}: &a{i} [{}]\n", vec![format!("*a{}", i - 1); 10].join(", ")));
        }
        assert_eq!(from_str::<serde_yaml::Value>(&bomb).unwrap_err().message, "repetition limit exceeded");
        // A tagged node is walked to its value.
        let tagged = format!("big: &big !t [{}]\nuses:\n{}", ["x"; 1000].join(", "), "- *big\n".repeat(2000));
        assert!(from_str::<serde_yaml::Value>(&tagged).unwrap_err().message.contains("with its aliases expanded"));
    }

    #[test]
    fn a_long_string_counts_by_its_bytes() {
        // 100 kB aliased 30 times: 31 nodes, but 3 MB of strings (past twice
        // the text's 100 kB plus 2,000,000).
        let text = format!("b: &b {}\nu: [{}]\n", "x".repeat(100_000), ["*b"; 30].join(", "));
        assert!(from_str::<serde_yaml::Value>(&text).unwrap_err().message.contains("with its aliases expanded"));
        // 15 times: 1.5 MB, within it.
        let text = format!("b: &b {}\nu: [{}]\n", "x".repeat(100_000), ["*b"; 15].join(", "));
        assert!(from_str::<serde_yaml::Value>(&text).is_ok());
    }

    #[test]
    fn the_walk_takes_its_budget_to_the_unit() {
        // A mapping, `a` (2), a sequence, `x` (2), `y` (2): 8 units.
        assert!(walk("a: [x, y]", 8).is_ok());
        assert!(walk("a: [x, y]", 7).is_err());
        // An alias counts as what it stands for: a mapping, `a`, `x`, `b`
        // and `x` again: 9.
        assert!(walk("a: &x x\nb: *x", 9).is_ok());
        assert!(walk("a: &x x\nb: *x", 8).is_err());
        // Its limits on documents without aliases: twice their size, plus the expansion.
        assert_eq!(budget(10), 2 * (10 + MAX_EXPANSION));
        let flow = format!("[{}]", vec!["?"; 1000].join(","));
        assert!(walk(&flow, 2 * flow.len()).is_ok(), "`[?,?]` takes 1.5 units a byte");
    }

    #[test]
    fn aliases_past_serde_yamls_nesting_limit_are_refused() {
        // 130 levels (serde_yaml stops at 128), then an alias: the walk
        // cannot reach it, so the document is refused, also where no type
        // reads the nest (`check`: serde skips it without a limit).
        let deep = format!("a: &x 1\nd: {}1{}\nb: *x\n", "[".repeat(130), "]".repeat(130));
        assert!(check(&deep).unwrap_err().message.starts_with("recursion limit exceeded"));
        // Without aliases, the walk is not made.
        let deep = format!("d: {}1{}\n", "[".repeat(130), "]".repeat(130));
        assert!(aliases(&deep).is_ok());
    }

    #[test]
    fn errors_have_offsets_and_kinds() {
        let e = from_str::<serde_yaml::Value>("a: b\nc: [\n").unwrap_err();
        assert!(e.syntax && e.offset.is_some());
        let e = from_str::<Vec<String>>("a: b\n").unwrap_err();
        assert!(!e.syntax, "{e:?}");
    }
}
