//! The typed view of a stream (`#[toon(partial)]`, `PartialStream`): at every
//! chunking, over every real reply of both servers, the partial value shows
//! only what the model wrote, each value as the final one has it, a field
//! marked `stream(done)` only once whole; the typed events carry the final
//! value's values at their places; and the end shows what `from_toon` reads.

mod common;

use std::fmt::Debug;

use common::types::*;
use toon_core::stream::{Item, PartialStream, Streamed, Update};
use toon_core::{FinishReason, ReplyOptions, Toon, ToonOutputParser};

/// The compliance answer with its table shown only once whole.
#[derive(Debug, Clone, PartialEq, Toon)]
#[toon(partial)]
pub struct HeldCompliance {
    pub compliance_status: Status,
    #[toon(stream(done))]
    pub violations: Vec<Violation>,
    pub audit_trail: String,
    pub spoken_response: String,
    #[serde(default)]
    pub confidence: Option<f64>,
}

/// The delimited answer with its prose shown only once whole.
#[derive(Debug, Clone, PartialEq, Toon)]
#[toon(partial(name = "HeldProseSoFar", event = "HeldProseUpdate"))]
pub struct HeldProse {
    pub found: bool,
    pub citations: Vec<u32>,
    pub caveats: Option<String>,
    #[toon(delimited, stream(done))]
    pub answer: String,
}

const CHUNKS: [usize; 5] = [1, 2, 3, 7, 64];

/// `text` in pieces of `size` bytes, each widened to a character's end.
fn pieces(text: &str, size: usize) -> Vec<&str> {
    let mut out = Vec::new();
    let mut start = 0;
    while start < text.len() {
        let mut end = (start + size).min(text.len());
        while !text.is_char_boundary(end) {
            end += 1;
        }
        out.push(&text[start..end]);
        start = end;
    }
    out
}

/// A real reply, with how its server said it ended.
struct Real {
    what: String,
    reply: String,
    options: ReplyOptions,
}

fn real(ty: &str) -> Vec<Real> {
    let root = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/replies/real");
    let mut out = Vec::new();
    for server in ["llama-server", "llama-cpp-python"] {
        for dir in ["", "mechanisms/", "never-cut/", "grammar/", "reasoning/"] {
            let Ok(entries) = std::fs::read_dir(format!("{root}/{server}/{dir}{ty}")) else {
                continue;
            };
            let mut paths: Vec<_> = entries.map(|e| e.unwrap().path()).collect();
            paths.sort();
            for path in paths {
                let name = path.file_name().unwrap().to_string_lossy().into_owned();
                let finish = name.split('.').nth(1).unwrap_or_default();
                out.push(Real {
                    what: path.display().to_string(),
                    reply: std::fs::read_to_string(&path).unwrap(),
                    options: ReplyOptions {
                        finish_reason: FinishReason::from_openai(finish),
                        ..Default::default()
                    },
                });
            }
        }
    }
    out
}

/// Whether the model wrote the field of `key`: a line that begins with it.
fn written(reply: &str, key: &str) -> bool {
    reply.lines().any(|l| {
        let l = l.trim_start();
        l.strip_prefix(key)
            .is_some_and(|rest| rest.starts_with(':') || rest.starts_with('['))
            || l.starts_with(&format!("<{key}>"))
    })
}

/// What a check of a partial value against the final one says.
type Verdict = Result<(), String>;

/// A field of one line: shown only where written, and as the final value has it.
fn line<V: PartialEq + Debug>(key: &str, slot: &Option<V>, fin: &V, reply: &str) -> Verdict {
    match slot {
        None => Ok(()),
        Some(_) if !written(reply, key) => Err(format!("`{key}` shown, never written")),
        Some(v) if v == fin => Ok(()),
        Some(v) => Err(format!("`{key}` shown as {v:?}, read as {fin:?}")),
    }
}

/// A list: shown only where written, its elements the final list's first
/// ones (all of them where `whole`).
fn list<E: PartialEq + Debug>(
    key: &str,
    slot: &Option<Vec<E>>,
    fin: &[E],
    reply: &str,
    whole: bool,
) -> Verdict {
    match slot {
        None => Ok(()),
        Some(_) if !written(reply, key) => Err(format!("`{key}` shown, never written")),
        Some(v) if (whole && v[..] == *fin) || (!whole && fin.starts_with(v)) => Ok(()),
        Some(v) => Err(format!("`{key}` shown as {v:?}, read as {fin:?}")),
    }
}

/// How a type's partial value is checked against its final value: `whole`
/// where the partial value must show the lists whole (the end, or a field
/// marked `stream(done)`).
trait Checked: Streamed + Debug {
    fn agrees(p: &Self::Partial, fin: &Self, reply: &str, whole: bool) -> Verdict;
    /// The fields of one line and the lists the stream reads line by line,
    /// for the end's count of what was shown.
    fn shown(p: &Self::Partial) -> (usize, usize);
    /// The event read against the final value.
    fn event_agrees(e: &Self::Event, fin: &Self) -> Verdict;
}

/// The checks of a compliance answer's partial value: `$held` where its
/// table is marked `stream(done)`, and so is shown whole or not at all.
macro_rules! compliance_checked {
    ($ty:ident, $event:ident, $held:expr) => {
        impl Checked for $ty {
            fn agrees(p: &Self::Partial, v: &Self, r: &str, whole: bool) -> Verdict {
                let held: bool = $held;
                line(
                    "compliance_status",
                    &p.compliance_status,
                    &v.compliance_status,
                    r,
                )?;
                list("violations", &p.violations, &v.violations, r, whole || held)?;
                line("audit_trail", &p.audit_trail, &v.audit_trail, r)?;
                line("spoken_response", &p.spoken_response, &v.spoken_response, r)?;
                line("confidence", &p.confidence, &v.confidence, r)
            }
            fn shown(p: &Self::Partial) -> (usize, usize) {
                let shown = [
                    p.compliance_status.is_some(),
                    p.violations.is_some(),
                    p.audit_trail.is_some(),
                    p.spoken_response.is_some(),
                ];
                (shown.iter().filter(|s| **s).count(), shown.len())
            }
            fn event_agrees(e: &Self::Event, v: &Self) -> Verdict {
                let ok = match e {
                    $event::ComplianceStatus(s) => *s == v.compliance_status,
                    $event::Violations(row) => v.violations.get(row.index) == Some(&row.value),
                    $event::AuditTrail(s) => *s == v.audit_trail,
                    $event::SpokenResponse(s) => *s == v.spoken_response,
                    $event::Confidence(c) => *c == v.confidence,
                };
                ok.then_some(())
                    .ok_or_else(|| format!("{e:?} against {v:?}"))
            }
        }
    };
}

compliance_checked!(ComplianceAnalysis, ComplianceAnalysisEvent, false);
compliance_checked!(HeldCompliance, HeldComplianceEvent, true);

impl Checked for Detections {
    fn agrees(p: &Self::Partial, v: &Self, r: &str, whole: bool) -> Verdict {
        list("objects", &p.objects, &v.objects, r, whole)?;
        line("count", &p.count, &v.count, r)
    }
    fn shown(p: &Self::Partial) -> (usize, usize) {
        let shown = [p.objects.is_some(), p.count.is_some()];
        (shown.iter().filter(|s| **s).count(), shown.len())
    }
    fn event_agrees(e: &Self::Event, v: &Self) -> Verdict {
        let ok = match e {
            DetectionsEvent::Objects(row) => v.objects.get(row.index) == Some(&row.value),
            DetectionsEvent::Count(c) => *c == v.count,
        };
        ok.then_some(())
            .ok_or_else(|| format!("{e:?} against {v:?}"))
    }
}

impl Checked for Sourced {
    fn agrees(p: &Self::Partial, v: &Self, r: &str, whole: bool) -> Verdict {
        line("found", &p.found, &v.found, r)?;
        list("citations", &p.citations, &v.citations, r, whole)?;
        line("caveats", &p.caveats, &v.caveats, r)?;
        line("answer", &p.answer, &v.answer, r)
    }
    fn shown(p: &Self::Partial) -> (usize, usize) {
        let shown = [p.found.is_some(), p.citations.is_some(), p.answer.is_some()];
        (shown.iter().filter(|s| **s).count(), shown.len())
    }
    fn event_agrees(e: &Self::Event, v: &Self) -> Verdict {
        let ok = match e {
            SourcedEvent::Found(f) => *f == v.found,
            SourcedEvent::Citations(c) => v.citations.get(c.index) == Some(&c.value),
            SourcedEvent::Caveats(c) => *c == v.caveats,
            SourcedEvent::Answer(a) => *a == v.answer,
        };
        ok.then_some(())
            .ok_or_else(|| format!("{e:?} against {v:?}"))
    }
}

/// Delimited text grows: what is shown is the start of the final text.
fn text(key: &str, slot: &Option<String>, fin: &str, reply: &str, whole: bool) -> Verdict {
    match slot {
        None => Ok(()),
        Some(_) if !written(reply, key) => Err(format!("`{key}` shown, never written")),
        Some(t) if (whole && t == fin) || (!whole && fin.starts_with(t.as_str())) => Ok(()),
        Some(t) => Err(format!("`{key}` shown as {t:?}, read as {fin:?}")),
    }
}

/// The checks of a delimited answer's partial value: `$held` where its text
/// is marked `stream(done)`, and so is shown whole or not at all.
macro_rules! prose_checked {
    ($ty:ident, $event:ident, $held:expr) => {
        impl Checked for $ty {
            fn agrees(p: &Self::Partial, v: &Self, r: &str, whole: bool) -> Verdict {
                let held: bool = $held;
                line("found", &p.found, &v.found, r)?;
                list("citations", &p.citations, &v.citations, r, whole)?;
                line("caveats", &p.caveats, &v.caveats, r)?;
                text("answer", &p.answer, &v.answer, r, whole || held)
            }
            fn shown(p: &Self::Partial) -> (usize, usize) {
                let shown = [p.found.is_some(), p.citations.is_some(), p.answer.is_some()];
                (shown.iter().filter(|s| **s).count(), shown.len())
            }
            fn event_agrees(e: &Self::Event, v: &Self) -> Verdict {
                let ok = match e {
                    $event::Found(f) => *f == v.found,
                    $event::Citations(c) => v.citations.get(c.index) == Some(&c.value),
                    $event::Caveats(c) => *c == v.caveats,
                    $event::Answer(delta) => v.answer.contains(delta.as_str()),
                };
                ok.then_some(())
                    .ok_or_else(|| format!("{e:?} against {v:?}"))
            }
        }
    };
}

prose_checked!(SourcedProse, SourcedProseEvent, false);
prose_checked!(HeldProse, HeldProseUpdate, true);

/// What one reading of a reply showed.
#[derive(Default)]
struct Tally {
    replies: usize,
    /// Fields shown at the end of a TOON reply that `from_toon` reads, of
    /// those the stream reads line by line.
    shown: usize,
    showable: usize,
    events: usize,
    /// Readings (a reply at one chunking) that `from_toon` reads.
    read: usize,
}

/// Streams `r` at every chunking: after each push the partial value agrees
/// with the final value (once no later line withdraws what it showed); the
/// end agrees in full; each event agrees with the final value; and the end
/// of the stream reads what `from_toon` reads.
fn check<T: Checked + PartialEq>(r: &Real, tally: &mut Tally) {
    let whole = ToonOutputParser::<T>::new()
        .options(r.options)
        .parse_with_report(&r.reply);
    let json = r.reply.trim_start().starts_with('{');
    for size in CHUNKS {
        let chunks = pieces(&r.reply, size);
        // The last push that withdraws: what is shown before it may be void.
        let mut stream = PartialStream::<T>::with_options(r.options);
        let mut last_withdrawn = None;
        for (i, chunk) in chunks.iter().enumerate() {
            if stream.push(chunk).contains_withdrawn() {
                last_withdrawn = Some(i);
            }
        }
        if stream.end().contains_withdrawn() {
            last_withdrawn = Some(chunks.len());
        }

        let mut stream = PartialStream::<T>::with_options(r.options);
        let mut events = Vec::new();
        for (i, chunk) in chunks.iter().enumerate() {
            let updates = stream.push(chunk);
            let settled = !matches!(last_withdrawn, Some(w) if i < w);
            if let (Ok(fin), true) = (&whole, settled) {
                T::agrees(stream.partial(), &fin.value, &r.reply, false)
                    .unwrap_or_else(|e| panic!("{} by {size}, push {i}: {e}", r.what));
            }
            events.extend(updates.into_iter().filter(|_| settled));
        }
        let updates = stream.end();
        events.extend(updates);
        let (shown, showable) = T::shown(stream.partial());
        if let Ok(w) = &whole {
            T::agrees(stream.partial(), &w.value, &r.reply, true)
                .unwrap_or_else(|e| panic!("{} by {size}, end: {e}", r.what));
            for e in &events {
                if let Update::Event(e) = e {
                    T::event_agrees(e, &w.value)
                        .unwrap_or_else(|m| panic!("{} by {size}: {m}", r.what));
                }
            }
            // A JSON reply streams no events: its values arrive with `finish`.
            if !json {
                tally.shown += shown;
                tally.showable += showable;
            }
            tally.events += events.len();
            tally.read += 1;
        }
        let fin = stream.finish();
        match (&whole, &fin) {
            (Ok(w), Ok(f)) => assert_eq!(w.value, f.value, "{} by {size}", r.what),
            (Err(a), Err(b)) => assert_eq!(a, b, "{} by {size}", r.what),
            _ => panic!("{} by {size}: {whole:?} but streamed {fin:?}", r.what),
        }
    }
    tally.replies += 1;
}

trait Withdraws {
    fn contains_withdrawn(&self) -> bool;
}

impl<E> Withdraws for Vec<Update<E>> {
    fn contains_withdrawn(&self) -> bool {
        self.iter().any(|u| matches!(u, Update::Withdrawn))
    }
}

fn check_all<T: Checked + PartialEq>(ty: &str) -> Tally {
    let mut tally = Tally::default();
    for r in real(ty) {
        check::<T>(&r, &mut tally);
    }
    assert!(tally.replies >= 20, "{ty}: {} replies", tally.replies);
    tally
}

#[test]
fn the_compliance_replies_fill_in_as_the_final_value_has_them() {
    let t = check_all::<ComplianceAnalysis>("compliance");
    // Every field the stream reads line by line is shown by the end.
    assert_eq!(t.shown, t.showable);
    // Four fields of one line and a table: more than three events a reading.
    assert!(
        t.events > t.read * 3,
        "{} events in {} readings",
        t.events,
        t.read
    );
}

#[test]
fn a_table_held_until_done_is_shown_whole_or_not_at_all() {
    let t = check_all::<HeldCompliance>("compliance");
    // Held, the table is still shown by the end.
    assert_eq!(t.shown, t.showable);
}

#[test]
fn the_detection_replies_fill_in_as_the_final_value_has_them() {
    let t = check_all::<Detections>("detections");
    assert_eq!(t.shown, t.showable);
}

#[test]
fn the_sourced_replies_fill_in_as_the_final_value_has_them() {
    let mut plain = Tally::default();
    let mut prose = Tally::default();
    let mut held = Tally::default();
    for r in real("sourced") {
        if r.what.contains("toon-delimited") {
            check::<SourcedProse>(&r, &mut prose);
            check::<HeldProse>(&r, &mut held);
        } else {
            check::<Sourced>(&r, &mut plain);
        }
    }
    assert!(
        prose.replies >= 5 && plain.replies >= 5,
        "{} and {}",
        prose.replies,
        plain.replies
    );
    for (what, t) in [("plain", plain), ("delimited", prose), ("held", held)] {
        assert!(t.showable > 0, "{what}: no reply read");
        assert_eq!(t.shown, t.showable, "{what}");
    }
}

/// The partial value at each push of a reply written to show each rule.
#[test]
fn each_field_shows_when_its_line_ends_and_never_before() {
    let mut s = PartialStream::<ComplianceAnalysis>::new();
    s.push("compliance_status: non_compliant\nviolations[2]{category,severity,description,related_rule_id,remediation}:\n  privacy,high,Logs");
    let p = s.partial();
    // The enum is read as the decoder reads it: its case normalised.
    assert_eq!(p.compliance_status, Some(Status::NonCompliant));
    assert_eq!(p.violations, None, "a row not ended is not shown");
    s.push(" kept,R-2,Purge\n  security,LOW,Plain text,R-3,Hash\naudit_trail: R-1 to R-5\n");
    let p = s.partial();
    let rows = p.violations.as_ref().unwrap();
    assert_eq!(rows.len(), 2);
    assert_eq!(
        rows[0].severity,
        Severity::High,
        "`high` read as the decoder reads it"
    );
    assert_eq!(rows[1].severity, Severity::Low);
    assert_eq!(p.audit_trail.as_deref(), Some("R-1 to R-5"));
    // Not reached: absent, though `confidence` has a default.
    assert_eq!(p.spoken_response, None);
    assert_eq!(p.confidence, None);
    s.push("spoken_response: Two problems.");
    assert_eq!(s.partial().spoken_response, None, "its line has not ended");
    s.end();
    assert_eq!(
        s.partial().spoken_response.as_deref(),
        Some("Two problems.")
    );
    assert_eq!(s.partial().confidence, None, "never written, never shown");
    let done = s.finish().unwrap();
    assert_eq!(done.value.confidence, None);
    assert_eq!(done.value.violations.len(), 2);
}

/// A field written as `null` shows as a value of its own (`Some(None)`), not
/// as a field not reached (`None`).
#[test]
fn a_null_is_shown_apart_from_a_field_not_reached() {
    let mut s = PartialStream::<Sourced>::new();
    s.push("found: true\ncaveats: null\n");
    assert_eq!(s.partial().caveats, Some(None));
    assert_eq!(s.partial().answer, None);
}

#[test]
fn the_typed_events_name_their_fields_and_carry_read_values() {
    let mut s = PartialStream::<Detections>::new();
    let mut updates =
        s.push("objects[2]{label,score,note}:\n  CUP,0.9,white\n  spoon,0.5,steel\ncou");
    updates.extend(s.push("nt: 2"));
    updates.extend(s.end());
    match &updates[..] {
        [Update::Event(DetectionsEvent::Objects(a)), Update::Event(DetectionsEvent::Objects(b)), Update::Event(DetectionsEvent::Count(2))] =>
        {
            assert_eq!((a.index, a.line, a.value.label.clone()), (0, 2, Label::Cup));
            assert_eq!((b.index, b.line, b.value.score), (1, 3, 0.5));
            assert!(a.repairs.is_empty());
        }
        other => panic!("{other:?}"),
    }
}

/// Lines that turn out to be reasoning are withdrawn: the partial value
/// forgets what they gave, and the document's lines fill it again.
#[test]
fn a_withdrawal_clears_what_the_withdrawn_lines_gave() {
    let mut s = PartialStream::<Detections>::new();
    s.push("count: 7\n");
    assert_eq!(s.partial().count, Some(7));
    let updates = s.push("</think>\ncount: 1\n");
    assert!(
        matches!(
            &updates[..],
            [Update::Withdrawn, Update::Event(DetectionsEvent::Count(1))]
        ),
        "{updates:?}"
    );
    assert_eq!(s.partial().count, Some(1));
}

#[test]
fn a_field_held_until_done_arrives_whole_when_the_reply_moves_on() {
    let mut s = PartialStream::<HeldCompliance>::new();
    let head = "compliance_status: NON_COMPLIANT\nviolations[2]{category,severity,description,related_rule_id,remediation}:\n";
    assert!(s.push(head).len() == 1);
    let updates = s.push("  a,HIGH,b,R-1,c\n  d,LOW,e,R-2,f\n");
    assert!(updates.is_empty(), "held: {updates:?}");
    assert_eq!(s.partial().violations, None);
    let updates = s.push("audit_trail: x\n");
    assert_eq!(updates.len(), 3, "{updates:?}");
    assert!(matches!(&updates[2], Update::Event(HeldComplianceEvent::AuditTrail(t)) if t == "x"));
    assert_eq!(s.partial().violations.as_ref().map(Vec::len), Some(2));

    // Delimited text, held until the stream ends.
    let mut s = PartialStream::<HeldProse>::new();
    s.push("found: true\ncitations[1]: 2\ncaveats: null\n<answer>\nTwo ");
    assert_eq!(s.partial().answer, None);
    s.push("sentences.\n</answer>");
    assert_eq!(s.partial().answer, None);
    let updates = s.end();
    assert!(matches!(
        &updates[..],
        [Update::Event(HeldProseUpdate::Answer(_)), ..]
    ));
    assert_eq!(s.partial().answer.as_deref(), Some("Two sentences."));
    let _: &HeldProseSoFar = s.partial();
}

/// A `Vec<T>` reply streams its rows into a growing list.
#[test]
fn a_root_list_grows_row_by_row() {
    let mut s = PartialStream::<Vec<Capital>>::new();
    assert!(s.partial().is_none());
    let updates = s.push("[2]{country,capital}:\n  France,Paris\n  Peru,Li");
    assert!(matches!(
        &updates[..],
        [Update::Event(Item { index: 0, .. })]
    ));
    assert_eq!(s.partial().as_ref().map(Vec::len), Some(1));
    s.end();
    assert_eq!(s.partial().as_ref().unwrap()[1].capital, "Li");
    assert_eq!(s.finish().unwrap().value.len(), 2);
}

/// The generated types show their values as JSON, and need no more of the
/// field types than `Toon`.
#[test]
fn the_generated_types_print_their_values() {
    let mut s = PartialStream::<Detections>::new();
    let updates = s.push("count: 3\n");
    assert_eq!(
        format!("{:?}", s.partial()),
        "DetectionsPartial { objects: None, count: Some(3) }"
    );
    assert_eq!(format!("{updates:?}"), "[Event(Count(3))]");
}

/// A type declared at run time keeps the same partial value, as JSON: the
/// same fields shown, each the final value's.
#[test]
fn a_run_time_type_shows_the_fields_a_derived_one_shows() {
    let declared = toon_decl::Declarations::parse(include_str!("common/types.rs")).unwrap();
    let rt = declared.get("ComplianceAnalysis").unwrap();
    let mut compared = 0;
    for r in real("compliance") {
        let mut derived = PartialStream::<ComplianceAnalysis>::with_options(r.options);
        let mut runtime = rt.stream(r.options);
        for chunk in pieces(&r.reply, 7) {
            derived.push(chunk);
            runtime.push(chunk);
            let (p, m) = (derived.partial(), runtime.partial());
            let shown = [
                ("compliance_status", p.compliance_status.is_some()),
                ("violations", p.violations.is_some()),
                ("audit_trail", p.audit_trail.is_some()),
                ("spoken_response", p.spoken_response.is_some()),
                ("confidence", p.confidence.is_some()),
            ];
            for (key, is) in shown {
                assert_eq!(m.contains_key(key), is, "{}: `{key}` in {m:?}", r.what);
            }
        }
        derived.end();
        runtime.end();
        let m = runtime.partial().clone();
        if let Ok(fin) = runtime.finish() {
            for (key, value) in &m {
                assert_eq!(Some(value), fin.value.get(key), "{}: `{key}`", r.what);
            }
            compared += 1;
        }
    }
    assert!(compared >= 20, "{compared} compared");
}

/// A generic struct, a raw identifier, and lists through `Option` and `Box`.
#[derive(Debug, PartialEq, Toon)]
#[toon(partial)]
pub struct Page<T> {
    pub r#type: String,
    pub items: Vec<T>,
    pub more: Option<Vec<u32>>,
    pub boxed: Box<Vec<String>>,
    #[toon(default)]
    pub total: u32,
}

#[test]
fn a_generic_struct_and_lists_through_option_and_box_stream() {
    let mut s = PartialStream::<Page<Capital>>::new();
    let mut updates = s.push("type: capitals\nitems[1]{country,capital}:\n  Chad,N'Djamena\n");
    updates.extend(s.push("more: null\nboxed[2]: a,b\n"));
    updates.extend(s.end());
    let p: &toon_core::stream::Partial<Page<Capital>> = s.partial();
    assert_eq!(p.r#type.as_deref(), Some("capitals"));
    assert_eq!(p.items.as_ref().unwrap()[0].capital, "N'Djamena");
    assert_eq!(p.more, Some(None));
    assert_eq!(p.boxed.as_deref().map(|b| b.len()), Some(2));
    assert_eq!(p.total, None, "a default is the type's, not the reply's");
    let kinds: Vec<&str> = updates
        .iter()
        .map(|u| match u {
            Update::Event(PageEvent::Type(_)) => "type",
            Update::Event(PageEvent::Items(_)) => "item",
            Update::Event(PageEvent::Boxed(_)) => "boxed",
            _ => "other",
        })
        .collect();
    // A list written `null` has no element, so no event: the partial value shows it.
    assert_eq!(kinds, ["type", "item", "boxed", "boxed"]);
    assert_eq!(s.finish().unwrap().value.total, 0);
}

/// A list held until done stays held across a delimited block: a `- ` item
/// open before the block may go on after it, so text ends no list.
#[derive(Debug, PartialEq, Toon)]
#[toon(partial)]
pub struct Notes {
    #[toon(stream(done))]
    pub items: Vec<Capital>,
    #[toon(delimited)]
    pub summary: String,
}

#[test]
fn a_held_list_is_not_shown_in_part_when_a_block_follows() {
    let reply = "items[2]:\n  - country: Chad\n    capital: N'Djamena\n  - country: Peru\n    capital: Lima\n<summary>\nTwo capitals.\n</summary>\n";
    let whole = Notes::from_toon(reply).unwrap();
    for size in CHUNKS {
        let mut s = PartialStream::<Notes>::new();
        for chunk in pieces(reply, size) {
            s.push(chunk);
            if let Some(items) = &s.partial().items {
                assert_eq!(*items, whole.items, "by {size}");
            }
        }
        s.end();
        assert_eq!(s.partial().items.as_ref(), Some(&whole.items), "by {size}");
        assert_eq!(s.partial().summary.as_deref(), Some("Two capitals."));
    }
}

/// A held list withdrawn before it is shown is never shown.
#[test]
fn a_withdrawal_drops_what_is_held() {
    let mut s = PartialStream::<HeldCompliance>::new();
    s.push("violations[1]{category,severity,description,related_rule_id,remediation}:\n  a,HIGH,b,R-1,c\n");
    let updates = s.push("</think>\ncompliance_status: COMPLIANT\n");
    assert!(
        matches!(
            &updates[..],
            [
                Update::Withdrawn,
                Update::Event(HeldComplianceEvent::ComplianceStatus(Status::Compliant))
            ]
        ),
        "{updates:?}"
    );
    s.end();
    assert_eq!(s.partial().violations, None);
}

/// A value outside its field's constraints is not shown: `finish` refuses it.
#[test]
fn a_value_outside_its_constraints_is_not_shown() {
    let mut s = PartialStream::<ComplianceAnalysis>::new();
    let updates = s.push("confidence: 1.5\n");
    assert!(updates.is_empty(), "{updates:?}");
    assert_eq!(s.partial().confidence, None);
    s.push("confidence: 0.5\n");
    assert_eq!(s.partial().confidence, Some(Some(0.5)));
}

/// `Self` in a field's type is the struct.
#[derive(Debug, PartialEq, Toon)]
#[toon(partial)]
pub struct Tree {
    pub name: String,
    pub children: Vec<Self>,
}

#[test]
fn a_field_of_the_struct_itself_streams() {
    let mut s = PartialStream::<Tree>::new();
    let updates = s.push("name: root\nchildren[1]:\n  - name: leaf\n    children[0]:\n");
    assert!(matches!(&updates[..], [Update::Event(TreeEvent::Name(n))] if n == "root"));
    let updates = s.end();
    assert!(
        matches!(&updates[..], [Update::Event(TreeEvent::Children(c))] if c.value.name == "leaf"),
        "{updates:?}"
    );
    assert_eq!(s.partial().children.as_ref().map(Vec::len), Some(1));
}

/// A list declared empty is a value the model wrote: shown empty once the
/// next line shows no element follows, and held to the list's own
/// constraints as the whole reply holds it.
#[derive(Debug, PartialEq, Toon)]
#[toon(partial)]
pub struct Tagged {
    #[toon(length(min = 1))]
    pub tags: Vec<String>,
    pub notes: Vec<String>,
    pub name: String,
}

#[test]
fn a_list_declared_empty_is_shown_empty_within_its_constraints() {
    let mut s = PartialStream::<Tagged>::new();
    s.push("notes[0]:\n");
    assert_eq!(s.partial().notes, None, "a row may still follow");
    s.push("tags[0]:\nname[0]:\n");
    assert_eq!(s.partial().notes, Some(vec![]));
    // Outside `length(min = 1)`: not shown, and `finish` refuses it.
    assert_eq!(s.partial().tags, None);
    s.end();
    // `name` is text: `[0]` declares no list of it, and nothing is shown.
    assert_eq!(s.partial().name, None);
    assert!(s.finish().is_err());

    // The untyped stream says the same: an empty list for a list field only.
    let mut s = toon_core::ToonStream::<Tagged>::new();
    let mut events: Vec<_> = s.push("notes[0]:\nname[0]:\n").into_iter().collect();
    events.extend(s.end());
    assert_eq!(events.len(), 1, "{events:?}");
    assert!(
        matches!(&events[0], toon_core::stream::Event::Field { key, value, .. } if key == "notes" && *value == serde_json::json!([]))
    );
}
