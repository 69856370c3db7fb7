//! The names and doc comments of run-time shapes, kept for the program's
//! life: a shape holds `&'static str`, as a derived type's are compiled in.
//! Each distinct text is kept once, so reading the same declarations again
//! keeps nothing more.

use std::collections::HashSet;
use std::sync::Mutex;

static TEXTS: Mutex<Option<HashSet<&'static str>>> = Mutex::new(None);
static LISTS: Mutex<Option<HashSet<&'static [&'static str]>>> = Mutex::new(None);

/// `text`, kept.
pub(crate) fn leak(text: &str) -> &'static str {
    let mut texts = TEXTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let texts = texts.get_or_insert_with(HashSet::new);
    if let Some(kept) = texts.get(text) {
        return kept;
    }
    let kept: &'static str = Box::leak(text.to_owned().into_boxed_str());
    texts.insert(kept);
    kept
}

/// `list` of kept texts, kept.
pub(crate) fn leak_list(list: Vec<&'static str>) -> &'static [&'static str] {
    let mut lists = LISTS
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let lists = lists.get_or_insert_with(HashSet::new);
    if let Some(kept) = lists.get(list.as_slice()) {
        return kept;
    }
    let kept: &'static [&'static str] = Box::leak(list.into_boxed_slice());
    lists.insert(kept);
    kept
}
