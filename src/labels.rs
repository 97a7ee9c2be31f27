//! Label selectors (`-l`), as kubectl parses them: the grammar of
//! k8s.io/apimachinery `pkg/labels/selector.go` (`Parse`: its `Lexer`,
//! `Parser.parse`, `parseRequirement`, `parseValues`,
//! `parseIdentifiersList`, `parseExactValue`; `NewRequirement`'s checks of
//! keys and values; `Requirement.Matches`):
//!
//! ```text
//! <selector>    ::= <requirement> | <requirement> "," <selector>
//! <requirement> ::= [!] KEY [ ("in" | "notin") "(" VALUE {"," VALUE} ")"
//!                           | ("=" | "==" | "!=") VALUE | (">" | "<") INTEGER ]
//! ```
//!
//! Blanks part words and are otherwise ignored (`app in (a, b)`); `in` and
//! `notin` are words only where an operator may stand (`x in (in)`); a
//! value may be empty (`app=`, `app in (a,)`, `app notin ()`). A KEY is a
//! qualified name (`[PREFIX/]NAME`, PREFIX a DNS subdomain), a VALUE a label
//! value. Every error quotes the whole expression, as the user wrote it.

use crate::error::Error;
use crate::model::naming::is_subdomain;

/// One requirement of a label selector.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum LabelReq {
    /// `KEY=VALUE`, `KEY==VALUE`.
    Eq(String, String),
    /// `KEY!=VALUE`: the label is absent or has another value.
    Ne(String, String),
    /// `KEY`.
    Exists(String),
    /// `!KEY`.
    NotExists(String),
    /// `KEY in (V1,V2)`: the label is one of the values.
    In(String, Vec<String>),
    /// `KEY notin (V1,V2)`: the label is absent or none of the values.
    NotIn(String, Vec<String>),
    /// `KEY>N`: the label is an integer greater than N.
    Gt(String, i64),
    /// `KEY<N`: the label is an integer less than N.
    Lt(String, i64),
}

impl LabelReq {
    /// Does it select by a label the object has (`KEY=VALUE`, `KEY`, `KEY
    /// in (…)`, `KEY>N`), rather than by one it lacks?
    pub fn is_positive(&self) -> bool {
        matches!(self, LabelReq::Eq(..) | LabelReq::Exists(_) | LabelReq::In(..) | LabelReq::Gt(..) | LabelReq::Lt(..))
    }

    pub fn key(&self) -> &str {
        match self {
            LabelReq::Eq(k, _)
            | LabelReq::Ne(k, _)
            | LabelReq::Exists(k)
            | LabelReq::NotExists(k)
            | LabelReq::In(k, _)
            | LabelReq::NotIn(k, _)
            | LabelReq::Gt(k, _)
            | LabelReq::Lt(k, _) => k,
        }
    }

    /// Does an object whose label `key()` is `value` (`None`: it has no
    /// such label) meet the requirement? (`Requirement.Matches`.)
    pub fn matches(&self, value: Option<&str>) -> bool {
        match (self, value) {
            (LabelReq::Eq(_, v), Some(has)) => has == v,
            (LabelReq::In(_, vs), Some(has)) => vs.iter().any(|v| v == has),
            (LabelReq::Eq(..) | LabelReq::In(..), None) => false,
            (LabelReq::Ne(_, v), has) => has != Some(v.as_str()),
            (LabelReq::NotIn(_, vs), has) => !has.is_some_and(|has| vs.iter().any(|v| v == has)),
            (LabelReq::Exists(_), has) => has.is_some(),
            (LabelReq::NotExists(_), has) => has.is_none(),
            (LabelReq::Gt(_, n), has) => has.and_then(|h| h.parse::<i64>().ok()).is_some_and(|h| h > *n),
            (LabelReq::Lt(_, n), has) => has.and_then(|h| h.parse::<i64>().ok()).is_some_and(|h| h < *n),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
enum Token {
    Word(String),
    In,
    NotIn,
    Not,
    Eq,
    DoubleEq,
    NotEq,
    Gt,
    Lt,
    Open,
    Close,
    Comma,
    End,
}

impl Token {
    /// As kubectl's messages show a token (`found '…'`).
    fn shown(&self) -> &str {
        match self {
            Token::Word(w) => w,
            Token::In => "in",
            Token::NotIn => "notin",
            Token::Not => "!",
            Token::Eq => "=",
            Token::DoubleEq => "==",
            Token::NotEq => "!=",
            Token::Gt => ">",
            Token::Lt => "<",
            Token::Open => "(",
            Token::Close => ")",
            Token::Comma => ",",
            Token::End => "",
        }
    }

    /// Where values are read, `in` and `notin` are words (`x in (in)`).
    fn as_value(&self) -> Token {
        match self {
            Token::In => Token::Word("in".into()),
            Token::NotIn => Token::Word("notin".into()),
            other => other.clone(),
        }
    }
}

fn is_blank(c: char) -> bool {
    matches!(c, ' ' | '\t' | '\r' | '\n')
}

fn is_special(c: char) -> bool {
    matches!(c, '=' | '!' | '(' | ')' | ',' | '>' | '<')
}

/// The tokens of `text` (the `Lexer`): words run to a blank or a special
/// character; `==` and `!=` are one token.
fn lex(text: &str) -> Vec<Token> {
    let mut tokens = Vec::new();
    let mut rest = text;
    loop {
        rest = rest.trim_start_matches(is_blank);
        let mut chars = rest.chars();
        let Some(c) = chars.next() else { break };
        if is_special(c) {
            let two = (c, chars.next());
            let (token, len) = match two {
                ('=', Some('=')) => (Token::DoubleEq, 2),
                ('!', Some('=')) => (Token::NotEq, 2),
                ('=', _) => (Token::Eq, 1),
                ('!', _) => (Token::Not, 1),
                ('(', _) => (Token::Open, 1),
                (')', _) => (Token::Close, 1),
                (',', _) => (Token::Comma, 1),
                ('>', _) => (Token::Gt, 1),
                (_, _) => (Token::Lt, 1),
            };
            tokens.push(token);
            rest = rest.get(len..).unwrap_or_default();
        } else {
            let end = rest.find(|c| is_blank(c) || is_special(c)).unwrap_or(rest.len());
            let word = rest.get(..end).unwrap_or_default();
            tokens.push(match word {
                "in" => Token::In,
                "notin" => Token::NotIn,
                w => Token::Word(w.to_string()),
            });
            rest = rest.get(end..).unwrap_or_default();
        }
    }
    tokens.push(Token::End);
    tokens
}

struct Parser {
    tokens: Vec<Token>,
    at: usize,
}

impl Parser {
    /// The next token, read as a value (`in` a word) or not.
    fn peek(&self, value: bool) -> Token {
        let t = self.tokens.get(self.at).unwrap_or(&Token::End);
        if value {
            t.as_value()
        } else {
            t.clone()
        }
    }

    fn next(&mut self, value: bool) -> Token {
        let t = self.peek(value);
        self.at += 1;
        t
    }

    fn selector(&mut self) -> Result<Vec<LabelReq>, String> {
        let mut out = Vec::new();
        loop {
            match self.peek(true) {
                Token::Word(_) | Token::Not => {
                    out.push(self.requirement().map_err(|e| format!("unable to parse requirement: {e}"))?);
                    match self.next(true) {
                        Token::End => return Ok(out),
                        Token::Comma => {
                            let after = self.peek(true);
                            if !matches!(after, Token::Word(_) | Token::Not) {
                                return Err(format!("found '{}', expected: identifier after ','", after.shown()));
                            }
                        }
                        other => return Err(format!("found '{}', expected: ',' or 'end of string'", other.shown())),
                    }
                }
                Token::End => return Ok(out),
                other => return Err(format!("found '{}', expected: !, identifier, or 'end of string'", other.shown())),
            }
        }
    }

    fn requirement(&mut self) -> Result<LabelReq, String> {
        let mut not = false;
        let mut token = self.next(true);
        if token == Token::Not {
            not = true;
            token = self.next(true);
        }
        let Token::Word(key) = token else {
            return Err(format!("found '{}', expected: identifier", token.shown()));
        };
        key_problem(&key)?;
        // `!KEY` takes no operator: what follows it is the selector's to
        // refuse (`!a=b`: "found '=', expected: ',' or 'end of string'").
        if not {
            return Ok(LabelReq::NotExists(key));
        }
        if matches!(self.peek(true), Token::End | Token::Comma) {
            return Ok(LabelReq::Exists(key));
        }
        let operator = self.next(false);
        match operator {
            Token::In | Token::NotIn => {
                let values = self.values()?;
                for v in &values {
                    value_problem(&key, v)?;
                }
                Ok(if operator == Token::In { LabelReq::In(key, values) } else { LabelReq::NotIn(key, values) })
            }
            Token::Eq | Token::DoubleEq | Token::NotEq | Token::Gt | Token::Lt => {
                let value = match self.peek(true) {
                    Token::End | Token::Comma => String::new(),
                    _ => match self.next(true) {
                        Token::Word(w) => w,
                        other => return Err(format!("found '{}', expected: identifier", other.shown())),
                    },
                };
                match operator {
                    Token::Gt | Token::Lt => {
                        let Ok(n) = value.parse::<i64>() else {
                            return Err(format!(
                                "for 'Gt', 'Lt' operators, the value must be an integer (`{value}` is not)"
                            ));
                        };
                        Ok(if operator == Token::Gt { LabelReq::Gt(key, n) } else { LabelReq::Lt(key, n) })
                    }
                    _ => {
                        value_problem(&key, &value)?;
                        Ok(if operator == Token::NotEq { LabelReq::Ne(key, value) } else { LabelReq::Eq(key, value) })
                    }
                }
            }
            other => Err(format!("found '{}', expected: in, notin, =, ==, !=, gt, lt", other.shown())),
        }
    }

    /// `( VALUE, … )`, a value possibly empty (`parseValues`,
    /// `parseIdentifiersList`).
    fn values(&mut self) -> Result<Vec<String>, String> {
        let open = self.next(true);
        if open != Token::Open {
            return Err(format!("found '{}' expected: '('", open.shown()));
        }
        let mut values: Vec<String> = Vec::new();
        let add = |values: &mut Vec<String>, v: String| {
            if !values.contains(&v) {
                values.push(v);
            }
        };
        match self.peek(true) {
            Token::Close => {
                self.next(true);
                return Ok(vec![String::new()]);
            }
            Token::Word(_) | Token::Comma => {}
            other => return Err(format!("found '{}', expected: ',', ')' or identifier", other.shown())),
        }
        loop {
            match self.next(true) {
                Token::Word(w) => {
                    add(&mut values, w);
                    match self.peek(true) {
                        Token::Comma => continue,
                        Token::Close => break,
                        other => return Err(format!("found '{}', expected: ',' or ')'", other.shown())),
                    }
                }
                Token::Comma => {
                    if values.is_empty() {
                        add(&mut values, String::new());
                    }
                    match self.peek(true) {
                        Token::Close => {
                            add(&mut values, String::new());
                            break;
                        }
                        Token::Comma => add(&mut values, String::new()),
                        _ => {}
                    }
                }
                other => return Err(format!("found '{}', expected: ',', or identifier", other.shown())),
            }
        }
        self.next(true); // the `)`
        Ok(values)
    }
}

/// Why `key` is no label key (`validation.IsQualifiedName`), if it is not.
fn key_problem(key: &str) -> Result<(), String> {
    let (prefix, name) = match key.split_once('/') {
        Some((prefix, name)) => (Some(prefix), name),
        None => (None, key),
    };
    if let Some(prefix) = prefix {
        if prefix.is_empty() || !is_subdomain(prefix) {
            return Err(format!(
                "invalid label key `{key}`: a prefix must be a lowercase RFC 1123 subdomain (e.g. `example.com`)"
            ));
        }
    }
    if name.is_empty() || name.len() > 63 || !is_name(name) {
        return Err(format!(
            "invalid label key `{key}`: a name part must be 63 characters or fewer, consist of alphanumeric characters, '-', '_' or '.', and start and end with an alphanumeric character"
        ));
    }
    Ok(())
}

/// Why `value` is no label value (`validation.IsValidLabelValue`), if it
/// is not: empty, or a name of 63 characters or fewer.
fn value_problem(key: &str, value: &str) -> Result<(), String> {
    if value.is_empty() || (value.len() <= 63 && is_name(value)) {
        return Ok(());
    }
    Err(format!(
        "invalid value `{value}` of label `{key}`: a label value must be empty or 63 characters or fewer, consist of alphanumeric characters, '-', '_' or '.', and start and end with an alphanumeric character"
    ))
}

/// `([A-Za-z0-9][-A-Za-z0-9_.]*)?[A-Za-z0-9]`.
fn is_name(s: &str) -> bool {
    let b = s.as_bytes();
    let inner = |c: &u8| c.is_ascii_alphanumeric() || matches!(c, b'-' | b'_' | b'.');
    b.first().is_some_and(u8::is_ascii_alphanumeric)
        && b.last().is_some_and(u8::is_ascii_alphanumeric)
        && b.iter().all(inner)
}

/// The requirements of a label selector, or an error (exit 2) quoting it
/// whole.
pub fn parse(text: &str) -> Result<Vec<LabelReq>, Error> {
    let mut parser = Parser { tokens: lex(text), at: 0 };
    parser.selector().map_err(|why| {
        Error::Usage(format!(
            "invalid label selector `{}`: {why} (kubectl's grammar: KEY=VALUE, KEY==VALUE, KEY!=VALUE, KEY in (V1,V2), KEY notin (V1,V2), KEY, !KEY, KEY>N, KEY<N, comma-separated)",
            crate::escape::escape(text)
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ok(text: &str) -> Vec<LabelReq> {
        parse(text).unwrap_or_else(|e| panic!("{text}: {e}"))
    }

    #[test]
    fn parses_what_kubectl_parses() {
        use LabelReq::*;
        let s = |v: &[&str]| v.iter().map(|s| s.to_string()).collect::<Vec<_>>();
        assert_eq!(
            ok("app=web,tier!=db,env,!canary"),
            vec![
                Eq("app".into(), "web".into()),
                Ne("tier".into(), "db".into()),
                Exists("env".into()),
                NotExists("canary".into())
            ]
        );
        // selector.go's own example: "x in (foo,,baz),y,z notin ()".
        assert_eq!(
            ok("x in (foo,,baz),y,z notin ()"),
            vec![In("x".into(), s(&["foo", "", "baz"])), Exists("y".into()), NotIn("z".into(), s(&[""]))]
        );
        assert_eq!(ok(" app in ( a , b ) "), vec![In("app".into(), s(&["a", "b"]))]);
        assert_eq!(ok("x in (in,notin)"), vec![In("x".into(), s(&["in", "notin"]))]);
        assert_eq!(
            ok("a==b,c=,d>3,e<-1"),
            vec![Eq("a".into(), "b".into()), Eq("c".into(), String::new()), Gt("d".into(), 3), Lt("e".into(), -1)]
        );
        assert_eq!(ok("example.com/team=a"), vec![Eq("example.com/team".into(), "a".into())]);
        assert_eq!(ok(""), vec![]);
    }

    #[test]
    fn errors_quote_the_whole_expression() {
        for bad in [
            "app in (a",
            "app in a",
            "app in (a b)",
            "=x",
            "app=web,",
            "app=web tier=db",
            "!app=x",
            "app notin",
            "a>b",
            "a b",
            "-bad=x",
            "Example.com/a=b",
            "a=-x",
            "a=(b)",
        ] {
            let Err(Error::Usage(m)) = parse(bad) else { panic!("{bad} parsed") };
            assert!(m.starts_with(&format!("invalid label selector `{bad}`: ")), "{m}");
        }
    }

    #[test]
    fn matches_as_requirement_matches() {
        let r = ok("a in (x,y),b notin (z),c!=1,d>2");
        let m = |vals: [Option<&str>; 4]| r.iter().zip(vals).all(|(r, v)| r.matches(v));
        assert!(m([Some("x"), None, None, Some("3")]));
        assert!(m([Some("y"), Some("w"), Some("2"), Some("10")]));
        assert!(!m([None, None, None, Some("3")]));
        assert!(!m([Some("x"), Some("z"), None, Some("3")]));
        assert!(!m([Some("x"), None, Some("1"), Some("3")]));
        assert!(!m([Some("x"), None, None, Some("2")]));
        assert!(!m([Some("x"), None, None, Some("two")]));
    }
}
