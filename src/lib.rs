//! Host package for the cross-crate tests and examples. Its documentation is
//! the README, and each page of `docs/` a module of it, so that every Rust
//! block in them compiles and runs as a doctest.
#![doc = include_str!("../README.md")]

#[doc = include_str!("../ARCHITECTURE.md")]
pub mod architecture {}
#[doc = include_str!("../docs/replies.md")]
pub mod replies {}
#[doc = include_str!("../docs/types.md")]
pub mod types {}
#[doc = include_str!("../docs/constrained.md")]
pub mod constrained {}
#[doc = include_str!("../docs/runtime.md")]
pub mod runtime {}
#[doc = include_str!("../docs/streaming.md")]
pub mod streaming {}
#[doc = include_str!("../docs/limits.md")]
pub mod limits {}
#[doc = include_str!("../docs/servers.md")]
pub mod servers {}
