//! `ToonOutputParser`: a call site's way of reading replies into `T` — its
//! options, its own check of the value, and asking again when a reply is refused.

use std::fmt;
use std::marker::PhantomData;
use std::sync::Arc;

use serde_json::{json, Value};

use super::measures::{Attempt, Measures};
use super::Toon;
use crate::reply::{FinishReason, Format, ParseError, ParseErrorKind, Repair, Reply, ReplyOptions};

/// A check of a decoded value that only the call site can make (how many
/// sources it sent, which ids exist): `Err` says what is wrong, for the model.
type Check<T> = Arc<dyn Fn(&T) -> Result<(), String> + Send + Sync>;

/// Reads replies into `T`, with the options and the check a call site sets once.
///
/// ```
/// use toon_core::{FinishReason, ParseErrorKind, ToonOutputParser, Toon};
/// let tags: Vec<String> = ToonOutputParser::<Vec<String>>::new().parse("[2]: a,b").unwrap();
/// assert_eq!(tags, ["a", "b"]);
///
/// // The server's finish_reason decides what a reply that stops short is.
/// let cut = ToonOutputParser::<Vec<String>>::new().finish_reason(FinishReason::from_openai("length"));
/// assert_eq!(cut.parse("[2]: a,b").unwrap_err().kind(), ParseErrorKind::Truncated);
///
/// // A parse proves shape, not truth: the call site's own check.
/// let sources = 6;
/// let cited = ToonOutputParser::<Vec<u32>>::new().validate(move |ids: &Vec<u32>| {
///     match ids.iter().find(|&&id| id as usize > sources) {
///         Some(id) => Err(format!("source {id} does not exist; cite 1 to {sources}")),
///         None => Ok(()),
///     }
/// });
/// let err = cited.parse("[2]: 2,7").unwrap_err();
/// assert_eq!(err.kind(), ParseErrorKind::Constraint);
/// assert!(err.retry_prompt().contains("source 7 does not exist; cite 1 to 6"));
/// ```
pub struct ToonOutputParser<T> {
    options: ReplyOptions,
    format: Format,
    check: Option<Check<T>>,
    ty: PhantomData<fn() -> T>,
}

impl<T> Clone for ToonOutputParser<T> {
    fn clone(&self) -> Self {
        ToonOutputParser {
            options: self.options,
            format: self.format,
            check: self.check.clone(),
            ty: PhantomData,
        }
    }
}

impl<T> fmt::Debug for ToonOutputParser<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ToonOutputParser")
            .field("options", &self.options)
            .field("format", &self.format)
            .field("check", &self.check.as_ref().map(|_| "caller's check"))
            .finish()
    }
}

impl<T: Toon> Default for ToonOutputParser<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T: Toon> ToonOutputParser<T> {
    /// A parser for `T`, with the default [`ReplyOptions`] and no check.
    pub fn new() -> Self {
        ToonOutputParser {
            options: ReplyOptions::default(),
            format: Format::Toon,
            check: None,
            ty: PhantomData,
        }
    }

    /// The same parser with these options.
    pub fn options(mut self, options: ReplyOptions) -> Self {
        self.options = options;
        self
    }

    /// The same parser, told how the server said the reply ended
    /// ([`ReplyOptions::finish_reason`]).
    pub fn finish_reason(mut self, finish_reason: FinishReason) -> Self {
        self.options.finish_reason = finish_reason;
        self
    }

    /// The same parser, refusing a reply with any dropped row
    /// ([`ReplyOptions::refuse_dropped_rows`]).
    pub fn refuse_dropped_rows(mut self) -> Self {
        self.options.refuse_dropped_rows = true;
        self
    }

    /// The same parser for replies asked for as JSON (a `response_format`
    /// schema, JSON mode, a tool call's arguments): a reply that is not one
    /// JSON value is refused, and a refusal asks for JSON again. The value is
    /// read by the type's own decoder, as a TOON reply is: its names
    /// (`#[toon]` and `#[serde]` alike), its constraints, the check, the
    /// finish-reason rule and the report.
    ///
    /// ```
    /// use toon_core::{ParseErrorKind, ToonOutputParser};
    /// let json = ToonOutputParser::<Vec<u8>>::new().json();
    /// assert_eq!(json.parse("```json\n[1, 2]\n```").unwrap(), [1, 2]);
    /// let err = json.parse("[2]: 1,2").unwrap_err();
    /// assert_eq!(err.kind(), ParseErrorKind::Syntax);
    /// assert!(err.to_string().starts_with("JSON_PARSE_FAILURE: "));
    /// assert!(err.retry_prompt().contains("one JSON value"));
    /// ```
    pub fn json(mut self) -> Self {
        self.format = Format::Json;
        self
    }

    /// The same parser with the caller's own check, run after decoding: its
    /// `Err` is a [`ParseErrorKind::Constraint`] refusal carrying the message.
    pub fn validate(
        mut self,
        check: impl Fn(&T) -> Result<(), String> + Send + Sync + 'static,
    ) -> Self {
        self.check = Some(Arc::new(check));
        self
    }

    /// Reads a reply into `T`; see [`Toon::from_toon`].
    ///
    /// # Errors
    /// As [`Toon::from_toon`], `LimitExceeded` past a limit of the options,
    /// and `Constraint` when the check refuses.
    pub fn parse(&self, completion: &str) -> Result<T, ParseError> {
        self.parse_with_report(completion).map(|r| r.value)
    }

    /// Reads a reply into `T`, with the repairs applied.
    ///
    /// # Errors
    /// As [`parse`](Self::parse).
    pub fn parse_with_report(&self, completion: &str) -> Result<Reply<T>, ParseError> {
        let reply = super::read_as::<T>(completion, &self.options, self.format)?;
        self.checked(reply)
    }

    /// The reply, once the caller's check has passed it.
    pub(super) fn checked(&self, reply: Reply<T>) -> Result<Reply<T>, ParseError> {
        if let Some(check) = &self.check {
            check(&reply.value).map_err(|why| {
                ParseError::new(
                    ParseErrorKind::Constraint,
                    None,
                    format!("the value reads but is not valid here: {why}"),
                )
                .in_format(self.format)
            })?;
        }
        Ok(reply)
    }

    /// The options and format this parser reads with.
    pub(super) fn settings(&self) -> (&ReplyOptions, Format) {
        (&self.options, self.format)
    }

    /// The prompt snippet for `T`; see [`Toon::toon_prompt`].
    pub fn prompt(&self) -> String {
        T::toon_prompt()
    }

    /// Reads the model's answer, asking again on a refusal, with no HTTP client
    /// of its own: `send` gets the chat messages so far and returns what the
    /// model said. On a refusal the model's reply and the refusal's
    /// [`retry_prompt`](ParseError::retry_prompt) are added to the messages and
    /// `send` is called again, at most `retries` more times (a reply over a
    /// limit goes back cut to its first 2,000 bytes, marked so).
    ///
    /// ```
    /// use serde_json::json;
    /// use toon_core::{FinishReason, ToonOutputParser, retry::Turn};
    /// let mut replies = vec!["[2]: 7,lots", "[2]: 7,8"].into_iter();
    /// let messages = vec![json!({"role": "user", "content": "Two numbers, as TOON."})];
    /// let got = ToonOutputParser::<Vec<u8>>::new()
    ///     .parse_with_retries(messages, 2, |_messages| {
    ///         Ok::<_, std::convert::Infallible>(Turn::new(replies.next().unwrap(), FinishReason::Stop))
    ///     })
    ///     .unwrap();
    /// assert_eq!(got.value, [7, 8]);
    /// assert_eq!(got.attempts.len(), 2, "the first was refused, the second read");
    /// assert!(got.attempts[0].outcome.is_err());
    /// ```
    ///
    /// # Errors
    /// [`RetryError::Send`] if `send` fails; [`RetryError::Refused`] with every
    /// attempt when the last one is refused too.
    pub fn parse_with_retries<E>(
        &self,
        mut messages: Vec<Value>,
        retries: usize,
        mut send: impl FnMut(&[Value]) -> Result<Turn, E>,
    ) -> Result<Retried<T>, RetryError<E>> {
        let mut rounds = Rounds::new(retries + 1);
        loop {
            let turn = send(&messages).map_err(|e| rounds.failed(e))?;
            let parser = self.clone().finish_reason(turn.finish_reason);
            let outcome = parser.parse_with_report(&turn.content);
            let said = Said {
                reply: turn.content,
                finish_reason: turn.finish_reason,
                completion_tokens: None,
            };
            if let Some(done) = rounds.settle(said, outcome, &mut messages)? {
                return Ok(done);
            }
        }
    }
}

/// One reply as the server sent it: its text, how it ended, what it took.
pub(crate) struct Said {
    pub reply: String,
    pub finish_reason: FinishReason,
    pub completion_tokens: Option<u64>,
}

/// The bookkeeping of asking again, which [`ToonOutputParser::parse_with_retries`]
/// and the exchange (`crate::exchange`) share: every attempt kept, and on a
/// refusal the refused reply and its retry turn added to the messages, until
/// the attempts run out.
#[derive(Debug)]
pub(crate) struct Rounds {
    attempts: Vec<Attempt>,
    most: usize,
}

impl Rounds {
    /// At most `most` attempts in all (at least one).
    pub(crate) fn new(most: usize) -> Self {
        Rounds {
            attempts: Vec::new(),
            most: most.max(1),
        }
    }

    /// The attempts so far.
    pub(crate) fn attempts(&self) -> &[Attempt] {
        &self.attempts
    }

    /// Sending failed: the error, with the attempts before it.
    pub(crate) fn failed<E>(&mut self, error: E) -> RetryError<E> {
        super::measures::trace_ask(&self.attempts);
        RetryError::Send {
            error,
            attempts: self.attempts.clone(),
        }
    }

    /// The outcome of one attempt: the value, with every attempt; `None`
    /// after a refusal, the messages then ending with the reply and the
    /// retry turn; or, when that was the last attempt, every attempt.
    pub(crate) fn settle<T, E>(
        &mut self,
        said: Said,
        outcome: Result<Reply<T>, ParseError>,
        messages: &mut Vec<Value>,
    ) -> Result<Option<Retried<T>>, RetryError<E>> {
        let Said {
            reply,
            finish_reason,
            completion_tokens,
        } = said;
        match outcome {
            Ok(read) => {
                self.attempts.push(Attempt {
                    reply,
                    finish_reason,
                    completion_tokens,
                    outcome: Ok(read.repairs.clone()),
                });
                let done = Retried {
                    value: read.value,
                    repairs: read.repairs,
                    attempts: std::mem::take(&mut self.attempts),
                };
                super::measures::trace_ask(&done.attempts);
                Ok(Some(done))
            }
            Err(e) => {
                let again = e.retry_prompt();
                // A reply over a limit goes back cut short: the model is
                // to see that it ran on, not all of it again.
                let said = if e.kind() == ParseErrorKind::LimitExceeded {
                    clipped(&reply)
                } else {
                    reply.clone()
                };
                self.attempts.push(Attempt {
                    reply,
                    finish_reason,
                    completion_tokens,
                    outcome: Err(e),
                });
                if self.attempts.len() >= self.most {
                    let attempts = std::mem::take(&mut self.attempts);
                    super::measures::trace_ask(&attempts);
                    return Err(RetryError::Refused { attempts });
                }
                messages.push(json!({"role": "assistant", "content": said}));
                messages.push(json!({"role": "user", "content": again}));
                Ok(None)
            }
        }
    }
}

/// The first [`CLIPPED`] bytes of a reply (at a character's boundary) and a
/// mark that the rest is left out.
fn clipped(reply: &str) -> String {
    let mut end = CLIPPED.min(reply.len());
    while !reply.is_char_boundary(end) {
        end -= 1;
    }
    format!("{}\n[… {} more bytes]", &reply[..end], reply.len() - end)
}

/// How much of a reply over a limit goes back to the model in the retry.
const CLIPPED: usize = 2000;

/// What the model said: the completion's text and how the server said it ended.
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct Turn {
    /// The completion's text.
    pub content: String,
    /// How it ended (OpenAI's `finish_reason`, read by [`FinishReason::from_openai`]).
    pub finish_reason: FinishReason,
}

impl Turn {
    /// A reply and how it ended.
    pub fn new(content: impl Into<String>, finish_reason: FinishReason) -> Self {
        Turn {
            content: content.into(),
            finish_reason,
        }
    }
}

/// The value read at last, with every attempt, for counting how often a first
/// answer needed a second.
#[derive(Debug, Clone, PartialEq)]
#[non_exhaustive]
pub struct Retried<T> {
    /// The value of the attempt that read.
    pub value: T,
    /// That attempt's repairs.
    pub repairs: Vec<Repair>,
    /// Every attempt in order, the last the one that read.
    pub attempts: Vec<Attempt>,
}

impl<T> Retried<T> {
    /// The counts a dashboard reads of this ask: attempts, the repairs of
    /// the answer that read by kind, each refusal before it, the finish
    /// reasons and the tokens.
    pub fn measures(&self) -> Measures {
        Measures::of_attempts(&self.attempts)
    }
}

/// Why [`ToonOutputParser::parse_with_retries`] gave up.
#[derive(Debug)]
#[non_exhaustive]
pub enum RetryError<E> {
    /// Every attempt was refused; the last refusal is the last attempt's.
    Refused {
        /// Every attempt in order.
        attempts: Vec<Attempt>,
    },
    /// Sending the messages failed.
    Send {
        /// The sender's error.
        error: E,
        /// The attempts before it.
        attempts: Vec<Attempt>,
    },
}

impl<E> RetryError<E> {
    /// Every attempt made before giving up.
    pub fn attempts(&self) -> &[Attempt] {
        match self {
            RetryError::Refused { attempts } | RetryError::Send { attempts, .. } => attempts,
        }
    }

    /// The counts a dashboard reads of this ask ([`Retried::measures`]):
    /// no answer read.
    pub fn measures(&self) -> Measures {
        Measures::of_attempts(self.attempts())
    }
}

impl<E: fmt::Display> fmt::Display for RetryError<E> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            RetryError::Refused { attempts } => {
                let last = attempts.last().and_then(|a| a.outcome.as_ref().err());
                write!(f, "every one of {} attempts was refused", attempts.len())?;
                if let Some(e) = last {
                    write!(f, "; the last: {e}")?;
                }
                Ok(())
            }
            RetryError::Send { error, .. } => write!(f, "sending the request failed: {error}"),
        }
    }
}

impl<E: fmt::Debug + fmt::Display> std::error::Error for RetryError<E> {}
