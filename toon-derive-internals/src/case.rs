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

    /// Applies the convention to a field (snake_case) or variant (PascalCase)
    /// name, exactly as serde does, so both read the same wire names: a field
    /// keeps its underscores and case where the rule asks for neither
    /// (`user_id` stays `user_id` in lowercase, becomes `USER_ID` in UPPERCASE).
    pub fn apply(self, name: &str, is_variant: bool) -> String {
        if is_variant {
            self.to_variant(name)
        } else {
            self.to_field(name)
        }
    }

    fn to_field(self, field: &str) -> String {
        match self {
            RenameRule::Lower | RenameRule::Snake => field.to_owned(),
            RenameRule::Upper | RenameRule::ScreamingSnake => field.to_ascii_uppercase(),
            RenameRule::Pascal => {
                let mut out = String::with_capacity(field.len());
                let mut up = true;
                for c in field.chars() {
                    if c == '_' {
                        up = true;
                    } else if up {
                        out.push(c.to_ascii_uppercase());
                        up = false;
                    } else {
                        out.push(c);
                    }
                }
                out
            }
            RenameRule::Camel => lower_first(&RenameRule::Pascal.to_field(field)),
            RenameRule::Kebab => field.replace('_', "-"),
            RenameRule::ScreamingKebab => field.to_ascii_uppercase().replace('_', "-"),
        }
    }

    fn to_variant(self, variant: &str) -> String {
        let snake = || {
            let mut out = String::with_capacity(variant.len() + 4);
            for (i, c) in variant.char_indices() {
                if i > 0 && c.is_uppercase() {
                    out.push('_');
                }
                out.push(c.to_ascii_lowercase());
            }
            out
        };
        match self {
            RenameRule::Pascal => variant.to_owned(),
            RenameRule::Lower => variant.to_ascii_lowercase(),
            RenameRule::Upper => variant.to_ascii_uppercase(),
            RenameRule::Camel => lower_first(variant),
            RenameRule::Snake => snake(),
            RenameRule::ScreamingSnake => snake().to_ascii_uppercase(),
            RenameRule::Kebab => snake().replace('_', "-"),
            RenameRule::ScreamingKebab => snake().to_ascii_uppercase().replace('_', "-"),
        }
    }
}

/// The name with its first character in ASCII lower case.
fn lower_first(name: &str) -> String {
    let mut chars = name.chars();
    match chars.next() {
        Some(first) => first.to_ascii_lowercase().to_string() + chars.as_str(),
        None => String::new(),
    }
}

/// The event variant of a field (`#[toon(partial)]`): its name in
/// PascalCase, a raw identifier's `r#` left out (`next_step` is `NextStep`);
/// `Field` before a name that would not begin with a letter (`_1`).
pub fn variant_of(field: &syn::Ident) -> String {
    let name = field.to_string();
    let name = name.strip_prefix("r#").unwrap_or(&name);
    let variant: String = name
        .split('_')
        .filter(|part| !part.is_empty())
        .map(|part| {
            let mut chars = part.chars();
            chars
                .next()
                .map_or_else(String::new, |c| c.to_uppercase().chain(chars).collect())
        })
        .collect();
    if variant.starts_with(|c: char| c.is_alphabetic()) {
        variant
    } else {
        format!("Field{variant}")
    }
}
