//! Running a type's grammars: the Lark grammar in llguidance (the engine of
//! OpenAI's and llama.cpp's grammars), and the GBNF grammar read as written,
//! rule by rule, into the same engine, so both texts are checked against the
//! same replies.
#![allow(dead_code)] // each test binary uses its own subset

use llguidance::api::TopLevelGrammar;
use llguidance::toktrie::ApproximateTokEnv;
use llguidance::{Matcher, ParserFactory};
use toon_core::{GrammarSyntax, Toon};

/// A compiled grammar, fed one byte per token.
pub struct Checker {
    matcher: Matcher,
}

impl Checker {
    /// Compiles a Lark grammar; panics with llguidance's message if it does not compile.
    pub fn lark(grammar: &str) -> Checker {
        let env = ApproximateTokEnv::single_byte_env();
        let factory = ParserFactory::new_simple(&env).expect("a parser factory");
        let matcher =
            Matcher::new(factory.create_parser(TopLevelGrammar::from_lark(grammar.to_owned())));
        assert!(
            !matcher.is_error(),
            "the grammar does not compile: {:?}\n{grammar}",
            matcher.get_error()
        );
        Checker { matcher }
    }

    /// Compiles a GBNF grammar (through [`gbnf_as_lark`]).
    pub fn gbnf(grammar: &str) -> Checker {
        Checker::lark(&gbnf_as_lark(grammar))
    }

    /// Both of a type's grammars.
    pub fn both<T: Toon>() -> [Checker; 2] {
        [
            Checker::lark(&T::toon_grammar(GrammarSyntax::Lark)),
            Checker::gbnf(&T::toon_grammar(GrammarSyntax::Gbnf)),
        ]
    }

    /// Every byte allowed, and the grammar complete at the end.
    pub fn accepts(&self, text: &str) -> bool {
        let mut m = self.matcher.deep_clone();
        for b in text.bytes() {
            if m.consume_token(u32::from(b)).is_err() || m.is_error() {
                return false;
            }
        }
        m.is_accepting().unwrap_or(false)
    }
}

/// A GBNF grammar rewritten token for token in llguidance's Lark: `name ::=` as
/// `name:`, `root` as `start`, character classes as one-character regular
/// expressions, literals as JSON strings; grouping, alternatives and
/// repetitions as they are. Each GBNF rule stays a rule, so nothing of the
/// GBNF text's meaning is taken from the Lark renderer.
///
/// Panics where llama.cpp's parser would refuse the text ([`Limits`]).
pub fn gbnf_as_lark(gbnf: &str) -> String {
    let mut out = String::new();
    let mut limits = Limits::default();
    for line in gbnf.lines().filter(|l| !l.trim().is_empty()) {
        let (name, body) = line.split_once(" ::= ").expect("a GBNF rule line");
        limits.name(name);
        out.push_str(&rule_name(name));
        out.push_str(": ");
        let chars: Vec<char> = body.chars().collect();
        let mut i = 0;
        while i < chars.len() {
            let c = chars[i];
            match c {
                '"' => {
                    let mut text = String::new();
                    i += 1;
                    while chars[i] != '"' {
                        if chars[i] == '\\' {
                            i += 1;
                            match chars[i] {
                                'n' => text.push('\n'),
                                'r' => text.push('\r'),
                                't' => text.push('\t'),
                                'x' | 'u' | 'U' => {
                                    let len = escape_len(&chars, i - 1);
                                    let hex: String = chars[i + 1..i + 1 + len].iter().collect();
                                    text.push(
                                        char::from_u32(u32::from_str_radix(&hex, 16).unwrap())
                                            .unwrap(),
                                    );
                                    i += len;
                                }
                                other => text.push(other),
                            }
                        } else {
                            text.push(chars[i]);
                        }
                        i += 1;
                    }
                    // One lexeme a character: GBNF has no lexer, so neither may the reading.
                    let chars: Vec<String> = text
                        .chars()
                        .map(|c| serde_json::to_string(&c.to_string()).unwrap())
                        .collect();
                    out.push_str(&format!("({})", chars.join(" ")));
                    limits.atom();
                }
                '[' => {
                    let mut class = String::from("[");
                    i += 1;
                    while chars[i] != ']' {
                        if chars[i] == '\\' {
                            let (kind, len) = (chars[i + 1], escape_len(&chars, i));
                            if len == 0 {
                                class.push('\\');
                                class.push(kind);
                                i += 2;
                            } else {
                                let hex: String = chars[i + 2..i + 2 + len].iter().collect();
                                class.push_str(&format!("\\x{{{hex}}}"));
                                i += 2 + len;
                            }
                            continue;
                        }
                        class.push(chars[i]);
                        i += 1;
                    }
                    class.push(']');
                    limits.atom();
                    out.push('/');
                    out.push_str(&class);
                    out.push('/');
                }
                c if c.is_ascii_alphabetic() => {
                    let start = i;
                    while i < chars.len() && (chars[i].is_ascii_alphanumeric() || chars[i] == '-') {
                        i += 1;
                    }
                    let name: String = chars[start..i].iter().collect();
                    limits.name(&name);
                    out.push_str(&rule_name(&name));
                    continue;
                }
                '(' => {
                    limits.open();
                    out.push('(');
                }
                ')' => {
                    limits.close();
                    out.push(')');
                }
                '?' | '*' | '+' => {
                    let (min, max) = match c {
                        '?' => (0, Some(1)),
                        '*' => (0, None),
                        _ => (1, None),
                    };
                    limits.repeat(min, max, line);
                    out.push(c);
                }
                '{' => {
                    let end = i + chars[i..].iter().position(|&c| c == '}').unwrap();
                    let counts: String = chars[i + 1..end].iter().collect();
                    let (min, max) = match counts.split_once(',') {
                        Some((m, "")) => (m.parse().unwrap(), None),
                        Some((m, n)) => (m.parse().unwrap(), Some(n.parse().unwrap())),
                        None => (counts.parse().unwrap(), Some(counts.parse().unwrap())),
                    };
                    limits.repeat(min, max, line);
                    out.push_str(&format!("{{{counts}}}"));
                    i = end;
                }
                other => out.push(other),
            }
            i += 1;
        }
        out.push('\n');
    }
    out
}

/// llama.cpp's checks on repetitions (`MAX_REPETITION_THRESHOLD` in its
/// grammar parser), as it counts: a repetition of more than 2000 is refused,
/// and so is one whose item's rules times its count reach 2000. An item's
/// rules are those made inside it: one for each group (its own among them),
/// each optional copy of a repetition (one for an unbounded one) and each rule
/// named for the first time; a terminal or a reference counts as one.
#[derive(Default)]
struct Limits {
    /// Rules made so far, the count at each open group, and the rules of the
    /// item just read.
    made: u64,
    open: Vec<u64>,
    item: u64,
    seen: std::collections::HashSet<String>,
}

impl Limits {
    const THRESHOLD: u64 = 2000;

    fn atom(&mut self) {
        self.item = 1;
    }

    fn name(&mut self, name: &str) {
        if self.seen.insert(name.to_owned()) {
            self.made += 1;
        }
        self.item = 1;
    }

    fn open(&mut self) {
        self.open.push(self.made);
        self.made += 1;
    }

    fn close(&mut self) {
        let before = self.open.pop().expect("a group opened");
        self.item = (self.made - before).max(1);
    }

    fn repeat(&mut self, min: u64, max: Option<u64>, line: &str) {
        let over = min > Self::THRESHOLD || matches!(max, Some(n) if n > Self::THRESHOLD);
        assert!(
            !over,
            "llama.cpp refuses a repetition of more than 2000: {min}..{max:?} in\n{line}"
        );
        let count = match max {
            Some(n) if n > 0 => n,
            _ => min.max(1),
        };
        assert!(
            self.item * count < Self::THRESHOLD,
            "llama.cpp refuses a repetition of an item of {} rules {count} times in\n{line}",
            self.item
        );
        self.made += max.map_or(1, |n| n - min);
        self.item *= count;
    }
}

/// The hex digits of the escape at `at` (a backslash): 2 after `\x`, 4 after
/// `\u`, 8 after `\U` as llama.cpp reads them, 0 for any other escape. An
/// `\x` escape followed by a further hex digit fails here: xgrammar (vLLM's
/// GBNF reader) takes every hex digit after `\x`, so the two would read
/// different characters.
fn escape_len(chars: &[char], at: usize) -> usize {
    let len = match chars[at + 1] {
        'x' => 2,
        'u' => 4,
        'U' => 8,
        _ => return 0,
    };
    let next = chars.get(at + 2 + len).copied().unwrap_or(' ');
    assert!(
        !(chars[at + 1] == 'x' && next.is_ascii_hexdigit()),
        "`\\x` followed by a third hex digit: xgrammar reads it as a longer number than llama.cpp"
    );
    len
}

fn rule_name(gbnf: &str) -> String {
    if gbnf == "root" {
        "start".into()
    } else {
        format!("g_{}", gbnf.replace('-', "_"))
    }
}
