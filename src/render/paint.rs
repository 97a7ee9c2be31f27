//! Colour for the tables of `plan`, `graph` and `explain`: plain ANSI SGR
//! codes around what is painted, nothing at all when colour is off (the
//! text is then byte for byte the uncoloured one).

use super::diagnostics::Style;
use crate::escape::escape;
use crate::model::Object;

/// What a piece of text is, for its colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Paint {
    /// An object's kind, at the start of its reference.
    Kind,
    /// Deleted, in a plan.
    Delete,
    /// Orphaned: its owner reference is removed.
    Orphan,
    /// Kept.
    Keep,
    /// A warning, or a note that something is wrong (a cycle, a broken link).
    Warning,
    /// A note of little weight (`[shared]`, `[shown above]`).
    Quiet,
    /// A heading.
    Heading,
}

impl Paint {
    /// The SGR parameters.
    fn sgr(self) -> &'static str {
        match self {
            Paint::Kind => "36",
            Paint::Delete => "31",
            Paint::Orphan => "33",
            Paint::Keep => "32",
            Paint::Warning => "1;33",
            Paint::Quiet => "2",
            Paint::Heading => "1",
        }
    }
}

/// How many bytes of an object's reference are its kind: all of `kind`
/// for objects with coordinates (`Kind[.group]/…`), none for an id.
pub fn kind_len(o: &Object) -> usize {
    if o.has_coordinates() {
        o.kind.len()
    } else {
        0
    }
}

impl Style {
    /// Append `text`, painted when colour is on.
    pub fn push(self, paint: Paint, text: &str, out: &mut String) {
        if self.color && !text.is_empty() {
            out.push_str("\x1b[");
            out.push_str(paint.sgr());
            out.push('m');
            out.push_str(text);
            out.push_str("\x1b[0m");
        } else {
            out.push_str(text);
        }
    }

    /// `text` painted when colour is on.
    pub fn paint(self, paint: Paint, text: &str) -> String {
        let mut s = String::with_capacity(text.len() + 9);
        self.push(paint, text, &mut s);
        s
    }

    /// Append a reference whose first `kind` bytes are its kind (0: it has
    /// none, as an id), the kind painted; escaped, as text from the input
    /// is (`crate::escape`).
    pub fn push_ref(self, reference: &str, kind: usize, out: &mut String) {
        match reference.split_at_checked(kind) {
            Some((k, rest)) if kind > 0 => {
                self.push(Paint::Kind, &escape(k), out);
                out.push_str(&escape(rest));
            }
            _ => out.push_str(&escape(reference)),
        }
    }

    /// A reference with its kind painted (see [`Style::push_ref`]).
    pub fn reference(self, reference: &str, kind: usize) -> String {
        let mut s = String::with_capacity(reference.len() + 9);
        self.push_ref(reference, kind, &mut s);
        s
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn off_is_the_text_itself() {
        let off = Style { color: false };
        assert_eq!(off.paint(Paint::Delete, "delete"), "delete");
        assert_eq!(off.reference("Pod/shop/web", 3), "Pod/shop/web");
        let on = Style { color: true };
        assert_eq!(on.paint(Paint::Delete, "delete"), "\x1b[31mdelete\x1b[0m");
        assert_eq!(on.reference("Pod/shop/web", 3), "\x1b[36mPod\x1b[0m/shop/web");
        assert_eq!(on.reference("vm1", 0), "vm1");
        assert_eq!(on.paint(Paint::Keep, ""), "");
        assert_eq!(on.reference("Pod/shop/a\u{1b}[8m", 3), "\x1b[36mPod\x1b[0m/shop/a\\u{1b}[8m");
    }
}
