//! Case conventions for `rename_all`, as serde spells them.

/// A case convention applied to field names (snake_case) or variant names (PascalCase).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum RenameRule {
    Lower,
    Upper,
    Pascal,
    Camel,
    Snake,
    ScreamingSnake,
    Kebab,
    ScreamingKebab,
}

/// The conventions as serde spells them, for parsing and for the message that lists them.
const RULES: &[(&str, RenameRule)] = &[
    ("lowercase", RenameRule::Lower),
    ("UPPERCASE", RenameRule::Upper),
    ("PascalCase", RenameRule::Pascal),
    ("camelCase", RenameRule::Camel),
    ("snake_case", RenameRule::Snake),
    ("SCREAMING_SNAKE_CASE", RenameRule::ScreamingSnake),
    ("kebab-case", RenameRule::Kebab),
    ("SCREAMING-KEBAB-CASE", RenameRule::ScreamingKebab),
];

impl RenameRule {
    /// The convention serde spells `s`, if any.
    pub fn from_serde_name(s: &str) -> Option<Self> {
        RULES.iter().find(|(name, _)| *name == s).map(|(_, r)| *r)
    }

    /// What to say when a spelling is none of them.
    pub fn unknown_message() -> String {
        let names: Vec<&str> = RULES.iter().map(|(name, _)| *name).collect();
        let (last, rest) = names.split_last().expect("rules listed");
        format!(
            "unknown `rename_all` case; use {} or {last}",
            rest.join(", ")
        )
    }

    /// Applies the convention to a field (snake_case) or variant (PascalCase) name.
    pub fn apply(self, name: &str, is_variant: bool) -> String {
        let words: Vec<String> = if is_variant {
            let mut words = Vec::new();
            let mut cur = String::new();
            for c in name.chars() {
                if c.is_uppercase() && !cur.is_empty() {
                    words.push(std::mem::take(&mut cur));
                }
                cur.push(c);
            }
            words.push(cur);
            words.into_iter().map(|w| w.to_lowercase()).collect()
        } else {
            name.split('_').map(str::to_lowercase).collect()
        };
        let cap = |w: &String| {
            let mut c = w.chars();
            c.next().map_or(String::new(), |f| {
                f.to_uppercase().collect::<String>() + c.as_str()
            })
        };
        match self {
            RenameRule::Lower => words.concat(),
            RenameRule::Upper => words.concat().to_uppercase(),
            RenameRule::Pascal => words.iter().map(cap).collect(),
            RenameRule::Camel => words
                .iter()
                .enumerate()
                .map(|(i, w)| if i == 0 { w.clone() } else { cap(w) })
                .collect(),
            RenameRule::Snake => words.join("_"),
            RenameRule::ScreamingSnake => words.join("_").to_uppercase(),
            RenameRule::Kebab => words.join("-"),
            RenameRule::ScreamingKebab => words.join("-").to_uppercase(),
        }
    }
}
