//! The words of the finding controls, as flags and teardown.toml write
//! them: lists of rules (`--select`, `--ignore`, `select`, `ignore`) and
//! what removes a finalizer (`external`, or a selector). `settings` combines
//! flags with the file (`config`) in these terms.

use crate::error::Error;
use crate::findings::{Rule, RuleSet};
use crate::select::Query;

/// What removes a finalizer.
#[derive(Clone, Debug)]
pub enum Remover {
    /// A controller outside the snapshot (`external`): nothing to order.
    External,
    /// The controllers of these objects: destroyed after every object
    /// carrying the finalizer.
    Objects(Query),
}

/// A `--finalizer-controller` value or a `[finalizer-controllers]` entry's:
/// `external`, or a selector.
pub fn remover(word: &str) -> Result<Remover, String> {
    if word == "external" {
        return Ok(Remover::External);
    }
    if word.eq_ignore_ascii_case("external") {
        return Err(format!(
            "`{word}`: write `external` (the controller is outside the snapshot), or a selector such as KIND/NAMESPACE/NAME"
        ));
    }
    match Query::new(std::slice::from_ref(&word.to_string()), None, None) {
        Ok(q) => Ok(Remover::Objects(q)),
        Err(e) => Err(e.to_string()),
    }
}

/// A list of rules as `--select`, `--ignore` or the settings file give it.
#[derive(Clone, Debug)]
pub struct RuleList {
    pub set: RuleSet,
    /// The rules named one by one (not through ALL), each with where it was
    /// named (a byte offset in the settings file, or 0).
    pub named: Vec<(Rule, usize)>,
}

impl Default for RuleList {
    fn default() -> RuleList {
        RuleList { set: RuleSet::NONE, named: Vec::new() }
    }
}

impl RuleList {
    /// Add the rules a word names: an id (any case), a name, or ALL.
    pub fn add(&mut self, word: &str, at: usize) -> Result<(), String> {
        if word.eq_ignore_ascii_case("ALL") {
            self.set = RuleSet::ALL;
            return Ok(());
        }
        match Rule::named(word) {
            Some(rule) => {
                self.set = self.set.with(rule);
                self.named.push((rule, at));
                Ok(())
            }
            None => {
                let words =
                    Rule::ALL.iter().flat_map(|r| [r.id().to_string(), r.name().to_string()]).chain(["ALL".into()]);
                let mut closest: Vec<String> = Vec::new();
                for w in crate::select::closest_words(word, words.collect()) {
                    let shown = match Rule::named(&w) {
                        Some(r) => format!("{} ({})", r.id(), r.name()),
                        None => w,
                    };
                    if !closest.contains(&shown) {
                        closest.push(shown);
                    }
                }
                Err(match closest.is_empty() {
                    true => format!(
                        "unknown rule `{word}`: rules are TD001–TD{:03} (by id or name, see the README's Rules) or ALL",
                        Rule::ALL.len()
                    ),
                    false => format!("unknown rule `{word}`; closest: {}", closest.join(", ")),
                })
            }
        }
    }

    pub fn from_flag(flag: &str, words: &[String]) -> Result<Option<RuleList>, Error> {
        if words.is_empty() {
            return Ok(None);
        }
        let mut list = RuleList::default();
        for w in words {
            list.add(w.trim(), 0).map_err(|m| Error::Usage(format!("{flag}: {m}")))?;
        }
        Ok(Some(list))
    }
}

/// A rule named both in a `select` and in an `ignore` of the same source:
/// which is meant? The rule and its place in the ignore list.
pub fn contradiction(select: &RuleList, ignore: &RuleList) -> Result<(), (Rule, usize)> {
    match ignore.named.iter().find(|(r, _)| select.named.iter().any(|(s, _)| s == r)) {
        Some(&(rule, at)) => Err((rule, at)),
        None => Ok(()),
    }
}
