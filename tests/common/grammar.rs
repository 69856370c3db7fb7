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
pub fn gbnf_as_lark(gbnf: &str) -> String {
    let mut out = String::new();
    for line in gbnf.lines().filter(|l| !l.trim().is_empty()) {
        let (name, body) = line.split_once(" ::= ").expect("a GBNF rule line");
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
                    out.push_str(&rule_name(&name));
                    continue;
                }
                other => out.push(other),
            }
            i += 1;
        }
        out.push('\n');
    }
    out
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
