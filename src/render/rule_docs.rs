//! A rule's page (`docs/rules/TDxxx.md`, compiled in: one text, in the
//! repository and in the binary) as the help SARIF gives a rule: what it
//! finds, why it matters, how to fix or silence it; and the page's URL in
//! the repository Cargo.toml names (none when it names none: never a
//! made-up address).

use crate::findings::Rule;

/// The repository the rule pages are published in (Cargo.toml's
/// `repository`), if it names one.
pub fn repository() -> Option<&'static str> {
    Some(env!("CARGO_PKG_REPOSITORY")).map(|r| r.trim_end_matches('/')).filter(|r| !r.is_empty())
}

/// The rule's page, as written in `docs/rules/`.
pub fn page(rule: Rule) -> &'static str {
    match rule {
        Rule::Td001 => include_str!("../../docs/rules/TD001.md"),
        Rule::Td002 => include_str!("../../docs/rules/TD002.md"),
        Rule::Td003 => include_str!("../../docs/rules/TD003.md"),
        Rule::Td004 => include_str!("../../docs/rules/TD004.md"),
        Rule::Td005 => include_str!("../../docs/rules/TD005.md"),
        Rule::Td006 => include_str!("../../docs/rules/TD006.md"),
        Rule::Td007 => include_str!("../../docs/rules/TD007.md"),
        Rule::Td008 => include_str!("../../docs/rules/TD008.md"),
        Rule::Td009 => include_str!("../../docs/rules/TD009.md"),
        Rule::Td010 => include_str!("../../docs/rules/TD010.md"),
        Rule::Td011 => include_str!("../../docs/rules/TD011.md"),
        Rule::Td012 => include_str!("../../docs/rules/TD012.md"),
        Rule::Td013 => include_str!("../../docs/rules/TD013.md"),
        Rule::Td014 => include_str!("../../docs/rules/TD014.md"),
        Rule::Td015 => include_str!("../../docs/rules/TD015.md"),
        Rule::Td016 => include_str!("../../docs/rules/TD016.md"),
        Rule::Td017 => include_str!("../../docs/rules/TD017.md"),
        Rule::Td018 => include_str!("../../docs/rules/TD018.md"),
    }
}

/// Where the rule's page is: `REPOSITORY/blob/HEAD/docs/rules/TDxxx.md`
/// (the default branch), when the repository is known.
pub fn page_url(rule: Rule, repository: Option<&str>) -> Option<String> {
    repository.map(|r| format!("{r}/blob/HEAD/docs/rules/{}.md", rule.id()))
}

/// A rule's help, from its page.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Help {
    /// What it finds, as plain text.
    pub full: String,
    /// What it finds, why it matters, how to fix or silence it: plain text…
    pub text: String,
    /// …and Markdown, with the page's links made absolute (plain text
    /// without a repository).
    pub markdown: String,
}

const PARTS: [&str; 3] = ["What it finds", "Why it matters", "How to fix or silence it"];

/// The rule's help, its links resolved against `repository`.
pub fn help(rule: Rule, repository: Option<&str>) -> Help {
    let page = page(rule);
    // (The example is left out: "shown above" points at nothing here.)
    let parts: Vec<(&str, String)> =
        PARTS.iter().map(|&p| (p, section(page, p).replace(" (shown above)", ""))).collect();
    let plain = |s: &str| links(s, |_| None);
    let base = repository.map(|r| format!("{r}/blob/HEAD/docs/rules/"));
    let absolute = |s: &str| links(s, |target| base.as_deref().map(|b| resolve(b, target)));
    let full = parts.first().map(|(_, s)| plain(s)).unwrap_or_default();
    let text = parts.iter().map(|(p, s)| format!("{p}: {}", plain(s))).collect::<Vec<_>>().join("\n\n");
    let markdown = parts.iter().map(|(p, s)| format!("**{p}**\n\n{}", absolute(s))).collect::<Vec<_>>().join("\n\n");
    Help { full, text, markdown }
}

/// The text of the page's `## NAME` section, without the links between
/// pages (`[← TD001](TD001.md) · …`).
fn section(page: &str, name: &str) -> String {
    let head = format!("\n## {name}\n");
    let Some(at) = page.find(&head) else { return String::new() };
    let rest = page.get(at + head.len()..).unwrap_or("");
    let body = rest.find("\n## ").map_or(rest, |end| rest.get(..end).unwrap_or(rest));
    body.lines()
        .filter(|l| !l.starts_with("[← ") && !l.starts_with("[All rules]"))
        .collect::<Vec<_>>()
        .join("\n")
        .trim()
        .to_string()
}

/// `s` with each Markdown link `[text](target)` made `[text](URL)` where
/// `to` gives a URL for its target, else `text` alone.
fn links(s: &str, to: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(s.len());
    let mut rest = s;
    while let Some(open) = rest.find('[') {
        let (before, from) = rest.split_at(open);
        out.push_str(before);
        let link = from.find("](").and_then(|mid| {
            let text = from.get(1..mid)?;
            let after = from.get(mid + 2..)?;
            let close = after.find(')')?;
            Some((text, after.get(..close)?, after.get(close + 1..)?))
        });
        match link {
            Some((text, target, after)) if !text.contains('[') && !target.contains(char::is_whitespace) => {
                match to(target) {
                    Some(url) => out.push_str(&format!("[{text}]({url})")),
                    None => out.push_str(text),
                }
                rest = after;
            }
            _ => {
                out.push('[');
                rest = from.get(1..).unwrap_or("");
            }
        }
    }
    out.push_str(rest);
    out
}

/// A page's link target made absolute against `base` (the URL of the
/// rules' folder, ending in `/`): `../configuration.md#x` →
/// `…/docs/configuration.md#x`.
fn resolve(base: &str, target: &str) -> String {
    if target.contains("://") {
        return target.to_string();
    }
    let (path, anchor) = target.split_once('#').map_or((target, None), |(p, a)| (p, Some(a)));
    let mut url: Vec<&str> = base.trim_end_matches('/').split('/').collect();
    if path.is_empty() {
        // An anchor on the page itself: the page is the rule's own.
        return format!("{}#{}", base.trim_end_matches('/'), anchor.unwrap_or(""));
    }
    for part in path.split('/') {
        match part {
            "." | "" => {}
            ".." => {
                url.pop();
            }
            p => url.push(p),
        }
    }
    let mut s = url.join("/");
    if let Some(a) = anchor {
        s.push('#');
        s.push_str(a);
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_rule_has_help_from_its_page() {
        for rule in Rule::ALL {
            let h = help(rule, Some("https://example.com/o/teardown"));
            assert!(!h.full.is_empty() && !h.full.contains("](") && !h.full.contains("## "), "{rule}: {}", h.full);
            for p in PARTS {
                assert!(h.text.contains(p) && h.markdown.contains(p), "{rule}: no {p}");
            }
            assert!(!h.markdown.contains("[←") && !h.text.contains("[←"), "{rule}: the links between pages");
            assert!(
                !h.markdown.contains("](.") && !h.markdown.contains("](TD"),
                "{rule}: a relative link: {}",
                h.markdown
            );
        }
    }

    #[test]
    fn links_are_made_absolute_or_plain() {
        let base = "https://example.com/o/t/blob/HEAD/docs/rules/";
        let s = "in [`teardown.toml`](../configuration.md#finalizers) and [TD003](TD003.md), [x](https://a.b/c)";
        assert_eq!(
            links(s, |t| Some(resolve(base, t))),
            "in [`teardown.toml`](https://example.com/o/t/blob/HEAD/docs/configuration.md#finalizers) and [TD003](https://example.com/o/t/blob/HEAD/docs/rules/TD003.md), [x](https://a.b/c)"
        );
        assert_eq!(links(s, |_| None), "in `teardown.toml` and TD003, x");
        assert_eq!(links("a [b] c", |_| None), "a [b] c");
        assert_eq!(
            page_url(Rule::Td002, Some("https://example.com/o/t")).as_deref(),
            Some("https://example.com/o/t/blob/HEAD/docs/rules/TD002.md")
        );
        assert_eq!(page_url(Rule::Td002, None), None);
    }
}
